"""What kube-apiserver makes of a JSON object of a built-in kind by decoding it into its Go struct
and encoding it again: the form every built-in object is stored and served in.

Decoding (``sigs.k8s.io/json``, case-sensitive ``encoding/json``) keeps only the struct's fields
(unknown keys are dropped: ``fieldValidation`` reported them earlier), turns ``null`` into the zero
value, and refuses a value of the wrong JSON type with Go's ``UnmarshalTypeError`` (the first one
found is reported, after the whole document was read) or a type's own ``UnmarshalJSON`` error
(reported at once). Encoding prints the fields in struct order: ``omitempty`` drops zero scalars
and empty lists and maps but never a struct, ``omitzero`` drops a zero struct, a nil pointer
prints only without ``omitempty``, a nil list or map without ``omitempty`` prints ``null``, a
non-pointer struct always prints (``"resources": {}``, ``"status": {}``). Types with their own
JSON form (``metav1.Time``, ``MicroTime``, ``Duration``, ``resource.Quantity``,
``intstr.IntOrString``, ``runtime.RawExtension``, ``FieldsV1``) print as theirs do.

A strategic merge patch's result is not read from JSON but converted from the patched map
(``runtime.DefaultUnstructuredConverter.FromUnstructured``, ``from_unstructured``): the same walk
with the converter's rules, which stops at the first error and words its own (``cannot restore
slice from map``, ``unrecognized type: int32``), converts an integral float64 into an integer
field, and hands the types with their own JSON form their value marshalled again.

The walk is compiled once per message into ``_Struct`` tables (``gotypes`` has the facts), so a
write pays one pass over its object.
"""

from __future__ import annotations

import base64
import copy
import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from functools import cache
from typing import Any

import orjson
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from . import gotypes
from .golang import go_json, go_rfc3339
from .jsonvalue import Repeated, json_key
from .quantity import FORMAT_WRONG
from .status import bad_request

Json = dict[str, Any]

_META = "k8s.io.apimachinery.pkg.apis.meta.v1."
_APIEXTENSIONS = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1."


class _TypeError(Exception):
    """Go's ``UnmarshalTypeError``: recorded, decoding goes on, the first one is reported."""


class _Abort(Exception):
    """An error of a type's own ``UnmarshalJSON``: decoding stops with it."""


# ----------------------------------------------------------------- value kinds

_JSON_TYPE_NAMES = ((bool, "bool"), (str, "string"), (int, "number"), (float, "number"), (list, "array"),
                    (dict, "object"))


def _json_type(value: Any) -> str:
    for python_type, name in _JSON_TYPE_NAMES:
        if isinstance(value, python_type):
            return name
    return "null"


def _number_text(value: float | int) -> str:
    """A number as Go's error shows it: the literal it was written as, when decoding kept it."""
    return getattr(value, "text", None) or (repr(value) if isinstance(value, float) else str(value))


_UNSTRUCTURED_KINDS = ((bool, "bool"), (str, "string"), (int, "int64"), (float, "float64"), (list, "slice"),
                       (dict, "map"))


def _unstructured_kind(value: Any) -> str:
    """The ``reflect.Kind`` of a value of an unstructured map, as the converter names it."""
    return next(name for python_type, name in _UNSTRUCTURED_KINDS if isinstance(value, python_type))


class _Context:
    """Where a value sits, for Go's error message: the struct holding the field and the JSON
    path of the field (without list indexes or map keys, as Go prints it). The path is a stack
    of names pushed on the way down, joined only when an error is written. ``unstructured``:
    the value is converted from an unstructured map (``from_unstructured``), not read as JSON."""

    __slots__ = ("errors", "struct", "path", "unstructured", "part_levels")

    def __init__(self, unstructured: bool = False, part_levels: int = 0) -> None:
        self.errors: list[str] = []
        self.struct = ""
        self.path: list[str] = []
        self.unstructured = unstructured
        #: How many levels of structs below the one being decoded still decode their maps and
        #: lists as parts (``_shared_part``): an object's, its spec's, a container's.
        self.part_levels = part_levels

    def mismatch(self, value: Any, go_type: str, *, with_value: bool = False) -> None:
        json_type = _json_type(value)
        if with_value and json_type == "number":
            json_type = f"number {_number_text(value)}"
        if self.unstructured:  # a type's own UnmarshalJSON, on its value alone: no struct field
            raise _Abort(f"json: cannot unmarshal {json_type} into Go value of type {go_type}")
        self.errors.append(f"json: cannot unmarshal {json_type} into Go struct field "
                           f"{self.struct}.{'.'.join(self.path)} of type {go_type}")

    def cannot_restore(self, value: Any, container: str, go_type: str) -> None:
        """A value of another type where a ``struct``, ``slice`` or ``map`` goes."""
        if self.unstructured:
            separator = ": " if container == "struct" else " "
            raise _Abort(f"cannot restore {container} from{separator}{_unstructured_kind(value)}")
        self.mismatch(value, go_type)


