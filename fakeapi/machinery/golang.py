"""Go standard library behaviour that kube-apiserver's messages and parsing inherit."""

from __future__ import annotations

import codecs
import json
import math
import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

_SHORT_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
_DECIMAL = re.compile(r"[+-]?[0-9]+")
#: The codec error handler of ``go_string``.
_GO_REPLACE = "fakeapi-go-replace"
codecs.register_error(_GO_REPLACE, lambda error: ("\ufffd" * (error.end - error.start), error.end))


def go_string(data: bytes) -> str:
    """Bytes as Go makes them valid UTF-8 where it must (``encoding/json`` reading a string or
    writing one, ``utf8.DecodeRune``): each byte of an invalid sequence is a U+FFFD, where
    Python's "replace" puts one for a whole truncated sequence (``\\xe2\\x82``: two in Go)."""
    return data.decode("utf-8", _GO_REPLACE)


def go_quote(text: str) -> str:
    """``strconv.Quote`` (Go's ``%q``), which kube uses for names and values in messages."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char.isprintable():  # Python's printable set is Go's unicode.IsPrint
            out.append(char)
        elif char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif 0xD800 <= code <= 0xDFFF:  # not a valid rune: Go quotes the replacement character
            out.append("\\ufffd")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def go_rfc3339(moment: datetime, *, micro: bool = False) -> str:
    """``metav1.Time``'s JSON text of ``moment``: ``time.RFC3339`` in UTC, whole seconds
    (``RFC3339Micro``, six fractional digits, with ``micro``). Go prints the year in four digits
    always, which C's ``strftime("%Y")`` does not pad: a time just after Go's zero time (year 1,
    a conformance spec's Lease) must read ``0001-01-01T00:00:02Z``, not ``1-01-01T00:00:02Z``."""
    moment = moment.astimezone(UTC)
    fraction = f".{moment.microsecond:06d}" if micro else ""
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}{fraction}Z"


