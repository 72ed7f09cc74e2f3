"""User roles shared by the profiles: informers, a stamping writer, node kubelets.

Every role talks through ``KubeClient`` (kube verbs as request types). Roles that hold a
stream run it in their own greenlet (``Informer``), so the user greenlet stays free and
Locust's stop kills the stream (``on_stop``).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import gevent.lock
from locust import User, constant, constant_throughput, task

from . import knobs
from .client import MERGE_PATCH, KubeClient, stamp
from .shape import sleep_until
from .watch import Informer

_names_lock = gevent.lock.Semaphore()
_names: dict[str, list[tuple[str, str]]] = {}


def seeded_names(client: KubeClient, path: str, name: str) -> list[tuple[str, str]]:
    """(namespace, name) of every object of a collection, listed once per process (the
    seeded cluster is large; each user listing it would be a list storm of its own)."""
    with _names_lock:
        if path not in _names:
            page = None
            while page is None:
                page = client.list(path, f"{name} (names)", resource_version="0")
            _names[path] = [(o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in page["items"]]
        return _names[path]


class KubeUser(User):
    """A user with a ``KubeClient``, which starts working at ``starts_at`` (a fraction of the
    run time; a role that joins a profile later); abstract."""

    abstract = True
    starts_at = 0.0

    def on_start(self) -> None:
        self.kube = KubeClient(self.host, self.environment)
        sleep_until(self.environment, self.starts_at)


class InformerUser(KubeUser):
    """One informer per entry of ``watches`` ((collection path, sample name, label selector));
    the user's own task idles."""

    abstract = True
    wait_time = constant(1)
    watches: tuple[tuple[str, str, str | None], ...] = (("/api/v1/pods", "pods", None),)

    def on_start(self) -> None:
        super().on_start()
        self.informers = [Informer(self.kube, path, name, label_selector=selector)
                          for path, name, selector in self.watches]
        for informer in self.informers:
            informer.start()

    def on_stop(self) -> None:
        for informer in self.informers:
            informer.stop()

    @task
    def idle(self) -> None:
        """The informers work in their greenlets."""


class PodAnnotator(KubeUser):
    """Steady writes: PATCHes a random seeded pod with the write stamp, ``WRITE_QPS`` per user
    (default 5); every watcher of pods gets each write as a MODIFIED event."""

    abstract = True
    wait_time = constant_throughput(knobs.number("WRITE_QPS", 5))

    @task
    def annotate(self) -> None:
        ns, name = random.choice(seeded_names(self.kube, "/api/v1/pods", "pods"))
        self.kube.call("PATCH", "pods", "PATCH", f"/api/v1/namespaces/{ns}/pods/{name}",
                       body={"metadata": {"annotations": stamp()}}, headers=MERGE_PATCH)


class Kubelet(KubeUser):
    """One node's heartbeat: renews its Lease every ``LEASE_PERIOD`` (default 10 s, kubelet's)
    with a PUT of the last Lease it read (UPDATE); on 409 it reads the Lease again."""

    abstract = True
    wait_time = constant(knobs.seconds("LEASE_PERIOD", "10s"))
    _next_node = 0

    def on_start(self) -> None:
        super().on_start()
        nodes = seeded_names(self.kube, "/api/v1/nodes", "nodes")
        # Each kubelet takes the next node, so N kubelets cover N nodes once each.
        self.node = nodes[Kubelet._next_node % len(nodes)][1]
        Kubelet._next_node += 1
        self.path = f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{self.node}"
        self.lease = self._read()
        gevent.sleep(random.uniform(0, self.wait_time()))  # nodes started at different times

    def _read(self) -> dict | None:
        response = self.kube.call("GET", "leases", "GET", self.path)
        return response.json() if response is not None else None

    @task
    def renew(self) -> None:
        if self.lease is None:
            self.lease = self._read()
            return
        self.lease["spec"]["renewTime"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        response = self.kube.call("UPDATE", "leases", "PUT", self.path, body=self.lease, ok=(200, 409))
        if response is None or response.status_code == 409:
            self.lease = self._read()
        else:
            self.lease = response.json()
