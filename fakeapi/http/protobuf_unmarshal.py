"""The first error gogo-protobuf's generated ``Unmarshal`` (the ``generated.pb.go`` of k8s.io/api
and apimachinery) returns for a message's bytes: whether kube-apiserver can decode a protobuf
body, and its words when it cannot. Python's parser is no stand-in: it words every error its
own way, and it keeps a known field of the wrong wire type as an unknown field, which gogo
refuses.

The bytes are read as the generated code reads them, and nothing is kept. A field's tag is a
varint (``proto: integer overflow`` past ten bytes, ``unexpected EOF`` at the end of the
message); an end-group tag or a field number below 1 is refused naming the message's Go type;
a known field's wire type must be its type's (``proto: wrong wireType = N for field <Go
name>``), a repeated number's may be packed; a length is a Go int (``proto: negative length
found during unmarshaling`` when it, or the index it leads to, is negative; ``unexpected EOF``
past the message's end); a nested message is read in place, its error being the whole
message's. Map entries are read as gogo reads them: keys and values by their declared type
whatever the wire type, within the bounds of the enclosing message rather than the entry's.
Unknown fields are skipped as ``skipGenerated`` skips them (groups nested, ``proto: illegal
wireType N``, ``proto: unexpected end of group``).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from ..machinery.gotypes import types

#: ``io.ErrUnexpectedEOF``.
UNEXPECTED_EOF = "unexpected EOF"
#: ``ErrInvalidLengthGenerated``, ``ErrIntOverflowGenerated``, ``ErrUnexpectedEndOfGroupGenerated``.
_NEGATIVE_LENGTH = "proto: negative length found during unmarshaling"
_INTEGER_OVERFLOW = "proto: integer overflow"
_END_OF_GROUP = "proto: unexpected end of group"

_VARINT, _FIXED64, _LENGTH_DELIMITED, _FIXED32 = 0, 1, 2, 5
#: The wire type gogo expects of a field, by its proto type (anything else is length-delimited).
_WIRE_TYPES = {
    **dict.fromkeys((FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
                     FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
                     FieldDescriptor.TYPE_BOOL, FieldDescriptor.TYPE_ENUM), _VARINT),
    **dict.fromkeys((FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64, FieldDescriptor.TYPE_DOUBLE), _FIXED64),
    **dict.fromkeys((FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_SFIXED32, FieldDescriptor.TYPE_FLOAT), _FIXED32),
}
_META = "k8s.io.apimachinery.pkg.apis.meta.v1."
#: Types whose ``Unmarshal`` apimachinery writes by hand (``*_proto.go``), and the Go type their
#: errors name: a time unmarshals a ``Timestamp``.
_GO_TYPE_NAMES = {_META + "Time": "Timestamp", _META + "MicroTime": "Timestamp"}
#: The hand-written ``Quantity.Unmarshal`` names its one field as gogo would name it in Go.
_GO_FIELD_NAMES = {("k8s.io.apimachinery.pkg.api.resource.Quantity", "string"): "String_"}
_MASK64 = (1 << 64) - 1


class UnmarshalError(Exception):
    """gogo's error, as Go prints it."""


def unmarshal_error(message_name: str, data: bytes) -> str | None:
    """What ``Unmarshal`` of a ``message_name`` (``k8s.io.api.core.v1.ConfigMap``) returns for
    ``data``: its error's text, or None when it decodes."""
    try:
        _message(_layout(message_name), memoryview(data))
    except UnmarshalError as err:
        return str(err)
    return None


class _Field(NamedTuple):
    """What the generated code reads of a field."""

    wire_type: int  # the one it expects
    go_name: str
    packable: bool  # a repeated number, which may come packed
    message: str | None  # the type of a message field or map value
    map_entry: tuple[_Field, _Field] | None  # a map's key and value


class _Layout(NamedTuple):
    go_type: str
    fields: dict[int, _Field]


@cache
def _layout(name: str) -> _Layout:
    descriptor = types().pool.FindMessageTypeByName(name)
    go_names = types().go_names.get(name, {})
    return _Layout(_GO_TYPE_NAMES.get(name, descriptor.name), {
        field.number: _field_layout(field, _GO_FIELD_NAMES.get((name, field.name)) or go_names.get(field.name, ""))
        for field in descriptor.fields})


def _field_layout(field: FieldDescriptor, go_name: str) -> _Field:
    wire_type = _WIRE_TYPES.get(field.type, _LENGTH_DELIMITED)
    message: Descriptor | None = field.message_type
    if message is not None and message.GetOptions().map_entry:
        key, value = message.fields_by_number[1], message.fields_by_number[2]
        return _Field(wire_type, go_name, False, None, (_field_layout(key, ""), _field_layout(value, "")))
    return _Field(wire_type, go_name, field.is_repeated and wire_type != _LENGTH_DELIMITED,
                  message.full_name if message is not None else None, None)


def _go_int(value: int) -> int:
    """``value`` as Go's 64-bit ``int`` holds it (wrapping around)."""
    return ((value + (1 << 63)) & _MASK64) - (1 << 63)


