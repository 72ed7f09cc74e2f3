"""Create and update bodies decoded as kube-apiserver's handlers decode them: the JSON or YAML
serializer (``runtime/serializer/json``: ``yaml.YAMLToJSON``, ``SimpleMetaFactory.Interpret``,
the typed or unstructured unmarshal), the handler's defaults for a missing kind or version, and
``transformDecodeError`` around the errors (``endpoints/handlers/rest.go``).

An error before the body's kind is known is ``the object provided is unrecognized (must be of
type <Kind>): <error> (<the body's first 30 bytes>)``; after, ``<BodyKind> in version "<v>"
cannot be handled as a <Kind>: <error>``. A built-in kind must be the endpoint's kind (kube's
scheme converts nothing else into it); a custom resource needs a kind (checked by validation, as
kube's strategy does). Either must then be in the endpoint's version, which the handlers check
once the body is decoded and its fields validated (``check_group_version``).
"""

from __future__ import annotations

from typing import Any

from .gojson import GoJSONError, as_unstructured, decode, has_long_integer, literal_scalar, loads
from . import gostruct
from .golang import go_json, go_quote, go_string
from .schema import release_kinds
from .status import StatusError, bad_request

YAML = "application/yaml"
#: The struct ``Interpret`` unmarshals into, as Go names its type in an error.
TYPE_META_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
#: The scheme a kind missing from kube-apiserver's scheme is reported against.
_SCHEME = "pkg/runtime/scheme.go:111"
_JSON_KINDS = ((dict, "object"), (list, "array"), (str, "string"), (bool, "bool"), (int, "number"), (float, "number"))


def summarize(data: bytes, max_length: int = 30) -> str:
    """``summarizeData``: an object's first bytes as text, anything else in hex."""
    if not data:
        return "<empty>"
    if data[:1] == b"{":
        return go_string(data[:max_length]) + (" ..." if len(data) > max_length else "")
    return data[:max_length].hex() + (" ..." if len(data) > max_length else "")


def unrecognized(kind: str, error: str, raw: bytes) -> StatusError:
    """``transformDecodeError`` before the body's kind is known."""
    return bad_request(f"the object provided is unrecognized (must be of type {kind}): {error} ({summarize(raw)})")


def cannot_be_handled(body_kind: str, body_version: str, kind: str, error: str) -> StatusError:
    """``transformDecodeError`` once it is."""
    return bad_request(f"{body_kind} in version {go_quote(body_version)} cannot be handled as a {kind}: {error}")


def _json_kind(value: Any) -> str:
    return next((name for python_type, name in _JSON_KINDS if isinstance(value, python_type)), "null")


def _fold(name: str) -> str:
    return name.lower()


def interpret(value: Any) -> tuple[str, str, str]:
    """``SimpleMetaFactory.Interpret``: (group, version, kind) of a decoded body, read as Go's
    ``encoding/json`` fills ``TYPE_META_STRUCT`` (keys matched ignoring case, the last match
    wins, the first type error is reported); ``GoJSONError`` with Go's message, ``ValueError``
    for an API version ``ParseGroupVersion`` refuses."""
    if value is None:
        return "", "", ""
    if not isinstance(value, dict):
        raise GoJSONError(f"json: cannot unmarshal {_json_kind(value)} into Go value of type {TYPE_META_STRUCT}")
    fields = {"apiversion": "", "kind": ""}
    error = ""
    for key, item in value.items():
        name = _fold(key)
        if name not in fields or item is None:
            continue
        if isinstance(item, str):
            fields[name] = item
        elif not error:
            field = "apiVersion" if name == "apiversion" else "kind"
            error = f"json: cannot unmarshal {_json_kind(item)} into Go struct field .{field} of type string"
    if error:
        raise GoJSONError(error)
    group, version = parse_group_version(fields["apiversion"])
    return group, version, fields["kind"]


