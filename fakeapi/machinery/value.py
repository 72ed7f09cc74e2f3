"""JSON values as structured-merge-diff v4.4.2's ``value`` package compares and prints them.

``compare_values``, ``values_equal`` and ``value_to_string`` are ``value.Compare``, ``Equals``
and ``ToString``: numbers before strings before booleans before lists before maps before null,
ints and floats compared as numbers. ``go_json`` writes a value as Go's ``encoding/json`` does,
for FieldsV1 keys, manager identifiers and the last-applied annotation.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

from .golang import go_quote

Value = Any
"""A JSON value as Python decodes it: dict, list, str, int, float, bool or None."""

# --- values (structured-merge-diff value/value.go, value/fields.go) ---------------------------

#: What Go's encoder escapes that Python's does not, as a ``str.translate`` table.
_HTML_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                               "\u2029": "\\u2029", "\b": "\\u0008", "\f": "\\u000c"})


def _is_number(value: Value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind_rank(value: Value) -> int:
    """``value.Compare``'s order of kinds: numbers, strings, booleans, lists, maps, null."""
    if _is_number(value):
        return 0
    if isinstance(value, str):
        return 1
    if isinstance(value, bool):
        return 2
    if isinstance(value, list):
        return 3
    if isinstance(value, dict):
        return 4
    return 5


def sign(difference: float) -> int:
    return (difference > 0) - (difference < 0)


def compare_values(lhs: Value, rhs: Value) -> int:
    """``value.Compare``: -1, 0 or 1."""
    lrank, rrank = _kind_rank(lhs), _kind_rank(rhs)
    if lrank != rrank:
        return sign(lrank - rrank)
    if lrank == 0:  # a float against an int compares as float64, like Go
        if isinstance(lhs, float) or isinstance(rhs, float):
            return sign(float(lhs) - float(rhs))
        return sign(lhs - rhs)
    if lrank in (1, 2):
        return (lhs > rhs) - (lhs < rhs)
    if lrank == 3:
        return _compare_lists(lhs, rhs)
    if lrank == 4:
        return _compare_maps(lhs, rhs)
    return 0


def _compare_lists(lhs: list[Value], rhs: list[Value]) -> int:
    for left, right in zip(lhs, rhs):
        if (c := compare_values(left, right)) != 0:
            return c
    return sign(len(lhs) - len(rhs))


def _compare_maps(lhs: dict[str, Value], rhs: dict[str, Value]) -> int:
    """``value.MapCompare``: zips both maps in key order; the odd length tests are upstream's."""
    if not lhs and not rhs:
        return 0
    for position, key in enumerate(sorted(lhs.keys() | rhs.keys())):
        if position == len(lhs):
            return -1
        if position == len(rhs):
            return 1
        if key not in lhs:
            return 1
        if key not in rhs:
            return -1
        if (c := compare_values(lhs[key], rhs[key])) != 0:
            return c
    return 0


#: Integers up to this magnitude are floats exactly: among them, and against any float, Python's
#: order of numbers is Go's (``value.Compare`` compares an int and a float as float64).
EXACT_FLOAT_INT = 2**53


class _GoOrdered:
    """A value ``order_key`` cannot turn into a tuple (a map, a number past 2**53), ordered by
    ``compare_values`` against any value of its rank's other keys: a map's order zips both maps'
    keys (``_compare_maps``), which no tuple comparison does."""

    __slots__ = ("value",)

    def __init__(self, value: Value) -> None:
        self.value = value

    def _compare(self, other: Any) -> int:
        return compare_values(self.value, other.value if isinstance(other, _GoOrdered) else other)

    def __eq__(self, other: object) -> bool:
        return self._compare(other) == 0

    def __lt__(self, other: Any) -> bool:
        return self._compare(other) < 0

    def __gt__(self, other: Any) -> bool:
        return self._compare(other) > 0

    __hash__ = None  # type: ignore[assignment]


