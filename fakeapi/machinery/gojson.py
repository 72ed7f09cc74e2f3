"""Go ``encoding/json``'s ``Unmarshal`` into a flat struct of ``string`` and ``int64`` fields, with
Go's exact error messages, for errors kube-apiserver passes on to clients verbatim (the continue
token's).

``Unmarshal`` first checks the whole input with ``scanner.go``'s state machine, ported here byte
for byte (``checkValid``: a syntax error names the offending byte and what the scanner was
doing), then stores each object member in the field whose JSON name matches the key exactly or
case-insensitively, ignoring unknown keys and ``null``, and returns the first type error.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import orjson

from .golang import go_parse_int64, go_quote, go_string

_SPACE = frozenset(b" \t\r\n")
_HEX = frozenset(b"0123456789abcdefABCDEF")
_DIGITS = frozenset(b"0123456789")
_MAX_NESTING_DEPTH = 10000
_OBJECT_KEY, _OBJECT_VALUE, _ARRAY_VALUE = range(3)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SCALAR = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_INTEGER = re.compile(r"-?[0-9]+")
#: A number token of 19 digits or more: orjson reads integers beyond [-2**63, 2**64) as floats,
#: which print otherwise than their literal (``1e+20``). Digits in a string rarely look like one.
_LONG_INTEGER = re.compile(rb"[:\[,]\s*-?[0-9]{19,}\s*[,}\]]")
#: 19 digits in a row, anywhere (in a string too): where ``decode`` does not trust orjson.
_DIGIT_RUN = re.compile(rb"[0-9]{19}")

Step = Callable[[int], None]


class GoJSONError(ValueError):
    """An error whose ``str`` is what Go's ``json.Unmarshal`` returns."""


def _quote_char(byte: int) -> str:
    """``scanner.go``'s ``quoteChar``: a byte as Go shows it in a syntax error."""
    if byte == 0x27:
        return "'\\''"
    if byte == 0x22:
        return "'\"'"
    return "'" + go_quote(chr(byte))[1:-1] + "'"