Decoder = Callable[[Any, _Context], Any]


def _scalar(go_type: str, check: Callable[[Any], bool], zero: Any) -> tuple[Decoder, Any]:
    def decode(value: Any, context: _Context) -> Any:
        if value is None:
            return zero
        if check(value):
            return value
        if context.unstructured:
            return _converted(value, go_type)
        context.mismatch(value, go_type, with_value=go_type != "string" and not isinstance(value, bool))
        return zero
    return decode, zero


_INTEGER_BITS = {"int32": 32, "int64": 64, "uint8": 8}


def _converted(value: Any, go_type: str) -> Any:
    """The unstructured converter's conversion of a value the Go type does not take as it is
    (``fromUnstructured``'s simple kinds): an integer into another integer type (wrapped, as
    Go's conversion wraps) or a float64; an integral float64 into an integer; nothing else."""
    kind = _unstructured_kind(value)
    bits = _INTEGER_BITS.get(go_type)
    if bits is not None and kind in ("int64", "float64"):
        if kind == "float64" and not value.is_integer():
            raise _Abort(f"cannot convert float64 to {go_type}")
        low = -(1 << (bits - 1)) if go_type != "uint8" else 0
        return (int(value) - low) % (1 << bits) + low
    if go_type == "float64" and kind == "int64":
        return float(value)
    if go_type == "string" and kind == "int64":  # Go converts an integer to a string (a rune)
        raise _Abort(f"cannot convert int64 to {go_type}")
    raise _Abort(f"unrecognized type: {go_type}")


def _integer(bits: int, go_type: str) -> Callable[[Any], bool]:
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def check(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
    return check


_SCALARS: dict[int, tuple[Decoder, Any]] = {
    FieldDescriptor.TYPE_STRING: _scalar("string", lambda v: isinstance(v, str), ""),
    FieldDescriptor.TYPE_BOOL: _scalar("bool", lambda v: isinstance(v, bool), False),
    FieldDescriptor.TYPE_INT32: _scalar("int32", _integer(32, "int32"), 0),
    FieldDescriptor.TYPE_INT64: _scalar("int64", _integer(64, "int64"), 0),
    FieldDescriptor.TYPE_DOUBLE: _scalar(
        "float64", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), 0.0),
}


def _bytes(value: Any, context: _Context) -> Any:
    """A Go ``[]byte``: base64 text, checked (Go decodes it and prints it again). The converter
    takes a list of bytes too, and decodes text through JSON (its error says so)."""
    if value is None:
        return None
    if context.unstructured and isinstance(value, list):
        items = (0 if item is None else _converted(item, "uint8") for item in value)
        return base64.b64encode(bytes(items)).decode()
    if not isinstance(value, str):
        context.cannot_restore(value, "slice", "[]uint8")
        return None
    error_at = _base64_error(value.encode())
    if error_at is not None:
        prefix = "error decoding from json: " if context.unstructured else ""
        raise _Abort(f"{prefix}illegal base64 data at input byte {error_at}")
    return base64.b64encode(base64.b64decode(value.replace("\n", "").replace("\r", ""))).decode()


_BASE64_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _base64_error(src: bytes) -> int | None:
    """Where Go's ``base64.StdEncoding.Decode`` finds ``src`` corrupt (its ``CorruptInputError``
    offset), or None: ``decodeQuantum`` quantum by quantum, newlines skipped."""
    si, length = 0, len(src)
    while si < length:
        j = 0
        while j < 4:
            if si == length:
                if j == 0:
                    return None
                return si - j  # a partial quantum without padding
            char = src[si]
            si += 1
            if char in _BASE64_ALPHABET:
                j += 1
                continue
            if char in b"\n\r":
                continue
            if char != ord("=") or j < 2:
                return si - 1
            if j == 2:  # "==" expected, the first consumed
                while si < length and src[si] in b"\n\r":
                    si += 1
                if si == length:
                    return length
                if src[si] != ord("="):
                    return si - 1
                si += 1
            while si < length and src[si] in b"\n\r":
                si += 1
            return si if si < length else None  # trailing garbage after the padding
    return None


