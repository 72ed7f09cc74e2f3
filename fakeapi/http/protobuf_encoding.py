"""Kubernetes protobuf responses (``application/vnd.kubernetes.protobuf``): the stored JSON of an
object encoded as kube-apiserver's protobuf serializer writes the same Go value.

kube-apiserver decodes JSON into the Go struct and marshals it with the gogo-protobuf code of
``k8s.io/api``'s ``generated.pb.go``. That code writes fields in field-number order and writes
every field that is not a Go pointer, slice or map even when it holds its zero value (``""``,
``0``, ``false``, an empty struct), so the bytes follow from the Go struct, not from which keys
the JSON has: a key that is absent or ``null`` encodes as Go's zero value, except for pointers
(absent or ``null``: nothing written; present: written, zero or not), slices, maps (keys sorted,
each entry's key and value always written, a ``[]byte`` value only when not null) and ``[]byte``
fields (nothing written for nil). Types with their own ``Marshal`` write as theirs do:
``metav1.Time`` (whole seconds, nothing for the zero time), ``MicroTime``, ``Duration``,
``resource.Quantity`` (its canonical string, see ``machinery.quantity``), ``intstr.IntOrString``,
``runtime.RawExtension``/``FieldsV1``/apiextensions ``JSON`` (the JSON text), and apiextensions'
``JSONSchemaPropsOr*`` unions. Which fields are Go pointers and how their JSON is named comes
from ``k8s_gofields.json.gz``, beside the proto descriptors (see ``protobuf``).

The wire forms (apimachinery ``runtime/serializer/protobuf``): an object or list is the magic
``k8s\\x00`` then a ``runtime.Unknown`` naming apiVersion and kind, whose ``raw`` is the message;
a LIST's message is its ``ListMeta`` then one ``items`` field per item, so an item's bytes are
the object's message as is; a watch event is a 4-byte big-endian length then a
``metav1.WatchEvent`` whose object is the enveloped object. Encoders compile once per message
type, on the first protobuf response.
"""

from __future__ import annotations

import base64
import calendar
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from functools import cache, lru_cache
from typing import Any

import orjson
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from ..machinery import gotypes, quantity
from ..machinery.golang import go_parse_duration
from ..machinery.jsonvalue import Repeated, json_key
from .protobuf import MAGIC

Encoder = Callable[[Any], bytes]
"""The message bytes of a JSON value (``None``: the Go zero value)."""
FieldWriter = Callable[[Mapping[str, Any], bytearray], None]

_META = "k8s.io.apimachinery.pkg.apis.meta.v1."
_APIEXTENSIONS = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1."
STATUS = _META + "Status"
LIST_META = _META + "ListMeta"
PARTIAL_OBJECT_METADATA = _META + "PartialObjectMetadata"
WATCH_EVENT = _META + "WatchEvent"
_EMPTY: Mapping[str, Any] = {}
_MASK64 = (1 << 64) - 1
#: Unknown's contentEncoding and contentType, always written, always empty in responses.
_ENVELOPE_TRAILER = b"\x1a\x00\x22\x00"


class EncodingError(ValueError):
    """A stored value that its Go type could not hold (kube would have rejected it on write)."""


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


#: Varints of every value below 2**14 (one or two bytes): lengths and most integers. Built as
#: the two byte patterns they are, not by ``_varint_bytes`` (a tenth of the time, at every start).
_SMALL_VARINTS = (tuple(bytes((n,)) for n in range(0x80))
                  + tuple(bytes((n & 0x7F | 0x80, n >> 7)) for n in range(0x80, 1 << 14)))


class _TaggedHeads(dict[int, tuple[bytes, ...]]):
    """``heads[tag][n]``: a one-byte tag then the length ``n`` < 128, the head of a short field.
    A tag's row is made when a generated function first names the tag (its ``T<tag>``): the
    whole table is 32,768 objects, of which a server uses a few rows, and none before its
    first protobuf message."""

    def __missing__(self, tag: int) -> tuple[bytes, ...]:
        row = self[tag] = tuple(bytes((tag, n)) for n in range(128))
        return row


