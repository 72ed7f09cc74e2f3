"""``resource.Quantity`` (apimachinery ``pkg/api/resource``): parsing, kube's canonical string,
comparison.

kube decodes every quantity of a built-in object into a ``Quantity`` and encodes it back with
``String()``: what is stored and served is the canonical form (``cpu: "0.5"`` becomes ``500m``,
``memory: 1.5Gi`` becomes ``1536Mi``, ``1000m`` becomes ``1``). ``canonical`` gives that string,
``parse`` the value; a string kube cannot parse raises ``QuantityError`` with kube's message.

A value is exact: an integer ``unscaled`` times ``10 ** scale`` (``scale`` may be negative),
rounded away from zero to nano units as kube rounds what it parses. Like kube, a string already
in canonical form is kept as written (the fast path of ``ParseQuantity``), which keeps some
non-canonical spellings too (``+1Ki``, ``01``, ``1E3``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from .golang import go_parse_int64

#: ``Format``s.
DECIMAL_EXPONENT, BINARY_SI, DECIMAL_SI = "DecimalExponent", "BinarySI", "DecimalSI"

_SPLIT_REGEX = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
FORMAT_WRONG = f"quantities must match the regular expression '{_SPLIT_REGEX}'"
NUMERIC = "unable to parse numeric part of quantity"
SUFFIX = "unable to parse quantity's suffix"

_DIGITS = frozenset("0123456789")
_SUFFIX_CHARACTERS = frozenset("eEinumkKMGTP")
_MAX_INT64 = 2**63 - 1
_MIN_INT64 = -(2**63)
_NANO = -9

#: suffix -> (base, exponent, format)
_SUFFIXES: dict[str, tuple[int, int, str]] = {
    "": (10, 0, DECIMAL_SI), "n": (10, -9, DECIMAL_SI), "u": (10, -6, DECIMAL_SI), "m": (10, -3, DECIMAL_SI),
    "k": (10, 3, DECIMAL_SI), "M": (10, 6, DECIMAL_SI), "G": (10, 9, DECIMAL_SI), "T": (10, 12, DECIMAL_SI),
    "P": (10, 15, DECIMAL_SI), "E": (10, 18, DECIMAL_SI),
    "Ki": (2, 10, BINARY_SI), "Mi": (2, 20, BINARY_SI), "Gi": (2, 30, BINARY_SI), "Ti": (2, 40, BINARY_SI),
    "Pi": (2, 50, BINARY_SI), "Ei": (2, 60, BINARY_SI),
}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, (base, exponent, _f) in _SUFFIXES.items() if base == 10}
_BINARY_SUFFIX = {exponent // 10: suffix for suffix, (base, exponent, _f) in _SUFFIXES.items() if base == 2}


class QuantityError(ValueError):
    """A string ``ParseQuantity`` refuses; the message is kube's."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed quantity: ``unscaled * 10 ** scale`` in ``format``; ``text`` is the string kube
    keeps from parsing (None: it prints the canonical form)."""

    unscaled: int
    scale: int
    format: str
    text: str | None = None

    # ------------------------------------------------------------------ value

    def sign(self) -> int:
        return (self.unscaled > 0) - (self.unscaled < 0)

    def is_zero(self) -> bool:
        return self.unscaled == 0

    def as_fraction(self) -> Fraction:
        """The exact value (materialised: only for quantities of sane magnitude)."""
        return Fraction(self.unscaled * 10**self.scale) if self.scale >= 0 else Fraction(self.unscaled, 10**-self.scale)

    def cmp(self, other: Quantity) -> int:
        """``Cmp``: -1, 0 or 1."""
        a, b = self.sign(), other.sign()
        if a != b or a == 0:
            return (a > b) - (a < b)
        # Same sign, both non-zero: compare magnitudes by decimal order first (no huge powers).
        order_a = len(str(abs(self.unscaled))) + self.scale
        order_b = len(str(abs(other.unscaled))) + other.scale
        if order_a != order_b:
            return a if order_a > order_b else -a
        # Same decimal order: the scales differ by no more than the digits, so align them exactly.
        x, y = self.unscaled, other.unscaled
        if self.scale > other.scale:
            x *= 10 ** (self.scale - other.scale)
        elif other.scale > self.scale:
            y *= 10 ** (other.scale - self.scale)
        return (x > y) - (x < y)

    def cmp_int(self, value: int) -> int:
        return self.cmp(Quantity(value, 0, DECIMAL_SI))

    def scaled_value(self, scale: int) -> int:
        """``ScaledValue``: the value in units of ``10 ** scale``, rounded up (away from zero)."""
        shift = self.scale - scale
        if shift >= 0:
            return self.unscaled * 10**shift
        whole, rest = divmod(abs(self.unscaled), 10**-shift)
        whole += rest > 0
        return whole if self.unscaled >= 0 else -whole

    def value(self) -> int:
        """``Value()``: whole units, rounded up."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """``MilliValue()``."""
        return self.scaled_value(-3)

    def __add__(self, other: Quantity) -> Quantity:
        """``Add``: the sum in this quantity's format (the other's when this one is zero)."""
        scale = min(self.scale, other.scale)
        unscaled = self.unscaled * 10 ** (self.scale - scale) + other.unscaled * 10 ** (other.scale - scale)
        return Quantity(unscaled, scale, other.format if self.is_zero() else self.format)

    def round_up(self, scale: int) -> Quantity:
        """``RoundUp(scale)``: the value rounded away from zero to units of ``10 ** scale`` (a
        quantity already that coarse is returned as it is, its text kept)."""
        if self.scale >= scale:
            return self
        magnitude, rest = divmod(abs(self.unscaled), 10 ** (scale - self.scale))
        if rest:
            magnitude += 1
        return Quantity(magnitude * self.sign(), scale, self.format)

    # ------------------------------------------------------------------ String()

    def __str__(self) -> str:
        return self.text if self.text is not None else _canonical_string(self)

    def _integral(self) -> int | None:
        """The value as an integer, or None when it has a fraction."""
        if self.scale >= 0:
            return self.unscaled * 10**self.scale
        whole, rest = divmod(abs(self.unscaled), 10**-self.scale)
        return None if rest else whole * self.sign()


@lru_cache(maxsize=4096)
def _canonical_string(quantity: Quantity) -> str:
    """``String()`` of a quantity without kept text; kept by value: a cluster's objects repeat
    a few requests and limits, and each decoded object prints all of its own."""
    if quantity.unscaled == 0:
        return "0"
    fmt = quantity.format
    if fmt == BINARY_SI:
        if -1024 < quantity.as_fraction() < 1024:
            fmt = DECIMAL_SI
        else:
            whole = quantity._integral()
            if whole is None:
                fmt = DECIMAL_SI
            else:
                mantissa, times = _remove_factors(whole, 1024)
                return f"{mantissa}{_BINARY_SUFFIX.get(times, '')}"
    mantissa, times = _remove_factors(quantity.unscaled, 10)
    exponent = quantity.scale + times
    while exponent % 3:
        mantissa *= 10
        exponent -= 1
    if fmt == DECIMAL_SI:
        return f"{mantissa}{_DECIMAL_SUFFIX.get(exponent, '')}"
    return f"{mantissa}e{exponent}" if exponent else str(mantissa)


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    """``removeInt64Factors``/``removeBigIntFactors``: value / base**n for the largest such n."""
    times = 0
    while value and value % base == 0:
        value //= base
        times += 1
    return value, times


def _int32(value: int) -> int:
    """Go's ``int32(x)`` of an int64: wraps."""
    return (value + 2**31) % 2**32 - 2**31


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """``parseQuantityString``: (positive, value, num, denom, suffix)."""
    positive = True
    position = 0
    end = len(text)
    if end and text[0] in "+-":
        positive = text[0] == "+"
        position = 1
    while position < end and text[position] == "0":  # leading zeros
        position += 1
    if position >= end:
        return positive, "0", "0", "", ""
    start = position
    while position < end and text[position] in _DIGITS:
        position += 1
    num = text[start:position] or "0"
    if position >= end:
        return positive, text, num, "", ""
    denom = ""
    if text[position] == ".":
        position += 1
        start = position
        while position < end and text[position] in _DIGITS:
            position += 1
        denom = text[start:position]
        if position >= end:
            return positive, text, num, denom, ""
    value = text[:position]
    suffix_start = position
    while position < end and text[position] in _SUFFIX_CHARACTERS:
        position += 1
    if position < end and text[position] in "+-":
        position += 1
    while position < end and text[position] in _DIGITS:
        position += 1
    if position < end:
        raise QuantityError(FORMAT_WRONG)
    return positive, value, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    known = _SUFFIXES.get(suffix)
    if known is not None:
        return known
    if len(suffix) > 1 and suffix[0] in "eE":
        exponent = go_parse_int64(suffix[1:])
        if exponent is not None:
            return 10, _int32(exponent), DECIMAL_EXPONENT
    raise QuantityError(SUFFIX)