class _Scanner:
    """``scanner.go``: each state is a step taking the next byte; the first error stops the scan."""

    def __init__(self) -> None:
        self.step: Step = self._begin_value
        self.stack: list[int] = []
        self.end_top = False
        self.error: str | None = None
        self._literal = ""
        self._hex_digits_left = 0

    def check(self, data: bytes) -> None:
        """``checkValid``: scan every byte, then end of input as Go does, by feeding a space."""
        for byte in data:
            self.step(byte)
            if self.error:
                raise GoJSONError(self.error)
        if not self.end_top:
            self.step(0x20)
        if self.error:
            raise GoJSONError(self.error)
        if not self.end_top:
            raise GoJSONError("unexpected end of JSON input")

    def _fail(self, byte: int, context: str) -> None:
        self.error = f"invalid character {_quote_char(byte)} {context}"

    def _push(self, byte: int, state: int) -> None:
        self.stack.append(state)
        if len(self.stack) > _MAX_NESTING_DEPTH:
            self._fail(byte, "exceeded max depth")

    def _pop(self) -> None:
        self.stack.pop()
        if self.stack:
            self.step = self._end_value
        else:
            self.step = self._end_of_top
            self.end_top = True

    def _begin_value_or_empty(self, byte: int) -> None:
        if byte in _SPACE:
            return
        if byte == ord("]"):
            self._end_value(byte)
        else:
            self._begin_value(byte)

    def _begin_value(self, byte: int) -> None:
        if byte in _SPACE:
            return
        if byte == ord("{"):
            self.step = self._begin_string_or_empty
            self._push(byte, _OBJECT_KEY)
        elif byte == ord("["):
            self.step = self._begin_value_or_empty
            self._push(byte, _ARRAY_VALUE)
        elif byte == ord('"'):
            self.step = self._in_string
        elif byte == ord("-"):
            self.step = self._negative
        elif byte == ord("0"):
            self.step = self._zero
        elif byte in _DIGITS:
            self.step = self._integer
        elif byte in b"tfn":
            self._literal = {ord("t"): "true", ord("f"): "false", ord("n"): "null"}[byte]
            self._expect_literal(1)
        else:
            self._fail(byte, "looking for beginning of value")

    def _begin_string_or_empty(self, byte: int) -> None:
        if byte in _SPACE:
            return
        if byte == ord("}"):
            self.stack[-1] = _OBJECT_VALUE
            self._end_value(byte)
        else:
            self._begin_string(byte)

    def _begin_string(self, byte: int) -> None:
        if byte in _SPACE:
            return
        if byte == ord('"'):
            self.step = self._in_string
        else:
            self._fail(byte, "looking for beginning of object key string")

    def _end_value(self, byte: int) -> None:
        if not self.stack:
            self.step = self._end_of_top
            self.end_top = True
            self._end_of_top(byte)
            return
        if byte in _SPACE:
            self.step = self._end_value
            return
        state = self.stack[-1]
        if state == _OBJECT_KEY:
            if byte == ord(":"):
                self.stack[-1] = _OBJECT_VALUE
                self.step = self._begin_value
            else:
                self._fail(byte, "after object key")
        elif state == _OBJECT_VALUE:
            if byte == ord(","):
                self.stack[-1] = _OBJECT_KEY
                self.step = self._begin_string
            elif byte == ord("}"):
                self._pop()
            else:
                self._fail(byte, "after object key:value pair")
        elif byte == ord(","):
            self.step = self._begin_value
        elif byte == ord("]"):
            self._pop()
        else:
            self._fail(byte, "after array element")

    def _end_of_top(self, byte: int) -> None:
        if byte not in _SPACE:
            self._fail(byte, "after top-level value")

    def _in_string(self, byte: int) -> None:
        if byte == ord('"'):
            self.step = self._end_value
        elif byte == ord("\\"):
            self.step = self._in_string_escape
        elif byte < 0x20:
            self._fail(byte, "in string literal")

    def _in_string_escape(self, byte: int) -> None:
        if byte in b'bfnrt\\/"':
            self.step = self._in_string
        elif byte == ord("u"):
            self._hex_digits_left = 4
            self.step = self._in_unicode_escape
        else:
            self._fail(byte, "in string escape code")

    def _in_unicode_escape(self, byte: int) -> None:
        if byte not in _HEX:
            self._fail(byte, "in \\u hexadecimal character escape")
            return
        self._hex_digits_left -= 1
        if not self._hex_digits_left:
            self.step = self._in_string

    def _negative(self, byte: int) -> None:
        if byte == ord("0"):
            self.step = self._zero
        elif byte in _DIGITS:
            self.step = self._integer
        else:
            self._fail(byte, "in numeric literal")

    def _integer(self, byte: int) -> None:
        if byte not in _DIGITS:
            self._zero(byte)

    def _zero(self, byte: int) -> None:
        if byte == ord("."):
            self.step = self._dot
        elif byte in b"eE":
            self.step = self._exponent
        else:
            self._end_value(byte)

    def _dot(self, byte: int) -> None:
        if byte in _DIGITS:
            self.step = self._fraction
        else:
            self._fail(byte, "after decimal point in numeric literal")

    def _fraction(self, byte: int) -> None:
        if byte in b"eE":
            self.step = self._exponent
        elif byte not in _DIGITS:
            self._end_value(byte)

    def _exponent(self, byte: int) -> None:
        if byte in b"+-":
            self.step = self._exponent_sign
        else:
            self._exponent_sign(byte)

    def _exponent_sign(self, byte: int) -> None:
        if byte in _DIGITS:
            self.step = self._exponent_digits
        else:
            self._fail(byte, "in exponent of numeric literal")

    def _exponent_digits(self, byte: int) -> None:
        if byte not in _DIGITS:
            self._end_value(byte)

    def _expect_literal(self, index: int) -> None:
        """Expect ``self._literal[index]`` next (``stateT``, ``stateTr``, ... in Go)."""
        if index == len(self._literal):
            self.step = self._end_value
            return

        def step(byte: int) -> None:
            expected = self._literal[index]
            if byte == ord(expected):
                self._expect_literal(index + 1)
            else:
                self._fail(byte, f"in literal {self._literal} (expecting '{expected}')")

        self.step = step


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _value_end(text: str, index: int) -> int:
    """The end of the (already validated) value at ``index``, found without building it: nested
    values are skipped by counting brackets, so no depth Go accepts can exhaust Python's stack."""
    depth = 0
    while True:
        char = text[index]
        if char == '"':
            index = _token_end(_STRING, text, index)
        elif char in "{[":
            depth += 1
            index += 1
        elif char in "}]":
            depth -= 1
            index += 1
        elif char in ",: \t\r\n":
            index += 1
            continue
        else:
            index = _token_end(_SCALAR, text, index)
        if depth == 0:
            return index


