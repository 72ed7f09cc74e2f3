"""Warnings of apps writes (the strategies' ``WarningsOnCreate``/``WarningsOnUpdate``)."""

from __future__ import annotations

from ..fields import Json, get, items
from ..podtemplates import claim_spec_warnings, name_warnings, warnings_for_pod_template
from .strategy import template_generation

_TEMPLATE = "spec.template"


def deployment_warnings_on_create(obj: Json) -> list[str]:
    """Deployments and ReplicaSets: the name (their pods are named after it), the pod template."""
    return name_warnings(obj["metadata"].get("name") or "") + warnings_for_pod_template(
        _TEMPLATE, get(obj, "spec", "template"), None)


def template_warnings_on_update(new: Json, old: Json) -> list[str]:
    """Deployments, ReplicaSets and StatefulSets: the pod template's, when the spec changed."""
    if new["metadata"].get("generation") == old["metadata"].get("generation"):
        return []
    return warnings_for_pod_template(_TEMPLATE, get(new, "spec", "template"), get(old, "spec", "template"))


def _stateful_set_warnings(obj: Json, claim_path: str) -> list[str]:
    warnings = []
    for i, claim in enumerate(items(obj.get("spec"), "volumeClaimTemplates")):
        warnings += claim_spec_warnings(claim_path.format(i), claim.get("spec") or {})
    limit = get(obj, "spec", "revisionHistoryLimit")
    if isinstance(limit, int) and limit < 0:
        warnings.append("spec.revisionHistoryLimit: a negative value retains all historical revisions; "
                        "a value >= 0 is recommended")
    return warnings


def stateful_set_warnings_on_create(obj: Json) -> list[str]:
    return warnings_for_pod_template(_TEMPLATE, get(obj, "spec", "template"), None) + _stateful_set_warnings(
        obj, "spec.volumeClaimTemplates[{}]")


def stateful_set_warnings_on_update(new: Json, old: Json) -> list[str]:
    # upstream's update path names the claim's spec with a capital S
    return template_warnings_on_update(new, old) + _stateful_set_warnings(new, "spec.volumeClaimTemplates[{}].Spec")


def daemon_set_warnings_on_create(obj: Json) -> list[str]:
    return warnings_for_pod_template(_TEMPLATE, get(obj, "spec", "template"), None)


def daemon_set_warnings_on_update(new: Json, old: Json) -> list[str]:
    """The pod template's, when the template changed."""
    if template_generation(new) == template_generation(old):
        return []
    return warnings_for_pod_template(_TEMPLATE, get(new, "spec", "template"), get(old, "spec", "template"))
