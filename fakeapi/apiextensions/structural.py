"""What kube-apiserver does to a custom resource on every write: prune, default, validate.

A CRD version's ``openAPIV3Schema`` is compiled once into ``StructuralSchema``; each create or
update body then goes through ``StructuralSchema.admit``, in kube's order (apiextensions-apiserver
``pkg/apiserver/customresource_handler.go``: ``schemaCoercingDecoder`` then ``unstructuredDefaulter``,
then ``pkg/registry/customresource/strategy.go`` ``Validate``):

1. pruning (``pkg/apiserver/schema/pruning/algorithm.go``): fields the schema does not declare are
   dropped, except under ``x-kubernetes-preserve-unknown-fields``; ``apiVersion``, ``kind`` and
   ``metadata`` of the resource and of ``x-kubernetes-embedded-resource`` objects are kept, their
   ``metadata`` cut down to ObjectMeta's fields (``schema/objectmeta/coerce.go``);
2. ``null`` where the schema is neither nullable nor defaulted is dropped
   (``schema/defaulting/prunenulls.go``);
3. defaulting (``schema/defaulting/algorithm.go``): ``default`` fills absent fields and
   non-nullable nulls, top-down;
4. validation: kube-openapi's schema validator as apiextensions configures it
   (``pkg/apiserver/validation/validation.go``: formats limited to ``formats.go``'s list, errors
   turned into ``field.Error`` by ``kubeOpenAPIResultToFieldErrors``), then embedded resources'
   apiVersion and kind (``schema/objectmeta/validation.go``), then the ``x-kubernetes-list-type``
   set/map uniqueness (``schema/listtype/validation.go``). ``/status`` writes validate only
   ``status`` (``StructuralSchema.validate_status``).

Messages and field paths are kube's, e.g. ``spec.replicas: Invalid value: "string": spec.replicas in
body must be of type integer: "string"``. Like kube-openapi, failed ``anyOf``/``oneOf`` report the
best-matching branch's errors, chosen by its match count, which ``_Result.matches`` mirrors.

Not done here: CEL ``x-kubernetes-validations`` (``cel_validation``'s), validation ratcheting on update
(``CRDValidationRatcheting``: kube drops errors on values an update left unchanged), the root
object's ``metadata`` validation (the registry's job) and ObjectMeta validation of embedded
resources' metadata. Kube iterates Go maps, so the order of errors on several fields varies there;
here it follows the schema's property order. Regular expressions are Go RE2 in kube and Python's
``re`` here: the common subset behaves the same. Formats ``isbn*``, ``creditcard`` and
``bsonobjectid`` are not checked.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..machinery.golang import go_float, go_json, go_kind, go_quote
from ..machinery.strfmt import FORMATS, SUPPORTED_FORMATS
from ..machinery.field_validation import object_meta_unknown_fields
from ..machinery.status import (
    FieldError,
    duplicate_error,
    invalid_error,
    not_supported_error,
    required_error,
    too_long_error,
    too_many_error,
)

#: ObjectMeta's JSON fields: what survives of ``metadata`` (``objectmeta.GetObjectMeta`` decodes
#: into ``metav1.ObjectMeta`` and ``SetObjectMeta`` writes it back).
OBJECT_META_FIELDS = frozenset((
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
    "ownerReferences", "finalizers", "managedFields",
))
_META_FIELDS = frozenset(("apiVersion", "kind", "metadata"))
_IN = "body"  # kube-openapi's ``in`` for schema validation

# kube-openapi error codes (``validation/errors/schema.go``) that kube maps to field errors
# other than Invalid; composite messages (anyOf/oneOf/allOf/not) carry no code.
_INVALID_TYPE, _REQUIRED, _TOO_LONG, _ENUM, _MAX_ITEMS, _TOO_MANY_PROPERTIES = (
    "InvalidType", "Required", "TooLong", "Enum", "MaxItems", "TooManyProperties")
_OTHER = "Other"


# --- Go value semantics ------------------------------------------------------------------------

def _deep_equal(a: Any, b: Any) -> bool:
    """``reflect.DeepEqual`` of decoded JSON: int64 1 and float64 1 differ, as do 1 and true."""
    kind = go_kind(a)
    if kind != go_kind(b):
        return False
    if kind == "map":
        return a.keys() == b.keys() and all(_deep_equal(a[k], b[k]) for k in a)
    if kind == "slice":
        return len(a) == len(b) and all(map(_deep_equal, a, b))
    return a == b


def _enum_matches(value: Any, allowed: Any) -> bool:
    """kube-openapi's enum test: the value converted to the allowed value's Go type, then
    DeepEqual (so 3.7 matches an int64 3, and int64 97 matches ``"a"``, as in Go)."""
    kind, allowed_kind = go_kind(value), go_kind(allowed)
    if kind == allowed_kind:
        return _deep_equal(value, allowed)
    if allowed_kind == "int64" and kind == "float64":
        return math.isfinite(value) and int(value) == allowed
    if allowed_kind == "float64" and kind == "int64":
        return float(value) == allowed
    if allowed_kind == "string" and kind == "int64":
        return (chr(value) if 0 <= value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else "\ufffd") == allowed
    return False


def _is_json_integer(number: float) -> bool:
    """go-openapi swag's ``IsFloat64AJSONInteger``: integral and within ±(2^53-1)."""
    if not math.isfinite(number) or abs(number) > 2**53 - 1:
        return False
    whole = float(math.trunc(number))
    if number == whole:
        return True
    difference = abs(number - whole)
    if whole == 0:
        return difference < 1e-9 * 5e-324
    return difference / min(abs(number) + abs(whole), 1.7976931348623157e308) < 1e-9


