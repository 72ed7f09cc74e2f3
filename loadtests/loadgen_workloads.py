"""The Go load generator's pod workloads (``benchmarks/loadgen``, client-go), driven the same way
from Locust, so that the two load clients can be compared on one server
(``benchmarks/locust_vs_loadgen.py``, ``make bench-agree``). Every user is one closed-loop
client, as each of the generator's clients is: the next request as soon as the previous one
answered, no wait time, one connection in use. JSON both ways (run the generator with
``--content-type json``). One Locust process: the users number themselves in that process.

``WORKLOAD`` (env ``LOAD_<NAME>``) picks the user class:

* ``create`` (``loadgen create``): POSTs of the generator's realistic pod into ``NAMESPACE``
  (created first if missing, as the generator does), each user taking the next index (a
  process-wide counter from ``FIRST``, the generator's --first) as the generator's clients do. The
  body is ``POD_FILE`` (written by ``loadgen pod``: the pod as the typed client encodes it) with
  the name and the shard label of the index, the two fields ``realisticPod(i)`` varies.
* ``merge`` (``loadgen mutate --verb merge``): merge PATCHes of the counter annotation of the
  first ``PODS`` pods of ``NAMESPACE`` (in name order); user ``c`` of ``N`` goes round the pods
  ``c, c + N, ...``, its ``n``-th patch writing ``n``, so no two users write the same pod.
* ``list`` (``loadgen list --mode rv0``): LISTs of ``NAMESPACE``'s pods with resourceVersion=0
  (from the watch cache), the body read to the end and not decoded beyond its metadata.

Samples: CREATE, PATCH or LIST. No thresholds: this profile measures, it does not judge.
Not in ``profiles.PROFILES``: it needs a namespace of the generator's pods and its pod file.
"""

from __future__ import annotations

import itertools

import orjson
from locust import constant, task

from kubeload import knobs, report
from kubeload.client import MERGE_PATCH
from kubeload.users import KubeUser, seeded_names
from profiles import LOADGEN_WORKLOADS

WORKLOAD = knobs.text("WORKLOAD", "merge")
if WORKLOAD not in ("create", "merge", "list"):
    raise ValueError(f"LOAD_WORKLOAD is create, merge or list, not {WORKLOAD!r}")
NAMESPACE = knobs.text("NAMESPACE", "bench")
PODS_PATH = f"/api/v1/namespaces/{NAMESPACE}/pods"
#: The generator's label and annotation keys and pod names (benchmarks/loadgen/objects.go).
SHARD_LABEL, SHARD_COUNT = "bench.fakeapi.dev/shard", 10
COUNTER_ANNOTATION = "bench.fakeapi.dev/counter"
report.install(LOADGEN_WORKLOADS.thresholds)

_next_pod = itertools.count(knobs.integer("FIRST", 0))
_next_user = itertools.count()


def pod_name(index: int) -> str:
    return f"web-5d4f8c7b9-{index:06d}"


class PodCreator(KubeUser):
    abstract = WORKLOAD != "create"
    wait_time = constant(0)

    def on_start(self) -> None:
        super().on_start()
        self.template = orjson.loads(open(knobs.text("POD_FILE", "")).read())  # noqa: SIM115 (read once)
        self.kube.call("CREATE", "namespaces", "POST", "/api/v1/namespaces", body={"metadata": {"name": NAMESPACE}},
                       ok=(201, 409))

    @task
    def create(self) -> None:
        index = next(_next_pod)
        metadata = self.template["metadata"]
        labels = {**metadata["labels"], SHARD_LABEL: str(index % SHARD_COUNT)}
        pod = {**self.template, "metadata": {**metadata, "name": pod_name(index), "labels": labels}}
        self.kube.call("CREATE", "pods", "POST", PODS_PATH, body=pod, ok=(201,))


class PodPatcher(KubeUser):
    abstract = WORKLOAD != "merge"
    wait_time = constant(0)

    def on_start(self) -> None:
        super().on_start()
        names = seeded_names(self.kube, PODS_PATH, "pods")[: knobs.integer("PODS", 1000)]
        user, users = next(_next_user), self.environment.runner.target_user_count
        self.own = [f"{PODS_PATH}/{name}" for _namespace, name in names[user::users]]
        self.writes = itertools.count()

    @task
    def patch(self) -> None:
        n = next(self.writes)
        self.kube.call("PATCH", "pods", "PATCH", self.own[n % len(self.own)],
                       body={"metadata": {"annotations": {COUNTER_ANNOTATION: str(n)}}}, headers=MERGE_PATCH)


class PodLister(KubeUser):
    abstract = WORKLOAD != "list"
    wait_time = constant(0)

    @task
    def list_from_cache(self) -> None:
        self.kube.list(PODS_PATH, "pods RV=0", resource_version="0")