def _token_end(token: re.Pattern[str], text: str, index: int) -> int:
    match = token.match(text, index)
    assert match is not None, "the scanner accepted the input"
    return match.end()


def _members(text: str, index: int) -> Iterator[tuple[str, str]]:
    """The members of the object starting at ``index``, in order, repeats kept: (key, raw value)."""
    index = _skip_space(text, index + 1)
    if text[index] == "}":
        return
    while True:
        key_end = _token_end(_STRING, text, index)
        key: str = json.loads(text[index:key_end])
        index = _skip_space(text, _skip_space(text, key_end) + 1)  # past the ':'
        end = _value_end(text, index)
        yield key, text[index:end]
        index = _skip_space(text, end)
        if text[index] == "}":
            return
        index = _skip_space(text, index + 1)  # past the ','


def _json_kind(raw: str) -> str:
    """How Go's ``UnmarshalTypeError`` names a JSON value by its first character."""
    return {"{": "object", "[": "array", '"': "string", "t": "bool", "f": "bool", "n": "null"}.get(raw[0], "number")


def _fold(name: str) -> str:
    """``foldName``: Go matches a JSON key to a field name ignoring (simple) case."""
    return "".join(c.lower().upper() if len(c.lower().upper()) == 1 else c for c in name)


def _store(raw: str, go_type: type[str] | type[int]) -> str | int | None:
    """``literalStore`` of a JSON value into a string or int64 field; None if Go refuses it."""
    kind = _json_kind(raw)
    if go_type is str and kind == "string":
        return _SURROGATE.sub("\ufffd", json.loads(raw))  # Go decodes a lone \\uD800 to U+FFFD
    if go_type is int and kind == "number":
        return go_parse_int64(raw)
    return None


def unmarshal_map_error(data: bytes) -> str:
    """The error ``json.Unmarshal(data, &map[string]interface{}{})`` returns ("" when none)."""
    try:
        check_valid(data)
    except GoJSONError as error:
        return str(error)
    text = go_string(data)
    kind = _json_kind(text[_skip_space(text, 0):])
    if kind in ("object", "null"):
        return ""
    return f"json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"


