"""cel-go's ``string.format(list)`` (``ext/formatting.go``, the strings library's version 2 that
kube 1.35 declares), ported clause for clause: ``%s`` writes a value as cel-go's ``string()``
does (a double as Go's ``%g``, a timestamp in RFC 3339, a duration in seconds) and a list or map
as CEL literals (strings quoted as Go quotes them, doubles with six decimals, a map's entries
sorted by key); ``%d``, ``%b``, ``%o``, ``%x``/``%X`` take integers (``%b`` bools, ``%x`` strings
and bytes too); ``%f`` and ``%e`` take doubles (and the strings ``NaN``, ``Infinity``,
``-Infinity``) and are written by Go's ``golang.org/x/text/message`` printer for ``en``: ``%f``
with thousands separators, ``%e`` as ``1.500000×10⁰⁰`` (cel-go makes its precision a width).
Errors carry cel-go's runtime texts (``error during formatting: decimal clause can only be used
on integers, was given double``). cel-go also checks a constant format string against a list
literal when an expression is compiled (``check_format``, which the engine runs on the
arguments' literal types, taking what is no literal for a dyn).

The engine hands a uint over as an int: one formats as the other does."""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .rust import interpreter

_DEFAULT_PRECISION = 6
_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_QUOTED_STRINGS = frozenset(("NaN", "Infinity", "-Infinity"))
_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               '"': '\\"', "\\": "\\\\"}


class FormatError(ValueError):
    """A format that fails; ``str()`` is cel-go's text, ``element`` the offset of the argument
    it is about in a checked expression, if any."""

    def __init__(self, message: str, element: int | None = None) -> None:
        super().__init__(message)
        self.element = element


def format_string(template: str, arguments: list[Any]) -> str:
    """``template.format(arguments)`` (cel-go's ``parseFormatString`` with its
    ``stringFormatter``)."""
    def clause(verb: str, position: int, precision: int | None) -> str:
        return _CLAUSES[verb](arguments[position], precision)
    return _interpolate(template, len(arguments), clause)[0]


@dataclass(frozen=True)
class Shape:
    """An element of a format's list literal as cel-go's compile-time check sees it: its type's
    name (``dyn`` for one not told, which every clause takes), its offset in the expression,
    and, of a list or map literal, its elements' (a map's keys and values in turn)."""

    kind: str
    offset: int
    parts: tuple[Shape, ...] = ()


def check_format(template: str, arguments: list[Shape]) -> tuple[str, int | None] | None:
    """What cel-go's compile-time check of ``template.format([...])`` (a constant string and a
    list literal: ``stringFormatValidator``) finds: the error and the offset it is located at
    (None: the call's); None for none. A ``%s`` checks the literals inside an argument too."""
    def clause(verb: str, position: int, _precision: int | None) -> str:
        argument = arguments[position]
        bad = _unformattable(argument) if verb == "s" else None if _accepted(argument.kind, verb) else argument
        if bad is not None:
            raise FormatError(f"{_CLAUSE_ERRORS[verb]}, was given {bad.kind}", bad.offset)
        return ""
    try:
        read = _interpolate(template, len(arguments), clause)[1]
    except FormatError as error:
        return str(error), error.element
    if len(arguments) > read:
        return f"too many arguments supplied to string.format (expected {read}, got {len(arguments)})", None
    return None


def _accepted(kind: str, verb: str) -> bool:
    return kind == "dyn" or kind in _CLAUSE_KINDS[verb]


def _unformattable(argument: Shape) -> Shape | None:
    """The first part of an argument that ``%s`` refuses (cel-go's ``verifyString``)."""
    if not _accepted(argument.kind, "s"):
        return argument
    return next((bad for part in argument.parts if (bad := _unformattable(part)) is not None), None)


def _interpolate(template: str, count: int, clause: Callable[[str, int, int | None], str]) -> tuple[str, int]:
    """``template`` with each clause (``%s``, ``%.2f``...) replaced by what ``clause`` makes of
    its verb, its argument's position among ``count`` and its precision, and how many
    arguments that read (cel-go's ``parseFormatString``)."""
    out: list[str] = []
    index = position = 0
    while index < len(template):
        if template[index] != "%":
            out.append(template[index])
            index += 1
        elif template.startswith("%%", index):
            out.append("%")
            index += 2
        else:
            if position >= count:
                raise FormatError(f"index {position} out of range")
            if index + 1 >= len(template):
                raise FormatError("unexpected end of string")
            index, verb, precision = _clause(template, index + 1)
            try:
                out.append(clause(verb, position, precision))
            except FormatError as error:
                raise FormatError(f"error during formatting: {error}", error.element) from None
            position += 1
    return "".join(out), position