def varint(value: int) -> bytes:
    """A non-negative value as a protobuf varint."""
    return _SMALL_VARINTS[value] if value < 16384 else _varint_bytes(value)


def _int_varint(value: Any) -> bytes:
    """An int32/int64 as gogo writes it: negative values as their 64-bit two's complement."""
    if value.__class__ is not int:
        value = _integer(value)
    return varint(value & _MASK64) if value < 0 else varint(value)


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise EncodingError(f"cannot unmarshal {orjson.dumps(value).decode()} into an integer field")
    return int(value)


def _tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def _length_delimited(tag: bytes, payload: bytes) -> bytes:
    return tag + varint(len(payload)) + payload


# ----------------------------------------------------------------- types with their own Marshal


def _not_a_time(value: Any) -> str:
    raise EncodingError(f"cannot unmarshal {orjson.dumps(value).decode()[:100]} into a time")


def _parse_time(text: str) -> tuple[int, int]:
    """RFC 3339 text (``time.Parse(time.RFC3339, ...)``) as Unix seconds and nanoseconds."""
    try:
        moment = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        raise EncodingError(f'parsing time "{text}" as RFC 3339 failed') from None
    if moment.tzinfo is None:
        raise EncodingError(f'parsing time "{text}" as RFC 3339 failed: no time zone')
    return calendar.timegm(moment.utctimetuple()), moment.microsecond * 1000


def _encode_time(value: Any) -> bytes:
    """``metav1.Time.Marshal``: seconds only (nanos written as 0); the zero time writes nothing."""
    if value is None:
        return b""
    return _time_message(value) if value.__class__ is str else _time_message(_not_a_time(value))


@lru_cache(maxsize=4096)
def _time_message(text: str) -> bytes:
    """Per distinct text: objects written in the same second share their times."""
    seconds, _nanos = _parse_time(text)
    return b"\x08" + _int_varint(seconds) + b"\x10\x00"


def _encode_micro_time(value: Any) -> bytes:
    """``metav1.MicroTime.Marshal``: seconds and nanoseconds truncated to microseconds."""
    if value is None:
        return b""
    seconds, nanos = _parse_time(value if value.__class__ is str else _not_a_time(value))
    return b"\x08" + _int_varint(seconds) + b"\x10" + varint(nanos)


def parse_go_duration(text: str) -> int:
    """Go's ``time.ParseDuration`` in nanoseconds (``1h2m3.5s``, ``-1.5ms``, ``0``)."""
    try:
        return go_parse_duration(text)
    except ValueError as err:
        raise EncodingError(str(err)) from None


def _encode_duration(value: Any) -> bytes:
    """``metav1.Duration``: its nanoseconds, always written."""
    nanoseconds = 0 if value is None else parse_go_duration(value) if isinstance(value, str) else _integer(value)
    return b"\x08" + _int_varint(nanoseconds)


def _encode_quantity(value: Any) -> bytes:
    """``resource.Quantity.Marshal``: its canonical string (``"0"`` for null; a JSON number is
    parsed from its text, as ``Quantity.UnmarshalJSON`` does)."""
    return _quantity_message("0" if value is None else value)


@lru_cache(maxsize=4096, typed=True)
def _quantity_message(value: Any) -> bytes:
    """Per distinct value: a cluster's quantities are few (``100m``, ``128Mi``, ...). (A list or
    an object is unhashable here: a TypeError, reported as an ``EncodingError``.)"""
    try:
        canonical = quantity.canonical(value)
    except quantity.QuantityError as err:
        raise EncodingError(str(err)) from None
    encoded = canonical.encode()
    return b"\x0a" + varint(len(encoded)) + encoded


def _encode_int_or_string(value: Any) -> bytes:
    """``intstr.IntOrString``: type, intVal and strVal, all three always written."""
    if isinstance(value, str):
        encoded = value.encode()
        return b"\x08\x01\x10\x00\x1a" + varint(len(encoded)) + encoded
    if value is None:
        return b"\x08\x00\x10\x00\x1a\x00"
    return b"\x08\x00\x10" + _int_varint(value) + b"\x1a\x00"