# ----------------------------------------------------------------- types with their own JSON


_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})")
_LAYOUT = "2006-01-02T15:04:05Z07:00"


def _parse_time(text: str) -> datetime:
    """Go's ``time.Parse(time.RFC3339, text)``, with its error messages for what clients send."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise _Abort(_time_syntax_error(text))
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    if not 1 <= month <= 12:
        raise _Abort(f'parsing time "{text}": month out of range')
    zone = match.group(8)
    offset = timezone.utc if zone == "Z" else timezone(
        (1 if zone[0] == "+" else -1) * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
    fraction = match.group(7) or ""
    micro = int((fraction[1:] + "000000")[:6]) if fraction else 0
    try:
        return datetime(year, month, day, hour, minute, second, micro, offset)
    except ValueError:
        raise _Abort(f'parsing time "{text}": day out of range') from None


_LAYOUT_ELEMENTS = (("2006", r"\d{4}"), ("-", "-"), ("01", r"\d{2}"), ("-", "-"), ("02", r"\d{2}"), ("T", "T"),
                    ("15", r"\d{2}"), (":", ":"), ("04", r"\d{2}"), (":", ":"), ("05", r"\d{2}(\.\d+)?"),
                    ("Z07:00", r"Z|[+-]\d{2}:\d{2}"))


def _time_syntax_error(text: str) -> str:
    """Go's ``ParseError``: the first layout element the rest of the value does not match."""
    rest = text
    for element, pattern in _LAYOUT_ELEMENTS:
        match = re.match(pattern, rest)
        if match is None:
            return f'parsing time "{text}" as "{_LAYOUT}": cannot parse "{rest}" as "{element}"'
        rest = rest[match.end():]
    return f'parsing time "{text}": extra text: "{rest}"'


def _time(value: Any, context: _Context) -> Any:
    """``metav1.Time``: RFC 3339, printed in UTC with whole seconds; null is the zero time."""
    if value is None:
        return None
    if not isinstance(value, str):
        context.mismatch(value, "string")  # Time.UnmarshalJSON unmarshals into a string first
        return None
    if value == "":
        return None
    return go_rfc3339(_parse_time(value))


_MICRO_LAYOUT = "2006-01-02T15:04:05.000000Z07:00"
_MICRO_FRACTION = re.compile(r".{19}\.\d{6}(?!\d)")


