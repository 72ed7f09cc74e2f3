"""batch/v1 defaulting: ``pkg/apis/batch/v1/defaults.go`` and what ``zz_generated.defaults.go``
adds (pod failure policy patterns, the pod template's defaults)."""

from __future__ import annotations

from ..fields import Json, default, default_empty, get, items, struct
from ..podtemplates import set_defaults_pod_template_spec

#: ``math.MaxInt32``: the backoff limit of a Job with a backoff limit per index.
MAX_INT32 = 2**31 - 1


def _set_defaults_pod_failure_policy(job_spec: Json) -> None:
    for rule in items(job_spec.get("podFailurePolicy"), "rules"):
        for pattern in items(rule, "onPodConditions"):
            default_empty(pattern, "status", "True")


def set_defaults_job(obj: Json) -> None:
    spec = struct(obj, "spec")
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    default(spec, "parallelism", 1)
    default(spec, "backoffLimit", MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6)
    template_labels = get(spec, "template", "metadata", "labels")
    if template_labels is not None and not get(obj, "metadata", "labels"):
        # The same map, as Go's assignment shares it: what the strategy then adds to the
        # template's labels (the generated selector's) the Job's labels get too.
        struct(obj, "metadata")["labels"] = template_labels
    default(spec, "completionMode", "NonIndexed")
    default(spec, "suspend", False)
    default(spec, "podReplacementPolicy", "Failed" if spec.get("podFailurePolicy") is not None else "TerminatingOrFailed")
    default(spec, "manualSelector", False)
    _set_defaults_pod_failure_policy(spec)
    set_defaults_pod_template_spec(struct(spec, "template"))


def set_defaults_cron_job(obj: Json) -> None:
    spec = struct(obj, "spec")
    default_empty(spec, "concurrencyPolicy", "Allow")
    default(spec, "suspend", False)
    default(spec, "successfulJobsHistoryLimit", 3)
    default(spec, "failedJobsHistoryLimit", 1)
    job_spec = struct(struct(spec, "jobTemplate"), "spec")
    _set_defaults_pod_failure_policy(job_spec)
    set_defaults_pod_template_spec(struct(job_spec, "template"))
