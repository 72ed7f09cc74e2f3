"""User roles shared by the profiles: informers, a stamping writer; node kubelets.

Every role talks through ``KubeClient`` (kube verbs as request types). Roles that hold a
stream run it in their own greenlet (``Informer``), so the user greenlet stays free and
Locust's stop kills the stream (``on_stop``).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import gevent.lock
import gevent.pool
from locust import User, constant, constant_throughput, events, task
from locust.env import Environment
from locust.runners import MasterRunner

from . import knobs, layout
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
            names = None
            while names is None:
                names = client.list_names(path, f"{name} (names)", resource_version="0")
            _names[path] = names
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


class NodeHeartbeats:
    """The kubelets of the first ``nodes`` seeded nodes: each renews its node's Lease every
    ``period`` (kubelet's: 10 s) with a PUT of the last Lease it read (UPDATE); on 409 it
    reads the Lease again (GET). Not Locust users: each worker process runs the kubelets of
    its share of the nodes (``layout.slot``: nodes index, index + workers, ...) in greenlets
    from the test's start to its stop, so every node has exactly one kubelet however many
    processes the run has (Locust does not say which worker gets which user). ``install``
    wires them to the run."""

    def __init__(self, environment: Environment, nodes: int, period: float) -> None:
        self.environment = environment
        self.nodes = nodes
        self.period = period
        self.greenlets = gevent.pool.Group()

    @classmethod
    def install(cls, nodes: int, period: float) -> None:
        running: list[NodeHeartbeats] = []

        @events.test_start.add_listener
        def start(environment: Environment, **_kwargs: object) -> None:
            if not isinstance(environment.runner, MasterRunner):
                running.append(heartbeats := cls(environment, nodes, period))
                heartbeats.greenlets.spawn(heartbeats._start)

        @events.test_stop.add_listener
        def stop(**_kwargs: object) -> None:
            while running:
                running.pop().greenlets.kill(block=False)

    def _start(self) -> None:
        client = KubeClient(self.environment.host, self.environment)
        index, workers = layout.slot(self.environment)
        for _namespace, node in seeded_names(client, "/api/v1/nodes", "nodes")[: self.nodes][index::workers]:
            self.greenlets.spawn(self._kubelet, client, node)

    def _kubelet(self, client: KubeClient, node: str) -> None:
        path = f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{node}"

        def read() -> dict | None:
            response = client.call("GET", "leases", "GET", path)
            return response.json() if response is not None else None

        lease = read()
        gevent.sleep(random.uniform(0, self.period))  # nodes started at different times
        while True:
            if lease is not None:
                lease["spec"]["renewTime"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
                response = client.call("UPDATE", "leases", "PUT", path, body=lease, ok=(200, 409))
                lease = response.json() if response is not None and response.status == 200 else read()
            else:
                lease = read()
            gevent.sleep(self.period)
