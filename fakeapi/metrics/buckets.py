"""Histogram bucket edges: kube-apiserver's, by the metric that uses them, and ``LATENCY_EDGES``,
where every latency is observed (``collector.py`` exports each histogram with its own subset)."""

from __future__ import annotations

from ..cacher.cache_watcher import FINE_LATENCY_EDGES

#: apiserver_request_duration_seconds (and etcd_request_duration_seconds, "keep consistent").
REQUEST_DURATION_EDGES = (0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0,
                          4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0, 30.0, 45.0, 60.0)
#: apiserver_request_sli_duration_seconds.
SLI_DURATION_EDGES = (0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0,
                      10.0, 15.0, 20.0, 30.0, 45.0, 60.0)
#: apiserver_watch_list_duration_seconds.
WATCH_LIST_DURATION_EDGES = (0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0, 15.0,
                             20.0, 30.0, 45.0, 60.0)
#: apiserver_response_sizes: ``ExponentialBuckets(1000, 10.0, 7)``, 1 kB ... 1 GB.
RESPONSE_SIZE_EDGES = tuple(1000.0 * 10**k for k in range(7))
#: Where every latency is observed: kube's edges and the fine ones together.
LATENCY_EDGES = tuple(sorted({*FINE_LATENCY_EDGES, *REQUEST_DURATION_EDGES, *SLI_DURATION_EDGES,
                              *WATCH_LIST_DURATION_EDGES}))