def order_key(value: Value) -> tuple[Any, ...]:
    """A key that sorts values as ``compare_values`` orders them, with Python's own tuple
    comparison: the kind's rank first, then the value (strings by code point, which is Go's byte
    order of their UTF-8; lists item by item, the shorter first when one is a prefix, as
    ``_compare_lists``)."""
    cls = value.__class__
    if cls is str:
        return (1, value)
    if cls is bool:
        return (2, value)
    if cls is int:
        return (0, value if -EXACT_FLOAT_INT <= value <= EXACT_FLOAT_INT else _GoOrdered(value))
    if cls is float:
        return (0, value)
    if cls is list:
        return (3, tuple(order_key(item) for item in value))
    if cls is dict:
        return (4, _GoOrdered(value))
    if value is None:
        return (5,)
    return (_kind_rank(value), _GoOrdered(value))  # a subclass of a JSON type


def values_equal(lhs: Value, rhs: Value) -> bool:
    """``value.Equals``: deep equality where an int equals the float of the same value."""
    if _is_number(lhs) or _is_number(rhs):
        return _is_number(lhs) and _is_number(rhs) and lhs == rhs
    if isinstance(lhs, list):
        return isinstance(rhs, list) and len(lhs) == len(rhs) and all(map(values_equal, lhs, rhs))
    if isinstance(lhs, dict):
        return (isinstance(rhs, dict) and lhs.keys() == rhs.keys()
                and all(values_equal(v, rhs[k]) for k, v in lhs.items()))
    return type(lhs) is type(rhs) and lhs == rhs


def canonical(value: Value) -> Any:
    """A hashable form under which two values are equal exactly when ``values_equal`` says so
    (Python's numbers already hash 1 and 1.0 alike; booleans are tagged apart from them)."""
    cls = value.__class__
    if cls is str:  # the common case first: list keys are names
        return ("s", value)
    if cls is int:
        return ("n", value)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, list):
        return ("l", tuple(canonical(item) for item in value))
    if isinstance(value, dict):
        return ("m", tuple(sorted((key, canonical(item)) for key, item in value.items())))
    return ("s", value) if isinstance(value, str) else ("n", value)


def _go_float(number: float, *, for_json: bool) -> str:
    """A float64 as Go writes it: ``encoding/json`` (shortest digits, exponent outside
    [1e-6, 1e21), ``e-07`` cleaned to ``e-7``) or ``%v`` (exponent outside [1e-4, 1e21))."""
    if not math.isfinite(number):
        raise ValueError(f"unsupported value: {number}")
    low = 1e-6 if for_json else 1e-4
    if number == 0 or low <= abs(number) < 1e21:
        return format(Decimal(repr(number)).normalize(), "f")
    mantissa, exponent = repr(number).replace("E", "e").split("e")
    sign, digits = exponent[0], exponent[1:].lstrip("+-")
    if for_json:
        digits = digits.lstrip("0") or "0"
    else:
        digits = digits.zfill(2)
    return f"{mantissa.removesuffix('.0')}e{'-' if sign == '-' else '+'}{digits}"


def go_json(value: Value) -> str:
    """Compact JSON as Go's ``encoding/json`` (and json-iterator's standard-library-compatible
    configuration) writes it: sorted map keys, HTML characters escaped, Go's float format."""
    cls = value.__class__
    if cls is str and _PLAIN_STRING.fullmatch(value):  # the common cases first: names, ports
        return '"' + value + '"'
    if cls is int:  # json.dumps writes an int as int.__repr__ does (a bool is not of this class)
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{go_json(key)}:{go_json(value[key])}" for key in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(go_json(item) for item in value) + "]"
    if isinstance(value, float):
        return _go_float(value, for_json=True)
    if isinstance(value, str):
        if _PLAIN_STRING.fullmatch(value):
            return '"' + value + '"'
        return json.dumps(value, ensure_ascii=False).translate(_HTML_ESCAPES)
    return json.dumps(value)


#: Strings that both Go's encoder and ``json.dumps`` write as they are, between quotes: no
#: control character, quote, backslash, HTML character, line or paragraph separator, or lone
#: surrogate (the common case: names, images, label values).
_PLAIN_STRING = re.compile(r'[^\x00-\x1f"\\<>&\u2028\u2029\ud800-\udfff]*')


def value_to_string(value: Value) -> str:
    """``value.ToString``, used in path strings: strings quoted with ``%q``, maps as ``k=v``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value, for_json=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, list):
        return "[" + ",".join(value_to_string(item) for item in value) + "]"
    return "".join(f"{key}={value_to_string(item)}" for key, item in value.items())