def _micro_time(value: Any, context: _Context) -> Any:
    """``metav1.MicroTime``: ``RFC3339Micro``, exactly six fractional digits, printed in UTC."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        context.mismatch(value, "string")
        return None
    if _RFC3339.fullmatch(value) is not None and _MICRO_FRACTION.match(value) is None:
        rest = value[19:]
        raise _Abort(f'parsing time "{value}" as "{_MICRO_LAYOUT}": cannot parse "{rest}" as ".000000"')
    return go_rfc3339(_parse_time(value), micro=True)


def _int_or_string(value: Any, context: _Context) -> Any:
    """``intstr.IntOrString``: a JSON string is the string; anything else must be an int32 (the
    converter marshals an integral float64 as an integer first)."""
    if value is None:
        return 0
    if isinstance(value, str):
        return value
    if context.unstructured and isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and -(1 << 31) <= value < (1 << 31):
        return value
    context.mismatch(value, "int32", with_value=isinstance(value, float))
    return 0


def _quantity(value: Any, context: _Context) -> Any:
    """``resource.Quantity``: a string or a number, printed as a string (the converter's number
    as Go marshals it; anything else is no quantity to ``ParseQuantity``)."""
    if value is None:
        return "0"
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        if context.unstructured:
            raise _Abort(FORMAT_WRONG)
        context.mismatch(value, "string")
        return "0"
    if isinstance(value, str):
        return value
    return go_json(value) if context.unstructured else _number_text(value)


def _raw(value: Any, context: _Context) -> Any:
    """Types that keep their JSON as it came (``RawExtension``, ``FieldsV1``, ``JSON``, schemas)."""
    return value


_CUSTOM: dict[str, Decoder] = {
    _META + "Time": _time,
    _META + "MicroTime": _micro_time,
    _META + "FieldsV1": _raw,
    "k8s.io.apimachinery.pkg.runtime.RawExtension": _raw,
    "k8s.io.apimachinery.pkg.api.resource.Quantity": _quantity,
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString": _int_or_string,
    _APIEXTENSIONS + "JSON": _raw,
    _APIEXTENSIONS + "JSONSchemaPropsOrBool": _raw,
    _APIEXTENSIONS + "JSONSchemaPropsOrArray": _raw,
    _APIEXTENSIONS + "JSONSchemaPropsOrStringArray": _raw,
}


# ----------------------------------------------------------------- structs


#: What an absent (or null) field prints as: nothing, or its zero value (made anew each time when
#: it is a struct: callers may change what they get).
_SKIP = object()


class _Field:
    """One field of a Go struct. ``go_struct``: a non-pointer struct (its own JSON form or not),
    which ``omitempty`` never drops."""

    __slots__ = ("json_name", "decode", "omit_empty", "omit_zero", "pointer", "zero", "go_struct", "absent")

    def __init__(self, json_name: str, decode: Decoder, flags: str, zero: Any, go_struct: bool) -> None:
        self.json_name = json_name
        self.decode = decode
        self.omit_empty = "o" in flags and not go_struct  # Go's omitempty, which skips structs
        self.omit_zero = "z" in flags
        self.pointer = "p" in flags
        self.zero = zero
        self.go_struct = go_struct
        self.absent = self._absent()

    def _absent(self) -> Any:
        if self.pointer:  # a nil pointer: printed as null only without omitempty
            return _SKIP if self.omit_empty else None
        if self.go_struct or self.omit_zero:
            return _SKIP if self.omit_zero else _FRESH  # the struct's zero value, decoded anew
        return _SKIP if self.omit_empty else self.zero


_FRESH = object()


class _Struct:
    """One Go struct: its fields in order; decoding a JSON object gives the object Go prints."""

    __slots__ = ("name", "go_name", "fields")

    def __init__(self, name: str) -> None:
        self.name = name
        self.go_name = name.rpartition(".")[2]
        #: In struct order; an embedded (``inline``) struct stands where Go prints its fields.
        self.fields: list[_Field | _Struct] = []

    def decode(self, value: Any, context: _Context) -> Any:
        """The struct's JSON; its maps and lists decoded as parts (``_shared_part``) while
        ``context.part_levels`` lasts."""
        if value is None:
            value = {}
        elif not isinstance(value, dict):
            context.cannot_restore(value, "struct", f"{_go_package(self.name)}.{self.go_name}")
            value = {}
        out: Json = {}
        self._decode_into(value, context, out, context.part_levels > 0)
        return out

    def _decode_into(self, value: Json, context: _Context, out: Json, shared: bool) -> None:
        outer = context.struct
        path = context.path
        get = value.get
        for field in self.fields:
            if field.__class__ is _Struct:
                field._decode_into(value, context, out, shared)  # type: ignore[union-attr]
                continue
            name = field.json_name  # type: ignore[union-attr]
            raw = get(name)
            if raw is None:  # absent or null: the zero value
                absent = field.absent  # type: ignore[union-attr]
                if absent is _SKIP:
                    continue
                out[name] = field.decode(None, context) if absent is _FRESH else absent  # type: ignore[union-attr]
                continue
            context.struct = self.go_name
            path.append(name)
            if not shared or not (raw.__class__ is dict or raw.__class__ is list):
                decoded = field.decode(raw, context)  # type: ignore[union-attr]
            elif name != "metadata":
                decoded = _shared_part(self.name, field, raw, context)  # type: ignore[arg-type]
            else:  # new in every object, and so are its maps and lists (labels, managedFields)
                decoded = _decode_with_part_levels(field, raw, context, 0)  # type: ignore[arg-type]
            path.pop()
            if field.pointer:  # type: ignore[union-attr]  # a pointer prints when set, zero or not
                out[name] = decoded
            elif field.omit_zero and decoded == field.zero:  # type: ignore[union-attr]
                continue
            elif field.omit_empty and not decoded:  # type: ignore[union-attr]  # false, 0, "", empty
                continue
            else:
                out[name] = decoded
        context.struct = outer


#: The decoded JSON of an object's parts (a spec, a status, a template: not its metadata, which
#: its name and uid make new each time), by struct, field, how it was read and the part's JSON.
#: Objects written over and over repeat their parts (the pods of one template carry the same
#: spec, a load test writes one pod shape). Parts go ``PART_LEVELS`` structs down (the spec's
#: maps and lists, a container's), so a spec that changed in one container's image decodes
#: that container's scalars and takes the rest as kept. Only parts decoded without an error
#: are kept (errors name where they were found); a kept part is handed out as a new copy.
_DECODED: Repeated[tuple[str, str, bool, bytes], bytes] = Repeated(1024)
PART_LEVELS = 3


def _decode_with_part_levels(field: _Field, raw: Any, context: _Context, levels: int) -> Any:
    """``field.decode(raw)`` with ``levels`` levels of parts below it, the context's own after."""
    outer, context.part_levels = context.part_levels, levels
    try:
        return field.decode(raw, context)
    finally:
        context.part_levels = outer


