"""Profile 3, informer cold start and relist storm: all informers (pods, all namespaces)
start at once (each a LIST RV=0 of the whole cluster, then a WATCH); at half the run an
apiserver "restart" (``POST /fakeapi/v1/faults/restart``: every watch ends, every watch
cache drops its history) sends them all back: their re-watch gets 410 and they RELIST.

A writer keeps pods changing. The restarted server registers its master lease before its
caches relist, so even an informer that saw the last write is behind them.
``-u`` is the number of informers. Knobs (env ``LOAD_<NAME>``): ``WRITE_QPS`` (default 5).
Samples: LIST, WATCH_OPEN, WATCH_EVENT, RELIST, RESTART (the fault call). Thresholds: LIST and
RELIST p99 <= 30 s.
"""

from __future__ import annotations

from locust import constant, task

from kubeload import report
from kubeload.shape import StagedShape
from kubeload.users import InformerUser, KubeUser, PodAnnotator
from profiles import PROFILES

report.install(PROFILES["informer-relist"].thresholds)


class Informer(InformerUser):
    pass


class Writer(PodAnnotator):
    fixed_count = 1


class Restarter(KubeUser):
    """Restarts the apiserver once at half time (the restarted server's caches start past every
    informer's resourceVersion, so every re-watch gets 410)."""

    fixed_count = 1
    starts_at = 0.5
    wait_time = constant(3600)

    @task
    def restart(self) -> None:
        self.kube.call("RESTART", "faults/restart", "POST", "/fakeapi/v1/faults/restart", body={})


class Stages(StagedShape):
    """Every informer starts at once (the cold start), and stays for the restart."""
