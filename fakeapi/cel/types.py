"""CEL's types of schema-typed values, as kube declares them and cel-go's checker infers them:
what the cost estimator (``cost``) and the type checker (``typecheck``) share.

``decl_type(schema, resource_root)`` is kube's ``SchemaDeclType``
(``apiserver/pkg/cel/common/schemas.go``): a structural schema's CEL type with kube's size bounds
(a list's ``maxItems``, a map's ``maxProperties``, a string's ``maxLength`` times 4, or as many
as the largest request could hold); a property whose schema declares no type (a ``oneOf``, as
``IntOrString`` and ``Quantity`` are published) has no CEL field, as in kube. ``CelType`` is a
type as the checker infers it for an expression's node; ``type_of_decl`` and ``field_type``
give the types of a declared value and of its fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .values import escape

#: ``celconfig.MaxRequestSizeBytes``: the largest request kube reads.
MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024

# apiserver/pkg/cel/limits.go
_MAX_DURATION_JSON, _MAX_DATETIME_JSON, _MIN_DURATION_JSON, _JSON_DATE, _MIN_DATETIME_JSON = 32, 32, 3, 12, 21
_MIN_STRING, _MIN_BOOL, _MIN_NUMBER = 2, 4, 1


@dataclass(eq=False)
class DeclType:
    """kube's ``DeclType``: a CEL type with its size bounds."""

    #: ``object``, ``list``, ``map``, ``string``, ``bytes``, ``int``, ``double``, ``bool``,
    #: ``duration``, ``timestamp`` or ``dyn``
    kind: str
    max_elements: int = 0
    min_size: int = 1
    elem: DeclType | None = None
    #: an object's fields by their CEL names
    fields: dict[str, DeclType] = field(default_factory=dict)


#: A map's keys: kube declares them with the shared ``StringType``, which has no size bound.
MAP_KEY = DeclType("string", 0, _MIN_STRING)


def _zero_if_negative(value: int) -> int:
    return max(value, 0)


def _max_string_length_per_request(schema: Mapping[str, Any]) -> int:
    if schema.get("x-kubernetes-int-or-string"):
        return MAX_REQUEST_SIZE_BYTES - 2
    return {"duration": _MAX_DURATION_JSON, "date": _JSON_DATE,
            "date-time": _MAX_DATETIME_JSON}.get(schema.get("format", ""), MAX_REQUEST_SIZE_BYTES - 2)