def _shared_part(struct: str, field: _Field, raw: Any, context: _Context) -> Any:
    encoded = json_key(raw)
    if encoded is None:
        return field.decode(raw, context)
    key = (struct, field.json_name, context.unstructured, encoded)
    kept = _DECODED.get(key)
    if kept is not None:
        return orjson.loads(kept)
    errors = len(context.errors)
    # The part's own maps and lists are parts one level down.
    decoded = _decode_with_part_levels(field, raw, context, context.part_levels - 1)
    if len(context.errors) == errors:
        try:
            _DECODED.put_made(key, lambda: orjson.dumps(decoded))
        except TypeError:  # an integer past 64 bits
            pass
    return decoded


def _go_package(message: str) -> str:
    """The Go package name of a message, as ``%T`` prints it: ``k8s.io.api.core.v1.Container``
    -> ``v1``."""
    return message.rpartition(".")[0].rpartition(".")[2]


@cache
def _struct(name: str) -> _Struct:
    struct = _Struct(name)
    loaded = gotypes.types()
    descriptor = loaded.pool.FindMessageTypeByName(name)
    go_fields = loaded.go_fields[name]
    assert go_fields != "items", name
    for proto_name, json_name, flags in go_fields:
        field = descriptor.fields_by_name[proto_name]
        if "i" in flags:
            struct.fields.append(_struct(field.message_type.full_name))
            continue
        decode, zero, go_struct = _field_decoder(field, flags)
        if go_struct and "z" in flags:
            zero = decode(None, _Context())  # omitzero compares with the struct's zero value
        struct.fields.append(_Field(json_name, decode, flags, zero, go_struct))
    return struct


def _field_decoder(field: FieldDescriptor, flags: str) -> tuple[Decoder, Any, bool]:
    """How a field's JSON value decodes, its zero value when absent (not a struct), and whether
    it is a non-pointer struct."""
    if field.is_repeated:
        message: Descriptor | None = field.message_type
        if message is not None and message.GetOptions().map_entry:
            value_decode, _zero, _struct_kind = _element_decoder(message.fields_by_name["value"])
            return _map_decoder(value_decode, _go_element_type(message.fields_by_name["value"])), None, False
        element, _zero, _struct_kind = _element_decoder(field)
        return _list_decoder(element, _go_element_type(field)), None, False
    decode, zero, is_message = _element_decoder(field)
    return decode, zero, is_message and "p" not in flags


def _element_decoder(field: FieldDescriptor) -> tuple[Decoder, Any, bool]:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        name = field.message_type.full_name
        custom = _CUSTOM.get(name)
        if custom is not None:
            return custom, None, True
        if gotypes.types().go_fields.get(name) == "items":  # a named slice type
            element, _zero, _is = _element_decoder(field.message_type.fields_by_name["items"])
            return _list_decoder(element, _go_element_type(field.message_type.fields_by_name["items"])), None, False
        return _LazyStruct(name), None, True
    if field.type == FieldDescriptor.TYPE_BYTES:
        return _bytes, None, False
    decode, zero = _SCALARS[field.type]
    return decode, zero, False


class _LazyStruct:
    """A struct decoder resolved on first use (types refer to each other, and to themselves)."""

    __slots__ = ("name", "_struct")

    def __init__(self, name: str) -> None:
        self.name = name
        self._struct: _Struct | None = None

    def __call__(self, value: Any, context: _Context) -> Any:
        struct = self._struct
        if struct is None:
            struct = self._struct = _struct(self.name)
        return struct.decode(value, context)


