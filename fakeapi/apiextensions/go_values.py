"""The internal apiextensions types as Go's ``%#v`` prints them: the bad values of kube's CRD
validation errors that are Go structs or slices (``field.Invalid`` of a
``[]CustomResourceDefinitionVersion``, a ``JSONSchemaProps``, a ``[]string``), pointers with a
stand-in address.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..machinery.golang import go_quote, go_sharp_value
from ..machinery.status import FieldError

_FAKE_POINTER = "0xc000010000"  # Go prints addresses of non-nil pointers; any will do

# The JSONSchemaProps fields in Go struct order, by JSON name, with whether the Go field is a
# plain value (zero when false or empty) rather than a pointer, slice or map (zero when absent):
# the root of a schema with a status subresource may only set some of them.
SCHEMA_FIELDS: tuple[tuple[str, str, bool], ...] = (
    ("id", "ID", True), ("$schema", "Schema", True), ("$ref", "Ref", False),
    ("description", "Description", True), ("type", "Type", True), ("nullable", "Nullable", True),
    ("format", "Format", True), ("title", "Title", True), ("default", "Default", False),
    ("maximum", "Maximum", False), ("exclusiveMaximum", "ExclusiveMaximum", True),
    ("minimum", "Minimum", False), ("exclusiveMinimum", "ExclusiveMinimum", True),
    ("maxLength", "MaxLength", False), ("minLength", "MinLength", False), ("pattern", "Pattern", True),
    ("maxItems", "MaxItems", False), ("minItems", "MinItems", False), ("uniqueItems", "UniqueItems", True),
    ("multipleOf", "MultipleOf", False), ("enum", "Enum", False), ("maxProperties", "MaxProperties", False),
    ("minProperties", "MinProperties", False), ("required", "Required", False), ("items", "Items", False),
    ("allOf", "AllOf", False), ("oneOf", "OneOf", False), ("anyOf", "AnyOf", False), ("not", "Not", False),
    ("properties", "Properties", False), ("additionalProperties", "AdditionalProperties", False),
    ("patternProperties", "PatternProperties", False), ("dependencies", "Dependencies", False),
    ("additionalItems", "AdditionalItems", False), ("definitions", "Definitions", False),
    ("externalDocs", "ExternalDocs", False), ("example", "Example", False),
    ("x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields", False),
    ("x-kubernetes-embedded-resource", "XEmbeddedResource", True),
    ("x-kubernetes-int-or-string", "XIntOrString", True),
    ("x-kubernetes-list-map-keys", "XListMapKeys", False), ("x-kubernetes-list-type", "XListType", False),
    ("x-kubernetes-map-type", "XMapType", False), ("x-kubernetes-validations", "XValidations", False),
)


def go_versions(versions: Sequence[Mapping[str, Any]]) -> str:
    """``%#v`` of ``[]apiextensions.CustomResourceDefinitionVersion``, the bad value of the
    ``spec.versions`` errors."""
    def pointer(value: Any, type_name: str) -> str:
        return f"(*{type_name})({'nil' if value is None else _FAKE_POINTER})"

    def columns(value: Sequence[Mapping[str, Any]] | None) -> str:
        if value is None:
            return "[]apiextensions.CustomResourceColumnDefinition(nil)"
        return "[]apiextensions.CustomResourceColumnDefinition{" + ", ".join(
            f"apiextensions.CustomResourceColumnDefinition{{Name:{go_quote(c.get('name') or '')}, "
            f"Type:{go_quote(c.get('type') or '')}, Format:{go_quote(c.get('format') or '')}, "
            f"Description:{go_quote(c.get('description') or '')}, Priority:{c.get('priority') or 0}, "
            f"JSONPath:{go_quote(c.get('jsonPath') or '')}}}" for c in value) + "}"

    def selectable(value: Sequence[Mapping[str, Any]] | None) -> str:
        if value is None:
            return "[]apiextensions.SelectableField(nil)"
        return "[]apiextensions.SelectableField{" + ", ".join(
            f"apiextensions.SelectableField{{JSONPath:{go_quote(f.get('jsonPath') or '')}}}" for f in value) + "}"

    return "[]apiextensions.CustomResourceDefinitionVersion{" + ", ".join(
        f"apiextensions.CustomResourceDefinitionVersion{{Name:{go_quote(v.get('name') or '')}, "
        f"Served:{_go_bool(v.get('served'))}, Storage:{_go_bool(v.get('storage'))}, "
        f"Deprecated:{_go_bool(v.get('deprecated'))}, "
        f"DeprecationWarning:{pointer(v.get('deprecationWarning'), 'string')}, "
        f"Schema:{pointer(v.get('schema'), 'apiextensions.CustomResourceValidation')}, "
        f"Subresources:{pointer(v.get('subresources'), 'apiextensions.CustomResourceSubresources')}, "
        f"AdditionalPrinterColumns:{columns(v.get('additionalPrinterColumns'))}, "
        f"SelectableFields:{selectable(v.get('selectableFields'))}}}" for v in versions) + "}"


def _go_bool(value: Any) -> str:
    return "true" if value else "false"


def invalid_go_value(path: str, go_text: str, detail: str) -> FieldError:
    """``field.Invalid`` of a bad value that Go prints with ``%#v`` (a struct or slice), given
    that rendering."""
    return path, "FieldValueInvalid", f"Invalid value: {go_text}: {detail}"


def go_strings(values: Sequence[str] | None) -> str:
    """``%#v`` of a ``[]string``."""
    return "[]string(nil)" if values is None else "[]string{" + ", ".join(map(go_quote, values)) + "}"


