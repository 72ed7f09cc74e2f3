"""Go standard library behaviour that kube-apiserver's messages and parsing inherit."""

from __future__ import annotations

import re

_SHORT_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
_DECIMAL = re.compile(r"[+-]?[0-9]+")


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


def go_parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``; None where Go returns an error."""
    # A sign and 19 digits at most: the length test also keeps int() clear of its digit limit.
    if len(text) > 20 or not _DECIMAL.fullmatch(text):
        return None
    number = int(text)
    return number if -(2**63) <= number < 2**63 else None
