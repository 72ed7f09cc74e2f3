"""PATCH bodies applied to an object: JSON patch, JSON merge patch and strategic merge patch, as
kube-apiserver's patch handler applies them (``apiserver/pkg/endpoints/handlers/patch.go``,
``jsonPatcher.applyJSPatch`` and ``strategicPatchObject``), with its status codes and messages.

* ``application/json-patch+json``: ``gopkg.in/evanphx/json-patch.v4`` (``DecodePatch`` and
  ``Patch.Apply``), with the settings kube-apiserver gives it: negative indexes allowed, copies
  limited to ``JSON_PATCH_MAX_COPY_BYTES`` (genericapiserver's ``JSONPatchMaxCopyBytes``). Its
  quirks are kept: ``replace`` of a missing object key adds it, ``add`` at index ``-1`` appends,
  ``copy`` from a missing key copies null, ``test`` compares scalars by their JSON text as Go wrote
  it (``"<"`` is ``"\\u003c"`` in the document, so a test for ``"<"`` fails) and takes ``null``
  for ``{}``. That is why this is not the ``jsonpatch`` package, which follows RFC 6902.
* ``application/merge-patch+json``: evanphx's ``MergePatch`` (RFC 7386).
* ``application/strategic-merge-patch+json``: ``strategic_merge`` (built-in kinds only: kube
  refuses it for custom resources with 415 before reading the body).

The document a patch applies to is the stored object; numbers decode as kube's
``UnmarshalCaseSensitivePreserveInts`` does: int64 where integral and in range, else float64.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import orjson

from .gojson import GoJSONError, check_valid, decode_string, loads_pairs, member_path, plain_scalar
from .gojson import decode as _decode
from .golang import go_json, go_parse_int64, go_plain_value, go_quote
from .jsonvalue import json_copy
from .schema import Schema
from .status import (
    StatusError,
    bad_request,
    generic_unprocessable_entity,
    invalid,
    invalid_error,
    request_entity_too_large,
    unclassified_error,
    unsupported_media_type,
)
from .strategic_merge import (
    BadPatchFormatError,
    MergeError,
    NoListOfListsError,
    strategic_merge,
)

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

#: The patch types a built-in resource accepts, in the order the 415 message lists them
#: (``endpoints/installer.go``; apply-patch+cbor only with the CBOR feature gate, off by default).
BUILT_IN_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
#: A custom resource's (``apiextensions-apiserver/pkg/apiserver/customresource_handler.go``).
CUSTOM_RESOURCE_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)

#: ``maxJSONPatchOperations`` (patch.go).
MAX_JSON_PATCH_OPERATIONS = 10000
#: genericapiserver's default ``MaxRequestBodyBytes`` (3 MiB), which ``limitedReadBody`` enforces.
MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024
#: genericapiserver's default ``JSONPatchMaxCopyBytes``, set as evanphx's ``AccumulatedCopySizeLimit``.
JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024


def accepted_patch_types(schema: Schema | None) -> tuple[str, ...]:
    """The patch media types a resource accepts: a built-in kind has a schema, a custom resource not."""
    return BUILT_IN_PATCH_TYPES if schema is not None else CUSTOM_RESOURCE_PATCH_TYPES


def apply_patch(patch_type: str, original: Mapping[str, Any], patch: bytes, schema: Schema | None, *,
                group: str, kind: str, name: str, shares_original: bool = False) -> dict[str, Any]:
    """The object ``original`` becomes under ``patch`` of media type ``patch_type`` (the request's
    Content-Type without parameters). ``schema`` is the built-in kind's, ``None`` for a custom
    resource. ``original`` is not modified.

    ``group``, ``kind`` and ``name`` identify the object for the caller's messages; the patch stage
    of kube names none of them (its errors carry an empty GroupKind).

    ``shares_original``: the result of a JSON patch or a merge patch may share with ``original``
    the parts the patch leaves alone (only the objects and arrays on its paths are copied), for a
    caller that owns ``original`` and changes neither it nor the result in place afterwards (a
    mutating webhook's patch of the request's own object), or reads ``original`` no more (a
    PATCH's copy of the stored object). Otherwise the result is a new object throughout.

    Raises ``StatusError``: 415 for a type the resource does not accept, 413 for a body over 3 MiB
    or a JSON patch of more than 10000 operations, 400 for a body that does not decode, 422 for a
    JSON patch that does not apply or a result that is not an object, 500 for the strategic merge
    errors kube does not classify. Server-side apply (``APPLY_PATCH``) is not a patch this module
    applies: a caller passing it gets ``ValueError``.
    """
    del group, kind, name  # see the docstring: kube's patch stage does not use them
    accepted = accepted_patch_types(schema)
    if patch_type not in accepted:
        raise unsupported_media_type(accepted=accepted)
    if patch_type == APPLY_PATCH:
        raise ValueError("server-side apply is not applied by fakeapi.machinery.patch")
    if len(patch) > MAX_REQUEST_BODY_BYTES:
        raise request_entity_too_large(f"limit is {MAX_REQUEST_BODY_BYTES}")
    if patch_type == JSON_PATCH:
        return _apply_json_patch(original, patch, shares_original)
    if patch_type == MERGE_PATCH:
        return _apply_merge_patch(original, patch, shares_original)
    assert schema is not None
    return _apply_strategic_merge_patch(original, patch, schema)


# ----------------------------------------------------------------------------- Go's JSON


class _Scalar:
    """A JSON string, number or boolean as evanphx's ``lazyNode`` holds it: its compact JSON text,
    which is what ``test`` compares."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Scalar) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"_Scalar({self.text})"


_SURROGATE = re.compile("[\ud800-\udfff]")
_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_HTML_UNSAFE = re.compile("[<>&\u2028\u2029]")


def _node_scalar(token: str) -> _Scalar | None:
    """A scalar token as a ``lazyNode``: null is a nil node."""
    return None if token == "null" else _Scalar(token)


def _json_kind(value: Any) -> str:
    """How Go's ``UnmarshalTypeError`` names a JSON value."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str | _Scalar) and (not isinstance(value, _Scalar) or value.text[0] == '"'):
        return "string"
    if isinstance(value, bool) or (isinstance(value, _Scalar) and value.text in ("true", "false")):
        return "bool"
    return "number"


def _go_string(text: str) -> str:
    """``encoding/json``'s encoding of a string (HTML-safe, as kube's encoder writes)."""
    encoded = json.dumps(_SURROGATE.sub("\ufffd", text), ensure_ascii=False)
    return _HTML_UNSAFE.sub(lambda m: _HTML_ESCAPES[m.group()], encoded)


def _go_scalar_json(value: Any) -> str:
    """``encoding/json``'s encoding of a decoded scalar: float64 in 'e' form below 1e-6 and from
    1e21, with ``e-07`` shortened to ``e-7``."""
    if isinstance(value, str):
        return _go_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value == 0 or 1e-6 <= abs(value) < 1e21:
        return format(Decimal(repr(value)).normalize(), "f")
    return re.sub(r"e-0(\d)$", r"e-\1", repr(value))  # Python's repr here is Go's 'e' form


def _to_node(value: Any) -> Any:
    """A decoded value as evanphx's nodes: scalars as the JSON text Go encoded them to."""
    if isinstance(value, dict):
        return {key: _to_node(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_to_node(item) for item in value]
    return None if value is None else _Scalar(_go_scalar_json(value))


def _from_node(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _from_node(item) for key, item in node.items()}
    if isinstance(node, list):
        return [_from_node(item) for item in node]
    return None if node is None else plain_scalar(node.text)


def _go_marshal(node: Any) -> str:
    """``json.Marshal`` of nodes: keys sorted, strings HTML-safe (``RawMessage`` is re-escaped)."""
    if isinstance(node, dict):
        return "{" + ",".join(f"{_go_string(key)}:{_go_marshal(node[key])}" for key in sorted(node)) + "}"
    if isinstance(node, list):
        return "[" + ",".join(map(_go_marshal, node)) + "]"
    if node is None:
        return "null"
    return _HTML_UNSAFE.sub(lambda m: _HTML_ESCAPES[m.group()], node.text)


class _Members(list[tuple[str, Any]]):
    """A JSON object as its members in document order, repeats kept."""


#: The fields of the handler's ``jsonPatchOp``.
_JSON_PATCH_OP_FIELDS = ("op", "path", "from", "value")


def strict_patch_errors(patch_type: str, patch: bytes) -> list[str]:
    """What kube's patch handler finds unmarshalling a patch strictly before applying it, under
    ``fieldValidation`` Warn or Strict (``applyJSPatch``, ``strategicPatchObject``): a JSON patch
    into ``[]jsonPatchOp``, a merge or strategic merge patch into a map. A JSON or merge patch
    that does not unmarshal is a 400 (``error decoding patch: ...``); a strategic merge patch's
    errors are left to applying it, whose messages are the same. Returns the strict errors (the
    unknown and repeated members, a JSON patch's prefixed ``json patch``), which the patched
    object's decoding reports together with its own."""
    if patch_type != JSON_PATCH and _object_without_repeats(patch):
        return []
    try:
        check_valid(patch)
    except GoJSONError as err:
        if patch_type == STRATEGIC_MERGE_PATCH:
            return []
        raise bad_request(f"error decoding patch: {err}") from None
    value = loads_pairs(patch, _Members)
    errors: dict[str, None] = {}  # an ordered set
    if patch_type == JSON_PATCH:
        _check_operations(value, errors)
        return [f"json patch {error}" for error in errors]
    if value is not None and not isinstance(value, _Members):
        if patch_type == STRATEGIC_MERGE_PATCH:
            return []
        raise bad_request(f"error decoding patch: json: cannot unmarshal {_strict_kind(value)} into Go value of type "
                          "map[string]interface {}")
    _check_repeats(value, "", errors)
    return list(errors)


class _Repeated(Exception):
    """An object of the patch repeats a key."""


def _refuse_repeats(members: list[tuple[str, Any]]) -> None:
    if len({key for key, _ in members}) != len(members):
        raise _Repeated


_MEMBERS = json.JSONDecoder(object_pairs_hook=_refuse_repeats)


def _object_without_repeats(patch: bytes) -> bool:
    """Whether a merge or strategic merge patch is a JSON object repeating no key at any depth,
    when that is quick to tell: then its strict reading finds nothing. orjson takes exactly the
    JSON Go's scanner does (or refuses, and the reading in Go's way decides), and the C json
    module shows each object's members, repeats kept. A patch this does not vouch for is read
    in Go's way."""
    try:
        if not isinstance(orjson.loads(patch), dict):
            return False
        _MEMBERS.decode(patch.decode())  # UTF-8, as orjson found
    except (orjson.JSONDecodeError, _Repeated, RecursionError):
        return False
    return True


def _strict_kind(value: Any) -> str:
    if isinstance(value, _Members):
        return "object"
    if isinstance(value, list):
        return "array"
    return _json_kind(value)


def _check_operations(value: Any, errors: dict[str, None]) -> None:
    """``kjson.UnmarshalStrict(patch, &[]jsonPatchOp{})``: the first type error is the 400, after
    the whole patch was read; unknown and repeated members are strict errors."""
    if value is None:
        return
    if not isinstance(value, list) or isinstance(value, _Members):
        raise bad_request(f"error decoding patch: json: cannot unmarshal {_strict_kind(value)} into Go value of type "
                          "[]handlers.jsonPatchOp")
    type_error = ""
    for index, operation in enumerate(value):
        if operation is None:
            continue
        if not isinstance(operation, _Members):
            type_error = type_error or (f"json: cannot unmarshal {_strict_kind(operation)} into Go value of type "
                                        "handlers.jsonPatchOp")
            continue
        seen: set[str] = set()
        for key, item in operation:
            path = f"[{index}].{key}"
            if key not in _JSON_PATCH_OP_FIELDS:
                errors[f"unknown field {go_quote(path)}"] = None
                continue
            if key in seen:
                errors[f"duplicate field {go_quote(path)}"] = None
            seen.add(key)
            if key == "value":
                _check_repeats(item, path, errors)
            elif item is not None and not isinstance(item, str):
                type_error = type_error or (f"json: cannot unmarshal {_strict_kind(item)} into Go struct field "
                                            f"jsonPatchOp.{key} of type string")
    if type_error:
        raise bad_request(f"error decoding patch: {type_error}")


def _check_repeats(value: Any, path: str, errors: dict[str, None]) -> None:
    """The repeated keys of every object in a value decoded into ``interface{}``."""
    if isinstance(value, _Members):
        seen: set[str] = set()
        for key, item in value:
            member = member_path(path, key)
            if key in seen:
                errors[f"duplicate field {go_quote(member)}"] = None
            seen.add(key)
            _check_repeats(item, member, errors)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_repeats(item, f"{path}[{index}]", errors)


def undecodable_result(patch_type: str, patched: Any, patch: bytes, error: str) -> StatusError:
    """A patch's result that does not decode into the kind's Go type: 422 on the field ``patch``
    with the patched object as JSON (JSON and merge patches), or the patch as Go's ``%+v``
    prints the map (strategic merge patches, decoded from the patched map directly)."""
    decoded = _decode(patch)
    if patch_type == STRATEGIC_MERGE_PATCH:
        shown = go_plain_value(decoded)
    else:
        shown = _lazily_marshalled(patched, _touched_paths(patch_type, decoded))
    return invalid("", "", "", [invalid_error("patch", shown, error)])


def _touched_paths(patch_type: str, patch: Any) -> set[tuple[str, ...]]:
    """The containers evanphx's patch decoded to apply ``patch`` (every prefix of a path it
    wrote): only those are marshalled again as Go maps, keys sorted; the rest of the document
    keeps its bytes."""
    touched: set[tuple[str, ...]] = {()}

    def add(path: tuple[str, ...]) -> None:
        for end in range(len(path)):
            touched.add(path[:end])

    if patch_type == JSON_PATCH:
        for operation in patch if isinstance(patch, list) else ():
            for key in ("path", "from"):
                pointer = operation.get(key) if isinstance(operation, dict) else None
                if isinstance(pointer, str):
                    add(tuple(part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]))
    else:
        def walk(node: Any, path: tuple[str, ...]) -> None:
            touched.add(path)
            for key, value in node.items():
                if isinstance(value, dict):
                    walk(value, (*path, key))
        if isinstance(patch, dict):
            walk(patch, ())
    return touched


