"""autoscaling defaulting: ``pkg/apis/autoscaling/v1/defaults.go`` and ``v2/defaults.go``. Each
runs on bodies of its own version (kube defaults a request in the version it was sent in)."""

from __future__ import annotations

import copy

from ..conversion import DEFAULT_CPU_UTILIZATION, METRIC_SPECS_ANNOTATION
from ..core.defaults import canonical_quantity
from ..fields import Json, default, get, items, struct

#: ``defaultHPAScaleUpRules`` / ``defaultHPAScaleDownRules``: the behaviour HPAs had before
#: ``behavior`` existed.
_SCALE_UP_RULES: Json = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                 {"type": "Percent", "value": 100, "periodSeconds": 15}],
}
_SCALE_DOWN_RULES: Json = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}
#: The fields of ``HPAScalingRules`` a given rule keeps over the default (``copyHPAScalingRules``).
_RULE_FIELDS = ("selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance")


def set_defaults_hpa_v1(obj: Json) -> None:
    """v1's defaults, and the CPU target kube's conversion to the internal type makes explicit
    when there is no other metric: the field manager, which sees the object converted back to
    v1, owns ``targetCPUUtilizationPercentage`` then."""
    spec = struct(obj, "spec")
    default(spec, "minReplicas", 1)
    if METRIC_SPECS_ANNOTATION not in (get(obj, "metadata", "annotations") or {}):
        default(spec, "targetCPUUtilizationPercentage", DEFAULT_CPU_UTILIZATION)


def _scaling_rules(given: Json | None, defaults: Json) -> Json:
    """``GenerateHPAScale{Up,Down}Rules``: the defaults, overridden by what ``given`` sets."""
    rules = copy.deepcopy(defaults)
    if isinstance(given, dict):
        for key in _RULE_FIELDS:
            if given.get(key) is not None:
                rules[key] = given[key]
    return rules


def set_defaults_hpa_v2(obj: Json) -> None:
    spec = struct(obj, "spec")
    default(spec, "minReplicas", 1)
    if not spec.get("metrics"):
        spec["metrics"] = [{"type": "Resource", "resource": {
            "name": "cpu", "target": {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        behavior["scaleUp"] = _scaling_rules(behavior.get("scaleUp"), _SCALE_UP_RULES)
        behavior["scaleDown"] = _scaling_rules(behavior.get("scaleDown"), _SCALE_DOWN_RULES)


def _metric_sources(metrics: list[Json]) -> list[Json]:
    return [source for metric in metrics
            for name in ("object", "pods", "resource", "containerResource", "external")
            if isinstance(source := metric.get(name), dict)]


def canonical_hpa_v2_quantities(obj: Json) -> None:
    """Decoding an autoscaling/v2 HPA: its quantities (metric targets and current values, the
    scaling rules' tolerance) in kube's canonical form."""
    spec, status = obj.get("spec"), obj.get("status")
    for source in _metric_sources(items(spec, "metrics")):
        for name in ("value", "averageValue"):
            canonical_quantity(source.get("target"), name)
    for source in _metric_sources(items(status, "currentMetrics")):
        for name in ("value", "averageValue"):
            canonical_quantity(source.get("current"), name)
    behavior = (spec or {}).get("behavior")
    if isinstance(behavior, dict):
        for rules in ("scaleUp", "scaleDown"):
            canonical_quantity(behavior.get(rules), "tolerance")