_GO_SCALAR_NAMES = {FieldDescriptor.TYPE_STRING: "string", FieldDescriptor.TYPE_BOOL: "bool",
                    FieldDescriptor.TYPE_INT32: "int32", FieldDescriptor.TYPE_INT64: "int64",
                    FieldDescriptor.TYPE_DOUBLE: "float64", FieldDescriptor.TYPE_BYTES: "[]uint8"}


def _go_element_type(field: FieldDescriptor) -> str:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        name = field.message_type.full_name
        if name == "k8s.io.apimachinery.pkg.api.resource.Quantity":
            return "resource.Quantity"
        return f"{_go_package(name)}.{name.rpartition('.')[2]}"
    return _GO_SCALAR_NAMES[field.type]


def _list_decoder(element: Decoder, element_type: str) -> Decoder:
    def decode(value: Any, context: _Context) -> Any:
        if value is None:
            return None
        if not isinstance(value, list):
            context.cannot_restore(value, "slice", f"[]{element_type}")
            return None
        return [element(item, context) for item in value]
    return decode


def _map_decoder(element: Decoder, element_type: str) -> Decoder:
    def decode(value: Any, context: _Context) -> Any:
        if value is None:
            return None
        if not isinstance(value, dict):
            context.cannot_restore(value, "map", f"map[string]{element_type}")
            return None
        # encoding/json writes a map's keys sorted.
        return {key: element(value[key], context) for key in sorted(value)}
    return decode


# ----------------------------------------------------------------- entry points


class GoDecodeError(Exception):
    """The error Go's decoder returned: ``str()`` is its text (each caller wraps it its way)."""


def decode(obj: Json, api_version: str, kind: str, *, unstructured: bool = False) -> Json:
    """The object as kube stores it after decoding it into its Go type (see the module doc);
    ``GoDecodeError`` when it cannot be decoded. ``kind`` and ``apiVersion`` come first, as
    ``TypeMeta`` is the first (inline) field of every kind. Objects of kinds without a Go type here
    (custom resources) are returned as they are. ``unstructured``: converted from an unstructured
    map (``from_unstructured``) rather than read as JSON."""
    name = gotypes.message_name(api_version, kind)
    if name is None:
        return obj
    context = _Context(unstructured, PART_LEVELS)
    try:
        decoded = _struct(name).decode(obj, context)
    except _Abort as err:
        raise GoDecodeError(str(err)) from None
    if context.errors:
        raise GoDecodeError(context.errors[0])
    return {"kind": kind, "apiVersion": api_version, **decoded}


def from_unstructured(obj: Json, api_version: str, kind: str) -> Json:
    """``runtime.DefaultUnstructuredConverter.FromUnstructured`` of a map into the kind's Go type,
    which is how a strategic merge patch's result becomes the object: ``decode`` with the
    converter's rules (see the module doc)."""
    return decode(obj, api_version, kind, unstructured=True)


def decode_meta(value: Any, type_name: str) -> Json:
    """A value read into a ``meta/v1`` struct of that name (a custom resource's ``ObjectMeta``,
    a DELETE's ``DeleteOptions``); ``GoDecodeError`` with Go's message when it cannot be."""
    if value is not None and not isinstance(value, dict):
        raise GoDecodeError(f"json: cannot unmarshal {_json_type(value)} into Go value of type v1.{type_name}")
    context = _Context()
    try:
        decoded = _struct(_META + type_name).decode(value, context)
    except _Abort as err:
        raise GoDecodeError(str(err)) from None
    if context.errors:
        raise GoDecodeError(context.errors[0])
    return decoded


def zero_object(api_version: str, kind: str) -> Json | None:
    """The zero value of a built-in kind as Go prints it (None for kinds without a Go type); a
    new object each call, for the caller to keep or change."""
    zero = _zero_object(api_version, kind)
    return None if zero is None else copy.deepcopy(zero)


@cache
def _zero_object(api_version: str, kind: str) -> Json | None:
    if gotypes.message_name(api_version, kind) is None:
        return None
    return decode({}, api_version, kind)


def decode_body(obj: Json, api_version: str, kind: str) -> Json:
    """``decode`` of a create or update body: an error is the handlers' 400
    (``transformDecodeError``: ``Pod in version "v1" cannot be handled as a Pod: ...``)."""
    try:
        return decode(obj, api_version, kind)
    except GoDecodeError as err:
        version = api_version.rpartition("/")[2]
        raise bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: {err}') from None