def unmarshal_struct(data: bytes, go_type_name: str, fields: Mapping[str, type[str] | type[int]]) -> dict[str, Any]:
    """``json.Unmarshal(data, &v)`` for ``v`` of type ``go_type_name`` (``pkg.name``) whose fields
    are ``fields`` (JSON name -> ``str`` for string, ``int`` for int64). Returns every field, zero
    when absent; raises ``GoJSONError`` with Go's message."""
    check_valid(data)
    text = go_string(data)
    start = _skip_space(text, 0)
    result: dict[str, Any] = {name: go_type() for name, go_type in fields.items()}
    kind = _json_kind(text[start:])
    if kind == "null":
        return result
    if kind != "object":
        raise GoJSONError(f"json: cannot unmarshal {kind} into Go value of type {go_type_name}")
    by_folded_name = {_fold(name): name for name in fields}
    struct_name = go_type_name.rpartition(".")[2]
    first_error: str | None = None
    for key, raw in _members(text, start):
        name = key if key in fields else by_folded_name.get(_fold(key))
        if name is None or raw == "null":  # unknown keys are skipped; null leaves the field as it is
            continue
        go_type = fields[name]
        value = _store(raw, go_type)
        if value is not None:
            result[name] = value
        elif first_error is None:
            kind = _json_kind(raw)
            if kind == "number" and go_type is int:
                kind = f"number {raw}"
            type_name = "int64" if go_type is int else "string"
            first_error = f"json: cannot unmarshal {kind} into Go struct field {struct_name}.{name} of type {type_name}"
    if first_error:
        raise GoJSONError(first_error)
    return result