def _go_int32(value: int) -> int:
    return value if value < 1 << 31 else ((value + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


# Each function reads ``data`` (what the generated code has as ``dAtA``: the message being read,
# its length ``l``) from index ``i``, and returns the index after what it read.


def _message(layout: _Layout, data: memoryview) -> None:
    fields = layout.fields
    i, end = 0, len(data)
    while i < end:
        start = i
        tag = data[i]
        if tag < 0x80:  # the usual one-byte tag, read without a call
            i += 1
        else:
            tag, i = _varint(data, i)
        number, wire_type = _go_int32(tag >> 3), tag & 7
        if wire_type == 4:
            raise UnmarshalError(f"proto: {layout.go_type}: wiretype end group for non-group")
        if number <= 0:
            raise UnmarshalError(f"proto: {layout.go_type}: illegal tag {number} (wire type {tag})")
        field = fields.get(number)
        if field is None:
            i = _skipped(data, start, end)
        elif field.packable and wire_type == _LENGTH_DELIMITED:
            start, i = _length(data, i)
            while start < i:
                start = _scalar(field.wire_type, data, start)
        elif wire_type != field.wire_type:
            raise UnmarshalError(f"proto: wrong wireType = {wire_type} for field {field.go_name}")
        elif field.map_entry is not None:
            start, i = _length(data, i)
            _map_entries(field.map_entry, data, start, i)
        else:
            i = _value(field, data, i)


def _map_entries(entry: tuple[_Field, _Field], data: memoryview, i: int, entries_end: int) -> None:
    """A map field's entries, up to ``entries_end``: keys and values read by their declared
    type, what each reads bounded by the enclosing message only."""
    while i < entries_end:
        start = i
        tag, i = _varint(data, i)
        number = _go_int32(tag >> 3)
        if number in (1, 2):
            i = _value(entry[number - 1], data, i)
        else:
            i = _skipped(data, start, entries_end)


def _value(field: _Field, data: memoryview, i: int) -> int:
    if field.wire_type != _LENGTH_DELIMITED:
        return _scalar(field.wire_type, data, i)
    start, i = _length(data, i)
    if field.message is not None:
        _message(_layout(field.message), data[start:i])
    return i


def _scalar(wire_type: int, data: memoryview, i: int) -> int:
    if wire_type == _VARINT:
        return _varint(data, i)[1]
    size = 8 if wire_type == _FIXED64 else 4
    if i + size > len(data):
        raise UnmarshalError(UNEXPECTED_EOF)
    return i + size


def _varint(data: memoryview, i: int) -> tuple[int, int]:
    end, value, shift = len(data), 0, 0
    while True:
        if shift >= 64:
            raise UnmarshalError(_INTEGER_OVERFLOW)
        if i >= end:
            raise UnmarshalError(UNEXPECTED_EOF)
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value & _MASK64, i
        shift += 7


def _length(data: memoryview, i: int) -> tuple[int, int]:
    """A length-delimited field's bytes: (start, end)."""
    if i < len(data) and data[i] < 0x80:  # a length below 128, read without a call
        length, i = data[i], i + 1
    else:
        length, i = _varint(data, i)
    end = i + length
    if end >> 63:  # the length, or the index after it, is a negative Go int
        raise UnmarshalError(_NEGATIVE_LENGTH)
    if end > len(data):
        raise UnmarshalError(UNEXPECTED_EOF)
    return i, end


def _skipped(data: memoryview, start: int, limit: int) -> int:
    """The index after the unknown field at ``start`` (``skipGenerated``, then its caller's
    checks: ``limit`` is where the field must end)."""
    skip = _skip(data[start:])
    if _go_int(start + skip) < 0:
        raise UnmarshalError(_NEGATIVE_LENGTH)
    if start + skip > limit:
        raise UnmarshalError(UNEXPECTED_EOF)
    return start + skip


def _skip(data: memoryview) -> int:
    """``skipGenerated``: the length of the field ``data`` starts with."""
    i, depth, end = 0, 0, len(data)
    while i < end:
        tag, i = _varint(data, i)
        wire_type = tag & 7
        if wire_type == _VARINT:
            i = _varint(data, i)[1]
        elif wire_type == _FIXED64:
            i += 8
        elif wire_type == _LENGTH_DELIMITED:
            length, i = _varint(data, i)
            length = _go_int(length)
            if length < 0:
                raise UnmarshalError(_NEGATIVE_LENGTH)
            i = _go_int(i + length)
        elif wire_type == 3:
            depth += 1
        elif wire_type == 4:
            if depth == 0:
                raise UnmarshalError(_END_OF_GROUP)
            depth -= 1
        elif wire_type == _FIXED32:
            i += 4
        else:
            raise UnmarshalError(f"proto: illegal wireType {wire_type}")
        if i < 0:
            raise UnmarshalError(_NEGATIVE_LENGTH)
        if depth == 0:
            return i
    raise UnmarshalError(UNEXPECTED_EOF)