def _lazily_marshalled(value: Any, touched: set[tuple[str, ...]], path: tuple[str, ...] = ()) -> str:
    """``json.Marshal`` of evanphx's partially decoded document: sorted keys where it decoded
    (``touched``), the stored order elsewhere."""
    if isinstance(value, dict):
        keys = sorted(value) if path in touched else list(value)
        return "{" + ",".join(f"{go_json(key)}:{_lazily_marshalled(value[key], touched, (*path, key))}"
                              for key in keys) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_lazily_marshalled(item, touched, (*path, str(index)))
                              for index, item in enumerate(value)) + "]"
    return go_json(value)


def _not_an_object(patched: Any) -> StatusError:
    """A patch result that is no object fails to decode into the object (``runtime.DecodeInto``
    in ``applyPatchToCurrentObject``): the JSON serializer cannot read its kind."""
    detail = ('couldn\'t get version/kind; json parse error: json: cannot unmarshal '
              f'{_json_kind(patched)} into Go value of type struct {{ APIVersion string '
              '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }')
    return invalid("", "", "", [invalid_error("patch", _go_marshal(patched), detail)])


# ----------------------------------------------------------------------------- JSON patch


class JSONPatchError(Exception):
    """An error of evanphx's ``Patch.Apply`` (kube answers every one with the same generic 422)."""