# --- kube-openapi validation results -------------------------------------------------------------

class _Error:
    """A kube-openapi error: ``code`` (None for composite messages), ``name`` (the path as
    kube-openapi writes it), ``message``, and the values ``kubeOpenAPIResultToFieldErrors`` reads."""

    __slots__ = ("code", "name", "message", "value", "valid", "values")

    def __init__(self, code: str | None, name: str, message: str, value: Any = None,
                 valid: Any = None, values: tuple[Any, ...] = ()) -> None:
        self.code, self.name, self.message = code, name, message
        self.value, self.valid, self.values = value, valid, values


class _Result:
    """kube-openapi's ``validate.Result``: errors and the match count anyOf/oneOf rank by."""

    __slots__ = ("errors", "matches")

    def __init__(self) -> None:
        self.errors: list[_Error] = []
        self.matches = 0

    def merge(self, other: _Result | None) -> None:
        if other is not None:
            self.errors.extend(other.errors)
            self.matches += other.matches

    @property
    def valid(self) -> bool:
        return not self.errors


def _failure(error: _Error) -> _Result:
    """``errorHelp.sErr``: one error, no matches."""
    result = _Result()
    result.errors.append(error)
    return result


def _located(name: str) -> str:
    """kube-openapi's ``"%s in %s"``."""
    return f"{name} in {_IN}"


def _invalid_type(name: str, type_name: str, value: str) -> _Error:
    return _Error(_INVALID_TYPE, name, f"{_located(name)} must be of type {type_name}: {go_quote(value)}", value)


def _number_text(number: int | float) -> str:
    return str(number) if isinstance(number, int) else go_float(number)


# --- compiled schema ----------------------------------------------------------------------------

_ABSENT = object()