def _encode_raw_json(value: Any) -> bytes:
    """``RawExtension``/``FieldsV1``/``JSON``: the value's JSON text in field 1, nothing for null."""
    if value is None:
        return b""
    raw = orjson.dumps(value)
    return b"\x0a" + varint(len(raw)) + raw


# ----------------------------------------------------------------- compiling encoders


class _Generator:
    """Writes one Python function per message type and compiles them (``exec`` of source made
    only from the shipped descriptors: message and field names appear as string literals, never
    as code). Straight-line code with the tags inlined is what makes encoding cheap: a pod has
    some 400 fields, each a few bytecodes here rather than a call through a table. Functions
    call each other by global name, so recursive types (``JSONSchemaProps``) need nothing
    special; each has a zero-value constant (``Z<n>``), the bytes of the Go zero value, which
    is what a ``null`` or absent non-pointer struct encodes to."""

    def __init__(self) -> None:
        types = gotypes.types()
        self._pool = types.pool
        self._go_fields = types.go_fields
        self.namespace: dict[str, Any] = {
            "VARINTS": _SMALL_VARINTS, "TAGGED": _TaggedHeads(), "varint": varint, "int_varint": _int_varint,
            "bool_bytes": _encode_bool, "bytes_field": _encode_bytes, "double_bytes": _encode_double,
            "EMPTY": _EMPTY, "sorted": sorted, "dict": dict,
            "not_an_object": _not_an_object,
        }
        self._functions: dict[str, str] = {}  # message name -> function name
        self._shared: set[str] = set()  # functions replaced by share_parts
        self._pending: list[str] = []  # named but not yet generated
        self._custom = {
            _META + "Time": _encode_time,
            _META + "MicroTime": _encode_micro_time,
            _META + "Duration": _encode_duration,
            _META + "FieldsV1": _encode_raw_json,
            "k8s.io.apimachinery.pkg.runtime.RawExtension": _encode_raw_json,
            "k8s.io.apimachinery.pkg.api.resource.Quantity": _encode_quantity,
            "k8s.io.apimachinery.pkg.util.intstr.IntOrString": _encode_int_or_string,
            _APIEXTENSIONS + "JSON": _encode_raw_json,
        }
        self._unions: dict[str, Callable[[Any], Mapping[str, Any] | None]] = {
            _APIEXTENSIONS + "JSONSchemaPropsOrBool": _schema_or_bool,
            _APIEXTENSIONS + "JSONSchemaPropsOrArray": _schema_or_list("jSONSchemas"),
            _APIEXTENSIONS + "JSONSchemaPropsOrStringArray": _schema_or_list("property"),
        }

    def encoder(self, name: str) -> Encoder:
        function = self._functions.get(name)
        if function is None:
            function = self._function(name)
            sources = []
            while self._pending:  # generating one type names the types of its fields
                sources.append(self._source(self._pending.pop()))
            exec(compile("\n".join(sources), "<protobuf encoders>", "exec"), self.namespace)  # noqa: S102
            for message in list(self._functions):
                self._zero(message)
        return self.namespace[function]

    def share_parts(self, name: str, levels: int = 2, *, top: bool = True) -> None:
        """Encode the parts of message ``name`` once per value: its single struct fields but
        metadata (an object's spec, status, template) and, ``levels`` down, theirs and their
        lists' items (a pod spec's containers and volumes), so a spec that changed in one
        container encodes that container alone. Generated functions call each other by global
        name, so each part's function is replaced by one that keeps what it wrote
        (``_shared``). An object's own lists (a list kind's items) and metadata are new in
        every object: not kept."""
        for field in self._pool.FindMessageTypeByName(name).fields:
            part = field.message_type
            if part is None or (field.is_repeated and top) or part.GetOptions().map_entry:
                continue
            part_name = part.full_name
            if part_name in self._custom or part_name in self._unions or part_name in _NEW_EVERY_TIME:
                continue
            function = self._functions.get(part_name)
            if function is None:
                continue
            if function not in self._shared:
                self._shared.add(function)
                self.namespace[function] = _shared(self.namespace[function])
            if levels > 1:
                self.share_parts(part_name, levels - 1, top=False)

    def _function(self, name: str) -> str:
        """The global name of the message's function, scheduling its generation if new."""
        function = self._functions.get(name)
        if function is None:
            function = self._functions[name] = f"m{len(self._functions)}"
            custom = self._custom.get(name)
            if custom is not None:
                self.namespace[function] = custom
                self.namespace["Z" + function[1:]] = custom(None)
            else:
                self._pending.append(name)
        return function

    def _zero(self, name: str) -> bytes:
        """The zero value's bytes; the fields a zero struct writes are its non-pointer structs."""
        zero_name = "Z" + self._functions[name][1:]
        zero = self.namespace.get(zero_name)
        if zero is None:
            if self._go_fields.get(name) not in ("items", None) and name not in self._unions:
                go_fields = {proto: flags for proto, _json, flags in self._go_fields[name]}
                for field in self._pool.FindMessageTypeByName(name).fields:
                    if (field.type == FieldDescriptor.TYPE_MESSAGE and not field.is_repeated
                            and "p" not in go_fields[field.name]):
                        self._zero(field.message_type.full_name)
            zero = self.namespace[zero_name] = bytes(self.namespace[self._functions[name]](_EMPTY))
        return zero

    def _source(self, name: str) -> str:
        descriptor = self._pool.FindMessageTypeByName(name)
        function = self._functions[name]
        go_fields = self._go_fields[name]
        lines = []
        if go_fields == "items":  # a Go slice type (``type ExtraValue []string``): the JSON is the list
            lines.append("    d = EMPTY if d is None else {'items': d}")
            go_fields = [["items", "items", ""]]
        elif name in self._unions:
            union = f"u{function[1:]}"
            self.namespace[union] = self._unions[name]
            lines.append(f"    d = {union}(d) or EMPTY")
            go_fields = [[proto, proto, flags] for proto, _json, flags in go_fields]
        else:
            lines += ["    if d is None:", f"        return Z{function[1:]}",
                      "    if d.__class__ is not dict:", f"        not_an_object(d, {descriptor.name!r})"]
        lines += ["    out = bytearray()", "    get = d.get"]
        by_proto_name = {proto: (json_name, flags) for proto, json_name, flags in go_fields}
        for field in sorted(descriptor.fields, key=lambda f: f.number):
            json_name, flags = by_proto_name[field.name]
            lines += ["    " + line for line in self._field_source(field, json_name, flags)]
        lines.append("    return out")  # a bytearray: callers append it, encoder() copies once
        # Tables and helpers are bound as default arguments: locals, not global lookups.
        tags = sorted({int(tag) for tag in re.findall(r"\bT(\d+)\[", "\n".join(lines))})
        local_names = ", ".join([*(f"T{tag}=TAGGED[{tag}]" for tag in tags), _LOCALS])
        return "\n".join([f"def {function}(d, {local_names}):", *lines]) + "\n"

    def _field_source(self, field: FieldDescriptor, key: str, flags: str) -> list[str]:
        tag = _tag(field.number, _wire_type(field))
        pointer = "p" in flags
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            entry = field.message_type
            # A Go slice type (``Verbs []string``) is nil when absent: written only when set.
            pointer = pointer or self._go_fields.get(entry.full_name) == "items"
            if entry.GetOptions().map_entry:
                return self._map_source(tag, key, entry)
            call = self._function(entry.full_name)
            if "i" in flags:  # an embedded struct: its fields are the enclosing JSON object's
                return [f"p = {call}(d)", *_append_length_delimited(tag)]
            if field.is_repeated:
                return [f"v = get({key!r})", "if v:", "    for i in v:", f"        p = {call}(i)",
                        *["        " + line for line in _append_length_delimited(tag)]]
            if pointer:
                return [f"v = get({key!r})", "if v is not None:", f"    p = {call}(v)",
                        *["    " + line for line in _append_length_delimited(tag)]]
            return [f"p = {call}(get({key!r}))", *_append_length_delimited(tag)]
        write = _SCALAR_SOURCE[field.type]
        if field.is_repeated:
            zero = tag + _ZERO_BYTES[field.type] if field.type != FieldDescriptor.TYPE_BYTES else tag + b"\x00"
            return [f"v = get({key!r})", "if v:", "    for i in v:", "        if i is None:",  # Go: the zero value
                    f"            out += {zero!r}", "        else:", *["            " + line for line in write("i", tag)]]
        if pointer or field.type == FieldDescriptor.TYPE_BYTES:  # a nil []byte writes nothing either
            return [f"v = get({key!r})", "if v is not None:", *["    " + line for line in write("v", tag)]]
        zero = tag + _ZERO_BYTES[field.type]
        return [f"v = get({key!r})", "if v is None:", f"    out += {zero!r}", "else:",
                *["    " + line for line in write("v", tag)]]

    def _map_source(self, tag: bytes, key: str, entry: Descriptor) -> list[str]:
        """gogo's map: entries in key order, each its key (1) and value (2); a struct value is
        always written, a ``[]byte`` value only when not nil, a null string as ""."""
        value_field = entry.fields_by_name["value"]
        lines = [f"v = get({key!r})", "if v:", "    for k in sorted(v):", "        x = v[k]",
                 "        b = k.encode()", "        e = bytearray()",
                 *["        " + line.replace("out +=", "e +=") for line in _append_length_delimited(b"\n", "b")]]
        if value_field.type == FieldDescriptor.TYPE_MESSAGE:
            call = self._function(value_field.message_type.full_name)
            lines += [f"        p = {call}(x)",
                      *["        " + line.replace("out +=", "e +=") for line in _append_length_delimited(b"\x12")]]
        else:
            value_tag = _tag(2, _wire_type(value_field))
            write = _SCALAR_SOURCE[value_field.type]
            null = (b"" if value_field.type == FieldDescriptor.TYPE_BYTES
                    else value_tag + _ZERO_BYTES[value_field.type])
            lines += ["        if x is None:", f"            e += {null!r}", "        else:",
                      *["            " + line.replace("out +=", "e +=") for line in write("x", value_tag)]]
        return lines + ["        " + line for line in _append_length_delimited(tag, "e")]