def _wrap(message: str, cause: Exception | str) -> JSONPatchError:
    """``errors.Wrapf`` (github.com/pkg/errors): ``message: cause``."""
    return JSONPatchError(f"{message}: {cause}")


_MISSING = "missing value"  # ErrMissing
_INVALID_INDEX = "invalid index referenced"  # ErrInvalidIndex
_ABSENT = object()  # an operation member that is not there (Go: no map entry)
_INDEX = re.compile(r"[+-]?[0-9]+")
_POINTER_ESCAPE = re.compile("~[01]")

Container = dict[str, Any] | list[Any]


def _apply_json_patch(original: Mapping[str, Any], patch: bytes, shares_original: bool) -> dict[str, Any]:
    """``applyJSPatch`` for ``JSONPatchType``."""
    try:
        operations = _decode(patch, _node_scalar)
    except GoJSONError as err:
        raise bad_request(str(err)) from err
    _check_operations_type(operations)
    if operations and len(operations) > MAX_JSON_PATCH_OPERATIONS:
        raise request_entity_too_large(
            f"The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {len(operations)}")
    # The document is patched as decoded values: the patch's values become values where they are
    # put, and only what ``test`` compares and ``copy`` measures is made evanphx's nodes. Making
    # the whole document nodes and back cost more than the rest of a write (a mutating webhook's
    # patch of a pod: 0.5 ms of 0.6).
    document = _Document(original) if shares_original else _Document(orjson.loads(orjson.dumps(original)), owned=True)
    try:
        _apply_operations(document, operations or [])
    except JSONPatchError as err:
        raise generic_unprocessable_entity() from err
    if not isinstance(document.root, dict):
        raise _not_an_object(_to_node(document.root))
    return document.root


