"""``resource.Quantity`` as apimachinery parses and prints it (``pkg/api/resource/quantity.go``).

``canonical(text)`` is Go's ``resource.MustParse(text).String()``: the form kube-apiserver writes
a quantity in, in JSON and in protobuf (whose ``Quantity`` message carries that string). The value
is kept exact (Python integers stand for Go's ``int64Amount`` and ``inf.Dec`` alike), rounded up
to nano units as ``ParseQuantity`` rounds. Go keeps the text as given when it is already
canonical by its own test (``ParseQuantity``'s int64 fast path): that test does not look at a
sign or leading zeros, so ``"+1"`` and ``"0100m"`` print as given, and so they do here.
"""

from __future__ import annotations

from functools import lru_cache

_DECIMAL_SI = "DecimalSI"
_BINARY_SI = "BinarySI"
_DECIMAL_EXPONENT = "DecimalExponent"

#: suffix -> (base, exponent) of the suffixes with a fixed meaning (``quantitySuffixer``).
_SUFFIXES = {
    "": (10, 0), "n": (10, -9), "u": (10, -6), "m": (10, -3), "k": (10, 3), "M": (10, 6), "G": (10, 9),
    "T": (10, 12), "P": (10, 15), "E": (10, 18),
    "Ki": (2, 10), "Mi": (2, 20), "Gi": (2, 30), "Ti": (2, 40), "Pi": (2, 50), "Ei": (2, 60),
}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, (base, exponent) in _SUFFIXES.items() if base == 10}
_BINARY_SUFFIX = {exponent: suffix for suffix, (base, exponent) in _SUFFIXES.items() if base == 2}
_SUFFIX_CHARACTERS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
_MAX_INT64 = (1 << 63) - 1
#: ``maxInt64Factors``: decimal digits an int64 always holds.
_MAX_INT64_FACTORS = 18
#: Values are kept as integers of nano units: ``ParseQuantity`` rounds up to ``Nano``.
_NANO_DIGITS = 9


class QuantityError(ValueError):
    """The text is not a quantity (Go's ``ErrFormatWrong``, ``ErrNumeric``, ``ErrSuffix``)."""


@lru_cache(maxsize=4096)
def canonical(text: str) -> str:
    """Go's ``ParseQuantity(text).String()``; ``QuantityError`` where Go's parse fails."""
    if not text:
        raise QuantityError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    if text == "0":
        return text
    positive, value, num, denom, suffix = _split(text)
    base, exponent, form = _interpret(suffix)
    fast = _int64_path(num, denom, exponent, form)
    if fast is not None:
        nanos, keeps_text = fast
        if keeps_text:
            return text
        return _canonical_bytes(nanos if positive else -nanos, form)
    nanos = _nanos(value, base, exponent)
    if form == _BINARY_SI:
        nanos = min(abs(nanos), _MAX_INT64 * 10**_NANO_DIGITS) * (1 if nanos >= 0 else -1)
        if 0 < abs(nanos) < 10**_NANO_DIGITS:
            form = _DECIMAL_SI
    return _canonical_bytes(nanos, form)


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """``parseQuantityString``: sign, the numeric text (with its sign), the integer digits
    without leading zeros, the fraction digits and the suffix."""
    positive, pos, end = True, 0, len(text)
    if text[0] in "+-":
        positive = text[0] == "+"
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    if pos >= end:
        return positive, text, num, "", ""
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARACTERS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    return positive, value, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    fixed = _SUFFIXES.get(suffix)
    if fixed is not None:
        base, exponent = fixed
        return base, exponent, _BINARY_SI if base == 2 else _DECIMAL_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        try:
            exponent = int(suffix[1:], 10)
        except ValueError:
            exponent = None
        digits = suffix[2:] if suffix[1] in "+-" else suffix[1:]
        if exponent is not None and digits.isascii() and digits.isdigit() and -(1 << 63) <= exponent <= _MAX_INT64:
            return 10, _int32(exponent), _DECIMAL_EXPONENT
    raise QuantityError("unable to parse quantity's suffix")


def _int32(value: int) -> int:
    """Go's ``int32(x)`` of an int64: the low 32 bits, signed."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _int64_path(num: str, denom: str, exponent: int, form: str) -> tuple[int, bool] | None:
    """``ParseQuantity``'s int64 path, where it applies: the magnitude in nano units and
    whether Go keeps the text as written (its test of canonical form ignores the sign)."""
    if form == _BINARY_SI:
        if exponent < 0 or denom:
            return None
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1  # Go: int32(float32(exponent)*3/10)
        scale, mantissa = 0, 1 << exponent
    else:
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
        scale, mantissa = exponent, 1
    if precision < 0:
        return None
    scale -= len(denom)
    if scale < -_NANO_DIGITS:
        return None
    shifted = num + denom
    value = int(shifted, 10)
    result = value * mantissa
    if result > _MAX_INT64:
        return None
    if form == _BINARY_SI:
        keeps_text = exponent % 10 == 0 and value & 0x07 != 0
    else:
        keeps_text = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
    return result * 10 ** (_NANO_DIGITS + scale), keeps_text


def _nanos(value: str, base: int, exponent: int) -> int:
    """The quantity in nano units, rounded up (away from zero) as ``inf.RoundUp`` at ``Nano``."""
    negative = value.startswith("-")
    digits = value.lstrip("+-")
    whole, _, fraction = digits.partition(".")
    if not (whole or fraction) or not (whole + fraction).isascii() or not (whole + fraction).isdigit():
        raise QuantityError("unable to parse numeric part of quantity")
    unscaled, scale = int(whole + fraction or "0"), len(fraction)  # value = unscaled * 10**-scale
    if base == 10:
        scale -= exponent
    else:
        unscaled <<= exponent
    shift = _NANO_DIGITS - scale
    if shift >= 0:
        nanos = unscaled * 10**shift
    else:
        nanos = -(-unscaled // 10**-shift)  # ceiling of a non-negative value
    return -nanos if negative else nanos


def _canonical_bytes(nanos: int, form: str) -> str:
    """``Quantity.CanonicalizeBytes`` of a value in nano units."""
    if nanos == 0:
        return "0"
    unit = 10**_NANO_DIGITS
    if form == _BINARY_SI:
        if -1024 * unit < nanos < 1024 * unit or nanos % unit:
            form = _DECIMAL_SI
        else:
            amount, times = _remove_factors(nanos // unit, 1024)
            return str(amount) + _BINARY_SUFFIX.get(times * 10, "")
    amount, times = _remove_factors(nanos, 10)
    exponent = times - _NANO_DIGITS
    while exponent % 3:
        amount *= 10
        exponent -= 1
    if form == _DECIMAL_EXPONENT:
        return str(amount) + (f"e{exponent}" if exponent else "")
    return str(amount) + _DECIMAL_SUFFIX.get(exponent, "")


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    times = 0
    while value and value % base == 0:
        value //= base
        times += 1
    return value, times