def check_valid(data: bytes | str) -> None:
    """``checkValid``: JSON orjson reads is JSON Go's scanner accepts (both follow RFC 8259; orjson
    refuses more: invalid UTF-8, integers past 64 bits, nesting past 1024), so only what orjson
    refuses is scanned byte by byte, for Go's error or Go's acceptance."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        _Scanner().check(data.encode() if isinstance(data, str) else data)


# ----------------------------------------------------------------------------- into interface{}

_TOKEN = re.compile(r'[ \t\r\n]*(?:("(?:[^"\\]|\\.)*")|([\[\]{}:,])|([^ \t\r\n\[\]{}:,"]+))', re.DOTALL)


def decode_string(token: str) -> str:
    """A JSON string token as Go decodes it (a lone surrogate escape becomes U+FFFD)."""
    if "\\" not in token:
        return token[1:-1]  # no escape: the text between the quotes (the scan refused control characters)
    return _SURROGATE.sub("\ufffd", json.loads(token))


class GoNumber(float):
    """A number whose float is not what Go's type errors quote: one float64 cannot hold
    (``1e999``), or an integer beyond int64 kept for Go's typed decoding (``literal_scalar``).
    The float Python makes of it, and the literal."""

    text: str

    def __new__(cls, text: str) -> GoNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number


def plain_scalar(token: str) -> Any:
    """A scalar token as ``UnmarshalCaseSensitivePreserveInts`` decodes it."""
    if token[0] == '"':
        return decode_string(token)
    literal = {"null": None, "true": True, "false": False}
    if token in literal:
        return literal[token]
    number = go_parse_int64(token)
    if number is not None:
        return number
    value = float(token)
    return GoNumber(token) if value in (float("inf"), float("-inf")) else value


def literal_scalar(token: str) -> Any:
    """``plain_scalar``, but an integer beyond int64 keeps its literal (a ``GoNumber``): Go's
    typed decoding, which refuses it in an integer field, quotes it as written."""
    value = plain_scalar(token)
    return GoNumber(token) if type(value) is float and _INTEGER.fullmatch(token) else value


def decode(data: bytes, scalar: Callable[[str], Any] = plain_scalar,
           object_pairs: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """Go's ``json.Unmarshal`` into ``interface{}``: ``GoJSONError`` with Go's message for invalid
    JSON, else the value, its scalars made by ``scalar`` from their tokens, its objects dicts (a
    repeated key: the last wins, as in Go) or made by ``object_pairs`` from their members in
    order, repeats kept. Iterative, so any depth Go accepts decodes."""
    if scalar is plain_scalar and object_pairs is None and isinstance(data, bytes) and _DIGIT_RUN.search(data) is None:
        # orjson reads what it takes as this does, at C speed (see ``loads``), but for an
        # integer beyond int64 (Go's float64), which needs 19 digits in a row.
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass  # Go's reading below: its error, or what Go reads and orjson refuses
    check_valid(data)
    text = go_string(data)
    # Per open container: a dict, an object's members (with object_pairs) or an array's items.
    containers: list[dict[str, Any] | list[Any]] = []
    keys: list[str | None] = []  # per open container: the member whose value comes next
    is_object: list[bool] = []
    value: Any = None
    for match in _TOKEN.finditer(text):
        string, punctuation, literal = match.groups()
        if punctuation in ("{", "["):
            containers.append({} if punctuation == "{" and object_pairs is None else [])
            keys.append(None)
            is_object.append(punctuation == "{")
            continue
        if punctuation in (":", ","):
            continue
        if punctuation:  # a closing bracket: the container is the value
            value = containers.pop()
            keys.pop()
            if is_object.pop() and object_pairs is not None:
                value = object_pairs(value)
        elif string is not None and containers and is_object[-1] and keys[-1] is None:
            keys[-1] = decode_string(string)
            continue
        elif string is not None or literal is not None:
            value = scalar(string if string is not None else literal)
        else:
            continue
        if not containers:
            return value
        parent = containers[-1]
        if not is_object[-1]:
            parent.append(value)
            continue
        key, keys[-1] = keys[-1], None
        if isinstance(parent, dict):
            parent[key] = value  # a repeated key: the last wins, as in Go
        else:
            parent.append((key, value))
    return value


#: A ``\uD800``-``\uDFFF`` escape: one Go reads as U+FFFD where it stands alone, which Python's
#: ``json`` keeps as a lone surrogate.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def loads_pairs(data: bytes, object_pairs: Callable[[list[tuple[str, Any]]], Any]) -> Any:
    """A valid JSON document as Go reads it, each object made by ``object_pairs`` from its members
    in order, repeats kept (strict decoding sees them all). ``json``'s C parser reads most
    documents as Go does, fast; one with invalid UTF-8 or a surrogate escape, nested deeper than
    the parser's recursion limit or with an integer longer than ``int``'s digit limit is read by
    ``decode``, iteratively, as Go reads it."""
    if _SURROGATE_ESCAPE.search(data) is None:
        try:
            return json.loads(data.decode(), object_pairs_hook=object_pairs)
        except (ValueError, RecursionError):  # invalid UTF-8 is a ValueError too
            pass
    return decode(data, object_pairs=object_pairs)


class _Repeated(Exception):
    """An object of the document repeats a key."""


def _no_repeats(members: list[tuple[str, Any]]) -> None:
    if len({key for key, _value in members}) != len(members):
        raise _Repeated


def repeated_keys(data: bytes) -> list[str]:
    """The keys an object of a valid JSON document repeats, as sigs.k8s.io/json's strict decoding
    into ``interface{}`` finds them: each path once (``spec.size``, ``items[0].name``), in
    document order. Documents rarely repeat one: ``loads_pairs`` tells first, and only one that
    does is scanned token by token, iteratively as ``decode``, for the paths."""
    try:
        loads_pairs(data, _no_repeats)
        return []
    except _Repeated:
        pass
    text = go_string(data)
    # Per open container: its path, the keys seen so far (None: an array), its items so far.
    paths: list[str] = []
    seen: list[set[str] | None] = []
    counts: list[int] = []
    key = ""  # the member whose value comes next
    expecting_key = False
    repeated: dict[str, None] = {}  # an ordered set
    for match in _TOKEN.finditer(text):
        string, punctuation, _literal = match.groups()
        if punctuation in ("{", "["):
            if not paths:
                path = ""
            else:
                path = f"{paths[-1]}[{counts[-1]}]" if seen[-1] is None else member_path(paths[-1], key)
            paths.append(path)
            seen.append(set() if punctuation == "{" else None)
            counts.append(0)
            expecting_key = punctuation == "{"
        elif punctuation in ("}", "]"):
            paths.pop()
            seen.pop()
            counts.pop()
            expecting_key = False
        elif punctuation == ",":
            if seen[-1] is None:
                counts[-1] += 1
            else:
                expecting_key = True
        elif string is not None and expecting_key:
            key = decode_string(string)
            keys = seen[-1]
            assert keys is not None, "only an object expects a key"
            if key in keys:
                repeated[member_path(paths[-1], key)] = None
            keys.add(key)
            expecting_key = False
    return list(repeated)


def may_repeat_keys(data: bytes, value: Any) -> bool:
    """Whether an object of the valid JSON document ``data``, decoded as ``value`` (as it was
    decoded: nothing added), may repeat a key; False only when it surely repeats none, told at C
    speed: ``data`` is ``value`` as orjson encodes it (compact, members in order: what Go's
    encoding/json writes of most objects, client-go's bodies), or its members, counted in its
    bytes and in that encoding alike (``_member_count``), are as many as ``value``'s. A document
    this does not vouch for (one that repeats a key, or where counting is not sure) is for
    ``loads_pairs`` or ``repeated_keys`` to read."""
    try:
        encoded = orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError: a value orjson does not encode
        return True
    if encoded == data:  # the encoding of a decoded value, whose objects repeat no key
        return False
    members = _member_count(data)
    return members is None or members != _member_count(encoded)


#: A key spaced from its colon.
_SPACED_KEY = re.compile(rb'"[ \t\r\n]+:')


def _member_count(data: bytes) -> int | None:
    """The members of every object of a valid JSON document: each ends with its key's closing
    quote and a colon (``":``), and a quote inside a string is escaped (``\\"``); None where
    counting so is not sure: a quote preceded by two backslashes (an escaped backslash, then
    maybe a key's closing quote), a key spaced from its colon. (Single bytes are looked for
    first: their search is the fastest.)"""
    escaped = b"\\" in data
    if escaped and b'\\\\"' in data:
        return None
    if (b" " in data or b"\n" in data or b"\t" in data or b"\r" in data) and _SPACED_KEY.search(data):
        return None
    return data.count(b'":') - (data.count(b'\\":') if escaped else 0)


def member_path(path: str, key: str) -> str:
    """The path of member ``key`` of the object at ``path`` as strict decoding names it
    (``spec.size``; a member of the document itself is its key)."""
    return f"{path}.{key}" if path else key


def has_long_integer(data: bytes) -> bool:
    """Whether a JSON document may hold an integer whose literal orjson loses (``_LONG_INTEGER``)."""
    return _LONG_INTEGER.search(data) is not None


def as_unstructured(value: Any) -> Any:
    """``value`` as ``UnmarshalCaseSensitivePreserveInts`` decodes it into ``interface{}``, in
    place: a number is an int64, else a float64; one float64 cannot hold (``1e999``) is
    ``GoJSONError`` (Go's ``UnmarshalTypeError``, the first in document order). Iterative, as
    ``decode``: any depth Go accepts converts."""
    root = [value]
    stack: list[tuple[dict[str, Any] | list[Any], Iterator[Any]]] = [(root, iter(range(1)))]
    while stack:
        container, keys = stack[-1]
        key = next(keys, _END)
        if key is _END:
            stack.pop()
            continue
        item = container[key]
        if isinstance(item, dict):
            stack.append((item, iter(list(item))))
        elif isinstance(item, list):
            stack.append((item, iter(range(len(item)))))
        elif isinstance(item, GoNumber):
            if math.isinf(item):
                raise GoJSONError(f"json: cannot unmarshal number {item.text} into Go value of type float64")
            container[key] = float(item)
        elif type(item) is int and not -(2**63) <= item < 2**63:
            container[key] = float(item)
    return root[0]


_END = object()


def loads(data: bytes) -> Any:
    """A request body as kube's JSON decoder reads it: orjson for what both read alike, Go's
    scanner and ``decode`` for the rest (a syntax error, with Go's message; and what Go takes
    that orjson refuses: invalid UTF-8 and lone surrogates, read as U+FFFD, nesting deeper than
    orjson's 1024 levels up to Go's 10000, numbers out of float64's range)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return decode(data)