def _check_operations_type(operations: Any) -> None:
    """``DecodePatch`` into ``jsonpatch.Patch`` (``[]map[string]*json.RawMessage``): Go's type
    error for the first value that does not fit; null is an empty patch, a null op a nil map."""
    if operations is None:
        return
    if not isinstance(operations, list):
        raise bad_request(f"json: cannot unmarshal {_json_kind(operations)} into Go value of type jsonpatch.Patch")
    for operation in operations:
        if operation is not None and not isinstance(operation, dict):
            raise bad_request(
                f"json: cannot unmarshal {_json_kind(operation)} into Go value of type jsonpatch.Operation")


class _Document:
    """The document under patch: ``root``, whose objects and arrays are copied (once, shallowly)
    when an operation walks through them, unless the whole document is the patch's own
    (``owned``). The original document is never changed."""

    def __init__(self, original: Any, owned: bool = False) -> None:
        self._owned_all = owned
        #: The containers that are the patch's own copies, by id (held, so no id is reused).
        self._owned: dict[int, Container] = {}
        self.root = original if owned else self._own(original)

    def _own(self, container: Any) -> Any:
        if not isinstance(container, dict | list) or self._owned_all or id(container) in self._owned:
            return container
        copied: Container = dict(container) if isinstance(container, dict) else list(container)
        self._owned[id(copied)] = copied
        return copied

    def find_container(self, path: str) -> tuple[Container, str] | None:
        """``findObject``: the container of the path's last token (the patch's own), and that
        token. Only the tokens after the first ``/`` count (a path without one finds nothing)."""
        tokens = path.split("/")
        if len(tokens) < 2:
            return None
        container = self.root
        for token in tokens[1:-1]:
            key = _unescape(token)
            try:
                child = _get(container, key)
            except JSONPatchError:
                return None
            if not isinstance(child, dict | list):
                return None
            owned = self._own(child)
            if owned is not child:
                container[key if isinstance(container, dict) else _existing_index(container, key)] = owned
            container = owned
        return container, _unescape(tokens[-1])

    def find(self, path: str, message: str) -> tuple[Container, str]:
        found = self.find_container(path)
        if found is None:
            raise _wrap(message, _MISSING)
        return found