def _parse_decimal(value: str) -> tuple[int, int]:
    """``inf.Dec.SetString``: (unscaled, scale in kube's sense: value = unscaled * 10**scale)."""
    sign = -1 if value.startswith("-") else 1
    whole, _, fraction = value.lstrip("+-").partition(".")
    digits = whole + fraction
    if not digits:
        raise QuantityError(NUMERIC)
    return sign * int(digits), -len(fraction)


@lru_cache(maxsize=4096)
def parse(text: str) -> Quantity:
    """``ParseQuantity`` (the string as written; ``UnmarshalJSON`` trims spaces first)."""
    if not text:
        raise QuantityError(FORMAT_WRONG)
    if text == "0":
        return Quantity(0, 0, DECIMAL_SI, text)
    positive, value, num, denom, suffix = _split(text)
    base, exponent, fmt = _interpret(suffix)

    mantissa = 1
    if fmt == BINARY_SI:
        scale = 0
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        else:
            precision = -1
    else:
        scale = exponent
        precision = 18 - (len(num) + len(denom))
    if precision >= 0:
        scale -= len(denom)
        if scale >= _NANO:
            shifted = num + denom
            number = go_parse_int64(shifted)
            if number is None:
                raise QuantityError(NUMERIC)
            result = number * mantissa
            if result <= _MAX_INT64:
                if not positive:
                    result = -result
                if fmt == BINARY_SI:
                    keep = exponent % 10 == 0 and number & 0x07 != 0
                else:
                    keep = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return Quantity(result, scale, fmt, text if keep else None)

    unscaled, scale = _parse_decimal(value)
    if base == 10:
        scale += exponent
    else:
        unscaled <<= exponent
    negative = unscaled < 0
    unscaled = abs(unscaled)
    if unscaled and scale < _NANO:  # round up to nano units
        shift = _NANO - scale
        if shift > len(str(unscaled)):
            unscaled = 1
        else:
            whole, rest = divmod(unscaled, 10**shift)
            unscaled = whole + (1 if rest else 0)
        scale = _NANO
    if fmt == BINARY_SI:
        quantity = Quantity(unscaled, scale, fmt)
        if quantity.cmp_int(_MAX_INT64) > 0:
            unscaled, scale = _MAX_INT64, 0
        elif unscaled and quantity.cmp_int(1) < 0:
            fmt = DECIMAL_SI
    return Quantity(-unscaled if negative else unscaled, scale, fmt)


def decode(value: Any) -> Quantity:
    """A quantity as JSON carries it (``UnmarshalJSON``): a string (spaces trimmed) or a number."""
    if isinstance(value, str):
        return parse(value.strip())
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise QuantityError(FORMAT_WRONG)
    return parse(str(value) if isinstance(value, int) else repr(value))


def canonical(value: Any) -> str:
    """The string kube stores for a quantity sent as ``value`` (``QuantityError`` if invalid)."""
    return str(decode(value))