def _with_type_and_object_meta(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``WithTypeAndObjectMeta``: a resource's ``apiVersion``, ``kind`` and ``metadata`` as CEL
    sees them, unless the schema declares them already (a built-in kind's, with ObjectMeta)."""
    properties = dict(schema.get("properties") or {})
    metadata = properties.get("metadata") or {}
    meta_properties = metadata.get("properties") or {}
    if (all(properties.get(name, {}).get("type") == "string" for name in ("kind", "apiVersion"))
            and metadata.get("type") == "object"
            and all(meta_properties.get(name, {}).get("type") == "string" for name in ("name", "generateName"))):
        return schema
    string = {"type": "string"}
    properties.update(kind=string, apiVersion=string, metadata={
        "type": "object", "properties": {"name": string, "generateName": string}})
    return {**schema, "properties": properties}


def decl_type(schema: Mapping[str, Any], resource_root: bool) -> DeclType | None:
    """``SchemaDeclType`` of a structural schema (None where kube declares no type)."""
    if schema.get("x-kubernetes-int-or-string"):
        max_length = schema.get("maxLength")
        bound = _zero_if_negative(max_length) * 4 if max_length is not None else _max_string_length_per_request(schema)
        return DeclType("dyn", bound, 1)
    if resource_root:
        schema = _with_type_and_object_meta(schema)
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        if not isinstance(items, Mapping):
            return None
        elem = decl_type(items, bool(items.get("x-kubernetes-embedded-resource")))
        if elem is None:
            return None
        max_items = schema.get("maxItems")
        bound = _zero_if_negative(max_items) if max_items is not None else (MAX_REQUEST_SIZE_BYTES - 2) // (elem.min_size + 1)
        return DeclType("list", bound, 2, elem)
    if kind == "object":
        additional = schema.get("additionalProperties")
        if isinstance(additional, Mapping):
            value = decl_type(additional, bool(additional.get("x-kubernetes-embedded-resource")))
            if value is None:
                return None
            max_properties = schema.get("maxProperties")
            bound = (_zero_if_negative(max_properties) if max_properties is not None
                     else (MAX_REQUEST_SIZE_BYTES - 2) // (value.min_size + 6))
            return DeclType("map", bound, 2, value)
        required = set(schema.get("required") or ())
        fields: dict[str, DeclType] = {}
        min_size = 2
        for name, prop in (schema.get("properties") or {}).items():
            field_type = decl_type(prop, bool(prop.get("x-kubernetes-embedded-resource")))
            if field_type is None:
                continue
            if (escaped := escape(name)) is not None:
                fields[escaped] = field_type
            if name in required and "default" not in prop:
                min_size += len(name.encode()) + field_type.min_size + 4
        return DeclType("object", 0, min_size, fields=fields)
    if kind == "string":
        return _string_decl_type(schema)
    return {"boolean": DeclType("bool", 0, _MIN_BOOL), "number": DeclType("double", 0, _MIN_NUMBER),
            "integer": DeclType("int", 0, _MIN_NUMBER)}.get(kind or "")


def _string_decl_type(schema: Mapping[str, Any]) -> DeclType:
    string_format = schema.get("format")
    max_length = schema.get("maxLength")
    if string_format == "byte":
        bound = _zero_if_negative(max_length) if max_length is not None else _max_string_length_per_request(schema)
        return DeclType("bytes", bound, _MIN_STRING)
    if string_format in ("duration", "date", "date-time"):
        kind, min_size = {"duration": ("duration", _MIN_DURATION_JSON), "date": ("timestamp", _JSON_DATE),
                          "date-time": ("timestamp", _MIN_DATETIME_JSON)}[string_format]
        return DeclType(kind, _max_string_length_per_request(schema), min_size)
    if max_length is not None:
        bound = _zero_if_negative(max_length) * 4
    elif schema.get("enum"):
        bound = max((len(value.encode()) for value in schema["enum"] if isinstance(value, str)), default=0)
    else:
        bound = _max_string_length_per_request(schema)
    return DeclType("string", bound, _MIN_STRING)


def max_cardinality(decl: DeclType) -> int:
    """How many values of ``decl`` a request may hold, when nothing above bounds it."""
    return MAX_REQUEST_SIZE_BYTES // (decl.min_size + 1)


@dataclass(frozen=True)
class CelType:
    """A CEL type as the checker infers it; ``decl`` for an object's fields."""

    kind: str
    params: tuple[CelType, ...] = ()
    decl: DeclType | None = field(default=None, compare=False)


BOOL, INT, UINT, DOUBLE = CelType("bool"), CelType("int"), CelType("uint"), CelType("double")
STRING, BYTES, NULL, DYN = CelType("string"), CelType("bytes"), CelType("null"), CelType("dyn")
DURATION, TIMESTAMP, TYPE = CelType("duration"), CelType("timestamp"), CelType("type")


def field_type(operand: CelType, name: str) -> CelType:
    """The type of ``operand.name`` (an optional's field is optional)."""
    if operand.kind == "optional":
        return CelType("optional", (field_type(operand.params[0], name),))
    if operand.kind == "object":
        assert operand.decl is not None
        if name not in operand.decl.fields:
            raise NotSelectable(f"undefined field '{name}'")
        return type_of_decl(operand.decl.fields[name])
    if operand.kind == "map":
        return operand.params[1]
    if operand.kind == "dyn":
        return DYN
    raise NotSelectable(f"type '{operand.kind}' does not support field selection")


def type_of_decl(decl: DeclType) -> CelType:
    if decl.kind == "list":
        return CelType("list", (type_of_decl(decl.elem),), decl)  # type: ignore[arg-type]
    if decl.kind == "map":
        return CelType("map", (STRING, type_of_decl(decl.elem)), decl)  # type: ignore[arg-type]
    if decl.kind == "object":
        return CelType("object", (), decl)
    return CelType(decl.kind)


class NotSelectable(ValueError):
    """A field selection the checker refuses; the message is cel-go's (``undefined field 'f'``,
    ``type 'string' does not support field selection``)."""