def _clause(template: str, index: int) -> tuple[int, str, int | None]:
    """The clause at ``template[index:]`` (past its ``%``): where it ends, its verb and its
    precision (``%.2f``)."""
    precision = None
    if template[index] == ".":
        start = index = index + 1
        while True:
            if index >= len(template):
                raise FormatError("could not parse formatting clause: error while parsing precision: "
                                  "could not find end of precision specifier")
            if not ("0" <= template[index] <= "9"):
                break
            index += 1
        if start == index:
            raise FormatError('could not parse formatting clause: error while parsing precision: error while '
                              'converting precision to integer: strconv.Atoi: parsing "": invalid syntax')
        precision = int(template[start:index])
    verb = template[index]
    if verb not in _CLAUSES:
        raise FormatError(f'could not parse formatting clause: unrecognized formatting clause "{verb}"')
    return index + 1, verb, precision


#: cel-go's names of the types of the values the engine hands over, in its messages (a bool
#: before an int: Python's bools are ints).
_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "bool"), (int, "int"), (float, "double"), (str, "string"), (bytes, "bytes"), (list, "list"), (dict, "map"),
    (type(None), "null_type"), (datetime.datetime, "google.protobuf.Timestamp"),
    (datetime.timedelta, "google.protobuf.Duration"))


def type_name(value: Any) -> str:
    """cel-go's name of a value's type in its messages."""
    for kind, name in _TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return "optional_type" if isinstance(value, interpreter().OptionalValue) else type(value).__name__


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _clause_error(verb: str, value: Any) -> FormatError:
    return FormatError(f"{_CLAUSE_ERRORS[verb]}, was given {type_name(value)}")


# --- %s -----------------------------------------------------------------------------------------