def parse_group_version(text: str) -> tuple[str, str]:
    """``schema.ParseGroupVersion``."""
    if text in ("", "/"):
        return "", ""
    parts = text.split("/")
    if len(parts) == 1:
        return "", text
    if len(parts) == 2:
        return parts[0], parts[1]
    raise ValueError(f"unexpected GroupVersion string: {text}")


def decode_value(raw: bytes, media_type: str, kind: str | None) -> tuple[Any, list[str]]:
    """A JSON or YAML body as the JSON value kube's serializer reads, and the YAML strict
    decoder's complaints (repeated keys); 400 as the create and update handlers of ``kind`` send
    it (None: the bare error, as the delete handler does)."""
    if media_type == YAML:
        from .goyaml import GoYAMLError, yaml_to_json  # at the first YAML body: PyYAML costs a start ~7 ms

        try:
            return yaml_to_json(raw)
        except GoYAMLError as err:
            error = str(err)
    else:
        try:
            return loads(raw), []
        except GoJSONError as err:
            error = f"couldn't get version/kind; json parse error: {err}"
    raise unrecognized(kind, error, raw) if kind is not None else bad_request(error)


def decode_object(value: Any, raw: bytes, *, group: str, versions: tuple[str, ...], kind: str,
                  custom: bool = False) -> dict[str, Any]:
    """A decoded body as an object of ``kind`` of ``group`` (``versions``: the endpoint's first),
    ``apiVersion`` and ``kind`` filled in; 400 as kube's create and update handlers' decoding
    refuses it. Its version is checked later (``check_group_version``)."""
    try:
        body_group, body_version, body_kind = interpret(value)
    except GoJSONError as err:
        raise unrecognized(kind, f"couldn't get version/kind; json parse error: {err}", raw) from None
    except ValueError as err:
        raise unrecognized(kind, str(err), raw) from None
    # gvkWithDefaults: the endpoint's kind and version stand in for missing ones.
    body_kind = body_kind or kind
    if not body_version and (not body_group or body_group == group):
        body_group, body_version = group, versions[0]
    if custom:
        return _unstructured(value, raw, kind, (body_kind, body_version))
    if not body_version:  # a group without a version ("apps/") is not defaulted
        raise cannot_be_handled(body_kind, "", kind, f"Object 'apiVersion' is missing in '{_text(raw)}'")
    try:
        check_convertible(value, (body_group, body_version, body_kind), group=group, versions=versions, kind=kind)
    except gostruct.GoDecodeError as err:
        raise cannot_be_handled(body_kind, body_version, kind, str(err)) from None
    obj = value if isinstance(value, dict) else {}
    obj["apiVersion"] = _group_version(group, body_version)
    obj["kind"] = kind
    return obj


def check_convertible(value: Any, body: tuple[str, str, str], *, group: str, versions: tuple[str, ...],
                      kind: str) -> None:
    """What kube's scheme makes of an object whose kind and version are ``body`` (group, version,
    kind), decoded for ``kind`` of ``group`` in one of ``versions``: a kind and version of the
    scheme is decoded into its Go type (``UseOrCreateObject``; that decoding's errors come first),
    then converted into the endpoint's internal kind, which only another version of that kind
    is; anything else is not registered. ``gostruct.GoDecodeError`` with kube's message."""
    body_group, body_version, body_kind = body
    if body_group == group and body_kind == kind and body_version in versions:
        return
    body_group_version = _group_version(body_group, body_version)
    if body not in release_kinds():
        raise gostruct.GoDecodeError(
            f'no kind "{body_kind}" is registered for version "{body_group_version}" in scheme "{_SCHEME}"')
    gostruct.decode(value, body_group_version, body_kind)
    if body_group != group or body_kind != kind:
        # the internal version the scheme converts into: the endpoint's kind's package
        internal = group.split(".")[0] if group else "core"
        raise gostruct.GoDecodeError(
            f"converting ({body_version}.{body_kind}) to ({internal}.{kind}): unknown conversion")


