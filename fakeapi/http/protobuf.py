"""Kubernetes protobuf request bodies (``application/vnd.kubernetes.protobuf``), decoded into the
JSON object kube-apiserver's JSON encoder would write for the same Go value.

The wire form (apimachinery ``pkg/runtime/serializer/protobuf/protobuf.go``) is the magic
``k8s\\x00`` and a ``runtime.Unknown`` whose ``typeMeta`` names the object's apiVersion and kind
and whose ``raw`` is the typed message of ``k8s.io/api``'s ``generated.proto``. The typed message
is found through the release's OpenAPI (``schema.definition_name``: group, version and kind to
``io.k8s.api.apps.v1.Deployment``), whose names are Go package paths like the proto files'
``go_package``: so no table of groups is kept here.

The message becomes JSON as Go would print it after gogo-protobuf unmarshals it into the Go
struct: keys are the Go ``json`` names in struct order, ``inline`` structs are flattened,
``omitempty`` drops zero scalars and empty lists and maps but never a struct, a pointer prints
when it was on the wire (zero or not: see ``_struct_source`` for one that prints ``null``), a
field without ``omitempty`` prints its zero value (``null`` for a list, map or pointer), a map
prints its keys sorted. Types with their own ``MarshalJSON`` (``metav1.Time``,
``resource.Quantity``, ``intstr.IntOrString``, ``runtime.RawExtension``, ...) print as theirs
do. Which Go fields are pointers, ``omitempty``, ``omitzero`` or ``inline`` is not in the proto
files: ``scripts/gen-protobuf-descriptors.py`` reads it from the Go structs into
``k8s_gofields.json.gz``, beside the compiled ``k8s_protobuf.desc.gz``. Both load on the first
protobuf body, not at import. Bytes kube cannot decode get gogo-protobuf's error
(``protobuf_unmarshal``).
"""

from __future__ import annotations

import base64
import keyword
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

import orjson
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message

from ..machinery import serializer
from ..machinery.golang import go_rfc3339
from ..machinery.gotypes import UNKNOWN, GoTypes, message_class, message_name, types
from ..machinery.jsonvalue import Repeated
from ..machinery.status import bad_request
from .protobuf_unmarshal import unmarshal_error

#: ``runtime.ContentTypeProtobuf``.
MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
#: ``protoEncodingPrefix``: every encoded object starts with it.
MAGIC = b"k8s\x00"
_META = "k8s.io.apimachinery.pkg.apis.meta.v1."
_APIEXTENSIONS = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1."
#: An object's metadata: its name and uid make every one new, not worth keeping.
_OBJECT_META = _META + "ObjectMeta"
#: The scheme kube-apiserver names when a kind is not registered (``legacyscheme.Scheme``).
_SCHEME = "pkg/api/legacyscheme/scheme.go:30"

class _DecodingError(Exception):
    """What gogo-protobuf or a ``MarshalJSON`` would have returned as an error."""


def decode_body(body: bytes, into: tuple[str, str, str] | None = None) -> dict[str, Any]:
    """The JSON object of a protobuf request body (protobuf.go ``Serializer.Decode``); 400
    BadRequest for a body kube cannot decode. Once the body's kind is known the message has the
    create handler's form (``transformDecodeError``: ``<kind> in version "<v>" cannot be handled
    as a <kind>: <error>``), naming the body's kind where kube names the resource's; before that
    it is the bare error, as the delete handler sends it, or, decoding ``into`` an endpoint's
    (group, version, kind), the create handler's ``the object provided is unrecognized``, and a
    missing kind or apiVersion is the endpoint's (the handler's defaults)."""
    try:
        unknown = _envelope(body)
    except _DecodingError as err:
        if into is None:
            raise bad_request(str(err)) from None
        raise serializer.unrecognized(into[2], str(err), body) from None
    api_version, kind = unknown.typeMeta.apiVersion, unknown.typeMeta.kind
    if into is not None:
        group, version, default_kind = into
        kind = kind or default_kind
        api_version = api_version or (f"{group}/{version}" if group else version)
    if not kind:
        raise bad_request(f"Object 'Kind' is missing in '{_go_type_meta(api_version, kind)}'")
    if not api_version:
        raise bad_request(f"Object 'apiVersion' is missing in '{_go_type_meta(api_version, kind)}'")
    name = message_name(api_version, kind)
    try:
        if name is None:
            raise _DecodingError(f'no kind "{kind}" is registered for version "{api_version}" in scheme "{_SCHEME}"')
        obj = _converter().object(_unmarshal(name, unknown.raw))
    except _DecodingError as err:
        version = api_version.rpartition("/")[2]
        raise bad_request(f'{kind} in version "{version}" cannot be handled as a {into[2] if into else kind}: {err}') from None
    return {"kind": kind, "apiVersion": api_version, **obj}


