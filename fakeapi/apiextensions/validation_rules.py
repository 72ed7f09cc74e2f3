"""Whether a CRD's schema has ``x-kubernetes-validations`` rules, known without CEL: a CRD
without any (most have none) is validated and served without loading CEL and the rules'
compiler (``cel_validation``), which load with the first schema that has rules."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..machinery.status import FieldError

if TYPE_CHECKING:
    from .cel_validation import RuleValidator

RULES = "x-kubernetes-validations"


def has_rules(node: Any) -> bool:
    """Whether ``x-kubernetes-validations`` is a key anywhere in ``node`` (a schema, or any JSON
    under it): where it is not, ``cel_validation`` finds no rule to check, compile or cost."""
    if isinstance(node, Mapping):
        return RULES in node or any(has_rules(child) for child in node.values())
    if isinstance(node, list):
        return any(has_rules(child) for child in node)
    return False


class NoRules:
    """The ``RuleValidator`` of a schema without rules: it finds nothing to check."""

    __slots__ = ()

    def validate(self, obj: dict[str, Any], old: dict[str, Any] | None, errors: list[FieldError],
                 warn: Callable[[str], None] = lambda text: None) -> list[FieldError]:
        return []

    def validate_value(self, value: Any, path: str) -> list[FieldError]:
        return []


NO_RULES = NoRules()


def rule_validator(schema: Mapping[str, Any], resource_root: bool = True) -> RuleValidator | NoRules:
    """The validator of ``schema``'s rules (``cel_validation.RuleValidator``, loaded here with the
    first schema that has rules)."""
    if not has_rules(schema):
        return NO_RULES
    from .cel_validation import RuleValidator

    return RuleValidator(schema, resource_root=resource_root)
