"""Profile 1, list storm: every user LISTs pods cluster-wide in the four ways clients do.

* ``pods RV=0``: from the watch cache, no limit honoured (what informers' first list does);
* ``pods RV=""``: a consistent read (waits for the cache to catch up with the store);
* ``pods limit=N``: paged, each page a sample (``... page``) and the whole walk one;
* ``pods app=<deployment>``: a label-selector LIST, as controllers list their pods.

Knobs (env ``LOAD_<NAME>``): ``LIST_RESOURCE`` collection path (default /api/v1/pods),
``PAGE_SIZE`` (500, client-go's pager), ``LIST_QPS`` per user (default 2).
Samples: LIST. Threshold: kube's SLO for cluster-scope LIST, p99 <= 30 s.
"""

from __future__ import annotations

import random

from locust import constant_throughput, task

from kubeload import knobs, report
from kubeload.users import KubeUser, seeded_names
from profiles import PROFILES

PATH = knobs.text("LIST_RESOURCE", "/api/v1/pods")
PAGE_SIZE = knobs.integer("PAGE_SIZE", 500)
NAME = PATH.rsplit("/", 1)[-1]
report.install(PROFILES["list-storm"].thresholds)


class Lister(KubeUser):
    wait_time = constant_throughput(knobs.number("LIST_QPS", 2))

    @task
    def list_from_cache(self) -> None:
        self.kube.list(PATH, f"{NAME} RV=0", resource_version="0")

    @task
    def list_consistent(self) -> None:
        self.kube.list(PATH, f'{NAME} RV=""', resource_version="")

    @task
    def list_paged(self) -> None:
        self.kube.list(PATH, f"{NAME} limit={PAGE_SIZE}", limit=PAGE_SIZE)

    @task
    def list_by_label(self) -> None:
        _ns, app = random.choice(seeded_names(self.kube, "/apis/apps/v1/deployments", "deployments"))
        self.kube.list(PATH, f"{NAME} app=<deployment>", label_selector=f"app={app}")