def _envelope(body: bytes) -> Message:
    """The ``runtime.Unknown`` around a body; ``_DecodingError`` with kube's message."""
    if not body:
        raise _DecodingError("empty data")
    if not body.startswith(MAGIC):
        raise _DecodingError("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]")
    if len(body) == len(MAGIC):
        raise _DecodingError("empty body")
    return _unmarshal(UNKNOWN, body[len(MAGIC):])


def _unmarshal(name: str, data: bytes) -> Message:
    """A message of type ``name`` as gogo-protobuf's ``Unmarshal`` reads it, refused with its
    error. Python's parser reads it first, for a fraction of what a reading like gogo's costs in
    Python: what it parses whole, every byte a known field's, gogo reads too; otherwise (bytes it
    refuses, or a field it kept aside as unknown, which gogo refuses when its wire type is not the
    known field's) gogo's reading decides."""
    try:
        message = message_class(name).FromString(data)
    except DecodeError as err:
        message, python_error = None, str(err)
    else:
        message.DiscardUnknownFields()
        if message.ByteSize() == len(data):
            return message
    error = unmarshal_error(name, data)
    if error is not None:
        raise _DecodingError(error)
    if message is None:  # bytes gogo reads and Python's parser does not
        raise _DecodingError(python_error)
    return message


def message_json(name: str, raw: bytes) -> Any:
    """The JSON Go prints for a message of type ``name`` (``k8s.io.api.core.v1.Pod``) in ``raw``."""
    try:
        return _converter().object(_unmarshal(name, raw))
    except _DecodingError as err:
        raise ValueError(f"{name}: {err}") from None


def _go_type_meta(api_version: str, kind: str) -> str:
    """``fmt.Sprintf("%#v", unk.TypeMeta)``."""
    return f'runtime.TypeMeta{{APIVersion:"{api_version}", Kind:"{kind}"}}'


@dataclass(frozen=True, slots=True)
class _GoField:
    """A Go struct field of a message, with what its conversion asks of it, read once from the
    descriptor and the ``k8s_gofields`` flags (``o`` omitempty, ``z`` omitzero, ``p`` pointer,
    ``i`` inline)."""

    field: FieldDescriptor
    name: str
    json_name: str
    inline: bool
    pointer: bool
    omit_zero: bool
    #: ``omitempty`` or ``omitzero``: the same for lists, maps and scalars.
    omit_empty: bool
    repeated: bool
    #: A map's value field (None: not a map).
    map_value: FieldDescriptor | None
    message: bool
    bytes: bool
    #: Go prints nothing for it when it is not on the wire: an omitempty pointer, scalar, list,
    #: map or []byte, an omitzero struct (an omitempty struct is printed, zero or not).
    absent_is_omitted: bool

    @classmethod
    def of(cls, field: FieldDescriptor, json_name: str, flags: str) -> _GoField:
        pointer, omit_zero, omit_empty = "p" in flags, "z" in flags, "o" in flags or "z" in flags
        message = field.type == FieldDescriptor.TYPE_MESSAGE
        omitted = omit_zero if message and not field.is_repeated and not pointer else omit_empty
        return cls(field, field.name, json_name, "i" in flags, pointer, omit_zero, omit_empty,
                   field.is_repeated, field.message_type.fields_by_name["value"] if _is_map(field) else None,
                   message, field.type == FieldDescriptor.TYPE_BYTES, omitted and "i" not in flags)


