"""What create and update do to batch objects beyond the generic registry
(``pkg/registry/batch/{job,cronjob}/strategy.go``): generation, the pod template's disabled
fields, and a Job's generated selector: without ``manualSelector``, its selector and its pods'
identifying labels are made of its name and uid. Plus the strategies' warnings."""

from __future__ import annotations

from ..fields import Json, get, struct
from ..podtemplates import name_warnings, warnings_for_pod_template
from ..strategies import first_generation, set_generation

#: ``batch.JobNameLabel``, ``LegacyJobNameLabel``, ``ControllerUidLabel``, ``LegacyControllerUidLabel``.
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_JOB_NAME_LABEL = "job-name"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"
#: ``completionsSoftLimit`` and ``parallelismSoftLimitForUnlimitedCompletions`` of the warnings.
_COMPLETIONS_SOFT_LIMIT = 100_000
_PARALLELISM_SOFT_LIMIT = 10_000


def _job_template(job_spec: Json | None) -> Json | None:
    return get(job_spec, "template")


def prepare_job_for_create(obj: Json) -> None:
    first_generation(obj)
    spec = struct(obj, "spec")
    if spec.get("manualSelector"):
        return
    meta = obj["metadata"]
    labels = struct(struct(struct(spec, "template"), "metadata"), "labels")
    for label in (LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL):
        labels.setdefault(label, meta.get("name") or "")
    for label in (LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL):
        labels.setdefault(label, meta["uid"])
    struct(struct(spec, "selector"), "matchLabels").setdefault(CONTROLLER_UID_LABEL, meta["uid"])
    if not meta.get("labels"):
        # kube stores the Job without labels, but decoding it (every read, every watch event)
        # defaults them to the template's, now generated: the same as storing them.
        meta["labels"] = dict(labels)


_GENERATED_LABELS = frozenset((LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL, LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL))


def job_first_update_writes(stored: Json) -> bool:
    """Whether kube stored this Job, as created, without its labels: created without labels
    or template labels, it got them only from ``prepare_job_for_create``'s generated ones (a
    user's labels cannot equal those: they carry the uid). Created with template labels, it
    stored them (its own, the same map)."""
    spec = stored.get("spec") or {}
    labels = get(stored, "metadata", "labels")
    return not spec.get("manualSelector") and bool(labels) and labels == get(spec, "template", "metadata", "labels") \
        and set(labels) <= _GENERATED_LABELS


def prepare_job_for_update(new: Json, old: Json) -> None:
    set_generation(new, old, new.get("spec") != old.get("spec"))


def _cron_job_template(obj: Json | None) -> Json | None:
    return get(obj, "spec", "jobTemplate", "spec", "template")


def prepare_cron_job_for_create(obj: Json) -> None:
    first_generation(obj)


def prepare_cron_job_for_update(new: Json, old: Json) -> None:
    set_generation(new, old, new.get("spec") != old.get("spec"))


def _job_spec_warnings(path: str, spec: Json, old_spec: Json | None) -> list[str]:
    """``WarningsForJobSpec``."""
    warnings = []
    if spec.get("completionMode") == "Indexed" and (spec.get("completions") or 0) > _COMPLETIONS_SOFT_LIMIT \
            and (spec.get("parallelism") or 0) > _PARALLELISM_SOFT_LIMIT:
        warnings.append(f"{path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism "
                        "higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number "
                        "of indexes fail")
    return warnings + warnings_for_pod_template(f"{path}.template", _job_template(spec),
                                                _job_template(old_spec) if old_spec is not None else None)


def job_warnings_on_create(obj: Json) -> list[str]:
    return name_warnings(obj["metadata"].get("name") or "") + _job_spec_warnings("spec", obj.get("spec") or {}, None)


def job_warnings_on_update(new: Json, old: Json) -> list[str]:
    if new["metadata"].get("generation") == old["metadata"].get("generation"):
        return []
    return _job_spec_warnings("spec", new.get("spec") or {}, old.get("spec") or {})


_JOB_TEMPLATE_SPEC = "spec.jobTemplate.spec"


def cron_job_warnings_on_create(obj: Json) -> list[str]:
    return name_warnings(obj["metadata"].get("name") or "") + _job_spec_warnings(
        _JOB_TEMPLATE_SPEC, get(obj, "spec", "jobTemplate", "spec") or {}, None)


def cron_job_warnings_on_update(new: Json, old: Json) -> list[str]:
    warnings = []
    if new["metadata"].get("generation") != old["metadata"].get("generation"):
        warnings = _job_spec_warnings(_JOB_TEMPLATE_SPEC, get(new, "spec", "jobTemplate", "spec") or {},
                                      get(old, "spec", "jobTemplate", "spec") or {})
    if "TZ" in (get(new, "spec", "schedule") or ""):
        # upstream names the field spec.spec.schedule
        warnings.append("cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see "
                        "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details")
    return warnings
