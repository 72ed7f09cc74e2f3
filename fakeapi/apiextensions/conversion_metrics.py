"""What CRD conversion webhooks cost and answered, as apiextensions-apiserver counts it
(``pkg/apiserver/conversion/metrics.go``): plain numbers bumped where a call ends, turned into
``apiserver_conversion_webhook_*`` and ``apiserver_crd_conversion_webhook_duration_seconds``
by the server's collector at scrape time (``fakeapi.metrics``, above in the layers)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cacher.cache_watcher import BucketCounts

#: ``apiserver_conversion_webhook_duration_seconds``'s buckets ("from 5 ms to 60 seconds").
CONVERSION_WEBHOOK_EDGES = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 45.0, 60.0)
#: ``apiserver_crd_conversion_webhook_duration_seconds``'s: ``ExponentialBuckets(0.001, 2, 15)``.
CRD_CONVERSION_EDGES = tuple(0.001 * 2 ** i for i in range(15))

#: ``ConversionWebhookErrorType``: where a call failed. A call that answered no 2xx, or not at
#: all; an answer kube refuses (its kind, uid, a result other than Success); the wrong number of
#: objects; an object kube refuses (its group, version, kind, identity or metadata).
CALL_FAILURE = "conversion_webhook_call_failure"
MALFORMED_RESPONSE = "conversion_webhook_malformed_response_failure"
PARTIAL_RESPONSE = "conversion_webhook_partial_response_failure"
INVALID_CONVERTED_OBJECT = "conversion_webhook_invalid_converted_object_failure"


@dataclass
class ConversionMetrics:
    """(result, failure type) -> calls and their latencies; (CRD name, from version, to version,
    succeeded) -> conversions' latencies."""

    requests: dict[tuple[str, str], int] = field(default_factory=dict)
    durations: dict[tuple[str, str], BucketCounts] = field(default_factory=dict)
    conversions: dict[tuple[str, str, str, str], BucketCounts] = field(default_factory=dict)

    def observe(self, crd_name: str, from_version: str, to_version: str, seconds: float, failure_type: str) -> None:
        """One call of a CRD's webhook (``failure_type`` empty: it converted)."""
        key = ("failure", failure_type) if failure_type else ("success", "")
        self.requests[key] = self.requests.get(key, 0) + 1
        _bucket(self.durations, key, CONVERSION_WEBHOOK_EDGES).observe(seconds)
        conversion = (crd_name, from_version, to_version, "false" if failure_type else "true")
        _bucket(self.conversions, conversion, CRD_CONVERSION_EDGES).observe(seconds)


def _bucket(series: dict, key: tuple[str, ...], edges: tuple[float, ...]) -> BucketCounts:  # type: ignore[type-arg]
    counts = series.get(key)
    if counts is None:
        counts = series[key] = BucketCounts(edges)
    return counts
