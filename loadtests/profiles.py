"""The load profiles: what each runs against, with what, and what it must meet.

Pure data (no Locust import), shared by the locustfiles, ``run.py`` and the tests. Each
profile's scenario and knobs are documented in its locustfile and in ``loadtests/README.md``.
``test`` is the short CI variant: a smaller seed and run, the same code paths.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Watch-heavy profiles compress kube's 60 s bookmark cadence so short runs see bookmarks.
FAST_BOOKMARKS = ("--bookmark-interval", "2s")


@dataclass(frozen=True)
class Variant:
    seed: str
    users: int
    duration: str
    knobs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Profile:
    name: str
    locustfile: str
    summary: str
    full: Variant
    test: Variant
    #: Custom request types the profile must produce samples of (the CI check).
    request_types: tuple[str, ...]
    #: ``TYPE:pNN=MS`` items; kube's SLOs where one applies (LIST 30 s, mutating calls 1 s).
    thresholds: str
    server_args: tuple[str, ...] = ()
    #: Users started per second (a shape may start more at once).
    spawn_rate: float = 10


_CLUSTER = "namespaces=10,nodes=50,pods=5000,deployments=200,statefulsets=50,revisions=10,configmaps=200,configmap-bytes=2048,secrets=100,seed=1"
_SMALL_CLUSTER = "namespaces=4,nodes=10,pods=500,deployments=20,statefulsets=5,revisions=3,configmaps=20,secrets=10,seed=1"

PROFILES = {p.name: p for p in (
    Profile(
        "list-storm", "list_storm.py",
        "RV=0 vs RV='' vs paged vs label-selector LISTs of pods over a large seeded cluster",
        full=Variant(_CLUSTER, users=20, duration="60s"),
        test=Variant(_SMALL_CLUSTER, users=4, duration="5s"),
        request_types=("LIST",),
        thresholds="LIST:p99=30000",
    ),
    Profile(
        "watch-fanout", "watch_fanout.py",
        "many pod watchers, steady pod writers; write-to-delivery latency",
        full=Variant(_CLUSTER, users=50, duration="60s", knobs={"WRITERS": "2", "WRITE_QPS": "10"}),
        test=Variant(_SMALL_CLUSTER, users=10, duration="8s", knobs={"WRITERS": "2", "WRITE_QPS": "10"}),
        request_types=("LIST", "WATCH_OPEN", "WATCH_EVENT", "BOOKMARK", "PATCH"),
        thresholds="WATCH_EVENT:p99=1000,PATCH:p99=1000",
        server_args=FAST_BOOKMARKS, spawn_rate=50,
    ),
    Profile(
        "informer-relist", "informer_relist.py",
        "many informers start together; a forced apiserver restart makes them all relist",
        full=Variant(_CLUSTER, users=100, duration="60s"),
        # 16 s: the restart comes at half time, and the informers' re-watch, 410 and RELIST must
        # fit in the half after it on a loaded 2-core machine.
        test=Variant(_SMALL_CLUSTER, users=10, duration="16s"),
        request_types=("LIST", "WATCH_OPEN", "WATCH_EVENT", "RELIST", "RESTART"),
        thresholds="LIST:p99=30000,RELIST:p99=30000",
        server_args=FAST_BOOKMARKS,
    ),
    Profile(
        "resync-storm", "resync_storm.py",
        "controllers re-list everything every resync period, in lock-step (30 s; 10 h compressed)",
        full=Variant(_CLUSTER, users=30, duration="90s", knobs={"RESYNC_PERIOD": "30s"}),
        test=Variant(_SMALL_CLUSTER, users=6, duration="7s", knobs={"RESYNC_PERIOD": "2s"}),
        request_types=("LIST", "WATCH_OPEN", "RESYNC"),
        thresholds="RESYNC:p99=30000",
        spawn_rate=100,
    ),
    Profile(
        "cluster-churn", "cluster_churn.py",
        "clusterloader2-style churn: deployments and pods created, scaled, deleted at a set pace "
        "while every node renews its Lease every 10 s",
        full=Variant(_CLUSTER, users=4, duration="120s", knobs={"POD_QPS": "20"}),
        test=Variant(_SMALL_CLUSTER, users=2, duration="8s", knobs={"POD_QPS": "20", "LEASE_PERIOD": "2s", "NODES": "10",
                                                                "MAX_DEPLOYMENTS": "1", "REPLICAS": "4"}),
        request_types=("CREATE", "PATCH", "DELETE", "UPDATE", "WATCH_OPEN", "WATCH_EVENT"),
        thresholds="CREATE:p99=1000,UPDATE:p99=1000,PATCH:p99=1000,DELETE:p99=1000",
        server_args=FAST_BOOKMARKS,
    ),
    Profile(
        "statefulset-revisions", "statefulset_revisions.py",
        "5,000 StatefulSets with 10 ControllerRevisions each, revisions listed per set by label selector",
        full=Variant("namespaces=50,statefulsets=5000,revisions=10,seed=1", users=20, duration="60s"),
        test=Variant("namespaces=5,statefulsets=300,revisions=10,seed=1", users=4, duration="5s"),
        request_types=("LIST",),
        thresholds="LIST:p99=5000",
    ),
    Profile(
        "get-patch", "get_patch.py",
        "single-object GETs and PATCHes of pods, unpaced: the per-request cost (and the load clients' own)",
        full=Variant(_CLUSTER, users=20, duration="60s"),
        test=Variant(_SMALL_CLUSTER, users=4, duration="5s"),
        request_types=("GET", "PATCH"),
        thresholds="GET:p99=1000,PATCH:p99=1000",
    ),
)}

#: The Go load generator's pod workloads from Locust (``loadgen_workloads.py``); not in ``PROFILES``
#: (no seed of its own: it runs against the namespace of pods and the pod file the generator made),
#: run by ``benchmarks/locust_vs_loadgen.py``.
LOADGEN_WORKLOADS = Profile(
    "loadgen-workloads", "loadgen_workloads.py",
    "the Go load generator's pod creates, merge patches and LISTs, each user a closed-loop client",
    full=Variant("", users=16, duration="15s"),
    test=Variant("", users=2, duration="3s"),
    request_types=("CREATE", "PATCH", "LIST"),
    thresholds="",
    spawn_rate=1000,
)