def _apply_operations(document: _Document, operations: list[dict[str, Any] | None]) -> None:
    """``Patch.ApplyIndent``: each operation in turn; the first error stops the patch."""
    copied_bytes = [0]
    for operation in operations:
        operation = operation or {}
        kind = _string_member(operation, "op")
        if kind == "add":
            _add(document, operation)
        elif kind == "remove":
            _remove(document, operation)
        elif kind == "replace":
            _replace(document, operation)
        elif kind == "move":
            _move(document, operation)
        elif kind == "test":
            _test(document, operation)
        elif kind == "copy":
            _copy(document, operation, copied_bytes)
        else:
            raise JSONPatchError(f"Unexpected kind: {kind if isinstance(kind, str) else 'unknown'}")


def _string_member(operation: Mapping[str, Any], member: str) -> str | Exception:
    """``Kind``/``Path``/``From``: a string member, or the error Go's decoding gives."""
    node = operation.get(member)
    if node is None:
        missing = {"path": "operation missing path field", "from": "operation, missing from field"}
        return JSONPatchError(f"{missing.get(member, 'unknown')}: {_MISSING}")
    if not isinstance(node, _Scalar) or node.text[0] != '"':
        return JSONPatchError(f"json: cannot unmarshal {_json_kind(node)} into Go value of type string")
    return decode_string(node.text)


