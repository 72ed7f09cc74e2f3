"""Profile 7, single-object reads and writes: every user GETs a random seeded pod and PATCHes
one (a merge patch of the write stamp annotation), back to back, unpaced by default: the
apiserver's per-request cost, and the profile to compare load clients on.

Knobs (env ``LOAD_<NAME>``): ``QPS`` per user (default 0: as fast as the server answers; a
GET and a PATCH count as two), ``CLIENT`` (``fast``, default: ``KubeClient`` on
geventhttpclient; ``requests``: the same calls through Locust's requests-based ``HttpUser``,
the baseline ``client_bench.py`` measures the fast client against).
Samples: GET, PATCH. Thresholds: kube's 1 s SLO for single-object calls, p99.
"""

from __future__ import annotations

import random

import orjson
from locust import HttpUser, constant, constant_throughput, task

from kubeload import knobs, report
from kubeload.client import MERGE_PATCH, KubeClient, stamp
from kubeload.users import KubeUser, seeded_names
from profiles import PROFILES

CLIENT = knobs.text("CLIENT", "fast")
if CLIENT not in ("fast", "requests"):
    raise ValueError(f"LOAD_CLIENT is fast or requests, not {CLIENT!r}")
QPS = knobs.number("QPS", 0)
report.install(PROFILES["get-patch"].thresholds)


WAIT_TIME = constant_throughput(QPS / 2) if QPS else constant(0)  # a GET and a PATCH per task


def _pod_path(names: list[tuple[str, str]]) -> str:
    namespace, name = random.choice(names)
    return f"/api/v1/namespaces/{namespace}/pods/{name}"


class PodReaderWriter(KubeUser):
    abstract = CLIENT != "fast"
    wait_time = WAIT_TIME

    def on_start(self) -> None:
        super().on_start()
        self.names = seeded_names(self.kube, "/api/v1/pods", "pods")

    @task
    def get_and_patch(self) -> None:
        self.kube.call("GET", "pods", "GET", _pod_path(self.names))
        self.kube.call("PATCH", "pods", "PATCH", _pod_path(self.names),
                       body={"metadata": {"annotations": stamp()}}, headers=MERGE_PATCH)


class RequestsPodReaderWriter(HttpUser):
    """The same calls through Locust's ``HttpUser`` (a ``requests.Session``, as the profiles
    used before); the pod names are listed once with the fast client."""

    abstract = CLIENT != "requests"
    wait_time = WAIT_TIME

    def on_start(self) -> None:
        self.names = seeded_names(KubeClient(self.host, self.environment), "/api/v1/pods", "pods")

    @task
    def get_and_patch(self) -> None:
        self.client.get(_pod_path(self.names), name="pods", headers={"Accept": "application/json"})
        self.client.patch(_pod_path(self.names), data=orjson.dumps({"metadata": {"annotations": stamp()}}),
                          name="pods", headers=MERGE_PATCH)