class _Node:
    """One compiled schema node: its structural part (properties, items, additionalProperties,
    which pruning and defaulting follow) and its value validations (also under allOf, anyOf,
    oneOf and not, which only validation follows)."""

    __slots__ = (
        "types", "type_name", "nullable", "format", "format_check", "properties", "items",
        "has_additional", "additional", "additional_allowed", "preserve_unknown", "embedded",
        "default", "required", "enum", "maximum", "exclusive_maximum", "minimum",
        "exclusive_minimum", "multiple_of", "max_length", "min_length", "pattern", "pattern_text",
        "max_items", "min_items", "unique_items", "max_properties", "min_properties", "all_of",
        "any_of", "one_of", "not_", "list_type", "list_map_keys", "has_list_types", "has_embedded",
        "composed",
    )

    def __init__(self, node: Mapping[str, Any]) -> None:
        declared = node.get("type") or ""
        # ConvertJSONSchemaProps: x-kubernetes-int-or-string becomes the type list integer,string.
        self.types: tuple[str, ...] = ("integer", "string") if node.get("x-kubernetes-int-or-string") else (
            (declared,) if declared else ())
        self.type_name = ",".join(self.types)
        self.nullable = bool(node.get("nullable"))
        declared_format = node.get("format") or ""
        normalised = declared_format.replace("-", "")
        self.format = declared_format if normalised in SUPPORTED_FORMATS else ""
        self.format_check = FORMATS.get(normalised) if self.format else None
        self.properties = {name: _Node(sub) for name, sub in (node.get("properties") or {}).items()}
        self.items = _Node(node["items"]) if isinstance(node.get("items"), Mapping) else None
        extra = node.get("additionalProperties", _ABSENT)
        self.has_additional = extra is not _ABSENT and extra is not None
        self.additional = _Node(extra) if isinstance(extra, Mapping) else None
        self.additional_allowed = extra is not False
        self.preserve_unknown = bool(node.get("x-kubernetes-preserve-unknown-fields"))
        self.embedded = bool(node.get("x-kubernetes-embedded-resource"))
        self.default = node.get("default", _ABSENT)
        if self.default is None:  # a JSON null default is no default (Convert_v1_JSON_To_apiextensions_JSON)
            self.default = _ABSENT
        self.required = tuple(node.get("required") or ())
        self.enum = tuple(node["enum"]) if node.get("enum") else ()
        self.maximum, self.minimum = node.get("maximum"), node.get("minimum")
        self.exclusive_maximum = bool(node.get("exclusiveMaximum"))
        self.exclusive_minimum = bool(node.get("exclusiveMinimum"))
        self.multiple_of = node.get("multipleOf")
        self.max_length, self.min_length = node.get("maxLength"), node.get("minLength")
        self.pattern_text = node.get("pattern") or ""
        self.pattern = compile_pattern(self.pattern_text) if self.pattern_text else None
        self.max_items, self.min_items = node.get("maxItems"), node.get("minItems")
        self.unique_items = bool(node.get("uniqueItems"))
        self.max_properties, self.min_properties = node.get("maxProperties"), node.get("minProperties")
        self.all_of = tuple(_Node(sub) for sub in node.get("allOf") or ())
        self.any_of = tuple(_Node(sub) for sub in node.get("anyOf") or ())
        self.one_of = tuple(_Node(sub) for sub in node.get("oneOf") or ())
        self.not_ = _Node(node["not"]) if node.get("not") else None
        self.composed = bool(self.all_of or self.any_of or self.one_of or self.not_)
        self.list_type = node.get("x-kubernetes-list-type")
        self.list_map_keys = tuple(node.get("x-kubernetes-list-map-keys") or ())
        # Whether the list-type and embedded-resource checks have anything to do here or below:
        # most schemas have neither, and then those walks stop at once.
        self.has_list_types = self.list_type in ("set", "map") or any(
            child.has_list_types for child in self._structural_children())
        self.has_embedded = self.embedded or any(child.has_embedded for child in self._structural_children())

    def _structural_children(self) -> Iterable[_Node]:
        yield from self.properties.values()
        if self.items is not None:
            yield self.items
        if self.additional is not None:
            yield self.additional

    def value_schema(self, key: str) -> _Node | None:
        """The structural schema of an object's field: its property, else additionalProperties."""
        return self.properties.get(key) or self.additional

    # --- pruning (pruning/algorithm.go) ---

    def prune(self, value: Any, root: bool = False, unknown: UnknownFields | None = None) -> None:
        """``prune``; the resource root is treated as an embedded resource, as kube does. What
        goes is recorded in ``unknown`` when given (the root's metadata is not: kube reads it
        before pruning, see ``StructuralSchema.prune_resource``)."""
        embedded = self.embedded or root
        if self.preserve_unknown:
            self._skip_prune(value, embedded, root, unknown)
            return
        if isinstance(value, dict):
            for key in list(value):
                if embedded and key in _META_FIELDS:
                    if key == "metadata":
                        _coerce_metadata(value, None if root else unknown)
                    continue
                sub = self.properties.get(key)
                if sub is None and not self.has_additional:
                    del value[key]
                    if unknown is not None:
                        unknown.pruned(key)
                    continue
                _prune_member(value[key], self.additional if sub is None else sub, unknown, key, sub is None)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                _prune_member(item, self.items, unknown, index)

    def _skip_prune(self, value: Any, embedded: bool, root: bool, unknown: UnknownFields | None) -> None:
        """``skipPrune``: keep unknown fields here, but prune inside the known ones."""
        if isinstance(value, dict):
            for key, item in value.items():
                if embedded and key in _META_FIELDS:
                    if key == "metadata":
                        _coerce_metadata(value, None if root else unknown)
                    continue
                sub = self.properties.get(key)
                if sub is not None or self.has_additional:
                    _prune_member(item, self.additional if sub is None else sub, unknown, key, sub is None)
        elif isinstance(value, list) and self.items is not None:
            for index, item in enumerate(value):
                if isinstance(item, (dict, list)):
                    if unknown is not None:
                        unknown.enter(index)
                    self.items._skip_prune(item, self.items.embedded, False, unknown)
                    if unknown is not None:
                        unknown.leave()

    # --- nulls and defaults (defaulting/prunenulls.go, defaulting/algorithm.go) ---

    def drop_nulls(self, value: Any) -> None:
        """``PruneNonNullableNullsWithoutDefaults``."""
        if isinstance(value, dict):
            for key in list(value):
                sub = self.value_schema(key)
                if value[key] is None and sub is not None and not sub.nullable and sub.default is _ABSENT:
                    del value[key]
                elif sub is not None:
                    sub.drop_nulls(value[key])
        elif isinstance(value, list) and self.items is not None:
            for item in value:
                self.items.drop_nulls(item)

    def apply_defaults(self, value: Any) -> None:
        """``structuraldefaulting.Default``."""
        if isinstance(value, dict):
            for key, sub in self.properties.items():
                if sub.default is not _ABSENT and (key not in value or sub._is_non_nullable_null(value[key])):
                    value[key] = copy.deepcopy(sub.default)
            for key, item in value.items():
                sub = self.properties.get(key)
                if sub is None and self.additional is not None:
                    sub = self.additional
                    if sub._is_non_nullable_null(item):
                        value[key] = item = _copy_default(sub)
                if sub is not None:
                    sub.apply_defaults(item)
        elif isinstance(value, list) and self.items is not None:
            for index, item in enumerate(value):
                if self.items._is_non_nullable_null(item):
                    value[index] = item = _copy_default(self.items)
                self.items.apply_defaults(item)

    def _is_non_nullable_null(self, value: Any) -> bool:
        return value is None and not self.nullable

    # --- kube-openapi SchemaValidator.Validate (validate/schema.go) ---

    def validate(self, data: Any, path: str) -> _Result:
        """``data`` against this node; ``path`` is kube-openapi's name for it (``spec.items[0]``)."""
        result = _Result()
        if data is None:
            result.merge(self._validate_type(data, "nil", path))
            result.merge(self._validate_enum(data, path))
            return result
        kind = go_kind(data)
        # The validators in kube-openapi's order, each counted as a match when it applies.
        if self.types or self.format:
            result.merge(self._validate_type(data, kind, path))
            result.matches += 1
        if self.composed:
            result.merge(self._validate_composition(data, path))
            result.matches += 1
        else:  # what schemaPropsValidator counts with nothing to check
            result.matches += 2
        if kind == "string":
            result.merge(self._validate_string(data, path))
            result.matches += 1
            if self.format:  # every format apiextensions keeps is one strfmt knows
                result.merge(self._validate_format(data, path))
                result.matches += 1
        elif kind in ("int64", "float64"):
            result.merge(self._validate_number(data, path))
            result.matches += 1
        elif kind == "slice":
            result.merge(self._validate_array(data, path))
            result.matches += 1
        result.merge(self._validate_enum(data, path))
        result.matches += 1
        if kind == "map":
            result.merge(self._validate_object(data, path))
            result.matches += 1
        result.matches += 1
        return result

    def _validate_type(self, data: Any, kind: str, path: str) -> _Result:
        """``typeValidator``: a float that is an integer passes as an integer."""
        if data is None:
            if self.types and not self.nullable:
                return _failure(_invalid_type(path, self.type_name, "null"))
            return _MATCHED
        schema_type = _SCHEMA_TYPES[kind]
        value_format = {"int64": "int64", "float64": "float64"}.get(kind, "")
        float_int = kind == "float64" and _is_json_integer(data) and "integer" in self.types
        int_float = kind == "int64" and "number" in self.types
        accepted = schema_type in self.types or float_int or int_float
        if kind not in ("string", "slice") and self.format and not (accepted or value_format == self.format):
            return _failure(_invalid_type(path, self.format, value_format))
        if self.format and kind in ("string", "slice") and not ("number" in self.types or "integer" in self.types):
            return _MATCHED
        if not accepted:
            return _failure(_invalid_type(path, self.type_name, schema_type))
        return _MATCHED

    def _validate_composition(self, data: Any, path: str) -> _Result:
        """``schemaPropsValidator``: anyOf, oneOf, allOf, not."""
        main = _Result()
        if self.any_of:
            best: _Result | None = None
            success: _Result | None = None
            for sub in self.any_of:
                result = sub.validate(data, path)
                if result.valid:
                    best, success = None, result
                    break
                if best is None or result.matches > best.matches:
                    best = result
            if success is None:
                main.errors.append(_Error(None, path, f"{go_quote(path)} must validate at least one schema (anyOf)"))
            main.merge(best if best is not None else success)
        if self.one_of:
            best, success, passed = None, None, 0
            for sub in self.one_of:
                result = sub.validate(data, path)
                if result.valid:
                    passed += 1
                    best = None
                    success = success or result
                elif passed == 0 and (best is None or result.matches > best.matches):
                    best = result
            if passed != 1:
                detail = "Found none valid" if passed == 0 else f"Found {passed} valid alternatives"
                main.errors.append(_Error(None, path, f"{go_quote(path)} must validate one and only one schema (oneOf). {detail}"))
                main.merge(best)
            else:
                main.merge(success)
        if self.all_of:
            passed = 0
            for sub in self.all_of:
                result = sub.validate(data, path)
                passed += result.valid
                main.merge(result)
            if passed != len(self.all_of):
                detail = ". None validated" if passed == 0 else ""
                main.errors.append(_Error(None, path, f"{go_quote(path)} must validate all the schemas (allOf){detail}"))
        if self.not_ is not None and self.not_.validate(data, path).valid:
            main.errors.append(_Error(None, path, f"{go_quote(path)} must not validate the schema (not)"))
        main.matches += 1
        return main

    def _validate_string(self, data: str, path: str) -> _Result | None:
        """``stringValidator``: the first failing of maxLength, minLength, pattern (lengths in runes)."""
        if self.max_length is not None and len(data) > self.max_length:
            return _failure(_Error(_TOO_LONG, path, f"{_located(path)} should be at most {self.max_length} chars long",
                                   data, self.max_length))
        if self.min_length is not None and len(data) < self.min_length:
            return _failure(_Error(_OTHER, path, f"{_located(path)} should be at least {self.min_length} chars long", data))
        if self.pattern is not None and not self.pattern.search(data):
            return _failure(_Error(_OTHER, path, f"{_located(path)} should match '{self.pattern_text}'", data))
        return None

    def _validate_format(self, data: str, path: str) -> _Result | None:
        if self.format_check is None or self.format_check(data):
            return None
        return _failure(_Error(_INVALID_TYPE, path, f"{_located(path)} must be of type {self.format}: {go_quote(data)}", data))

    def _validate_number(self, data: int | float, path: str) -> _Result:
        """``numberValidator``: multipleOf, minimum, maximum, compared in the value's own Go type
        (an int64 against a bound truncated to int64)."""
        result = _Result()
        is_int = isinstance(data, int)
        if self.multiple_of is not None:
            result.merge(_multiple_of(path, data, self.multiple_of, is_int))
        for bound, exclusive, above in ((self.minimum, self.exclusive_minimum, False),
                                        (self.maximum, self.exclusive_maximum, True)):
            if bound is None:
                continue
            limit = math.trunc(bound) if is_int else float(bound)
            beyond = (data >= limit if exclusive else data > limit) if above else (data <= limit if exclusive else data < limit)
            if beyond:
                relation = ("less than" if exclusive else "less than or equal to") if above else (
                    "greater than" if exclusive else "greater than or equal to")
                result.errors.append(_Error(_OTHER, path, f"{_located(path)} should be {relation} {_number_text(limit)}", data))
        result.matches += 1
        return result

    def _validate_array(self, data: list[Any], path: str) -> _Result:
        """``schemaSliceValidator``."""
        result = _Result()
        if self.items is not None:
            for index, item in enumerate(data):
                result.merge(self.items.validate(item, f"{path}[{index}]"))
        size = len(data)
        if self.min_items is not None and size < self.min_items:
            result.errors.append(_Error(_OTHER, path, f"{_located(path)} should have at least {self.min_items} items", size))
        if self.max_items is not None and size > self.max_items:
            result.errors.append(_Error(_MAX_ITEMS, path, f"{_located(path)} should have at most {self.max_items} items",
                                        size, self.max_items))
        if self.unique_items and any(_deep_equal(data[i], data[j]) for i in range(size) for j in range(i)):
            result.errors.append(_Error(_OTHER, path, f"{_located(path)} shouldn't contain duplicates"))
        result.matches += 1
        return result

    def _validate_enum(self, data: Any, path: str) -> _Result | None:
        """``basicCommonValidator``."""
        if not self.enum or (data is not None and any(_enum_matches(data, allowed) for allowed in self.enum)):
            return None
        # The message is only what repeats are recognised by: kube reports NotSupported.
        values = " ".join(go_json(v) if not isinstance(v, str) else v for v in self.enum)
        return _failure(_Error(_ENUM, path, f"{_located(path)} should be one of [{values}]", data, values=self.enum))

    def _validate_object(self, data: dict[str, Any], path: str) -> _Result:
        """``objectValidator``: property counts, additionalProperties, properties, required."""
        result = _Result()
        size = len(data)
        if self.min_properties is not None and size < self.min_properties:
            result.errors.append(_Error(_OTHER, path, f"{_located(path)} should have at least {self.min_properties} properties", size))
        if self.max_properties is not None and size > self.max_properties:
            result.errors.append(_Error(_TOO_MANY_PROPERTIES, path, f"{_located(path)} should have at most {self.max_properties} properties",
                                        size, self.max_properties))
        if not self.additional_allowed:
            for key in data:
                if key not in self.properties:
                    result.errors.append(_Error(_OTHER, path, f"{path}.{key} in {_IN} is a forbidden property", key))
        elif self.additional is not None:
            for key, value in data.items():
                if key not in self.properties:
                    result.merge(self.additional.validate(value, f"{path}.{key}"))
        for name, sub in self.properties.items():
            if name in data:
                result.merge(sub.validate(data[name], f"{path}.{name}" if path else name))
        for name in self.required:
            if name not in data:
                result.errors.append(_Error(_REQUIRED, f"{path}.{name}", f"{_located(f'{path}.{name}')} is required"))
        return result

    # --- x-kubernetes-embedded-resource (objectmeta/validation.go) ---

    def embedded_errors(self, value: Any, path: str, errors: list[FieldError]) -> None:
        """``objectmeta.Validate`` below the resource root: embedded objects need an apiVersion
        and a kind (their metadata's ObjectMeta validation is not done here)."""
        if not self.has_embedded:
            return
        if isinstance(value, dict):
            if self.embedded:
                errors.extend(_embedded_type_meta_errors(value, path))
            for key, item in value.items():
                sub = self.properties.get(key)
                if sub is not None:
                    sub.embedded_errors(item, f"{path}.{key}" if path else key, errors)
                elif self.additional is not None:
                    self.additional.embedded_errors(item, f"{path}[{key}]", errors)
        elif isinstance(value, list) and self.items is not None:
            for index, item in enumerate(value):
                self.items.embedded_errors(item, f"{path}[{index}]", errors)

    # --- x-kubernetes-list-type (listtype/validation.go) ---

    def list_errors(self, value: Any, path: str, errors: list[FieldError]) -> None:
        if not self.has_list_types:
            return
        if isinstance(value, dict):
            for key, item in value.items():
                if self.additional is not None:
                    self.additional.list_errors(item, f"{path}[{key}]", errors)
                sub = self.properties.get(key)
                if sub is not None:
                    sub.list_errors(item, f"{path}.{key}" if path else key, errors)
        elif isinstance(value, list):
            if self.list_type == "set":
                errors.extend(duplicate_error(f"{path}[{i}]", value[i]) for i in _repeated(value))
            elif self.list_type == "map":
                errors.extend(self._list_map_errors(value, path))
            if self.items is not None:
                for index, item in enumerate(value):
                    self.items.list_errors(item, f"{path}[{index}]", errors)

    def _list_map_errors(self, items: list[Any], path: str) -> list[FieldError]:
        for index, item in enumerate(items):
            if item is not None and not isinstance(item, dict):
                return [invalid_error(f"{path}[{index}]", item, "must be an object for an array of list-type map")]
        keys = [{name: item[name] for name in self.list_map_keys if name in item} if item else {} for item in items]
        return [duplicate_error(f"{path}[{i}]", keys[i]) for i in _repeated(keys)]