def _path(operation: Mapping[str, Any], member: str, message: str, keep_cause: bool = True) -> str:
    """A path member; ``message: <decoding error>`` when it is not a string (add, remove and the
    copy destination say only ``missing value``)."""
    path = _string_member(operation, member)
    if isinstance(path, Exception):
        raise _wrap(message, path if keep_cause else _MISSING)
    return path


def _unescape(token: str) -> str:
    """RFC 6901: ``~1`` is ``/``, ``~0`` is ``~``, in one left-to-right pass."""
    return _POINTER_ESCAPE.sub(lambda m: "/" if m.group() == "~1" else "~", token)


def _atoi(token: str) -> int:
    """``strconv.Atoi``."""
    if not _INDEX.fullmatch(token):
        raise JSONPatchError(f"strconv.Atoi: parsing {go_quote(token)}: invalid syntax")
    digits = token.lstrip("+-").lstrip("0") or "0"
    number = go_parse_int64(token[0] + digits if token[0] in "+-" else digits)
    if number is None:
        raise JSONPatchError(f"strconv.Atoi: parsing {go_quote(token)}: value out of range")
    return number


def _invalid_index(index: int) -> JSONPatchError:
    return _wrap(f"Unable to access invalid index: {index}", _INVALID_INDEX)


def _existing_index(items: list[Any], token: str) -> int:
    """The index ``token`` names in ``items`` (negative counts from the end)."""
    index = _atoi(token)
    if index < 0:
        if index < -len(items):
            raise _invalid_index(index)
        index += len(items)
    if index >= len(items):
        raise _invalid_index(index)
    return index


def _get(container: Container, key: str) -> Any:
    """``container.get``: an object's member (None when missing), an array's item."""
    if isinstance(container, dict):
        return container.get(key)
    return container[_existing_index(container, key)]


def _put(container: Container, key: str, value: Any) -> None:
    """``container.add``: set a member, insert an item (``-`` appends; ``-1`` too)."""
    if isinstance(container, dict):
        container[key] = value
        return
    if key == "-":
        container.append(value)
        return
    try:
        index = _atoi(key)
    except JSONPatchError as err:
        raise _wrap(f"value was not a proper array index: '{key}'", err) from err
    size = len(container) + 1
    if index >= size or index < -size:
        raise _invalid_index(index)
    container.insert(index + size if index < 0 else index, value)


def _delete(container: Container, key: str) -> None:
    """``container.remove``."""
    if isinstance(container, dict):
        if key not in container:
            raise _wrap(f"Unable to remove nonexistent key: {key}", _MISSING)
        del container[key]
        return
    index = _atoi(key)
    if index >= len(container) or index < -len(container):
        raise _invalid_index(index)
    del container[index]


