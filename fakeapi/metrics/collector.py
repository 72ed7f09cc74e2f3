"""The metrics of one server, in kube-apiserver's names, labels and bucket edges, plus ``fakeapi_*``
histograms fine enough for sub-millisecond latencies.

Sources (k8s.io/apiserver, the release fakeapi emulates):
- ``pkg/endpoints/metrics/metrics.go``: apiserver_request_total, _request_duration_seconds,
  _request_sli_duration_seconds, _response_sizes, _longrunning_requests,
  _current_inflight_requests, _watch_events_total, _watch_events_sizes,
  _watch_list_duration_seconds;
- ``pkg/storage/cacher/metrics/metrics.go``: apiserver_init_events_total,
  apiserver_terminated_watchers_total, watch_cache_capacity (no ``apiserver_`` prefix);
- ``pkg/storage/etcd3/metrics/metrics.go``: etcd_request_duration_seconds (labels operation,
  group, resource since kube 1.34, PR #131845; ``type`` before), apiserver_resource_objects
  (replaces etcd_object_counts / apiserver_storage_objects);
- ``pkg/admission/metrics/metrics.go``: apiserver_admission_webhook_admission_duration_seconds,
  _webhook_request_total, _webhook_rejection_count, _webhook_fail_open_count;
- apiextensions-apiserver's ``pkg/apiserver/conversion/metrics.go``:
  apiserver_conversion_webhook_request_total, _conversion_webhook_duration_seconds,
  apiserver_crd_conversion_webhook_duration_seconds;
- ``k8s.io/component-base/metrics/version.go``: kubernetes_build_info.

Nothing here is observed through prometheus_client on the hot path: requests, store calls and
watches bump plain numbers (``BucketCounts``, ints; one event-loop thread, so no locks) and one
custom collector turns them into metric families at scrape time, on a registry per server. A
latency is observed once, into buckets whose edges are the union of kube's and the fine ones,
and each exported histogram takes its own edges from them: the cumulative count at an edge of a
subset is exact.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from ..admission.webhook.metrics import WEBHOOK_DURATION_EDGES
from ..apiextensions.conversion_metrics import CONVERSION_WEBHOOK_EDGES, CRD_CONVERSION_EDGES
from ..cacher.cache_watcher import FINE_LATENCY_EDGES, BucketCounts
from ..registry.registry import Registry
from ..registry.rest import ResourceStore
from .buckets import (
    LATENCY_EDGES,
    REQUEST_DURATION_EDGES,
    RESPONSE_SIZE_EDGES,
    SLI_DURATION_EDGES,
    WATCH_LIST_DURATION_EDGES,
)
from .storage_timing import TimedStore

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry
    from prometheus_client.core import HistogramMetricFamily, Metric

    from .remote_store_timing import TimedRemoteStore

COMPONENT = "apiserver"


def _add_buckets(family: HistogramMetricFamily, labels: list[str], counts: BucketCounts,
                 edges: tuple[float, ...] | None = None) -> None:
    """Add one series of ``counts`` with ``edges``, a subset of ``counts.edges`` (default: all)."""
    cumulative: dict[float, int] = {}
    running = 0
    for edge, n in zip(counts.edges, counts.counts):
        running += n
        cumulative[edge] = running
    total = running + counts.counts[-1]
    buckets = [(_le(edge), cumulative[edge]) for edge in (edges or counts.edges)]
    buckets.append(("+Inf", total))
    family.add_metric(labels, buckets, counts.sum)


def _le(edge: float) -> str:
    """``edge`` as client_golang writes ``le`` (Go's ``FormatFloat(f, 'g', -1, 64)``: "1", "0.005",
    "1e+06"), which PromQL matches as a string (CL2 counts slow calls with ``le="1"``). Python's
    ``g`` format is the same for edges of at most 6 significant digits, as all of ours are."""
    return format(edge, "g")


def _merge(into: BucketCounts | None, counts: BucketCounts) -> BucketCounts:
    if into is None:
        into = BucketCounts(counts.edges)
    for i, n in enumerate(counts.counts):
        into.counts[i] += n
    into.sum += counts.sum
    return into


class RequestKey(NamedTuple):
    """The labels kube gives a request (``MonitorRequest``), but the status code."""

    verb: str
    dry_run: str
    group: str
    version: str
    resource: str
    subresource: str
    scope: str


class RequestSeries:
    """What the requests of one ``RequestKey`` did."""

    __slots__ = ("codes", "latency", "sizes")

    def __init__(self, with_sizes: bool) -> None:
        self.codes: dict[int, int] = {}
        self.latency = BucketCounts(LATENCY_EDGES)
        #: Response sizes, kept for GET and LIST only, as kube does.
        self.sizes = BucketCounts(RESPONSE_SIZE_EDGES) if with_sizes else None


class InflightWatermark:
    """apiserver_current_inflight_requests: the most requests of a kind in flight at once during
    the last full second (kube's maxinflight filter samples its watermark every second)."""

    __slots__ = ("current", "_high", "_window_end", "reported")

    def __init__(self) -> None:
        self.current = 0
        self._high = 0
        self._window_end = 0.0
        self.reported = 0

    def change(self, delta: int, now: float) -> None:
        self.roll(now)
        self.current += delta
        if self.current > self._high:
            self._high = self.current

    def roll(self, now: float) -> None:
        if now < self._window_end:
            return
        # A window that ended with no change since had ``current`` in flight throughout.
        self.reported = self._high if now < self._window_end + 1.0 else self.current
        self._high = self.current
        self._window_end = now + 1.0


class ServerMetrics:
    """The numbers behind ``/metrics`` and the collector that exports them."""

    def __init__(self, registry: Registry, store: TimedStore | TimedRemoteStore, version: Mapping[str, str],
                 faults_fired: Mapping[str, int]) -> None:
        self.registry = registry
        self.store = store
        self.version = version
        #: Times each fault type fired (``fakeapi.faults.engine.Faults.totals``).
        self.faults_fired = faults_fired
        self.requests: dict[RequestKey, RequestSeries] = {}
        self.longrunning: dict[RequestKey, int] = {}
        self.inflight = {"readOnly": InflightWatermark(), "mutating": InflightWatermark()}
        self.watch_lists: dict[tuple[str, str, str, str], BucketCounts] = {}
        #: What ``/metrics`` exports: this and the collectors the server adds before the first scrape.
        self.collectors: list[Any] = [self]
        registry.on_resources_changed.append(self._resources_changed)
        self._resources_changed()

    @cached_property
    def prometheus(self) -> CollectorRegistry:
        """The registry ``/metrics`` reads, made at the first scrape: prometheus_client (with the
        HTTP server and WSGI modules its package loads) is a tenth of a plain start's imports."""
        from prometheus_client import CollectorRegistry

        prometheus = CollectorRegistry(auto_describe=False)
        for collector in self.collectors:
            prometheus.register(collector)
        return prometheus

    def _resources_changed(self) -> None:
        self.store.resource_prefixes = {
            resource_store.prefix.encode(): (resource_store.resource_type.group, resource_store.resource_type.plural)
            for resource_store in self._stores()}

    def _stores(self) -> list[ResourceStore]:
        return [resource_store for resource_store in self.registry.stores() if resource_store.resource_type.stored]

    # ----------------------------------------------------------------- recording

    def series(self, key: RequestKey, with_sizes: bool) -> RequestSeries:
        series = self.requests.get(key)
        if series is None:
            series = self.requests[key] = RequestSeries(with_sizes)
        return series

    def watch_list_latency(self, group: str, version: str, resource: str, scope: str) -> BucketCounts:
        key = (group, version, resource, scope)
        counts = self.watch_lists.get(key)
        if counts is None:
            counts = self.watch_lists[key] = BucketCounts(LATENCY_EDGES)
        return counts

    # ----------------------------------------------------------------- the collector

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily  # at the first scrape

        yield from self._request_metrics()
        yield from self._watch_cache_metrics()
        yield from self._storage_metrics()
        yield from self._webhook_metrics()
        yield from self._conversion_webhook_metrics()
        build = GaugeMetricFamily(
            "kubernetes_build_info",
            "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, "
            "build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
            labels=["major", "minor", "git_version", "git_commit", "git_tree_state", "build_date", "go_version",
                    "compiler", "platform"])
        v = self.version
        build.add_metric([v["major"], v["minor"], v["gitVersion"], v["gitCommit"], v["gitTreeState"], v["buildDate"],
                          v["goVersion"], v["compiler"], v["platform"]], 1)
        yield build
        faults = CounterMetricFamily("fakeapi_faults_fired_total", "Times each type of fault fired.", labels=["fault"])
        for fault, fired in sorted(self.faults_fired.items()):
            faults.add_metric([fault], fired)
        yield faults

    def _request_metrics(self) -> Iterator[Metric]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        labels = ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"]
        no_dry_run = [label for label in labels if label != "dry_run"]
        total = CounterMetricFamily(
            "apiserver_request_total",
            "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, "
            "scope, component, and HTTP response code.", labels=[*labels, "code"])
        duration = HistogramMetricFamily(
            "apiserver_request_duration_seconds",
            "Response latency distribution in seconds for each verb, dry run value, group, version, resource, "
            "subresource, scope and component.", labels=labels)
        sizes = HistogramMetricFamily(
            "apiserver_response_sizes",
            "Response size distribution in bytes for each group, version, verb, resource, subresource, scope and "
            "component.", labels=no_dry_run)
        without_dry_run: dict[tuple[str, ...], BucketCounts] = {}
        for key, series in self.requests.items():
            values = [*key, COMPONENT]
            for code, n in series.codes.items():
                total.add_metric([*values, str(code)], n)
            _add_buckets(duration, values, series.latency, REQUEST_DURATION_EDGES)
            short = (key.verb, *key[2:], COMPONENT)
            without_dry_run[short] = _merge(without_dry_run.get(short), series.latency)
            if series.sizes is not None:
                _add_buckets(sizes, list(short), series.sizes)
        sli = HistogramMetricFamily(
            "apiserver_request_sli_duration_seconds",
            "Response latency distribution (not counting webhook duration and priority & fairness queue wait "
            "times) in seconds for each verb, group, version, resource, subresource, scope and component.",
            labels=no_dry_run)
        fine = HistogramMetricFamily(
            "fakeapi_request_duration_seconds",
                          "Request handling time in seconds, in buckets from 10 µs.", labels=no_dry_run)
        for short, counts in without_dry_run.items():
            _add_buckets(sli, list(short), counts, SLI_DURATION_EDGES)
            _add_buckets(fine, list(short), counts, FINE_LATENCY_EDGES)
        longrunning = GaugeMetricFamily(
            "apiserver_longrunning_requests",
            "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, "
            "scope and component. Not all requests are tracked this way.", labels=no_dry_run)
        for key, n in self.longrunning.items():
            longrunning.add_metric([key.verb, *key[2:], COMPONENT], n)
        inflight = GaugeMetricFamily(
            "apiserver_current_inflight_requests",
            "Maximal number of currently used inflight request limit of this apiserver per request kind in last "
            "second.", labels=["request_kind"])
        now = time.perf_counter()
        for kind, watermark in self.inflight.items():
            watermark.roll(now)
            inflight.add_metric([kind], watermark.reported)
        watch_list = HistogramMetricFamily(
            "apiserver_watch_list_duration_seconds",
            "Response latency distribution in seconds for watch list requests broken by group, version, resource "
            "and scope.", labels=["group", "version", "resource", "scope"])
        for gvrs, counts in self.watch_lists.items():
            _add_buckets(watch_list, list(gvrs), counts, WATCH_LIST_DURATION_EDGES)
        yield from (total, duration, sli, fine, sizes, longrunning, inflight, watch_list)

    def _watch_cache_metrics(self) -> Iterator[Metric]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        gr, gvr = ["group", "resource"], ["group", "version", "resource"]
        events = CounterMetricFamily("apiserver_watch_events_total", "Number of events sent in watch clients",
                                     labels=gvr)
        sizes = HistogramMetricFamily(
            "apiserver_watch_events_sizes", "Watch event size distribution in bytes", labels=gvr)
        init = CounterMetricFamily("apiserver_init_events_total",
                                   "Counter of init events processed in watch cache broken by resource type.",
                                   labels=gr)
        terminated = CounterMetricFamily(
            "apiserver_terminated_watchers_total",
            "Counter of watchers closed due to unresponsiveness broken by resource type.", labels=gr)
        objects = GaugeMetricFamily(
            "apiserver_resource_objects",
            "Number of stored objects at the time of last check split by kind. In case of a fetching error, the "
            "value will be -1.", labels=gr)
        capacity = GaugeMetricFamily("watch_cache_capacity", "Total capacity of watch cache broken by resource type.",
                                     labels=gr)
        queued = HistogramMetricFamily(
            "fakeapi_watch_dispatch_queued_seconds",
            "Time from the store commit of an event to it being queued for every watcher of its resource.", labels=gr)
        written = HistogramMetricFamily(
            "fakeapi_watch_dispatch_written_seconds",
            "Time from the store commit of an event to it being written on a watcher's socket (once per write, "
            "for the oldest event written).", labels=gr)
        for resource_store in self._stores():
            resource_type, cacher = resource_store.resource_type, resource_store.cacher
            stats = cacher.stats
            group_resource = [resource_type.group, resource_type.plural]
            events.add_metric([resource_type.group, resource_type.version, resource_type.plural],
                              sum(stats.event_sizes.counts))
            _add_buckets(sizes, [resource_type.group, resource_type.version, resource_type.plural], stats.event_sizes)
            init.add_metric(group_resource, stats.init_events)
            terminated.add_metric(group_resource, cacher.terminated_watchers)
            objects.add_metric(group_resource, len(cacher.cache.objects))
            capacity.add_metric(group_resource, cacher.cache.capacity)
            _add_buckets(queued, group_resource, stats.queued_latency)
            _add_buckets(written, group_resource, stats.written_latency)
        yield from (events, sizes, init, terminated, objects, capacity, queued, written)

    def _storage_metrics(self) -> Iterator[Metric]:
        from prometheus_client.core import HistogramMetricFamily

        labels = ["operation", "group", "resource"]
        etcd = HistogramMetricFamily(
            "etcd_request_duration_seconds",
                          "Etcd request latency in seconds for each operation and object type.", labels=labels)
        fine = HistogramMetricFamily(
            "fakeapi_store_request_duration_seconds",
                          "Store call time in seconds for each operation and resource, in buckets from 10 µs.",
                          labels=labels)
        for key, counts in self.store.timings.items():
            _add_buckets(etcd, list(key), counts, REQUEST_DURATION_EDGES)
            _add_buckets(fine, list(key), counts, FINE_LATENCY_EDGES)
        yield from (etcd, fine)


    def _webhook_metrics(self) -> Iterator[Metric]:
        """kube's ``apiserver_admission_webhook_*`` (``k8s.io/apiserver/pkg/admission/metrics``),
        plus ``fakeapi_admission_webhook_duration_seconds`` in buckets from 10 µs."""
        from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily

        webhooks = self.registry.admission.webhook_metrics
        labels = ["name", "type", "operation", "rejected"]
        duration = HistogramMetricFamily(
            "apiserver_admission_webhook_admission_duration_seconds",
            "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and "
            "API resource and type (validate or admit).", labels=labels)
        fine = HistogramMetricFamily(
            "fakeapi_admission_webhook_duration_seconds",
            "Admission webhook call time in seconds, in buckets from 10 µs.", labels=labels)
        for key, counts in webhooks.durations.items():
            _add_buckets(duration, list(key), counts, WEBHOOK_DURATION_EDGES)
            _add_buckets(fine, list(key), counts, FINE_LATENCY_EDGES)
        requests = CounterMetricFamily(
            "apiserver_admission_webhook_request_total",
            "Admission webhook request total, identified by name and broken out for each admission type (validating "
            "or mutating) and operation.", labels=["name", "type", "operation", "code", "rejected"])
        for key, count in webhooks.requests.items():
            requests.add_metric(list(key), count)
        rejections = _counter_named_as_is(
            "apiserver_admission_webhook_rejection_count",
            "Admission webhook rejection count, identified by name and broken out for each admission type and "
            "operation.", ("name", "type", "operation", "error_type", "rejection_code"), webhooks.rejections)
        fail_open = _counter_named_as_is(
            "apiserver_admission_webhook_fail_open_count",
            "Admission webhook fail open count, identified by name and broken out for each admission type.",
            ("name", "type"), webhooks.fail_open)
        yield from (duration, fine, requests, rejections, fail_open)


    def _conversion_webhook_metrics(self) -> Iterator[Metric]:
        """apiextensions-apiserver's conversion webhook metrics."""
        from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily

        conversions = self.registry.conversion_metrics
        requests = CounterMetricFamily(
            "apiserver_conversion_webhook_request_total",
            "Counter for conversion webhook requests with success/failure and failure error type",
            labels=["result", "failure_type"])
        for key, count in conversions.requests.items():
            requests.add_metric(list(key), count)
        duration = HistogramMetricFamily(
            "apiserver_conversion_webhook_duration_seconds", "Conversion webhook request latency",
            labels=["result", "failure_type"])
        for key, counts in conversions.durations.items():
            _add_buckets(duration, list(key), counts, CONVERSION_WEBHOOK_EDGES)
        per_crd = HistogramMetricFamily(
            "apiserver_crd_conversion_webhook_duration_seconds", "CRD webhook conversion duration in seconds",
            labels=["crd_name", "from_version", "to_version", "succeeded"])
        for key, counts in conversions.conversions.items():
            _add_buckets(per_crd, list(key), counts, CRD_CONVERSION_EDGES)
        yield from (requests, duration, per_crd)


def _counter_named_as_is(name: str, documentation: str, labels: tuple[str, ...],
                         counts: Mapping[tuple[str, ...], int]) -> Metric:
    """A counter whose samples keep kube's name, which does not end in ``_total``
    (prometheus_client's CounterMetricFamily would add it)."""
    from prometheus_client.core import Metric

    metric = Metric(name, documentation, "counter")
    for key, count in counts.items():
        metric.add_sample(name, dict(zip(labels, key)), count)
    return metric


def version_labels(version: Mapping[str, Any]) -> dict[str, str]:
    """The ``/version`` body's fields as strings, for kubernetes_build_info."""
    return {name: str(value) for name, value in version.items()}