#: An object's parts of these sizes are converted once per value (``_Converter._shared``).
_SHARED_MIN_BYTES, _SHARED_MAX_BYTES = 256, 16 * 1024


class _Converter:
    """Go's ``encoding/json`` over the Go value of a decoded message (see the module doc)."""

    def __init__(self, loaded: GoTypes) -> None:
        self._types = loaded
        #: The JSON of an object's parts converted before, by type and wire bytes: the objects
        #: a client writes over and over repeat them (the pods of one template carry the same
        #: spec, a load test writes one pod shape). A value here is handed out as a new copy.
        self._converted: Repeated[tuple[str, bytes], bytes] = Repeated(1024)
        #: Per message: its conversion (``_reader``), ``read(message, convert=self.message)``.
        self._readers: dict[str, Callable[..., Any]] = {}
        #: Per message class met: its reader or its type's own ``MarshalJSON`` (``message``). The
        #: class is the cheapest key a message has: its descriptor's name is a new string each read.
        self._conversions: dict[type[Message], Callable[[Message], Any]] = {}
        self._zeros: dict[type[Message], Any] = {}
        self._custom: dict[str, Callable[[Message], Any]] = {
            _META + "Time": _time,
            _META + "MicroTime": _micro_time,
            _META + "Duration": lambda m: go_duration(m.duration),
            _META + "FieldsV1": lambda m: _raw_json(m, "Raw"),
            "k8s.io.apimachinery.pkg.runtime.RawExtension": lambda m: _raw_json(m, "raw"),
            "k8s.io.apimachinery.pkg.api.resource.Quantity": lambda m: m.string or "0",
            "k8s.io.apimachinery.pkg.util.intstr.IntOrString": _int_or_string,
            _APIEXTENSIONS + "JSON": lambda m: _raw_json(m, "raw") if m.raw else None,
            _APIEXTENSIONS + "JSONSchemaPropsOrBool": self._schema_or_bool,
            _APIEXTENSIONS + "JSONSchemaPropsOrArray": self._schema_or_array,
            _APIEXTENSIONS + "JSONSchemaPropsOrStringArray": self._schema_or_string_array,
        }

    def object(self, message: Message) -> Any:
        """The JSON of a whole object's message. Its parts (an object's spec, status, a
        template) are converted once per value (``_shared``); the object itself and its
        metadata are not kept: their name and uid make every one new."""
        return self._struct(message, message.DESCRIPTOR, self._shared)

    def message(self, message: Message) -> Any:
        """The JSON of a Go struct, or of a type with its own ``MarshalJSON``."""
        convert = self._conversions.get(message.__class__)
        if convert is None:  # a message class met for the first time
            descriptor = message.DESCRIPTOR
            convert = self._conversions[message.__class__] = (
                self._custom.get(descriptor.full_name) or self._readers.get(descriptor.full_name)
                or self._reader(descriptor))
        return convert(message)

    def _shared(self, message: Message) -> Any:
        """``message``, through ``_converted`` for a struct of ``_SHARED_MIN_BYTES`` to
        ``_SHARED_MAX_BYTES`` (a part costs one encoding more, which is its size too: protobuf's
        ``ByteSize`` encodes it as well). The key is the message's own encoding: ``_unmarshal``
        kept no byte it would not write back the same."""
        name = message.DESCRIPTOR.full_name
        if name in self._custom or name == _OBJECT_META:
            return self.message(message)
        encoded = message.SerializeToString()
        if not _SHARED_MIN_BYTES <= len(encoded) <= _SHARED_MAX_BYTES:
            return self.message(message)
        key = (name, encoded)
        converted = self._converted.get(key)
        if converted is not None:
            return orjson.loads(converted)
        value = self.message(message)
        self._converted.put_made(key, lambda: orjson.dumps(value))
        return value

    def _struct(self, message: Message, descriptor: Descriptor, convert: Callable[[Message], Any]) -> Any:
        """The JSON of a message without a ``MarshalJSON`` of its own: its Go fields', the
        messages among them converted by ``convert``."""
        read = self._readers.get(descriptor.full_name) or self._reader(descriptor)
        return read(message, convert)

    def _reader(self, descriptor: Descriptor) -> Callable[..., Any]:
        """The conversion of message ``descriptor``, made once per message: for a Go struct a
        function written for its fields (``_struct_source``), for a Go slice type (e.g. ``type
        ExtraValue []string``) its one field's."""
        name = descriptor.full_name
        go_fields = self._types.go_fields[name]
        if go_fields == "items":
            items = _GoField.of(descriptor.fields_by_name["items"], "", "")

            def read(message: Message, convert: Callable[[Message], Any] = self.message) -> Any:
                return self._field(message, items, convert)[1]
        else:
            plan = tuple(_GoField.of(descriptor.fields_by_name[proto_name], json_name, flags)
                         for proto_name, json_name, flags in go_fields)
            # The classes of the messages its fields hold, kept (``message_class``): protobuf
            # makes the class of a nested message when a field of it is read, and lets it die
            # with that message's last instance, so a body converted part by part (one no
            # ``_shared`` answer serves) made some forty classes again each time, a fifth of a
            # pod create's CPU.
            for go_field in plan:
                held = go_field.map_value if go_field.map_value is not None else go_field.field
                if held.message_type is not None:
                    message_class(held.message_type.full_name)
            namespace: dict[str, Any] = {"b64": _bytes_json, "zero_of": self._zero, "message": self.message}
            namespace.update((f"F{index}", go_field.field) for index, go_field in enumerate(plan))
            exec(compile(_struct_source(plan), f"<protobuf reader {name}>", "exec"), namespace)  # noqa: S102
            read = namespace["read"]
        self._readers[name] = read
        return read

    def _field(self, message: Message, go_field: _GoField, convert: Callable[[Message], Any]) -> tuple[bool, Any]:
        """Whether Go prints the field, and its JSON."""
        field = go_field.field
        value = getattr(message, go_field.name)
        if go_field.repeated:
            if not value:
                return not go_field.omit_empty, None  # a nil slice or map
            if go_field.map_value is not None:
                return True, {key: self._value(item, go_field.map_value, convert)
                              for key, item in sorted(value.items())}
            return True, [self._value(item, field, convert) for item in value]
        if go_field.pointer:  # an absent message is not converted: it may recurse (JSONSchemaProps.not)
            if not message.HasField(go_field.name):
                return not go_field.omit_empty, None  # a nil pointer
            json_value = self._value(value, field, convert)
            # omitempty drops a pointer printing null: decoding that JSON leaves it nil
            return not (go_field.omit_empty and json_value is None), json_value
        if go_field.message:
            json_value = convert(value)
            # omitempty never drops a struct; omitzero drops the zero value (its IsZero()).
            zero = go_field.omit_zero and json_value == self._zero(value)
            return not zero, json_value
        if go_field.bytes and not message.HasField(go_field.name):
            return not go_field.omit_empty, None  # a nil []byte
        return not (go_field.omit_empty and not value), self._value(value, field, convert)

    def _zero(self, value: Message) -> Any:
        """The JSON of the zero value of ``value``'s message type (never changed: compared only)."""
        kind = type(value)
        zero = self._zeros.get(kind)
        if zero is None:
            zero = self._zeros[kind] = self.message(kind())
        return zero

    def _value(self, value: Any, field: FieldDescriptor, convert: Callable[[Message], Any]) -> Any:
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            return convert(value)
        if field.type == FieldDescriptor.TYPE_BYTES:
            return _bytes_json(value)
        return value

    def _schema_or_bool(self, message: Message) -> Any:
        """apiextensions ``JSONSchemaPropsOrBool.MarshalJSON``: the schema, else the bool."""
        return self.message(message.schema) if message.HasField("schema") else message.allows

    def _schema_or_array(self, message: Message) -> Any:
        """``JSONSchemaPropsOrArray.MarshalJSON``: the schemas if any, else the schema or null."""
        if message.jSONSchemas:
            return [self.message(schema) for schema in message.jSONSchemas]
        return self.message(message.schema) if message.HasField("schema") else None

    def _schema_or_string_array(self, message: Message) -> Any:
        """``JSONSchemaPropsOrStringArray.MarshalJSON``: the strings if any, else the schema or null."""
        if message.property:
            return list(message.property)
        return self.message(message.schema) if message.HasField("schema") else None


