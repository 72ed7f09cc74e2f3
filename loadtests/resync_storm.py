"""Profile 4, resync storm: controllers that re-list everything every resync period.

Each controller runs informers on pods, deployments and replicasets, and every
``RESYNC_PERIOD`` re-lists all three (RESYNC, ``resourceVersion=""``), as operators that
"resync" by listing do. Periods are aligned to the wall clock, so controllers started
together resync together: the storm. ``RESYNC_JITTER`` (fraction of the period, default 0)
spreads them. ``TIME_SCALE`` compresses time: ``RESYNC_PERIOD=10h TIME_SCALE=1200`` is the
client-go default period, one resync every 30 s of wall time.

``-u`` is the number of controllers. Samples: LIST, WATCH_OPEN, RESYNC. Threshold: RESYNC
p99 <= 30 s (the cluster-scope LIST SLO).
"""

from __future__ import annotations

import random
import time

import gevent

from kubeload import knobs, report
from kubeload.users import InformerUser
from profiles import PROFILES

PERIOD = knobs.seconds("RESYNC_PERIOD", "30s") / knobs.number("TIME_SCALE", 1)
JITTER = knobs.number("RESYNC_JITTER", 0)
report.install(PROFILES["resync-storm"].thresholds)


class Controller(InformerUser):
    watches = (("/api/v1/pods", "pods", None),
               ("/apis/apps/v1/deployments", "deployments", None),
               ("/apis/apps/v1/replicasets", "replicasets", None))

    def on_start(self) -> None:
        super().on_start()
        self.resyncer = gevent.spawn(self._resync_forever)

    def on_stop(self) -> None:
        super().on_stop()
        self.resyncer.kill(block=False)

    def _resync_forever(self) -> None:
        offset = random.uniform(0, JITTER * PERIOD)
        while True:
            gevent.sleep(PERIOD - (time.time() % PERIOD) + offset)  # the next period boundary
            for informer in self.informers:
                self.kube.list(informer.path, informer.name, verb="RESYNC", resource_version="")
