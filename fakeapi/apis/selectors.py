"""``metav1.LabelSelector`` (the JSON form workload specs carry) as kube's validation uses it:
``metav1.LabelSelectorAsSelector`` — whether it converts, whether the result is empty, whether it
matches a set of labels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..machinery.validation import is_qualified_name, is_valid_label_value

Json = dict[str, Any]

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def _requirement_fails(key: str, operator: str, values: list[Any]) -> bool:
    """Whether ``labels.NewRequirement`` refuses a requirement."""
    if is_qualified_name(key):
        return True
    if operator in ("In", "NotIn"):
        if not values:
            return True
    elif values:  # Exists, DoesNotExist take none
        return True
    return any(not isinstance(value, str) or is_valid_label_value(value) for value in values)


def converts(selector: Json | None) -> bool:
    """Whether ``LabelSelectorAsSelector`` succeeds (a nil selector does: it selects nothing)."""
    if selector is None:
        return True
    for key, value in (selector.get("matchLabels") or {}).items():
        if _requirement_fails(key, "In", [value]):
            return False
    for expression in selector.get("matchExpressions") or ():
        operator = expression.get("operator") or ""
        if operator not in _OPERATORS:
            return False
        if _requirement_fails(expression.get("key") or "", operator, list(expression.get("values") or ())):
            return False
    return True


def is_empty(selector: Json | None) -> bool:
    """``selector.Empty()`` of a converted selector: true for one without requirements (it
    selects everything); false for a nil one (``labels.Nothing()``)."""
    return selector is not None and not selector.get("matchLabels") and not selector.get("matchExpressions")


def matches(selector: Json | None, labels: Mapping[str, str] | None) -> bool:
    """``selector.Matches(labels.Set(labels))`` of a selector that converts."""
    if selector is None:
        return False
    labels = labels or {}
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or ():
        key = expression.get("key") or ""
        values = expression.get("values") or ()
        operator = expression.get("operator")
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def go_json(selector: Json | None) -> Json | None:
    """A ``*metav1.LabelSelector`` as ``json.Marshal`` writes it in an error message: its two
    fields in Go's order, each omitted when empty; nil is ``null``."""
    if selector is None:
        return None
    out: Json = {}
    if selector.get("matchLabels"):
        out["matchLabels"] = dict(sorted(selector["matchLabels"].items()))
    if selector.get("matchExpressions"):
        out["matchExpressions"] = [
            {"key": e.get("key") or "", "operator": e.get("operator") or "",
             **({"values": e["values"]} if e.get("values") else {})}
            for e in selector["matchExpressions"]]
    return out