#: How ``%#v`` prints each JSONSchemaProps field's Go type when the field is absent.
_SCHEMA_FIELD_TYPES = {
    "Ref": "*string", "Default": "*apiextensions.JSON", "Maximum": "*float64", "Minimum": "*float64",
    "MaxLength": "*int64", "MinLength": "*int64", "MaxItems": "*int64", "MinItems": "*int64",
    "MultipleOf": "*float64", "Enum": "[]apiextensions.JSON", "MaxProperties": "*int64",
    "MinProperties": "*int64", "Required": "[]string", "Items": "*apiextensions.JSONSchemaPropsOrArray",
    "AllOf": "[]apiextensions.JSONSchemaProps", "OneOf": "[]apiextensions.JSONSchemaProps",
    "AnyOf": "[]apiextensions.JSONSchemaProps", "Not": "*apiextensions.JSONSchemaProps",
    "Properties": "map[string]apiextensions.JSONSchemaProps",
    "AdditionalProperties": "*apiextensions.JSONSchemaPropsOrBool",
    "PatternProperties": "map[string]apiextensions.JSONSchemaProps",
    "Dependencies": "apiextensions.JSONSchemaDependencies",
    "AdditionalItems": "*apiextensions.JSONSchemaPropsOrBool", "Definitions": "apiextensions.JSONSchemaDefinitions",
    "ExternalDocs": "*apiextensions.ExternalDocumentation", "Example": "*apiextensions.JSON",
    "XPreserveUnknownFields": "*bool", "XListMapKeys": "[]string", "XListType": "*string",
    "XMapType": "*string", "XValidations": "apiextensions.ValidationRules",
}


def go_schema(schema: Mapping[str, Any]) -> str:
    """``%#v`` of an ``apiextensions.JSONSchemaProps`` (pointers as a stand-in address)."""
    def field_text(key: str, go_name: str, plain: bool) -> str:
        value = schema.get(key)
        if plain:
            return go_sharp_value(value) if value is not None else ('false' if go_name in _GO_BOOLS else '""')
        go_type = _SCHEMA_FIELD_TYPES[go_name]
        if value is None:
            return f"({go_type})(nil)" if go_type.startswith("*") else f"{go_type}(nil)"
        if go_type.startswith("*"):
            return f"({go_type})({_FAKE_POINTER})"
        if go_name in ("AllOf", "OneOf", "AnyOf"):
            return f"{go_type}{{" + ", ".join(map(go_schema, value)) + "}"
        if go_type.startswith("map") or go_name in ("Dependencies", "Definitions"):
            return f"{go_type}{{" + ", ".join(f"{go_quote(k)}:{go_schema(value[k])}" for k in sorted(value)) + "}"
        if go_name == "XValidations":
            return f"{go_type}{{" + ", ".join(
                f"apiextensions.ValidationRule{{Rule:{go_quote(r.get('rule') or '')}, Message:{go_quote(r.get('message') or '')}, "
                f"MessageExpression:{go_quote(r.get('messageExpression') or '')}, "
                f"Reason:(*apiextensions.FieldValueErrorReason)({'nil' if r.get('reason') is None else _FAKE_POINTER}), "
                f"FieldPath:{go_quote(r.get('fieldPath') or '')}, "
                f"OptionalOldSelf:(*bool)({'nil' if r.get('optionalOldSelf') is None else _FAKE_POINTER})}}" for r in value) + "}"
        return f"{go_type}{{" + ", ".join(map(go_sharp_value, value)) + "}"

    return "apiextensions.JSONSchemaProps{" + ", ".join(
        f"{go_name}:{field_text(key, go_name, plain)}" for key, go_name, plain in SCHEMA_FIELDS) + "}"


_GO_BOOLS = frozenset(("Nullable", "ExclusiveMaximum", "ExclusiveMinimum", "UniqueItems", "XEmbeddedResource", "XIntOrString"))