#: Names the generated functions read as locals (bound as default arguments), not globals.
_LOCALS = ", ".join(f"{name}={name}" for name in (
    "VARINTS", "varint", "int_varint", "bool_bytes", "bytes_field", "double_bytes",
    "sorted", "dict"))


def _append_length_delimited(tag: bytes, value: str = "p") -> list[str]:
    """Source appending ``value`` (bytes) as a length-delimited field: a short one's tag and
    length come from one table lookup."""
    if len(tag) == 1:
        return [f"n = len({value})", f"out += T{tag[0]}[n] if n < 128 else {tag!r} + varint(n)", f"out += {value}"]
    return [f"out += {tag!r}", f"out += VARINTS[len({value})] if len({value}) < 16384 else varint(len({value}))",
            f"out += {value}"]


def _string_source(value: str, tag: bytes) -> list[str]:
    # Only a str has .encode() among JSON values: anything else fails there and is reported.
    return [f"s = {value}.encode()", *_append_length_delimited(tag, "s")]


def _int_source(value: str, tag: bytes) -> list[str]:
    return [f"out += {tag!r}", f"out += VARINTS[{value}] if 0 <= {value} < 16384 else int_varint({value})"]


#: Source writing one scalar (tag included) from a Python expression.
_SCALAR_SOURCE: dict[int, Callable[[str, bytes], list[str]]] = {
    FieldDescriptor.TYPE_STRING: _string_source,
    FieldDescriptor.TYPE_BYTES: lambda value, tag: [f"out += {tag!r}", f"out += bytes_field({value})"],
    FieldDescriptor.TYPE_BOOL: lambda value, tag: [f"out += {tag!r}", f"out += bool_bytes({value})"],
    FieldDescriptor.TYPE_INT32: _int_source,
    FieldDescriptor.TYPE_INT64: _int_source,
    FieldDescriptor.TYPE_DOUBLE: lambda value, tag: [f"out += {tag!r}", f"out += double_bytes({value})"],
}


