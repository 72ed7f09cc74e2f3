"""Field errors (beyond ``fakeapi.machinery.validation.invalid_json``) whose bad value ``ErrorBody`` prints with ``json.Marshal``: everything that is not
a plain ``string``, ``int32``/``int64``, float or bool in Go — pointers, maps, slices, structs, and
also named types (``apps.PodManagementPolicyType``, ``intstr.IntOrString``). Callers build the
value in the Go type's field order; kube's internal types have no json tags, so their structs
print with Go's field names (``{"Type":"Foo","RollingUpdate":null}``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from ..machinery import quantity
from ..machinery.golang import go_quote
from ..machinery.status import FieldError, invalid_error
from ..machinery.validation import IS_NEGATIVE_ERROR_MSG


def go_json(value: Any) -> str:
    """``json.Marshal`` of a value built in Go's order (HTML characters escaped as Go does)."""
    return orjson.dumps(value).decode().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def not_supported_json(field: str, value: Any, supported: Sequence[str]) -> FieldError:
    """``field.NotSupported`` with a bad value that prints as JSON."""
    body = f"Unsupported value: {go_json(value)}"
    if supported:
        body += ": supported values: " + ", ".join(go_quote(v) for v in supported)
    return field, "FieldValueNotSupported", body


def validate_nonnegative_quantity(value: Any, path: str) -> list[FieldError]:
    """core's ``ValidateNonnegativeQuantity`` of a decoded quantity (printed canonically)."""
    decoded = quantity.decode(value)
    if decoded.sign() < 0:
        return [invalid_error(path, str(decoded), IS_NEGATIVE_ERROR_MSG)]
    return []


def duplicate_json(field: str, value: Any) -> FieldError:
    """``field.Duplicate`` with a bad value that prints as JSON."""
    return field, "FieldValueDuplicate", f"Duplicate value: {go_json(value)}"