def _bytes_json(value: bytes) -> str:
    """Go's JSON of a ``[]byte``: base64."""
    return base64.b64encode(value).decode()


def _struct_source(plan: tuple[_GoField, ...]) -> str:
    """``read(m, convert=message)``: the JSON of a message of ``plan``'s Go fields, as ``_field``
    prints each, written out per field so that a message costs one call, not one per field and
    branch; the messages among them converted by ``convert``, ``_Converter.message`` unless told.
    The fields on the wire are read at C speed, once (``ListFields``, by descriptor ``F<i>``):
    most of a message's fields are absent and omitted (a pod's 500 Go fields, 60 present). A
    field ``absent_is_omitted`` is printed only when on the wire; a field absent from it and
    printed anyway is Go's zero value: ``null`` for a nil slice, map, pointer or ``[]byte``, the
    proto default for a scalar, the conversion of the empty message for a struct.

    The object printed is a fixed point of ``gostruct.decode`` (what kube makes of a JSON body),
    so a protobuf body is not decoded through it again (``StoreWrites._decode_body``'s
    ``go_decoded``): maps are printed with their keys sorted, as ``encoding/json`` writes them
    (not in the wire's order), and an ``omitempty`` pointer whose value prints ``null`` (a zero
    ``Time``, a nil ``RawExtension``) is dropped, as Go's decoding of that JSON leaves it nil."""
    lines = ["def read(m, convert=message):", "    p = dict(m.ListFields())", "    out = {}"]
    for index, go_field in enumerate(plan):
        attribute = f"m.{go_field.name}" if go_field.name.isidentifier() and not keyword.iskeyword(go_field.name) \
            else f"getattr(m, {go_field.name!r})"
        key = repr(go_field.json_name)
        if go_field.inline:
            lines.append(f"    out.update(convert({attribute}))")
            continue
        lines.append(f"    v = p.get(F{index})")
        printed_when_absent = not go_field.absent_is_omitted
        if go_field.repeated:
            if go_field.map_value is not None:
                item = _item_source(go_field.map_value, "x")
                converted = f"{{k: {item} for k, x in sorted(v.items())}}"
            else:
                item = _item_source(go_field.field, "x")
                converted = "list(v)" if item == "x" else f"[{item} for x in v]"
            lines.append(f"    if v is not None: out[{key}] = {converted}")
            if printed_when_absent and not go_field.omit_empty:
                lines.append(f"    else: out[{key}] = None")
        elif go_field.pointer:
            item = _item_source(go_field.field, "v")
            if go_field.omit_empty and go_field.message:
                lines += ["    if v is not None:", f"        j = {item}", f"        if j is not None: out[{key}] = j"]
            else:
                lines.append(f"    if v is not None: out[{key}] = {item}")
                if printed_when_absent:
                    lines.append(f"    else: out[{key}] = None")
        elif go_field.message:
            if go_field.omit_zero:  # omitzero drops the zero value (its IsZero())
                lines += ["    if v is not None:", "        j = convert(v)",
                          f"        if j != zero_of(v): out[{key}] = j"]
            else:  # omitempty never drops a struct
                lines.append(f"    out[{key}] = convert(v if v is not None else {attribute})")
        elif go_field.bytes:
            # omitempty drops an empty []byte as an absent one
            lines.append(f"    if {'v' if go_field.omit_empty else 'v is not None'}: out[{key}] = b64(v)")
            if printed_when_absent:
                lines.append(f"    else: out[{key}] = None")
        elif go_field.omit_empty:
            lines.append(f"    if v: out[{key}] = v")
        else:
            lines.append(f"    out[{key}] = v if v is not None else {go_field.field.default_value!r}")
    lines.append("    return out")
    return "\n".join(lines) + "\n"


