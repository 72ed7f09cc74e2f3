"""The validation of a CRD version's ``openAPIV3Schema``: apiextensions-apiserver's
``validateCustomResourceDefinitionValidation`` (``apis/apiextensions/validation/validation.go``).

The root's restrictions, the structural schema checks of ``apiserver/schema/validation.go`` and
``complete.go``, the default checks of ``apiserver/schema/defaulting/validation.go``, and the
per-node OpenAPI checks (``ValidateCustomResourceDefinitionOpenAPISchema``), then the checks of
the ``x-kubernetes-validations`` rules and their compilation (``cel_validation.rule_errors``). Kube
iterates Go maps when it walks schema properties, so the order of such errors varies there;
here it is the schema's.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..machinery.status import (
    FieldError,
    forbidden_error,
    invalid_error,
    not_supported_error,
    required_error,
)
from .go_values import SCHEMA_FIELDS, go_schema, go_strings, invalid_go_value
from .structural import StructuralSchema, go_regexp_error
from .validation_rules import has_rules, rule_validator

_OPENAPI_TYPES = ("array", "boolean", "integer", "number", "object", "string")
_META_FIELDS = ("metadata", "kind", "apiVersion")
_ALLOWED_AT_STATUS_ROOT = (
    "Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
    "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems",
    "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example",
    "XPreserveUnknownFields", "XValidations")
#: Keys ``structuralschema.NewStructural`` refuses (its errors show only when nothing else failed).
_NON_STRUCTURAL_KEYWORDS = {
    "id": "id", "$schema": "schema", "$ref": "$ref", "patternProperties": "patternProperties",
    "dependencies": "dependencies", "additionalItems": "additionalItems", "definitions": "definitions"}
_INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]

# Field paths are kube's ``field.Path`` strings, built by this.


def _key(path: str, key: str) -> str:
    return f"{path}[{key}]"


# --- the schema of a version ---------------------------------------------------------------------

def validation_errors(validation: Mapping[str, Any] | None, status_enabled: bool, path: str,
                      unchanged: bool = False) -> list[FieldError]:
    """``validateCustomResourceDefinitionValidation``: the root's restrictions, then the
    structural checks (or, when those pass, the defaults'), then the per-node OpenAPI checks;
    ``unchanged``: an update keeps this schema as it was (kube then lets its expressions cost
    more than an expression's budget)."""
    schema = (validation or {}).get("openAPIV3Schema")
    if not isinstance(schema, Mapping):
        return []
    schema_path = f"{path}.openAPIV3Schema"
    errors = _status_root_errors(schema, schema_path) if status_enabled else []
    if schema.get("nullable"):
        errors.append(forbidden_error(f"{schema_path}.nullable", "nullable cannot be true at the root"))
    unsupported = _non_structural_keyword(schema)
    structural_errors: list[FieldError] = []
    if unsupported is None:
        structural = sorted(_structural_errors(schema, schema_path), key=lambda e: f"{e[0]}: {e[2]}")
        structural_errors = structural or _default_errors(schema, schema_path)
        errors += structural_errors
    errors += _openapi_errors(schema, schema_path, _Context(), is_root=True)
    if not errors and unsupported is not None:
        errors.append(invalid_error(schema_path, "", unsupported))
    # kube sums the rules' costs only in the CEL context it builds for a structural schema
    # with valid defaults
    if has_rules(schema):  # else rule_errors finds none: CEL loads with the first schema that has rules
        from .cel_validation import rule_errors

        errors += rule_errors(schema, schema_path, errors, total_cost=unsupported is None and not structural_errors,
                              expression_cost=not unchanged)
    return errors


def _status_root_errors(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    """With a status subresource the root may only use some keywords (status's schema is cut
    out of it); the first other field set is reported, in Go struct order."""
    for key, go_name, plain in SCHEMA_FIELDS:
        value = schema.get(key)
        if value is None or (plain and not value):
            continue
        if go_name == "Type":
            if value != "object":
                return [invalid_error(f"{path}.type", value,
                                      'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')]
            continue
        if go_name not in _ALLOWED_AT_STATUS_ROOT:
            return [invalid_go_value(path, go_schema(schema),
                                     f"only [{' '.join(_ALLOWED_AT_STATUS_ROOT)}] fields are allowed at the root of the schema if the status subresource is enabled")]
    return []


def _non_structural_keyword(schema: Mapping[str, Any]) -> str | None:
    """The error ``NewStructural`` fails with, if any (keywords a structural schema cannot have)."""
    for node in all_nodes(schema):
        if isinstance(node.get("items"), list):
            return "OpenAPIV3Schema 'items' must be a schema, but is an array"
        for key, name in _NON_STRUCTURAL_KEYWORDS.items():
            if node.get(key):
                return f"OpenAPIV3Schema {name!r} is not supported"
    return None


def all_nodes(schema: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    yield schema
    children = [schema.get("items"), schema.get("additionalProperties"), schema.get("not"),
                *(schema.get("properties") or {}).values(), *(schema.get("allOf") or ()),
                *(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())]
    for child in children:
        if isinstance(child, Mapping):
            yield from all_nodes(child)


# structuralschema.ValidateStructural: invariants of the structural part, then of the value
# validations nested in allOf/anyOf/oneOf/not, then their completeness.

_ROOT, _ITEM, _FIELD = "root", "item", "field"
_MISSING_TYPE = {_ROOT: "must not be empty at the root", _ITEM: "must not be empty for specified array items",
                 _FIELD: "must not be empty for specified object fields"}


def _structural_errors(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    return _invariant_errors(schema, _ROOT, path) + _completeness_errors(schema, schema, path, path)


def _invariant_errors(node: Mapping[str, Any], level: str, path: str) -> list[FieldError]:
    """``validateStructuralInvariants``."""
    errors: list[FieldError] = []
    node_type = node.get("type") or ""
    items = node.get("items")
    if node_type == "array" and items is None:
        errors.append(required_error(f"{path}.items", "must be specified"))
    if isinstance(items, Mapping):
        errors += _invariant_errors(items, _ITEM, f"{path}.items")
    for name, sub in (node.get("properties") or {}).items():
        errors += _invariant_errors(sub, _FIELD, _key(f"{path}.properties", name))
    extra = node.get("additionalProperties")
    if extra is not None:
        if level == _ROOT:
            errors.append(forbidden_error(f"{path}.additionalProperties", "must not be used at the root"))
        if isinstance(extra, Mapping):
            errors += _invariant_errors(extra, _FIELD, f"{path}.additionalProperties")
    int_or_string = bool(node.get("x-kubernetes-int-or-string"))
    preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
    embedded = bool(node.get("x-kubernetes-embedded-resource"))
    if int_or_string and preserve:
        errors.append(invalid_error(f"{path}.x-kubernetes-preserve-unknown-fields", True, "must be false if x-kubernetes-int-or-string is true"))
    if int_or_string and embedded:
        errors.append(invalid_error(f"{path}.x-kubernetes-embedded-resource", True, "must be false if x-kubernetes-int-or-string is true"))
    any_of_is_int_or_string = node.get("anyOf") == _INT_OR_STRING_ANY_OF
    all_of = node.get("allOf") or []
    first_all_of_is_int_or_string = bool(all_of) and isinstance(all_of[0], Mapping) and all_of[0].get("anyOf") == _INT_OR_STRING_ANY_OF
    errors += _value_validation_errors(node, any_of_is_int_or_string, first_all_of_is_int_or_string, path)
    if embedded and node_type != "object":
        message = "must be object if x-kubernetes-embedded-resource is true"
        errors.append(invalid_error(f"{path}.type", node_type, message) if node_type else required_error(f"{path}.type", message))
    elif not node_type and not int_or_string and not preserve:
        errors.append(required_error(f"{path}.type", _MISSING_TYPE[level]))
    if embedded and extra is not None:
        errors.append(forbidden_error(f"{path}.additionalProperties", "must not be used if x-kubernetes-embedded-resource is set"))
    if level == _ROOT and node_type and node_type != "object":
        errors.append(invalid_error(f"{path}.type", node_type, "must be object at the root"))
    properties = node.get("properties") or {}
    check_metadata = level == _ROOT or embedded
    for name in ("kind", "apiVersion"):
        if check_metadata and name in properties and properties[name].get("type") != "string":
            errors.append(invalid_error(f"{_key(f'{path}.properties', name)}.type", properties[name].get("type") or "", "must be string"))
    if "metadata" in properties:
        errors += _metadata_invariant_errors(properties["metadata"], check_metadata, level, _key(f"{path}.properties", "metadata"))
    if embedded and not preserve and not properties:
        errors.append(required_error(f"{path}.properties",
                                     "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
    return errors


def _metadata_invariant_errors(metadata: Mapping[str, Any], check_metadata: bool, level: str, path: str) -> list[FieldError]:
    """``validateStructuralMetadataInvariants``: at the root, metadata may only restrict name
    and generateName (its type and default are checked elsewhere)."""
    errors = []
    if check_metadata and metadata.get("type") != "object":
        errors.append(invalid_error(f"{path}.type", metadata.get("type") or "", "must be object"))
    if level == _ROOT:
        properties = set(metadata.get("properties") or {})
        others = set(metadata) - {"type", "default", "properties", "example", "externalDocs"}
        if others or not properties <= {"name", "generateName"}:
            errors.append(forbidden_error(path, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
    return errors


def _value_validation_errors(node: Mapping[str, Any], skip_any_of: bool, skip_first_all_of_any_of: bool, path: str) -> list[FieldError]:
    """``validateValueValidation``."""
    errors: list[FieldError] = []
    if not skip_any_of:
        for index, sub in enumerate(node.get("anyOf") or ()):
            errors += _nested_value_validation_errors(sub, False, f"{path}.anyOf[{index}]")
    for index, sub in enumerate(node.get("allOf") or ()):
        errors += _nested_value_validation_errors(sub, skip_first_all_of_any_of and index == 0, f"{path}.allOf[{index}]")
    for index, sub in enumerate(node.get("oneOf") or ()):
        errors += _nested_value_validation_errors(sub, False, f"{path}.oneOf[{index}]")
    if isinstance(node.get("not"), Mapping):
        errors += _nested_value_validation_errors(node["not"], False, f"{path}.not")
    pattern = node.get("pattern")
    if pattern and (problem := go_regexp_error(pattern)):
        errors.append(invalid_error(f"{path}.pattern", pattern, f"must be a valid regular expression, but isn't: {problem}"))
    return errors


#: What a value validation nested in allOf/anyOf/oneOf/not may not say, and how kube words it.
_NESTED_FORBIDDEN = (
    ("type", "must be empty to be structural"), ("additionalProperties", "must be undefined to be structural"),
    ("default", "must be undefined to be structural"), ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"), ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)


def _nested_value_validation_errors(node: Mapping[str, Any], skip_any_of: bool, path: str) -> list[FieldError]:
    """``validateNestedValueValidation``."""
    errors = _value_validation_errors(node, skip_any_of, False, path)
    if isinstance(node.get("items"), Mapping):
        errors += _nested_value_validation_errors(node["items"], False, f"{path}.items")
    for name, sub in (node.get("properties") or {}).items():
        errors += _nested_value_validation_errors(sub, False, _key(f"{path}.properties", name))
    for key, message in _NESTED_FORBIDDEN:
        value = node.get(key)
        if value not in (None, False, "", [], {}) or (key == "additionalProperties" and value is True):
            errors.append(forbidden_error(f"{path}.{key}", message))
    if "metadata" in (node.get("properties") or {}):
        errors.append(forbidden_error(_key(f"{path}.properties", "metadata"), "must not be specified in a nested context"))
    return errors


def _completeness_errors(value_node: Mapping[str, Any], node: Mapping[str, Any] | None, node_path: str, value_path: str) -> list[FieldError]:
    """``validateValueValidationCompleteness``: what allOf/anyOf/oneOf/not under the root
    constrain must be specified structurally too."""
    errors = []
    nested = [(value_node.get("not"), f"{value_path}.not")] if isinstance(value_node.get("not"), Mapping) else []
    for keyword in ("allOf", "anyOf", "oneOf"):
        nested += [(sub, f"{value_path}.{keyword}[{i}]") for i, sub in enumerate(value_node.get(keyword) or ())]
    for sub, sub_path in nested:
        errors += _nested_completeness_errors(sub, node, node_path, sub_path)
    return errors


def _nested_completeness_errors(value_node: Mapping[str, Any], node: Mapping[str, Any] | None, node_path: str, value_path: str) -> list[FieldError]:
    """``validateNestedValueValidationCompleteness``."""
    if node is None:
        return [required_error(node_path, f"because it is defined in {value_path}")]
    errors = _completeness_errors(value_node, node, node_path, value_path)
    if isinstance(value_node.get("items"), Mapping):
        items = node.get("items") if isinstance(node.get("items"), Mapping) else None
        errors += _nested_completeness_errors(value_node["items"], items, f"{node_path}.items", f"{value_path}.items")
    properties = node.get("properties") or {}
    for name, sub in (value_node.get("properties") or {}).items():
        sub_value_path = _key(f"{value_path}.properties", name)
        if name not in properties:
            errors.append(required_error(_key(f"{node_path}.properties", name), f"because it is defined in {sub_value_path}"))
        else:
            errors += _nested_completeness_errors(sub, properties[name], _key(f"{node_path}.properties", name), sub_value_path)
    return errors


def _default_errors(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    """``structuraldefaulting.ValidateDefaults``: each default must be pruned already and valid
    against its own schema (defaults inside embedded resources' metadata are not checked here)."""
    return _node_default_errors(schema, path, resource_root=True, inside_meta=False)


def _node_default_errors(node: Mapping[str, Any], path: str, resource_root: bool, inside_meta: bool) -> list[FieldError]:
    embedded = resource_root or bool(node.get("x-kubernetes-embedded-resource"))
    if node.get("x-kubernetes-embedded-resource"):
        inside_meta = False
    errors: list[FieldError] = []
    if node.get("default") is not None and not inside_meta:
        default = node["default"]
        compiled = StructuralSchema(node)
        pruned = copy.deepcopy(default)
        compiled.prune(pruned, resource_root=embedded)
        if pruned != default:
            errors.append(invalid_error(f"{path}.default", default, "must not have unknown fields"))
        default_errors = compiled.validate_value(default, f"{path}.default")
        errors += default_errors or rule_validator(node, resource_root=embedded).validate_value(default, f"{path}.default")
    if isinstance(node.get("items"), Mapping):
        errors += _node_default_errors(node["items"], f"{path}.items", False, inside_meta)
    for name, sub in (node.get("properties") or {}).items():
        errors += _node_default_errors(sub, _key(f"{path}.properties", name), False,
                                       inside_meta or (embedded and name in _META_FIELDS))
    return errors


@dataclass(frozen=True, slots=True)
class _Context:
    """``specStandardValidatorV3``'s state while walking a schema."""

    defaults_forbidden_because: str | None = None
    inside_resource_meta: bool = False


def _openapi_errors(node: Mapping[str, Any], path: str, context: _Context, is_root: bool = False) -> list[FieldError]:
    """``ValidateCustomResourceDefinitionOpenAPISchema`` without CEL."""
    errors = _standard_errors(node, path, context)
    if node.get("uniqueItems"):
        errors.append(forbidden_error(f"{path}.uniqueItems", "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
    extra = node.get("additionalProperties")
    if extra is not None:
        if node.get("properties") and (extra is False or isinstance(extra, Mapping)):
            errors.append(forbidden_error(f"{path}.additionalProperties", "additionalProperties and properties are mutual exclusive"))
        if isinstance(extra, Mapping):
            sub_context = context
            if context.inside_resource_meta:
                sub_context = _Context("inside additionalProperties applying to object metadata", True)
            errors += _openapi_errors(extra, f"{path}.additionalProperties", sub_context)
    for name, sub in (node.get("properties") or {}).items():
        sub_context = context
        if (is_root or node.get("x-kubernetes-embedded-resource")) and name in _META_FIELDS:
            sub_context = _Context(f"in top-level {name}" if is_root else context.defaults_forbidden_because, True)
        errors += _openapi_errors(sub, _key(f"{path}.properties", name), sub_context)
    if isinstance(node.get("not"), Mapping):
        errors += _openapi_errors(node["not"], f"{path}.not", context)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for index, sub in enumerate(node.get(keyword) or ()):
            errors += _openapi_errors(sub, f"{path}.{keyword}[{index}]", context)
    for name, sub in (node.get("definitions") or {}).items():
        errors += _openapi_errors(sub, _key(f"{path}.definitions", name), context)
    items = node.get("items")
    if isinstance(items, Mapping):
        errors += _openapi_errors(items, f"{path}.items", context)
    elif isinstance(items, list):
        for index, sub in enumerate(items):
            errors += _openapi_errors(sub, f"{path}.items[{index}]", context)
    if node.get("x-kubernetes-preserve-unknown-fields") is False:
        errors.append(invalid_error(f"{path}.x-kubernetes-preserve-unknown-fields", False, "must be true or undefined"))
    errors += _map_and_list_type_errors(node, path)
    return errors


def _standard_errors(node: Mapping[str, Any], path: str, context: _Context) -> list[FieldError]:
    """``specStandardValidatorV3.validate``."""
    errors = []
    node_type = node.get("type") or ""
    if node_type and node_type not in _OPENAPI_TYPES:
        errors.append(not_supported_error(f"{path}.type", node_type, _OPENAPI_TYPES))
    if node.get("default") is not None and context.defaults_forbidden_because is not None:
        reason = context.defaults_forbidden_because
        errors.append(forbidden_error(f"{path}.default", f"must not be set {reason}" if reason else "must not be set"))
    for key, message in (("id", "id is not supported"), ("additionalItems", "additionalItems is not supported"),
                         ("patternProperties", "patternProperties is not supported"),
                         ("definitions", "definitions is not supported"), ("dependencies", "dependencies is not supported"),
                         ("$ref", "$ref is not supported")):
        if node.get(key) not in (None, "", {}):
            errors.append(forbidden_error(f"{path}.{key}", message))
    if node_type == "null":
        errors.append(forbidden_error(f"{path}.type", "type cannot be set to null, use nullable as an alternative"))
    if isinstance(node.get("items"), list) and node["items"]:
        errors.append(forbidden_error(f"{path}.items", "items must be a schema object and not an array"))
    if context.inside_resource_meta and node.get("x-kubernetes-embedded-resource"):
        errors.append(forbidden_error(f"{path}.x-kubernetes-embedded-resource", "must not be used inside of resource meta"))
    return errors


def _map_and_list_type_errors(node: Mapping[str, Any], path: str) -> list[FieldError]:
    """The ``x-kubernetes-map-type``, ``x-kubernetes-list-type`` and ``-list-map-keys`` rules,
    and ``validateMapListKeysMapSet``."""
    errors: list[FieldError] = []
    node_type = node.get("type") or ""
    map_type = node.get("x-kubernetes-map-type")
    list_type = node.get("x-kubernetes-list-type")
    map_keys = node.get("x-kubernetes-list-map-keys") or []
    items = node.get("items") if isinstance(node.get("items"), Mapping) else None
    if map_type is not None and node_type != "object":
        message = "must be object if x-kubernetes-map-type is specified"
        errors.append(invalid_error(f"{path}.type", node_type, message) if node_type else required_error(f"{path}.type", message))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errors.append(not_supported_error(f"{path}.x-kubernetes-map-type", map_type, ("atomic", "granular")))
    if list_type is not None and node_type != "array":
        message = "must be array if x-kubernetes-list-type is specified"
        errors.append(invalid_error(f"{path}.type", node_type, message) if node_type else required_error(f"{path}.type", message))
    elif list_type == "set" and items is not None:
        if items.get("type") == "array" and items.get("x-kubernetes-list-type") not in (None, "atomic"):
            errors.append(invalid_error(f"{path}.items.x-kubernetes-list-type", items["x-kubernetes-list-type"],
                                        "must be atomic as item of a list with x-kubernetes-list-type=set"))
        elif items.get("type") == "object" and items.get("x-kubernetes-map-type") != "atomic":
            # kube reports the items' list type here (a nil pointer prints as "null")
            errors.append(invalid_error(f"{path}.items.x-kubernetes-map-type", items.get("x-kubernetes-list-type"),
                                        "must be atomic as item of a list with x-kubernetes-list-type=set"))
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errors.append(not_supported_error(f"{path}.x-kubernetes-list-type", list_type, ("atomic", "set", "map")))
    if map_keys:
        if list_type is None:
            errors.append(required_error(f"{path}.x-kubernetes-list-type", "must be map if x-kubernetes-list-map-keys is non-empty"))
        elif list_type != "map":
            errors.append(invalid_error(f"{path}.x-kubernetes-list-type", list_type, "must be map if x-kubernetes-list-map-keys is non-empty"))
    if list_type == "map":
        errors += _list_map_errors(node, items, map_keys, path)
    if list_type in ("set", "map") and items is not None:
        if items.get("nullable"):
            errors.append(forbidden_error(f"{path}.items.nullable", f"cannot be nullable when x-kubernetes-list-type is {list_type}"))
        if list_type == "map":
            required = set(items.get("required") or ())
            for key in map_keys:
                key_schema = (items.get("properties") or {}).get(key)
                if key_schema is None:
                    continue
                key_path = f"{_key(f'{path}.items.properties', key)}"
                if key not in required and key_schema.get("default") is None:
                    errors.append(required_error(f"{key_path}.default",
                                                 "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
                if key_schema.get("nullable"):
                    errors.append(forbidden_error(f"{key_path}.nullable", "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
    return errors


def _list_map_errors(node: Mapping[str, Any], items: Mapping[str, Any] | None, map_keys: Sequence[str], path: str) -> list[FieldError]:
    errors = []
    if not map_keys:
        errors.append(required_error(f"{path}.x-kubernetes-list-map-keys", "must not be empty if x-kubernetes-list-type is map"))
    if node.get("items") is None:
        errors.append(required_error(f"{path}.items", "must have a schema if x-kubernetes-list-type is map"))
    if items is None:
        return errors
    if items.get("type") != "object":
        errors.append(invalid_error(f"{path}.items.type", items.get("type") or "", "must be object if parent array's x-kubernetes-list-type is map"))
        return errors
    seen: set[str] = set()
    keys_value = go_strings(list(map_keys))
    for key in map_keys:
        key_schema = (items.get("properties") or {}).get(key)
        if key_schema is None:
            errors.append(invalid_go_value(f"{path}.x-kubernetes-list-map-keys", keys_value, "entries must all be names of item properties"))
        elif key_schema.get("type") in ("array", "object"):
            errors.append(invalid_error(f"{_key(f'{path}.items.properties', key)}.type", "object",
                                        "must be a scalar type if parent array's x-kubernetes-list-type is map"))
        if key in seen:
            errors.append(invalid_go_value(f"{path}.x-kubernetes-list-map-keys", keys_value, "must not contain duplicate entries"))
        seen.add(key)
    return errors