_SCHEMA_TYPES = {"bool": "boolean", "string": "string", "int64": "integer", "float64": "number",
                 "slice": "array", "map": "object"}


#: A passed check worth one match; shared, as results are only ever read once returned.
_MATCHED = _Result()
_MATCHED.matches = 1


def _copy_default(schema: _Node) -> Any:
    return None if schema.default is _ABSENT else copy.deepcopy(schema.default)


def _prune_value(value: Any, schema: _Node | None, unknown: UnknownFields | None = None) -> None:
    """``prune`` with a possibly absent schema: without one, every field below is dropped, the
    arrays looked into iteratively (a value Go decodes nests deeper than Python recurses)."""
    if schema is not None:
        schema.prune(value, unknown=unknown)
        return
    if isinstance(value, dict):
        _drop_fields(value, unknown)
    if not isinstance(value, list):
        return
    walks: list[Iterator[tuple[int, Any]]] = [enumerate(value)]  # the arrays being looked into
    while walks:
        step = next(walks[-1], None)
        if step is None:
            walks.pop()
            if walks and unknown is not None:
                unknown.leave()  # an array entered below
            continue
        index, item = step
        if not isinstance(item, (dict, list)):
            continue
        if unknown is not None:
            unknown.enter(index)
        if isinstance(item, list):
            walks.append(enumerate(item))
            continue
        _drop_fields(item, unknown)
        if unknown is not None:
            unknown.leave()


