"""Profile 6, StatefulSet history: 5,000 StatefulSets with 10 ControllerRevisions each; each
sync of a set LISTs its revisions by the set's label selector in its namespace, as the
StatefulSet controller does on every resync (the controller-manager resync case).

Knobs (env ``LOAD_<NAME>``): ``LIST_QPS`` per user (default 10), ``LIST_RV`` the lists'
resourceVersion (default "" = consistent read; "0" = from the watch cache).
Samples: LIST. Threshold: LIST p99 <= 5 s (kube's namespace-scope LIST bucket).
"""

from __future__ import annotations

import random

from locust import constant_throughput, task

from kubeload import knobs, report
from kubeload.users import KubeUser, seeded_names
from profiles import PROFILES

RESOURCE_VERSION = knobs.text("LIST_RV", "")
report.install(PROFILES["statefulset-revisions"].thresholds)


class StatefulSetController(KubeUser):
    wait_time = constant_throughput(knobs.number("LIST_QPS", 10))

    @task
    def sync_one_set(self) -> None:
        ns, name = random.choice(seeded_names(self.kube, "/apis/apps/v1/statefulsets", "statefulsets"))
        self.kube.list(f"/apis/apps/v1/namespaces/{ns}/controllerrevisions", "controllerrevisions app=<set>",
                       resource_version=RESOURCE_VERSION, label_selector=f"app={name}")
