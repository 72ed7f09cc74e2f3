"""The checks of a custom resource's scale subresource paths (apiextensions-apiserver
``pkg/registry/customresource/validator.go``: ``ValidateScaleSpec``, ``ValidateScaleStatus``):
the replicas under ``specReplicasPath`` and ``statusReplicasPath`` must be integers from 0 to
2^31-1 where present, the ``labelSelectorPath`` a string where present. Errors are at the path
as the CRD writes it (``.spec.replicas``) with ``unstructured.NestedInt64``'s accessor errors
(``.spec.replicas accessor error: one is of the type string, expected int64``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..machinery.golang import go_plain_value, go_type
from ..machinery.status import FieldError, invalid_error
from .crd import ScaleSubresource

_MAX_INT32 = 2**31 - 1


def _nested(obj: Mapping[str, Any], path: str, expected: str, zero: Any) -> tuple[Any, str | None]:
    """``unstructured.Nested<T>``: the value at ``path`` (``zero`` when absent) or the accessor error."""
    fields = path.removeprefix(".").split(".")
    value: Any = obj
    for index, name in enumerate(fields):
        if not isinstance(value, dict):
            return zero, (f".{'.'.join(fields[:index + 1])} accessor error: {go_plain_value(value)} is of the type "
                          f"{go_type(value) or '<nil>'}, expected map[string]interface{{}}")
        if name not in value:
            return zero, None
        value = value[name]
    if go_type(value) != expected:
        return zero, f".{'.'.join(fields)} accessor error: {go_plain_value(value)} is of the type {go_type(value) or '<nil>'}, expected {expected}"
    return value, None


def _replicas_errors(obj: Mapping[str, Any], path: str) -> list[FieldError]:
    replicas, error = _nested(obj, path, "int64", 0)
    if error is not None:
        return [invalid_error(path, replicas, error)]
    if replicas < 0:
        return [invalid_error(path, replicas, "should be a non-negative integer")]
    if replicas > _MAX_INT32:
        return [invalid_error(path, replicas, f"should be less than or equal to {_MAX_INT32}")]
    return []


def scale_spec_errors(obj: Mapping[str, Any], scale: ScaleSubresource | None) -> list[FieldError]:
    """``ValidateScaleSpec``."""
    return [] if scale is None else _replicas_errors(obj, scale.spec_replicas_path)


def scale_status_errors(obj: Mapping[str, Any], scale: ScaleSubresource | None) -> list[FieldError]:
    """``ValidateScaleStatus``."""
    if scale is None:
        return []
    errors = _replicas_errors(obj, scale.status_replicas_path)
    if scale.label_selector_path is not None:
        selector, error = _nested(obj, scale.label_selector_path, "string", "")
        if error is not None:
            errors.append(invalid_error(scale.label_selector_path, selector, error))
    return errors
