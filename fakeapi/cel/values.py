"""JSON values as CEL sees them, typed by their OpenAPI schema (kube's ``UnstructuredToVal``,
``k8s.io/apiserver/pkg/cel/common/values.go``, and ``SchemaDeclType``'s field names).

- ``integer`` is CEL ``int``, ``number`` is ``double`` (a JSON ``1`` under ``number`` is ``1.0``);
- ``string`` with ``format: byte`` is ``bytes``, ``date-time``/``date`` a ``timestamp``,
  ``duration`` a ``duration``;
- an object with ``properties`` exposes only those, by their CEL names (``escape``: ``a-b`` is
  ``a__dash__b``; a name that cannot be escaped is left out); one with ``additionalProperties``
  is a map of its values; at a resource root (and in embedded resources) ``apiVersion``,
  ``kind`` and ``metadata.name``/``generateName`` are what CEL sees of the type and metadata;
- ``x-kubernetes-int-or-string`` is ``int`` or ``string`` as sent, and values under
  ``x-kubernetes-preserve-unknown-fields`` without a schema are passed as JSON.

Left out: kube's set and map list types compare as sets and maps (``==`` ignores order); here
every list compares in order.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from ..machinery.golang import go_parse_duration

#: CEL's reserved words: a property named so is ``__{word}__`` (``cel.Escape``).
_RESERVED = frozenset((
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"))
_IDENTIFIER = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_ESCAPABLE = re.compile(r"[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*")
_RESOURCE_META = ("apiVersion", "kind", "metadata")


def escape(name: str) -> str | None:
    """``cel.Escape``: a property name as a CEL field name, or None when it cannot be one."""
    if name in _RESERVED:
        return f"__{name}__"
    if _IDENTIFIER.fullmatch(name):
        return name.replace("__", "__underscores__")
    if not _ESCAPABLE.fullmatch(name):
        return None
    escaped = name.replace("__", "__underscores__").replace(".", "__dot__").replace("-", "__dash__")
    return escaped.replace("/", "__slash__")


def to_cel(value: Any, schema: Mapping[str, Any] | None, resource_root: bool = False) -> Any:
    """``value`` (decoded JSON) as the CEL value kube binds for ``schema``."""
    if value is None or schema is None:
        return value
    if schema.get("x-kubernetes-int-or-string"):
        return value
    kind = schema.get("type")
    if isinstance(value, dict):
        return _object(value, schema, resource_root or bool(schema.get("x-kubernetes-embedded-resource")))
    if isinstance(value, list):
        items = schema.get("items")
        return [to_cel(item, items if isinstance(items, Mapping) else None) for item in value]
    if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "string" and isinstance(value, str):
        return _formatted(value, schema.get("format"))
    return value


def _object(value: dict[str, Any], schema: Mapping[str, Any], resource: bool) -> dict[str, Any]:
    properties = schema.get("properties")
    additional = schema.get("additionalProperties")
    if not properties and isinstance(additional, Mapping):
        return {key: to_cel(item, additional) for key, item in value.items()}
    if not properties and schema.get("x-kubernetes-preserve-unknown-fields"):
        return value
    out: dict[str, Any] = {}
    properties = properties or {}
    for key, item in value.items():
        if resource and key in _RESOURCE_META:
            if key == "metadata" and isinstance(item, dict):
                item = {k: item[k] for k in ("name", "generateName") if k in item}
            out[key] = item
            continue
        field = escape(key)
        if field is not None and key in properties:
            out[field] = to_cel(item, properties[key])
    return out


def _formatted(text: str, string_format: Any) -> Any:
    """A string of a format kube types otherwise; kept a string when it does not parse as one."""
    try:
        if string_format == "byte":
            return base64.b64decode(text, validate=True)
        if string_format == "date-time":
            return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)
        if string_format == "date":
            return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)
        if string_format == "duration":
            return timedelta(microseconds=go_parse_duration(text) // 1000)
    except (ValueError, binascii.Error):
        return text
    return text


def cel_type_name(value: Any) -> str:
    """The name cel-go gives the type of an evaluated value (``ref.Type``'s ``String``)."""
    if value is None:
        return "null_type"
    for python_type, name in ((bool, "bool"), (int, "int"), (float, "double"), (str, "string"), (bytes, "bytes"),
                              (list, "list"), (dict, "map"), (datetime, "google.protobuf.Timestamp"),
                              (timedelta, "google.protobuf.Duration")):
        if isinstance(value, python_type):
            return name
    return type(value).__name__