def _drop_fields(value: dict[str, Any], unknown: UnknownFields | None) -> None:
    if unknown is not None:
        for key in value:
            unknown.pruned(key)
    value.clear()


def _prune_member(value: Any, schema: _Node | None, unknown: UnknownFields | None, segment: str | int,
                  map_key: bool = False) -> None:
    """``_prune_value`` of an object's member (``segment``: its key, ``map_key`` under
    additionalProperties) or an array's item (its index), within ``unknown``'s path. A scalar
    holds nothing to prune."""
    if not isinstance(value, (dict, list)):
        return
    if unknown is not None:
        unknown.enter(segment, map_key=map_key)
    _prune_value(value, schema, unknown)
    if unknown is not None:
        unknown.leave()


def _coerce_metadata(obj: dict[str, Any], unknown: UnknownFields | None = None) -> None:
    """What the ObjectMeta round trip keeps of ``metadata``: its own fields (what it drops of
    an embedded resource's is recorded in ``unknown`` when given)."""
    metadata = obj["metadata"]
    if unknown is not None:
        unknown.coerced(metadata)
    if isinstance(metadata, dict):
        for key in [k for k in metadata if k not in OBJECT_META_FIELDS]:
            del metadata[key]


class UnknownFields:
    """What pruning a custom resource drops, in kube's words: the fields its schema does not
    declare (``UnknownFieldPathOptions``: ``spec.foo``, ``spec.items[0].bar``, a map's key joined
    like a field), and the fields of embedded resources' metadata ObjectMeta does not have
    (``CoerceWithOptions``, whose ``field.Path`` writes a map's key ``[key]``:
    ``spec.templates[a].metadata.foo``). Kube sorts each list."""

    __slots__ = ("_path", "_field_path", "_pruned", "_coerced")

    def __init__(self) -> None:
        self._path: list[str] = []  # segments of the value being pruned, in both notations
        self._field_path: list[str] = []
        self._pruned: list[str] = []
        self._coerced: list[str] = []

    def enter(self, segment: str | int, *, map_key: bool = False) -> None:
        """Into a member (its key) or an item (its index)."""
        if isinstance(segment, int):
            self._path.append(f"[{segment}]")
            self._field_path.append(f"[{segment}]")
            return
        self._path.append(f".{segment}" if self._path else segment)
        self._field_path.append(f"[{segment}]" if map_key else f".{segment}" if self._field_path else segment)

    def leave(self) -> None:
        self._path.pop()
        self._field_path.pop()

    def pruned(self, key: str) -> None:
        """``RecordUnknownField``: ``key`` of the value being pruned goes."""
        self._pruned.append("".join(self._path) + (f".{key}" if self._path else key))

    def coerced(self, metadata: Any) -> None:
        """The metadata of the embedded resource being pruned goes through ObjectMeta."""
        path = "".join(self._field_path)
        self._coerced += object_meta_unknown_fields(metadata, f"{path}.metadata" if path else "metadata")

    def paths(self) -> list[str]:
        return sorted(self._pruned) + sorted(self._coerced)


_DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1035_MESSAGE = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
    "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")


def dns1035_label_problems(value: str) -> list[str]:
    """``utilvalidation.IsDNS1035Label``: what is wrong with ``value`` as a DNS-1035 label."""
    problems = ["must be no more than 63 characters"] if len(value) > 63 else []
    if not _DNS1035_LABEL.match(value):
        problems.append(_DNS1035_MESSAGE)
    return problems


def _embedded_type_meta_errors(obj: dict[str, Any], path: str) -> list[FieldError]:
    """``validateEmbeddedResource``'s apiVersion and kind checks (a missing one is a bare
    ``Required value``: kube's detail is empty)."""
    errors = [required_error(f"{path}.{name}" if path else name)
              for name in ("apiVersion", "kind") if name not in obj]
    for name in ("apiVersion", "kind"):
        if name not in obj:
            continue
        value, field_path = obj[name], f"{path}.{name}" if path else name
        if not isinstance(value, str):
            errors.append(invalid_error(field_path, value, "must be a string"))
        elif not value:
            errors.append(invalid_error(field_path, value, "must not be empty"))
        elif name == "apiVersion" and value.count("/") > 1:  # schema.ParseGroupVersion
            errors.append(invalid_error(field_path, value, f"unexpected GroupVersion string: {value}"))
        elif name == "kind" and (problems := dns1035_label_problems(value.lower())):
            errors.append(invalid_error(field_path, value, "may have mixed case, but should otherwise match: " + ",".join(problems)))
    return errors