def _not_an_object(value: Any, message: str) -> None:
    raise EncodingError(f"cannot unmarshal {orjson.dumps(value).decode()[:100]} into Go value of type {message}")


def _wire_type(field: FieldDescriptor) -> int:
    if field.type == FieldDescriptor.TYPE_DOUBLE:
        return 1
    if field.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_MESSAGE):
        return 2
    return 0


def _encode_bytes(value: Any) -> bytes:
    """A ``[]byte``: JSON carries it in base64."""
    if not isinstance(value, str):
        raise EncodingError(f"cannot unmarshal {orjson.dumps(value).decode()[:100]} into a []byte field")
    try:
        decoded = base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
    except ValueError:
        raise EncodingError("illegal base64 data") from None
    return varint(len(decoded)) + decoded


def _encode_bool(value: Any) -> bytes:
    if value is True:
        return b"\x01"
    if value is False:
        return b"\x00"
    raise EncodingError(f"cannot unmarshal {orjson.dumps(value).decode()[:100]} into a bool field")


def _encode_double(value: Any) -> bytes:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EncodingError(f"cannot unmarshal {orjson.dumps(value).decode()[:100]} into a number field")
    return struct.pack("<d", value)


#: The bytes of a scalar's Go zero value (``[]byte`` has none: nil writes nothing).
_ZERO_BYTES: dict[int, bytes] = {
    FieldDescriptor.TYPE_STRING: b"\x00", FieldDescriptor.TYPE_BOOL: b"\x00", FieldDescriptor.TYPE_INT32: b"\x00",
    FieldDescriptor.TYPE_INT64: b"\x00", FieldDescriptor.TYPE_DOUBLE: bytes(8),
}