def _value(operation: Mapping[str, Any]) -> Any:
    """The ``value`` member (absent and null are both a nil node where it is stored)."""
    return operation.get("value")


def _add(document: _Document, operation: Mapping[str, Any]) -> None:
    path = _path(operation, "path", "add operation failed to decode path", keep_cause=False)
    container, key = document.find(path, f'add operation does not apply: doc is missing path: "{path}"')
    try:
        _put(container, key, _from_node(_value(operation)))
    except JSONPatchError as err:
        raise _wrap(f"error in add for path: '{path}'", err) from err


def _remove(document: _Document, operation: Mapping[str, Any]) -> None:
    path = _path(operation, "path", "remove operation failed to decode path", keep_cause=False)
    container, key = document.find(path, f'remove operation does not apply: doc is missing path: "{path}"')
    try:
        _delete(container, key)
    except JSONPatchError as err:
        raise _wrap(f"error in remove for path: '{path}'", err) from err


def _replace(document: _Document, operation: Mapping[str, Any]) -> None:
    """A replace of ``""`` by an object or array swaps the document (by anything else it is left
    alone: evanphx wraps a nil error, which is no error)."""
    path = _path(operation, "path", "replace operation failed to decode path")
    value = _from_node(_value(operation))
    if path == "":
        if isinstance(value, dict | list):
            document.root = value
        return
    container, key = document.find(path, f"replace operation does not apply: doc is missing path: {path}")
    if isinstance(container, dict):
        container[key] = value  # a missing member is no error: it is added
        return
    try:
        index = _existing_index(container, key)
    except JSONPatchError as err:
        raise _wrap(f"replace operation does not apply: doc is missing key: {path}", _MISSING) from err
    container[index] = value


def _move(document: _Document, operation: Mapping[str, Any]) -> None:
    source = _path(operation, "from", "move operation failed to decode from")
    container, key = document.find(source, f"move operation does not apply: doc is missing from path: {source}")
    try:
        value = _get(container, key)
        _delete(container, key)
    except JSONPatchError as err:
        raise _wrap(f"error in move for path: '{key}'", err) from err
    path = _path(operation, "path", "move operation failed to decode path")
    container, key = document.find(path, f"move operation does not apply: doc is missing destination path: {path}")
    try:
        _put(container, key, value)
    except JSONPatchError as err:
        raise _wrap(f"error in move for path: '{path}'", err) from err


def _test(document: _Document, operation: Mapping[str, Any]) -> None:
    path = _path(operation, "path", "test operation failed to decode path")
    expected = operation.get("value", _ABSENT)
    failed = _wrap(f"testing value {path} failed", "test failed")
    if path == "":
        if expected is _ABSENT or not _nodes_equal(_to_node(document.root), expected):
            raise failed
        return
    container, key = document.find(path, f"test operation does not apply: is missing path: {path}")
    try:
        actual = _get(container, key)
    except JSONPatchError as err:
        raise _wrap(f"error in test for path: '{path}'", err) from err
    if actual is None:
        if expected not in (None, _ABSENT):  # a missing or null member passes only a null test
            raise failed
    elif expected is _ABSENT or not _nodes_equal(_to_node(actual), expected):
        raise failed


def _nodes_equal(actual: Any, expected: Any) -> bool:
    """``lazyNode.equal``: scalars by JSON text; objects by members, a null member matching only a
    null one; arrays item by item. Not symmetric in Go either: ``actual`` is the document's."""
    if isinstance(actual, _Scalar):
        return actual == expected
    if isinstance(actual, dict):
        return (isinstance(expected, dict) and len(actual) == len(expected) and all(
            key in expected and (value is None) == (expected[key] is None)
            and (value is None or _nodes_equal(value, expected[key]))
            for key, value in actual.items()))
    return (isinstance(expected, list) and len(actual) == len(expected) and all(
        (mine is None and theirs is None) or (mine is not None and theirs is not None and _nodes_equal(mine, theirs))
        for mine, theirs in zip(actual, expected)))