def _multiple_of(path: str, data: int | float, factor: float, is_int: bool) -> _Result | None:
    """``MultipleOfNativeType``: an int64 against the factor truncated to int64, a float64 by
    division (``MultipleOf``)."""
    if is_int:
        whole = math.trunc(factor)
        if whole <= 0:
            return _failure(_Error(_OTHER, path, f"factor MultipleOf declared for {path} must be positive: {whole}", whole))
        if data % whole:
            return _failure(_Error(_OTHER, path, f"{_located(path)} should be a multiple of {whole}", data))
        return None
    if factor <= 0:
        return _failure(_Error(_OTHER, path, f"factor MultipleOf declared for {path} must be positive: {go_float(factor)}", float(factor)))
    quotient = 1 / factor * data if factor < 1 else data / factor
    if not _is_json_integer(quotient):
        return _failure(_Error(_OTHER, path, f"{_located(path)} should be a multiple of {go_float(factor)}", data))
    return None


def _set_key(value: Any) -> Any:
    """What ``validateListSet`` tells values apart by: scalars with their Go type, compound
    values by their JSON (where int64 1 and float64 1 are both ``1``)."""
    if isinstance(value, dict) and all(go_kind(v) in ("string", "bool", "nil") for v in value.values()):
        return "map", tuple(sorted(value.items()))  # a list-map key of strings: no JSON needed
    if isinstance(value, (dict, list)):
        return "json", go_json(value)
    return go_kind(value), value


def _repeated(values: list[Any]) -> list[int]:
    """``validateListSet``: the index of each value's second occurrence."""
    seen: dict[Any, int] = {}
    repeats = []
    for index, value in enumerate(values):
        key = _set_key(value)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 2:
            repeats.append(index)
    return repeats


def compile_pattern(pattern: str) -> re.Pattern[str] | None:
    """A schema's ``pattern`` for Python's ``re`` (Go's RE2 syntax mostly agrees); None when it
    does not compile here, and then it is not checked."""
    try:
        return re.compile(pattern)
    except re.error:
        return None


#: RE2 syntax Python's ``re`` accepts but Go's ``regexp`` refuses: lookaround, backreferences.
_PERL_ONLY = re.compile(r"\(\?<?[=!]|\\[1-9]")
#: Go's ``regexp/syntax`` wording for the parse errors Python's ``re`` reports, with what Go
#: quotes: the rest of the pattern from the error, the whole pattern, or the operator.
_RE_ERRORS = (
    ("unterminated character set", "missing closing ]", "rest"),
    ("missing ), unterminated subpattern", "missing closing )", "all"),
    ("unbalanced parenthesis", "unexpected )", "all"),
    ("nothing to repeat", "missing argument to repetition operator", "operator"),
    ("multiple repeat", "invalid nested repetition operator", "operator2"),
    ("bad escape", "invalid escape sequence", "escape"),
    ("bad character range", "invalid character class range", "range"),
)