def _schema_or_bool(value: Any) -> Mapping[str, Any] | None:
    """``JSONSchemaPropsOrBool.UnmarshalJSON``: an object is the schema (and allows), a bool the bool."""
    if isinstance(value, bool):
        return {"allows": value}
    if isinstance(value, dict):
        return {"allows": True, "schema": value}
    return None


def _schema_or_list(list_field: str) -> Callable[[Any], Mapping[str, Any] | None]:
    """``JSONSchemaPropsOrArray`` (``jSONSchemas``) and ``JSONSchemaPropsOrStringArray``
    (``property``): an object is the schema, a list goes to ``list_field``."""
    def fields(value: Any) -> Mapping[str, Any] | None:
        if isinstance(value, list):
            return {list_field: value}
        if isinstance(value, dict):
            return {"schema": value}
        return None
    return fields


@cache
def _generator() -> _Generator:
    return _Generator()


#: Parts not worth keeping: an object's metadata (its name and uid make every one new).
_NEW_EVERY_TIME = frozenset({_META + "ObjectMeta", _META + "ListMeta"})
#: ``_shared``: at most this many parts kept per part type.
_SHARED_MAX = 256


def _shared(function: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``function`` (a message's generated encoder) answering a JSON value it encoded before
    from what it wrote then: the objects a server writes over and over repeat their parts (the
    pods of one template carry the same spec). The key is the value's JSON, which tells every
    value the encoding tells apart (``1`` from ``1.0`` and ``true``)."""
    kept: Repeated[bytes, bytes] = Repeated(_SHARED_MAX)

    def encode(d: Any) -> Any:
        key = json_key(d) if d.__class__ is dict else None
        if key is None:
            return function(d)
        return kept.answer(key, lambda: bytes(function(d)))
    return encode


def encoder(message_name: str) -> Encoder:
    """The encoder of a message type, by proto name (``k8s.io.api.core.v1.Pod``): its
    message's bytes from the JSON value (``None``: the zero value). Its parts are encoded once
    per value (``_Generator.share_parts``)."""
    generator = _generator()
    try:
        encode = generator.encoder(message_name)
    except KeyError:
        raise ValueError(f"no protobuf message {message_name}") from None
    generator.share_parts(message_name)

    def encode_message(value: Any) -> bytes:
        try:
            return bytes(encode(value))
        except (AttributeError, TypeError, IndexError) as err:  # a JSON value of the wrong type
            raise EncodingError(f"{message_name}: {err}") from None
    return encode_message


#: Kinds kube writes in protobuf that the OpenAPI definitions do not name a group-version-kind for.
_META_KINDS = {
    ("meta.k8s.io/v1", "PartialObjectMetadata"): PARTIAL_OBJECT_METADATA,
    ("meta.k8s.io/v1", "PartialObjectMetadataList"): PARTIAL_OBJECT_METADATA + "List",
    ("apidiscovery.k8s.io/v2", "APIGroupDiscoveryList"): "k8s.io.api.apidiscovery.v2.APIGroupDiscoveryList",
}


def message_name(api_version: str, kind: str) -> str | None:
    """The proto message of a built-in kind, or ``None`` when kube has none (custom resources)."""
    return _META_KINDS.get((api_version, kind)) or gotypes.message_name(api_version, kind)


# ----------------------------------------------------------------- wire forms


@cache
def _envelope_head(api_version: str, kind: str) -> bytes:
    type_meta = _length_delimited(b"\x0a", api_version.encode()) + _length_delimited(b"\x12", kind.encode())
    return MAGIC + b"\x0a" + varint(len(type_meta)) + type_meta


def envelope(api_version: str, kind: str, message: bytes) -> bytes:
    """An encoded object as the protobuf serializer writes it: magic, then ``runtime.Unknown``."""
    return _envelope_head(api_version, kind) + b"\x12" + varint(len(message)) + message + _ENVELOPE_TRAILER


def list_envelope(api_version: str, kind: str, list_meta: Mapping[str, Any], items: Sequence[bytes], *,
                  items_first: bool = False) -> bytes:
    """A LIST body: the list kind's envelope around ``ListMeta`` (field 1) and the items'
    messages (field 2); ``items_first``: the items are field 1 and come first, ``ListMeta`` is 2."""
    meta = encoder(LIST_META)(list_meta)
    meta_tag, item_tag = (b"\x12", b"\x0a") if items_first else (b"\x0a", b"\x12")
    meta_parts = [meta_tag, varint(len(meta)), meta]
    parts = [b"", b""] + ([] if items_first else meta_parts)
    size = 1 + len(meta_parts[1]) + len(meta)
    for item in items:
        length = varint(len(item))
        parts += (item_tag, length, item)
        size += 1 + len(length) + len(item)
    if items_first:
        parts += meta_parts
    parts[0] = _envelope_head(api_version, kind)
    parts[1] = b"\x12" + varint(size)
    parts.append(_ENVELOPE_TRAILER)
    return b"".join(parts)


def watch_frame(event_type: str, enveloped: bytes) -> bytes:
    """One watch event: its length (4 bytes, big-endian), then ``WatchEvent{type, object}`` whose
    object is a ``RawExtension`` holding the enveloped object."""
    return _watch_frame(event_type, [enveloped], len(enveloped))


def object_watch_frame(event_type: str, api_version: str, kind: str, message: bytes) -> bytes:
    """``watch_frame`` of ``envelope(api_version, kind, message)``, the object copied once."""
    head, length = _envelope_head(api_version, kind), varint(len(message))
    size = len(head) + 1 + len(length) + len(message) + len(_ENVELOPE_TRAILER)
    return _watch_frame(event_type, [head, b"\x12", length, message, _ENVELOPE_TRAILER], size)


def _watch_frame(event_type: str, enveloped: list[bytes], size: int) -> bytes:
    object_length = varint(size)
    raw_extension_size = 1 + len(object_length) + size
    raw_extension_length = varint(raw_extension_size)
    event_head = _length_delimited(b"\x0a", event_type.encode()) + b"\x12" + raw_extension_length + b"\x0a" + object_length
    return b"".join([struct.pack(">I", len(event_head) + size), event_head, *enveloped])


def read_watch_frames(stream: bytes) -> list[tuple[str, bytes]]:
    """A protobuf watch stream read back: (type, enveloped object) per frame (what a client sees)."""
    events, at = [], 0
    event_class = gotypes.message_class(WATCH_EVENT)
    while at < len(stream):
        (length,) = struct.unpack(">I", stream[at:at + 4])
        event = event_class.FromString(stream[at + 4:at + 4 + length])
        events.append((event.type, event.object.raw))
        at += 4 + length
    return events