def _item_source(field: FieldDescriptor, name: str) -> str:
    """The expression of one value of ``field`` (a list's item, a map's value) named ``name``."""
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return f"convert({name})"
    if field.type == FieldDescriptor.TYPE_BYTES:
        return f"b64({name})"
    return name


@cache
def _converter() -> _Converter:
    """The one converter of the process' types, which keeps each message's plan."""
    return _Converter(types())


def _is_map(field: FieldDescriptor) -> bool:
    message_type: Descriptor | None = field.message_type
    return message_type is not None and message_type.GetOptions().map_entry


def _time(message: Message) -> str | None:
    """``metav1.Time``: its proto ``Unmarshal`` keeps whole seconds and makes an empty message
    the zero time, which ``MarshalJSON`` prints as null; else RFC 3339 in UTC."""
    if not message.ByteSize():
        return None
    return go_rfc3339(_utc(message.seconds))


def _micro_time(message: Message) -> str | None:
    """``metav1.MicroTime``: nanoseconds truncated to microseconds, ``RFC3339Micro`` in UTC."""
    if not message.ByteSize():
        return None
    return go_rfc3339(_utc(message.seconds).replace(microsecond=message.nanos // 1000), micro=True)


def _utc(seconds: int) -> datetime:
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, ValueError, OSError) as err:
        raise _DecodingError(f"Time.MarshalJSON: {err}") from None


def _raw_json(message: Message, field: str) -> Any:
    """``RawExtension``/``FieldsV1``/``JSON``: a nil ``Raw`` is null, else the bytes are the JSON."""
    if not message.HasField(field):
        return None
    try:
        return orjson.loads(getattr(message, field))
    except orjson.JSONDecodeError as err:
        raise _DecodingError(f"json: error calling MarshalJSON: {err}") from None


def _int_or_string(message: Message) -> int | str:
    """``intstr.IntOrString.MarshalJSON``: type 0 is the int, 1 the string."""
    if message.type == 0:
        return message.intVal
    if message.type == 1:
        return message.strVal
    raise _DecodingError("json: error calling MarshalJSON for type intstr.IntOrString: impossible IntOrString.Type")


def go_duration(nanoseconds: int) -> str:
    """Go's ``time.Duration.String``: ``1h2m3.5s``, ``1.5ms``, ``0s``."""
    if nanoseconds == 0:
        return "0s"
    sign, magnitude = ("-" if nanoseconds < 0 else ""), abs(nanoseconds)
    if magnitude < 1_000_000_000:
        for size, unit in ((1_000_000, "ms"), (1_000, "µs"), (1, "ns")):
            if magnitude >= size:
                return sign + _decimal(magnitude, size) + unit
    seconds, fraction = divmod(magnitude, 1_000_000_000)
    text = _decimal(seconds % 60 * 1_000_000_000 + fraction, 1_000_000_000) + "s"
    minutes, hours = seconds // 60 % 60, seconds // 3600
    if hours:
        return f"{sign}{hours}h{minutes}m{text}"
    return f"{sign}{minutes}m{text}" if minutes else sign + text


def _decimal(value: int, unit: int) -> str:
    """``value / unit`` with the fraction's trailing zeros dropped (Go's ``fmtFrac``)."""
    whole, fraction = divmod(value, unit)
    digits = f"{fraction:0{len(str(unit)) - 1}d}".rstrip("0") if unit > 1 else ""
    return f"{whole}.{digits}" if digits else str(whole)
