"""Server-side field validation: the unknown and duplicate fields of a request body, and the
``fieldValidation`` policy (``Strict``, ``Warn``, ``Ignore``) kube-apiserver applies to them.

kube-apiserver finds them while decoding a built-in object with sigs.k8s.io/json's
``UnmarshalStrict`` (``internal/golang/encoding/json/kubernetes_patch.go``): an object key with
no field of that name, compared case-sensitively, is an ``unknown field``, and its value is not
looked into; a key seen twice in one object or map is a ``duplicate field``. Each error names the
field's path (``spec.template.spec.containers[0].bogus``, map keys joined like fields), is reported
once, in document order, and at most 100 are kept. Types that decode themselves from the raw
bytes (``RawExtension``, ``FieldsV1``, ``JSON``, ``Patch``) are not looked into at all.

The body is decoded once, and its strict errors are found in the decoded object: its members in
document order. Duplicates exist only in the bytes (a decoded dict keeps the last value), but a
body rarely repeats a key, and whether it does not is quick to tell from the bytes and the
decoded value (``gojson.may_repeat_keys``); only a JSON body that may is parsed again, as Go
reads it, keeping every member in order (``loads_pairs``), and its members are what is checked.
A YAML body's repeated keys are its strict decoder's own errors. The caller looks for nothing
when the policy is ``Ignore``. A custom resource's body is unmarshalled into a map: its strict
errors are its repeated keys, then the unknown fields its pruning reports
(``check_custom_fields``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from functools import cache
from typing import Any, Literal

from .gojson import loads_pairs, member_path, repeated_keys
from .golang import go_quote
from .jsonvalue import Repeated, json_key
from .schema import Schema, definitions
from .status import StatusError, bad_request, invalid
from .warning import header as warning_header

#: sigs.k8s.io/json stops recording strict errors after this many (``saveStrictError``).
MAX_ERRORS = 100
#: Definitions whose Go types unmarshal themselves from raw JSON: kube does not look inside them,
#: although their schemas look like objects without fields.
_SELF_DECODING = (
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
)

OptionsKind = Literal["CreateOptions", "UpdateOptions", "PatchOptions"]


class FieldValidation(StrEnum):
    """``metav1.FieldValidation*``, the values of the ``fieldValidation`` query parameter."""

    IGNORE = "Ignore"
    WARN = "Warn"
    STRICT = "Strict"


def field_validation(value: str | None, options: OptionsKind) -> FieldValidation:
    """The policy a write asks for. Absent or empty is ``Warn`` (the handlers' ``fieldValidation()``
    default since 1.23); any other value is the 422 of ``ValidateCreateOptions`` /
    ``ValidateUpdateOptions`` / ``ValidatePatchOptions``, named after ``options``."""
    error = field_validation_error(value)
    if error is not None:
        raise invalid("meta.k8s.io", options, "", [error])
    return FieldValidation(value or FieldValidation.WARN)


def field_validation_error(value: str | None) -> tuple[str, str, str] | None:
    """``ValidateFieldValidation``: the error of a value other than the three (or empty)."""
    if not value or value in tuple(FieldValidation):
        return None
    supported = ", ".join(go_quote(v) for v in sorted(("", *FieldValidation)))
    return ("fieldValidation", "FieldValueNotSupported", f"Unsupported value: {go_quote(value)}: supported values: {supported}")


#: A strict decoding error found: (``unknown`` or ``duplicate``, the field's path).
_Found = dict[tuple[str, str], None]  # an ordered set: each error is reported once


def strict_error(what: str, path: str) -> str:
    """A strict decoding error as kube words it: ``unknown field "spec.foo"``,
    ``duplicate field "spec.replicas"``."""
    return f"{what} field {go_quote(path)}"


def strict_decoding_errors(body: bytes, schema: Schema) -> list[str]:
    """The unknown and duplicate fields of a JSON body that may repeat a key, as kube words
    them: ``unknown field "spec.foo"``, ``duplicate field "spec.replicas"`` (see the module
    doc), from its members as Go reads them."""
    return object_strict_errors(loads_pairs(body, _Members), schema)


def object_strict_errors(obj: Mapping[str, Any] | _Members, schema: Schema) -> list[str]:
    """The unknown and duplicate fields of a decoded object that repeats no member (a body
    that repeats none, a patch's result): its unknown fields in its order; or of an object's
    members, repeats kept (``strict_decoding_errors``)."""
    found: _Found = {}
    _check(obj, schema, "", found, PART_LEVELS)
    return [strict_error(what, path) for what, path in found][:MAX_ERRORS]


def object_meta_unknown_fields(metadata: Any, path: str) -> list[str]:
    """The paths of the fields of a custom resource's (or an embedded resource's) ``metadata``,
    at ``path``, that ObjectMeta does not have (``metadata.foo``,
    ``metadata.ownerReferences[0].foo``): kube reads Go's marshalling of the decoded metadata
    (keys sorted, none repeated) into an ObjectMeta strictly (``GetObjectMetaWithOptions``)."""
    found: _Found = {}
    _check(_go_marshalled(metadata), _object_meta_schema(), path, found)
    return [field_path for _what, field_path in found]


def _go_marshalled(value: Any) -> Any:
    """A decoded value's members in the order Go marshals a map's: keys sorted."""
    if isinstance(value, dict):
        return _Members((key, _go_marshalled(item)) for key, item in sorted(value.items()))
    if isinstance(value, list):
        return [_go_marshalled(item) for item in value]
    return value


@cache
def _object_meta_schema() -> Schema:
    defs = definitions()
    return Schema(defs["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"], defs)


def check_fields(policy: FieldValidation, obj: Mapping[str, Any], schema: Schema | None, kind: str, version: str,
                 decoder_errors: Sequence[str] = (), repeating: bytes | None = None) -> list[str]:
    """Apply ``policy`` to the decoded body ``obj`` of a create or update of ``kind`` in
    ``version`` (the body's ``apiVersion``'s version): the ``Warning`` header values to send with
    the response (``Warn``), or raises the 400 kube's create and update handlers send
    (``Strict``). ``repeating``: the bytes of a JSON body that may repeat a key
    (``gojson.may_repeat_keys``), whose members are checked instead. Nothing is looked for under
    ``Ignore`` or for a kind without a schema. ``decoder_errors`` are the strict YAML decoder's
    own (repeated keys, ``line 3: key "data" already set in map``): one error under Strict, as
    goyaml returns them, a warning each under Warn (``parseYAMLWarnings``)."""
    if policy is FieldValidation.IGNORE or schema is None:
        return []
    errors = strict_decoding_errors(repeating, schema) if repeating is not None else object_strict_errors(obj, schema)
    return _apply(policy, errors, kind, version, decoder_errors)


def check_custom_fields(policy: FieldValidation, repeating: bytes | None, unknown_fields: Callable[[], list[str]],
                        kind: str, version: str, decoder_errors: Sequence[str] = ()) -> list[str]:
    """``check_fields`` for a custom resource, whose decoder unmarshals the body into a map
    (strict errors: the repeated keys of a JSON body that may repeat one, ``repeating``; a YAML
    body's are its ``decoder_errors``), then reports the paths of the ``unknown_fields`` its
    pruning finds (``schemaCoercingDecoder``). Nothing is looked for under ``Ignore``."""
    if policy is FieldValidation.IGNORE:
        return []
    errors = [strict_error("duplicate", path) for path in repeated_keys(repeating)][:MAX_ERRORS] \
        if repeating is not None else []
    errors += [strict_error("unknown", path) for path in unknown_fields()]
    return _apply(policy, errors, kind, version, decoder_errors)


def _apply(policy: FieldValidation, errors: list[str], kind: str, version: str,
           decoder_errors: Sequence[str]) -> list[str]:
    """``policy`` applied to a body's strict errors: their warnings, or Strict's 400."""
    if policy is FieldValidation.STRICT and (errors or decoder_errors):
        yaml_error = ["yaml: unmarshal errors:\n  " + "\n  ".join(decoder_errors)] if decoder_errors else []
        raise cannot_be_handled(kind, version, strict_decoding_message([*yaml_error, *errors]))
    return [warning_header(error) for error in (*decoder_errors, *errors)]


def strict_decoding_message(errors: Sequence[str]) -> str:
    """``runtime.NewStrictDecodingError(errors).Error()``."""
    return "strict decoding error: " + ", ".join(errors)


def cannot_be_handled(kind: str, version: str, reason: str) -> StatusError:
    """The handlers' ``transformDecodeError`` for a body whose kind is known:
    ``Deployment in version "v1" cannot be handled as a Deployment: <reason>``."""
    return bad_request(f"{kind} in version {go_quote(version)} cannot be handled as a {kind}: {reason}")


class _Members(list[tuple[str, Any]]):
    """A JSON object as its members in document order, duplicates kept."""


@cache
def _self_decoding_definitions() -> tuple[Mapping[str, Any], ...]:
    """The self-decoding definitions' nodes: their shape alone does not tell them from empty
    structs, whose keys are all unknown, but their descriptions do."""
    defs = definitions()
    return tuple(defs[name] for name in _SELF_DECODING)


def _check(value: Any, schema: Schema, path: str, errors: _Found, parts: int = 0) -> None:
    """Record the strict errors of ``value`` at ``path``. A value of another JSON type than its
    schema's is left alone: that is a decoding error, reported elsewhere. ``parts``: how many
    levels below hold parts (``_check_part``): struct fields and list items."""
    if isinstance(value, _Members):  # before list: _Members is one
        _check_object(value, schema, path, errors, parts)
    elif isinstance(value, dict):  # a decoded object: its members in its order
        _check_object(value.items(), schema, path, errors, parts)
    elif isinstance(value, list) and (items := schema.items) is not None:
        for index, item in enumerate(value):
            if parts and (isinstance(item, dict) or isinstance(item, list)):
                _check_part(item, items, f"{path}[{index}]", errors, parts - 1)
            else:
                _check(item, items, f"{path}[{index}]", errors)


def _check_object(members: Iterable[tuple[str, Any]], schema: Schema, path: str, errors: _Found,
                  parts: int = 0) -> None:
    """A struct's fields or a map's values; nothing in a free-form or self-decoding value."""
    if schema.type not in ("object", None):
        return
    if schema.properties or _is_empty_struct(schema):
        _check_struct(members, schema, path, errors, parts)
    elif (values := schema.additional_properties) is not None:
        seen: set[str] = set()
        for key, item in members:
            _check_duplicate(key, seen, path, errors)
            _check(item, values, member_path(path, key), errors)


def _is_empty_struct(schema: Schema) -> bool:
    """An object schema with no fields and no map values: a Go struct without fields (a CRD's
    ``subresources.status``), unless its type decodes itself."""
    return (schema.type == "object" and "additionalProperties" not in schema.node
            and not schema.preserves_unknown_fields and schema.node not in _self_decoding_definitions())


def _check_struct(members: Iterable[tuple[str, Any]], schema: Schema, path: str, errors: _Found,
                  parts: int = 0) -> None:
    seen: set[str] = set()
    for key, item in members:
        field = schema.field(key)
        if field is None:
            if not schema.preserves_unknown_fields:
                errors["unknown", member_path(path, key)] = None
            continue
        _check_duplicate(key, seen, path, errors)
        if parts and (path or key != "metadata") and (isinstance(item, dict) or isinstance(item, list)):
            _check_part(item, field, member_path(path, key), errors, parts - 1)
        else:
            _check(item, field, member_path(path, key), errors)


#: An object's parts found without strict errors, by schema and JSON: the objects written over
#: and over repeat them (a patch's result holds the stored spec, the pods of one template carry
#: the same spec). Parts are the values down to ``PART_LEVELS`` below the object (a spec, its
#: containers, each container, a container's env and ports), not its metadata (new in every
#: object): a spec that changed in one container's image is checked in that container's scalars
#: only. The key holds the schema itself, which lives while kept.
_CLEAN_PARTS: Repeated[tuple[Schema, bytes], bool] = Repeated(1024)
PART_LEVELS = 4


def _check_part(value: Any, schema: Schema, path: str, errors: _Found, parts: int) -> None:
    """``_check`` of an object's part, skipped for a part known to have no strict error;
    ``parts`` more levels of parts below it."""
    encoded = json_key(value)  # a _Members part encodes its members, repeated ones too
    if encoded is None:
        _check(value, schema, path, errors, parts)
        return
    key = (schema, encoded)
    if _CLEAN_PARTS.get(key):
        return
    found: _Found = {}
    _check(value, schema, path, found, parts)
    if not found:
        _CLEAN_PARTS.put(key, True)
    errors.update(found)


def _check_duplicate(key: str, seen: set[str], path: str, errors: _Found) -> None:
    if key in seen:
        errors["duplicate", member_path(path, key)] = None
    seen.add(key)


