"""Profile 2, watch fan-out: many watchers of all pods, a few steady writers; every write is
delivered to every watcher, so events/s = writes/s x watchers.

Stages (fractions of --run-time): 0-10% half the watchers connect, then all of them, idle
(bookmarks only) until 20%; from 20% the writers PATCH seeded pods with a write stamp.
``-u`` is the number of watchers. Knobs (env ``LOAD_<NAME>``): ``WRITERS`` (default 2),
``WRITE_QPS`` per writer (5). Samples: LIST, WATCH_OPEN, WATCH_EVENT (write-to-delivery
latency), BOOKMARK, PATCH. Thresholds: WATCH_EVENT p99 <= 1 s, PATCH p99 <= 1 s.
"""

from __future__ import annotations

from kubeload import knobs, report
from kubeload.shape import StagedShape
from kubeload.users import InformerUser, PodAnnotator
from profiles import PROFILES

report.install(PROFILES["watch-fanout"].thresholds)


class Watcher(InformerUser):
    pass


class Writer(PodAnnotator):
    fixed_count = knobs.integer("WRITERS", 2)
    starts_at = 0.2


class Stages(StagedShape):
    stages = ((0.1, 0.5), (1.0, 1.0))