def _string(value: Any, _precision: int | None = None) -> str:
    """cel-go's ``FormatString``: a value as ``string()`` makes it, a list or map as literals."""
    if isinstance(value, list):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        return _map_literal(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_integer(value) or isinstance(value, str):
        return str(value)
    if isinstance(value, float):
        return _go_g(value)
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError:
            raise FormatError(f'could not convert argument "{value!r}" to string') from None
    if isinstance(value, datetime.datetime):
        return _rfc3339(value)
    if isinstance(value, datetime.timedelta):
        return _duration(value)
    raise _clause_error("s", value)


def _literal(value: Any) -> str:
    """A list's element or a map's value as cel-go writes it (``clauseForType`` and
    ``quoteForCEL``): a string or bytes quoted, a double with six decimals (quoted when not
    finite), a timestamp or duration as its conversion's call."""
    if isinstance(value, float):
        text = _go_fixed(value, _DEFAULT_PRECISION)
        return f'"{text}"' if math.isinf(value) or math.isnan(value) else text
    if isinstance(value, datetime.datetime):
        return f'timestamp("{_rfc3339(value)}")'
    if isinstance(value, datetime.timedelta):
        return f'duration("{_duration(value)}")'
    if isinstance(value, (list, dict, bool, int, str, bytes)) or value is None:
        text = _string(value)
        if isinstance(value, str):
            return _go_quote(text)
        return "b" + _go_quote(text) if isinstance(value, bytes) else text
    raise FormatError(f"no formatting function for {type_name(value)}")


def _map_literal(value: dict[Any, Any]) -> str:
    entries = []
    for key, item in value.items():
        if isinstance(key, str):
            key_text = _go_quote(key)
        elif isinstance(key, bool) or _is_integer(key):
            key_text = _string(key)
        else:
            raise FormatError(f"no formatting function for map key of type {type_name(key)}")
        entries.append((key_text, _literal(item)))
    entries.sort(key=lambda entry: entry[0].encode())  # Go compares the strings' bytes
    return "{" + ", ".join(f"{key}:{item}" for key, item in entries) + "}"


def _go_quote(text: str) -> str:
    """Go's ``%q`` of a string (``strconv.Quote``)."""
    out = []
    for char in text:
        if char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest decimal digits that read back as ``abs(value)`` (nonzero, finite: Python's
    ``repr`` finds the digits Go's ``strconv`` does) and where the decimal point is among them
    (``12.5``: ``125``, 2)."""
    _sign, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
    digits = "".join(map(str, digit_tuple))
    significant = digits.lstrip("0")
    point = len(digits) + int(exponent) - (len(digits) - len(significant))
    return significant.rstrip("0"), point


def _fixed_notation(digits: str, point: int) -> str:
    """Digits with their decimal point where ``point`` puts it, no exponent."""
    if point <= 0:
        return f"0.{'0' * -point}{digits}"
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return f"{digits[:point]}.{digits[point:]}"


def _go_g(value: float) -> str:
    """Go's ``%g`` of a double (cel-go's ``string(double)``): its shortest digits, in exponent
    form when the exponent is under -4 or at least 6 (Go's threshold for the shortest form)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    digits, point = _shortest_digits(value)
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    return sign + _fixed_notation(digits, point)


def _go_fixed(value: float, precision: int) -> str:
    """Go's ``%.{precision}f``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return f"{value:.{precision}f}"


def _rfc3339(value: datetime.datetime) -> str:
    """Go's RFC 3339 with nanoseconds, trailing zeros of the fraction dropped."""
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    offset = value.utcoffset()
    if not offset:
        return text + "Z"
    minutes = int(offset.total_seconds()) // 60
    return text + f"{'-' if minutes < 0 else '+'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _duration(value: datetime.timedelta) -> str:
    """cel-go's ``string(duration)``: its seconds, shortest, in fixed notation, then ``s``."""
    seconds = value.total_seconds()
    if seconds == 0:
        return "0s"
    return ("-" if seconds < 0 else "") + _fixed_notation(*_shortest_digits(seconds)) + "s"


# --- the numeric clauses -----------------------------------------------------------------------

def _decimal(value: Any, _precision: int | None = None) -> str:
    if not _is_integer(value):
        raise _clause_error("d", value)
    return str(value)


def _double_of(value: Any, verb: str) -> float:
    """A double clause's value: a double, or the strings cel-go converts to one."""
    if isinstance(value, float):
        return value
    if isinstance(value, str) and value in _QUOTED_STRINGS:
        return float(value.replace("Infinity", "inf"))
    raise _clause_error(verb, value)


def _localized_special(value: float) -> str | None:
    """How Go's ``x/text`` printer writes a double that is not finite."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return None


def _fixed(value: Any, precision: int | None) -> str:
    """``%f``: ``x/text``'s ``%.{precision}f`` for ``en``, with thousands separators; zero is
    written without its sign."""
    number = _double_of(value, "f")
    special = _localized_special(number)
    if special is not None:
        return special
    return f"{abs(number) if number == 0 else number:,.{_DEFAULT_PRECISION if precision is None else precision}f}"


def _scientific(value: Any, precision: int | None) -> str:
    """``%e``: cel-go writes ``%{precision}e``, a width, and ``x/text`` then writes six digits
    of mantissa and a superscript exponent of at least two digits (``1.500000×10⁻⁰⁷``),
    right-aligned in that width."""
    number = _double_of(value, "e")
    text = _localized_special(number)
    if text is None:
        mantissa, exponent_text = f"{abs(number) if number == 0 else number:.{_DEFAULT_PRECISION}e}".split("e")
        exponent = int(exponent_text)
        text = mantissa + "×10" + f"{'-' if exponent < 0 else ''}{abs(exponent):02d}".translate(_SUPERSCRIPTS)
    return text.rjust(_DEFAULT_PRECISION if precision is None else precision)


def _go_integer(value: int, base: str) -> str:
    """Go's ``%b``, ``%o``, ``%x`` or ``%X`` of an integer: a negative one is its sign and its
    magnitude's digits."""
    return ("-" if value < 0 else "") + format(abs(value), base)


def _binary(value: Any, _precision: int | None = None) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if not _is_integer(value):
        raise _clause_error("b", value)
    return _go_integer(value, "b")


def _octal(value: Any, _precision: int | None = None) -> str:
    if not _is_integer(value):
        raise _clause_error("o", value)
    return _go_integer(value, "o")


def _hex(upper: bool) -> Callable[[Any, int | None], str]:
    def hexadecimal(value: Any, _precision: int | None = None) -> str:
        if isinstance(value, (str, bytes)):
            text = (value.encode() if isinstance(value, str) else value).hex()
        elif _is_integer(value):
            text = _go_integer(value, "x")
        else:
            raise _clause_error("x", value)
        return text.upper() if upper else text
    return hexadecimal


#: What each clause refuses a value of another type with (after ``, was given <type>``).
_CLAUSE_ERRORS = {
    "s": "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, "
         "and timestamps",
    "d": "decimal clause can only be used on integers", "f": "fixed-point clause can only be used on doubles",
    "e": "scientific clause can only be used on doubles", "b": "only integers and bools can be formatted as binary",
    "o": "octal clause can only be used on integers",
    "x": "only integers, byte buffers, and strings can be formatted as hex",
    "X": "only integers, byte buffers, and strings can be formatted as hex",
}
#: The types cel-go's compile-time check lets each clause take (its ``stringFormatChecker``: a
#: string for ``%f`` and ``%e``, whichever, as one of ``NaN``, ``Infinity``, ``-Infinity`` may).
_CLAUSE_KINDS = {
    "s": frozenset(("list", "map", "int", "uint", "double", "bool", "string", "google.protobuf.Timestamp", "bytes",
                    "google.protobuf.Duration", "type", "null_type")),
    "d": frozenset(("int", "uint")), "f": frozenset(("double", "string")), "e": frozenset(("double", "string")),
    "b": frozenset(("int", "uint", "bool")), "o": frozenset(("int", "uint")),
    "x": frozenset(("int", "uint", "string", "bytes")), "X": frozenset(("int", "uint", "string", "bytes")),
}
_CLAUSES: dict[str, Callable[[Any, int | None], str]] = {
    "s": _string, "d": _decimal, "f": _fixed, "e": _scientific, "b": _binary, "o": _octal,
    "x": _hex(False), "X": _hex(True),
}