def go_aggregate(errors: list[str] | tuple[str, ...]) -> str:
    """apimachinery's ``utilerrors.NewAggregate(errors).Error()``: "" for none, one message bare,
    several as ``[a, b]`` with repeats dropped."""
    unique = list(dict.fromkeys(errors))
    if not unique:
        return ""
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def go_parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``; None where Go returns an error."""
    # A sign and 19 digits at most: the length test also keeps int() clear of its digit limit.
    if len(text) > 20 or not _DECIMAL.fullmatch(text):
        return None
    number = int(text)
    return number if -(2**63) <= number < 2**63 else None


def go_float(number: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 64)``, Go's ``%v`` of a float64: the shortest digits,
    in exponent form below 1e-4 and from 1e+06 (``1e+06``, ``1.5``, ``-0``)."""
    if math.isinf(number) or math.isnan(number):
        return "NaN" if math.isnan(number) else ("+Inf" if number > 0 else "-Inf")
    sign, digits, exponent = Decimal(repr(number)).normalize().as_tuple()
    text = "".join(map(str, digits)) if number else "0"
    point = len(text) + int(exponent) if number else 1  # digits before the decimal point
    prefix = "-" if sign else ""
    if point - 1 < -4 or point - 1 >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if point - 1 < 0 else '+'}{abs(point - 1):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{text}"
    if point >= len(text):
        return prefix + text + "0" * (point - len(text))
    return f"{prefix}{text[:point]}.{text[point:]}"


def go_sharp_value(value: Any) -> str:
    """Go's ``%#v`` of a decoded JSON value (``map[string]interface {}{"a":1}``), keys sorted."""
    if isinstance(value, dict):
        return "map[string]interface {}{" + ", ".join(
            f"{go_quote(key)}:{go_sharp_value(value[key])}" for key in sorted(value)) + "}"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(go_sharp_value(item) for item in value) + "}"
    if value is None:
        return "interface {}(nil)"
    return go_value(value)


def go_value(value: Any) -> str:
    """How ``ErrorBody`` prints a bad value: ``%v`` for numbers and bools, ``%q`` for strings,
    ``"null"`` for nil, ``%#v`` for anything else."""
    if value is None:
        return '"null"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    return go_sharp_value(value)


def go_plain_value(value: Any) -> str:
    """Go's ``%v`` (and ``%+v``) of a value ``json.Unmarshal`` decoded into ``interface{}``:
    ``map[a:1 b:[x y]]``, keys sorted, strings bare, numbers as the float64s they decoded to."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{key}:{go_plain_value(value[key])}" for key in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_plain_value(item) for item in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return go_float(float(value))
    return str(value)


_GO_TYPES = {dict: "map[string]interface {}", list: "[]interface {}", str: "string", bool: "bool",
             int: "int64", float: "float64"}
#: ``reflect.Kind`` names of the types a JSON value decodes to.
_GO_KINDS = {"map[string]interface {}": "map", "[]interface {}": "slice"}


def go_type(value: Any) -> str | None:
    """Go's ``%T`` of a decoded JSON value (integers decode to int64); None for null."""
    return None if value is None else _GO_TYPES[type(value)]


def go_kind(value: Any) -> str:
    """The ``reflect.Kind`` of a decoded JSON value: ``map``, ``slice``, ``int64``, ..., ``nil``."""
    name = go_type(value)
    return "nil" if name is None else _GO_KINDS.get(name, name)


class _Punctuation(str):
    """Text ``go_json`` writes between values (a string value is not one)."""


def go_json(value: Any) -> str:
    """``encoding/json``'s ``Marshal`` of a decoded JSON value (Go 1.22+): map keys sorted, Go's
    float format, HTML characters escaped. Iterative: any depth Go decodes is written."""
    if not isinstance(value, (dict, list)):
        return _go_json_scalar(value)
    out: list[str] = []
    pending: list[Any] = [value]  # what is left to write, the next last
    while pending:
        item = pending.pop()
        if type(item) is _Punctuation:
            out.append(item)
        elif isinstance(item, dict):
            out.append("{")
            pending.append(_Punctuation("}"))
            keys = sorted(item)
            for index in range(len(keys) - 1, -1, -1):
                pending.append(item[keys[index]])
                pending.append(_Punctuation(("," if index else "") + _go_json_scalar(keys[index]) + ":"))
        elif isinstance(item, list):
            out.append("[")
            pending.append(_Punctuation("]"))
            for index in range(len(item) - 1, -1, -1):
                pending.append(item[index])
                if index:
                    pending.append(_Punctuation(","))
        else:
            out.append(_go_json_scalar(item))
    return "".join(out)


def _go_json_scalar(value: Any) -> str:
    if isinstance(value, float) and math.isfinite(value):
        magnitude = abs(value)
        if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
            return re.sub(r"e-0(\d)$", r"e-\1", go_float(value))  # Go writes 1e-7, not 1e-07
        positional = format(Decimal(repr(value)), "f")
        return positional.rstrip("0").rstrip(".") if "." in positional else positional
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def parse_bool(text: str) -> bool:
    """Go's ``strconv.ParseBool`` (``ValueError`` for anything else)."""
    if text in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if text in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise ValueError(f"not a boolean: {text}")


def parse_duration(text: str) -> float:
    """Durations as kube flags take them, in seconds: ``300``, ``5m``, ``30s``, ``1h``, ``0``,
    ``100ms`` (``ValueError`` for anything else)."""
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    for suffix in ("ms", "s", "m", "h"):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * units[suffix]
    return float(text)


_DURATION_UNITS = {"ns": 1, "us": 1_000, "\u00b5s": 1_000, "\u03bcs": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
                   "m": 60_000_000_000, "h": 3_600_000_000_000}
_MAX_DURATION = 1 << 63
_UNIT = re.compile(r"[^.0-9]*")


def _time_quote(text: str) -> str:
    """The ``time`` package's ``quote``: ASCII printable as is (``"`` and ``\\`` escaped), every
    other byte as ``\\xNN``."""
    out = ['"']
    for char in text:
        if " " <= char < "\x80":
            out.append("\\" + char if char in '"\\' else char)
        else:
            out.extend(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogatepass"))
    out.append('"')
    return "".join(out)


def go_parse_duration(text: str) -> int:
    """Go's ``time.ParseDuration``, in nanoseconds; ``ValueError`` with Go's message
    (``time: invalid duration "x"``, ``time: missing unit in duration "1"``,
    ``time: unknown unit "d" in duration "1d"``)."""
    invalid = ValueError(f"time: invalid duration {_time_quote(text)}")
    rest, negative = text, False
    if rest[:1] in ("-", "+"):
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise invalid
    total = 0
    while rest:
        if not (rest[0] == "." or rest[0].isascii() and rest[0].isdigit()):
            raise invalid
        digits = len(rest) - len(rest.lstrip("0123456789"))
        whole, rest = rest[:digits], rest[digits:]
        fraction = ""
        if rest[:1] == ".":
            rest = rest[1:]
            fraction_digits = len(rest) - len(rest.lstrip("0123456789"))
            fraction, rest = rest[:fraction_digits], rest[fraction_digits:]
            if not whole and not fraction:
                raise invalid
        elif not whole:
            raise invalid
        unit_length = _UNIT.match(rest).end()  # type: ignore[union-attr]
        if unit_length == 0:
            raise ValueError(f"time: missing unit in duration {_time_quote(text)}")
        unit, rest = rest[:unit_length], rest[unit_length:]
        scale = _DURATION_UNITS.get(unit)
        if scale is None:
            raise ValueError(f"time: unknown unit {_time_quote(unit)} in duration {_time_quote(text)}")
        value = int(whole or "0")
        if value > _MAX_DURATION // scale:
            raise invalid
        value *= scale
        if fraction:
            value += int(int(fraction) * (scale / 10 ** len(fraction)))
        total += value
        if total > _MAX_DURATION:
            raise invalid
    if not negative and total > _MAX_DURATION - 1:
        raise invalid
    return -total if negative else total