def check_patched_kind(value: dict[str, Any], *, group: str, version: str, kind: str) -> None:
    """``runtime.DecodeInto`` of a JSON or merge patch's result into the endpoint's kind: the
    kind and API version it names (a missing one is the endpoint's), as ``check_convertible``
    takes them; ``gostruct.GoDecodeError`` with kube's message. (A strategic merge patch's result
    is converted from the patched map, its kind and version unread.)"""
    try:
        body_group, body_version, body_kind = interpret(value)
    except GoJSONError as err:
        raise gostruct.GoDecodeError(f"couldn't get version/kind; json parse error: {err}") from None
    except ValueError as err:
        raise gostruct.GoDecodeError(str(err)) from None
    if not body_version:
        body_group, body_version = group, version
    check_convertible(value, (body_group, body_version, body_kind or kind), group=group, versions=(version,),
                      kind=kind)


def check_group_version(obj: dict[str, Any], group: str, versions: tuple[str, ...]) -> None:
    """The create and update handlers' ``AcceptsGroupVersion``, once the body is decoded and its
    fields validated: another version of the kind decodes, but the endpoint takes only its own
    (400)."""
    api_version = obj.get("apiVersion")
    body_group, body_version = parse_group_version(api_version if isinstance(api_version, str) else "")
    if body_group != group or body_version not in versions:
        raise bad_request(f"the API version in the data ({_group_version(body_group, body_version)}) does not "
                          f"match the expected API version ({_group_version(group, versions[0])})")


def _group_version(group: str, version: str) -> str:
    """``GroupVersion.String()``: ``apps/v1``, ``v1`` for the core group."""
    return f"{group}/{version}" if group else version


def _text(raw: bytes) -> str:
    """Go's ``string(data)`` as it reaches the client (invalid UTF-8 as U+FFFD)."""
    return go_string(raw)


def _unstructured(value: Any, raw: bytes, kind: str, defaulted: tuple[str, str]) -> dict[str, Any]:
    """A custom resource's body (``unstructured.UnmarshalJSON``, then its metadata read into an
    ObjectMeta). ``defaulted`` is the body's kind and version as the serializer names them in the
    error of the unmarshalling itself (``gvkWithDefaults``); later errors name the object's own."""
    try:
        as_unstructured(value)
    except GoJSONError as err:
        raise cannot_be_handled(*defaulted, kind, str(err)) from None
    if not isinstance(value, dict) or not isinstance(value.get("kind"), str) or not value["kind"]:
        raise unrecognized(kind, f"Object 'Kind' is missing in '{_text(raw)}'", raw)
    api_version = value.get("apiVersion")
    body_version = parse_group_version(api_version if isinstance(api_version, str) else "")[1]
    error = _object_meta_error(value.get("metadata"))
    if error is not None:
        raise cannot_be_handled(value["kind"], body_version, kind, error)
    return value


def _object_meta_error(metadata: Any) -> str | None:
    """The custom resource codec's error reading the metadata into an ObjectMeta
    (``GetObjectMeta``): it reads Go's own marshalling of the decoded metadata, where a number is
    written as its int64 or float64 prints (``1e20`` as ``100000000000000000000``, an integral
    float64 as an integer, which an integer field takes). Metadata that decodes as it is decodes
    the same way after that round trip, so the round trip is made only for one that does not."""
    try:
        gostruct.decode_meta(metadata, "ObjectMeta")
    except gostruct.GoDecodeError:
        try:
            gostruct.decode_meta(decode(go_json(metadata).encode(), literal_scalar), "ObjectMeta")
        except gostruct.GoDecodeError as err:
            return str(err)
    return None


def check_number_literals(raw: bytes, obj: dict[str, Any]) -> None:
    """A built-in kind's JSON body decoded into its Go type from its literals: Go quotes a number
    it refuses as written, and orjson reads an integer beyond int64 as a float, which prints
    otherwise (``1e+20``). Only a body that may hold one is decoded again, for the 400 kube's
    create and update handlers send; the object goes on with orjson's floats."""
    if has_long_integer(raw):
        gostruct.decode_body(decode(raw, literal_scalar), obj["apiVersion"], obj["kind"])