def _copy(document: _Document, operation: Mapping[str, Any], copied_bytes: list[int]) -> None:
    """``copy``: ``copied_bytes`` accumulates the copies' JSON sizes over the patch."""
    source = _path(operation, "from", "copy operation failed to decode from")
    container, key = document.find(source, f"copy operation does not apply: doc is missing from path: {source}")
    try:
        value = _get(container, key)
    except JSONPatchError as err:
        raise _wrap(f"error in copy for from: '{source}'", err) from err
    path = _path(operation, "path", "copy operation failed to decode path", keep_cause=False)
    container, key = document.find(path, f"copy operation does not apply: doc is missing destination path: {path}")
    if value is not None:
        copied_bytes[0] += len(_go_marshal(_to_node(value)).encode())
        if copied_bytes[0] > JSON_PATCH_MAX_COPY_BYTES:
            raise JSONPatchError(f"Unable to complete the copy, the accumulated size increase of copy is "
                                 f"{copied_bytes[0]}, exceeding the limit {JSON_PATCH_MAX_COPY_BYTES}")
    try:
        _put(container, key, copy.deepcopy(value))
    except JSONPatchError as err:
        raise _wrap("error while adding value during copy", err) from err


# ----------------------------------------------------------------------------- merge patch


def _apply_merge_patch(original: Mapping[str, Any], patch: bytes, shares_original: bool) -> dict[str, Any]:
    """``applyJSPatch`` for ``MergePatchType``: evanphx's ``MergePatch``, whose only error here is
    ``ErrBadJSONPatch`` (400): invalid JSON, or JSON that is neither an object nor an array. An
    array replaces the document (and fails to decode as the object). ``shares_original``: see
    ``apply_patch``."""
    try:
        decoded = _decode(patch)
    except GoJSONError as err:
        raise bad_request("Invalid JSON Patch") from err
    if isinstance(decoded, list):
        raise _not_an_object(_to_node(_prune_nulls(decoded)))
    if not isinstance(decoded, dict):
        raise bad_request("Invalid JSON Patch")
    merged = _merged_objects(original, decoded)
    return merged if shares_original else json_copy(merged)


def _merged_objects(document: Mapping[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """``mergeDocs`` into a copy of ``document`` whose objects on the patch's paths are copies
    and whose other parts are ``document``'s: null deletes; a member missing or null in the
    document takes the patch's value without its nulls; an object merges into an object;
    anything else replaces."""
    out = dict(document)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif out.get(key) is None or not isinstance(out[key], dict):
            out[key] = _prune_nulls(value)
        elif isinstance(value, dict):
            out[key] = _merged_objects(out[key], value)
        else:
            out[key] = value  # not pruned: evanphx returns a non-object patch value as is
    return out


def _prune_nulls(value: Any) -> Any:
    """``pruneNulls``: null members of objects go, at every depth (null array items stay)."""
    if isinstance(value, dict):
        return {key: _prune_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_prune_nulls(item) for item in value]
    return value


# ----------------------------------------------------------------------------- strategic merge patch


def _apply_strategic_merge_patch(original: Mapping[str, Any], patch: bytes, schema: Schema) -> dict[str, Any]:
    """``strategicPatchObject`` and ``interpretStrategicMergePatchError``."""
    try:
        decoded = _decode(patch)
    except GoJSONError as err:
        raise bad_request(str(err)) from err
    if decoded is not None and not isinstance(decoded, dict):
        raise bad_request(
            f"json: cannot unmarshal {_json_kind(decoded)} into Go value of type map[string]interface {{}}")
    try:
        return strategic_merge(original, decoded, schema)
    except BadPatchFormatError as err:
        raise bad_request(str(err)) from err
    except NoListOfListsError as err:
        raise generic_unprocessable_entity() from err
    except MergeError as err:
        raise unclassified_error(str(err)) from err
