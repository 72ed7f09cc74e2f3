"""What the webhooks cost and answered, as kube-apiserver counts it
(``k8s.io/apiserver/pkg/admission/metrics``): plain numbers bumped where a call ends, turned into
``apiserver_admission_webhook_*`` metric families by the server's collector at scrape time (the
collector lives above admission in the layers: ``fakeapi.metrics``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...cacher.cache_watcher import FINE_LATENCY_EDGES, BucketCounts

#: ``webhook_admission_duration_seconds``'s buckets, and fine ones for sub-millisecond calls.
WEBHOOK_DURATION_EDGES = (0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10.0, 25.0)
_EDGES = tuple(sorted(set(WEBHOOK_DURATION_EDGES) | set(FINE_LATENCY_EDGES)))

#: kube's ``type`` label: a mutating webhook's step is "admit".
ADMIT, VALIDATING = "admit", "validating"
#: ``WebhookRejectionErrorType``.
CALLING_WEBHOOK_ERROR, APISERVER_INTERNAL_ERROR, NO_ERROR = "calling_webhook_error", "apiserver_internal_error", "no_error"


@dataclass
class WebhookMetrics:
    """(name, type, operation, rejected) -> call latencies; (name, type, operation, code,
    rejected) -> calls; (name, type, operation, error type, rejection code) -> rejections;
    (name, type) -> calls that failed open."""

    durations: dict[tuple[str, str, str, str], BucketCounts] = field(default_factory=dict)
    requests: dict[tuple[str, str, str, str, str], int] = field(default_factory=dict)
    rejections: dict[tuple[str, str, str, str, str], int] = field(default_factory=dict)
    fail_open: dict[tuple[str, str], int] = field(default_factory=dict)

    def observe(self, name: str, step: str, operation: str, seconds: float, rejected: bool, code: int) -> None:
        """``ObserveWebhook``: one call (codes over 600 are 600, as kube bounds them)."""
        flag = "true" if rejected else "false"
        key = (name, step, operation, flag)
        counts = self.durations.get(key)
        if counts is None:
            counts = self.durations[key] = BucketCounts(_EDGES)
        counts.observe(seconds)
        request = (name, step, operation, str(min(code, 600)), flag)
        self.requests[request] = self.requests.get(request, 0) + 1

    def rejected(self, name: str, step: str, operation: str, error_type: str, code: int) -> None:
        """``ObserveWebhookRejection``."""
        key = (name, step, operation, error_type, str(min(code, 600)))
        self.rejections[key] = self.rejections.get(key, 0) + 1

    def failed_open(self, name: str, step: str) -> None:
        """``ObserveWebhookFailOpen``."""
        self.fail_open[(name, step)] = self.fail_open.get((name, step), 0) + 1