def go_regexp_error(pattern: str) -> str | None:
    """``regexp.Compile``'s error for an invalid pattern (``error parsing regexp: missing
    closing ]: `[a```), None for a valid one. Go constructs Python lacks (``\\p{L}``) count as
    valid."""
    perl = _PERL_ONLY.search(pattern)
    if perl:
        kind = "invalid or unsupported Perl syntax" if perl[0].startswith("(") else "invalid escape sequence"
        return f"error parsing regexp: {kind}: `{perl[0]}`"
    try:
        re.compile(pattern)
    except re.error as error:
        for python_message, go_message, quoted in _RE_ERRORS:
            if error.msg.startswith(python_message):
                at = error.pos or 0
                text = {"rest": pattern[at:], "all": pattern, "operator": pattern[at:at + 1],
                        "operator2": pattern[at - 1:at + 1], "escape": error.msg.rsplit(" ", 1)[-1],
                        "range": error.msg.rsplit(" ", 1)[-1]}[quoted]
                if quoted == "escape" and text[1:2] in "pP":
                    return None
                return f"error parsing regexp: {go_message}: `{text}`"
        return f"error parsing regexp: {error.msg}"
    return None


def _field_errors(errors: list[_Error], base: str | None) -> list[FieldError]:
    """``kubeOpenAPIResultToFieldErrors``, after kube-openapi's removal of repeated messages.
    ``base`` is the field path validation started at (``None``, printed ``<nil>``, for the object)."""
    out: list[FieldError] = []
    seen: set[str] = set()
    for error in errors:
        if error.message in seen:
            continue
        seen.add(error.message)
        if error.code is None:
            out.append(invalid_error(base or "<nil>", "", error.message))
            continue
        name = error.name.removeprefix(".")
        path = (f"{base}.{name}" if base else name) if name else (base or "<nil>")
        value = "" if error.value is None else error.value
        if error.code == _REQUIRED:
            out.append(required_error(path))
        elif error.code == _ENUM:
            out.append(not_supported_error(path, error.value, [v if isinstance(v, str) else go_json(v) for v in error.values]))
        elif error.code == _TOO_LONG:
            out.append(too_long_error(path, error.valid))
        elif error.code in (_MAX_ITEMS, _TOO_MANY_PROPERTIES):
            out.append(too_many_error(path, error.value, error.valid))
        else:
            out.append(invalid_error(path, value, error.message, type_invalid=error.code == _INVALID_TYPE))
    return out


class StructuralSchema:
    """A CRD version's ``openAPIV3Schema``, compiled once for the writes of its resources.
    The schema is assumed to have passed ``crd.validate_crd`` (structural, defaults pruned)."""

    __slots__ = ("_root",)

    def __init__(self, openapi_v3_schema: Mapping[str, Any]) -> None:
        self._root = _Node(openapi_v3_schema)

    def prune(self, obj: Any, resource_root: bool = True) -> None:
        """Drop the fields the schema does not declare, in place (``pruning.Prune``); a resource
        root keeps its apiVersion, kind and metadata."""
        self._root.prune(obj, root=resource_root)

    def prune_resource(self, obj: dict[str, Any]) -> list[str]:
        """``prune`` of a custom resource, returning the paths of what its decoder finds unknown
        (``unstructuredSchemaCoercer.apply``): the metadata's fields ObjectMeta does not have
        (read before pruning), then the pruned fields, then embedded resources' metadata's."""
        metadata_fields = object_meta_unknown_fields(obj["metadata"], "metadata") if "metadata" in obj else []
        unknown = UnknownFields()
        self._root.prune(obj, root=True, unknown=unknown)
        return metadata_fields + unknown.paths()

    def default(self, obj: dict[str, Any]) -> None:
        """Drop non-nullable nulls without a default, then apply defaults, in place."""
        self._root.drop_nulls(obj)
        self._root.apply_defaults(obj)

    def validate(self, obj: dict[str, Any], validator_errors: Sequence[FieldError] = ()) -> list[FieldError]:
        """The errors ``customResourceStrategy.Validate`` finds in a whole custom resource (but
        metadata and CEL): the schema's, then ``validator_errors`` (what kube's validator adds
        after the schema's: the scale paths'), embedded resources', the list types'."""
        errors = self.validate_value(obj, None) + list(validator_errors)
        self._root.embedded_errors(obj, "", errors)
        self._root.list_errors(obj, "", errors)
        return errors

    def validate_value(self, value: Any, base: str | None) -> list[FieldError]:
        """The schema's errors on any value (``ValidateCustomResource(base, ...)``): field paths
        start at ``base``, ``None`` for the object itself."""
        return _field_errors(self._root.validate(value, "").errors, base)

    def validate_status(self, obj: dict[str, Any], validator_errors: Sequence[FieldError] = ()) -> list[FieldError]:
        """A ``/status`` write: ``status`` against its own schema, with field paths under
        ``status`` and messages without (``customResourceValidator.ValidateStatusUpdate``), then
        ``validator_errors`` (the scale status paths'), then the whole object's list types
        (``statusStrategy.ValidateUpdate``; kube keeps those only when the old object had none)."""
        status_schema = self._root.properties.get("status")
        errors = []
        if status_schema is not None and "status" in obj:
            errors = _field_errors(status_schema.validate(obj["status"], "").errors, "status")
        errors += validator_errors
        self._root.list_errors(obj, "", errors)
        return errors

    def admit(self, obj: dict[str, Any]) -> list[FieldError]:
        """A create or update body: pruned and defaulted in place, then validated."""
        self.prune(obj)
        self.default(obj)
        return self.validate(obj)
