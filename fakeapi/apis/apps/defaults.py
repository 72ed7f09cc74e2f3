"""apps/v1 defaulting: ``pkg/apis/apps/v1/defaults.go`` and what ``zz_generated.defaults.go``
adds (the pod template's defaults, the StatefulSet's volume claim templates')."""

from __future__ import annotations

from ..fields import Json, default, default_empty, items, struct
from ..podtemplates import set_defaults_persistent_volume_claim, set_defaults_pod_template_spec

ROLLING_UPDATE = "RollingUpdate"


def set_defaults_deployment(obj: Json) -> None:
    spec = struct(obj, "spec")
    default(spec, "replicas", 1)
    strategy = struct(spec, "strategy")
    default_empty(strategy, "type", ROLLING_UPDATE)
    if strategy["type"] == ROLLING_UPDATE:
        rolling_update = struct(strategy, "rollingUpdate")
        default(rolling_update, "maxUnavailable", "25%")
        default(rolling_update, "maxSurge", "25%")
    default(spec, "revisionHistoryLimit", 10)
    default(spec, "progressDeadlineSeconds", 600)
    set_defaults_pod_template_spec(struct(spec, "template"))


def set_defaults_daemon_set(obj: Json) -> None:
    spec = struct(obj, "spec")
    strategy = struct(spec, "updateStrategy")
    default_empty(strategy, "type", ROLLING_UPDATE)
    if strategy["type"] == ROLLING_UPDATE:
        rolling_update = struct(strategy, "rollingUpdate")
        default(rolling_update, "maxUnavailable", 1)
        default(rolling_update, "maxSurge", 0)
    default(spec, "revisionHistoryLimit", 10)
    set_defaults_pod_template_spec(struct(spec, "template"))


def set_defaults_stateful_set(obj: Json) -> None:
    spec = struct(obj, "spec")
    default_empty(spec, "podManagementPolicy", "OrderedReady")
    strategy = struct(spec, "updateStrategy")
    if not strategy.get("type"):
        strategy["type"] = ROLLING_UPDATE
        struct(strategy, "rollingUpdate")  # takes the defaults below
    rolling_update = strategy.get("rollingUpdate")
    if strategy["type"] == ROLLING_UPDATE and isinstance(rolling_update, dict):
        default(rolling_update, "partition", 0)
        # maxUnavailable's default needs MaxUnavailableStatefulSet, off in 1.35.
    retention = struct(spec, "persistentVolumeClaimRetentionPolicy")
    default_empty(retention, "whenDeleted", "Retain")
    default_empty(retention, "whenScaled", "Retain")
    default(spec, "replicas", 1)
    default(spec, "revisionHistoryLimit", 10)
    set_defaults_pod_template_spec(struct(spec, "template"))
    for claim in items(spec, "volumeClaimTemplates"):
        set_defaults_persistent_volume_claim(claim)


def set_defaults_replica_set(obj: Json) -> None:
    spec = struct(obj, "spec")
    default(spec, "replicas", 1)
    set_defaults_pod_template_spec(struct(spec, "template"))
