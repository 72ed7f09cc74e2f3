"""kube-openapi's ``strfmt`` format checkers, as apiextensions limits them (``formats.go``):
what a CRD schema's ``format`` checks, and what CEL's ``format`` library validates with."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
import unicodedata
from collections.abc import Callable
from datetime import date

_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID3 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID4 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
_UUID5 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
_TIME_OF_DAY = re.compile(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")
_FULL_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")
# strfmt's HostnamePattern with \p{S}\p{L} ("L" below) for Unicode symbols and letters, which
# _hostname maps to "L" first since Python's re has no Unicode classes.
_HOSTNAME = re.compile(
    r"^([a-zA-Z0-9L]((-?[a-zA-Z0-9L]{0,62})?)|([a-zA-Z0-9L](([a-zA-Z0-9L-]{0,61}[a-zA-Z0-9L])?)(\.)){1,}([a-zA-ZL]){2,63})$")
_BASE64 = re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")
_HEXCOLOR = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_BYTE = r"(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])"
_RGBCOLOR = re.compile(rf"^rgb\(\s*{_BYTE}\s*,\s*{_BYTE}\s*,\s*{_BYTE}\s*\)$")
_SSN = re.compile(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$")
_MAC = re.compile(
    r"^(?:[0-9A-Fa-f]{2}(?:([:-])[0-9A-Fa-f]{2})(?:\1[0-9A-Fa-f]{2}){4}(?:(?:\1[0-9A-Fa-f]{2}){2}(?:(?:\1[0-9A-Fa-f]{2}){12})?)?"
    r"|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?:(?:\.[0-9A-Fa-f]{4})(?:(?:\.[0-9A-Fa-f]{4}){5})?)?)$")
_REQUEST_URI = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|/)[^\s\x00-\x1f\x7f]*$")
_EMAIL = re.compile(r"^(?:[^<>@\s]+@[^<>@\s]+\.?[^<>@\s]*|[^<>]*<[^<>@\s]+@[^<>@\s]+>)$")
_GO_DURATION = re.compile(r"^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$")
_DURATION_PART = re.compile(r"((\d+)\s*([A-Za-zµ]+))")
_DURATION_UNITS = (("ns", "nano"), ("us", "µs", "micro"), ("ms", "milli"), ("s", "sec"), ("m", "min"),
                   ("h", "hr", "hour"), ("d", "day"), ("w", "wk", "week"))


def is_date(text: str) -> bool:
    """``time.Parse("2006-01-02", s)``."""
    match = _FULL_DATE.match(text)
    if not match:
        return False
    year = int(match[1]) or 2000  # Go has a year 0, a leap year like 2000; Python has none
    try:
        date(year, int(match[2]), int(match[3]))
    except ValueError:
        return False
    return True


def is_date_time(text: str) -> bool:
    """strfmt ``IsDateTime``: a date, ``t``, then a time of day and zone (case-insensitive)."""
    parts = text.lower().split("t")
    if len(text) < 4 or len(parts) < 2 or not is_date(parts[0]):
        return False
    match = _TIME_OF_DAY.match(parts[1])
    return bool(match) and match[1] <= "23" and match[2] <= "59" and match[3] <= "59"


def _is_duration(text: str) -> bool:
    """strfmt ``ParseDuration``: Go's ``time.ParseDuration``, else number-unit pairs such as
    ``3 days`` (a pair counts when its unit is a known one or starts with a unit's long name)."""
    if _GO_DURATION.match(text):
        return True
    for _, _, unit in _DURATION_PART.findall(text):
        unit = unit.lower()
        if any(unit == variant or (i == len(variants) - 1 and unit.startswith(variant))
               for variants in _DURATION_UNITS for i, variant in enumerate(variants)):
            return True
    return False


def _hostname(text: str) -> bool:
    """strfmt ``IsHostname``: the pattern, at most 255 bytes, labels of at most 63 bytes."""
    folded = "".join("L" if ord(c) > 127 and unicodedata.category(c)[0] in "LS" else c for c in text)
    return (bool(_HOSTNAME.match(folded)) and len(text.encode()) <= 255
            and all(len(label.encode()) <= 63 for label in text.split(".")))


def _sloppy_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """k8s.io/utils ``ParseIPSloppy``: Go's ``net.ParseIP`` that also takes IPv4 leading zeros."""
    if re.fullmatch(r"[0-9]{1,3}(\.[0-9]{1,3}){3}", text):
        octets = [int(part) for part in text.split(".")]
        return ipaddress.IPv4Address(".".join(map(str, octets))) if max(octets) < 256 else None
    if "%" in text:  # zones are not IPs to net.ParseIP
        return None
    try:
        return ipaddress.IPv6Address(text)
    except ValueError:
        return None


def _is_ipv4(text: str) -> bool:
    return _sloppy_ip(text) is not None and "." in text


def _is_ipv6(text: str) -> bool:
    return ":" in text and _sloppy_ip(text) is not None


def _is_cidr(text: str) -> bool:
    """``ParseCIDRSloppy``: an IP, ``/``, and a prefix length within the address's bits."""
    address, slash, prefix = text.partition("/")
    ip = _sloppy_ip(address)
    return (bool(slash) and ip is not None and re.fullmatch(r"[0-9]{1,3}", prefix) is not None
            and int(prefix) <= ip.max_prefixlen)


def is_base64(text: str) -> bool:
    if not _BASE64.match(text):
        return False
    try:
        base64.b64decode(text, validate=True)
    except binascii.Error:
        return False
    return True


#: Format checkers by normalised name (strfmt removes dashes); formats apiextensions keeps
#: (``formats.go supportedFormats``) but that are not listed here are not checked.
FORMATS: dict[str, Callable[[str], bool]] = {
    "uri": lambda s: bool(_REQUEST_URI.match(s)),
    "email": lambda s: bool(_EMAIL.match(s)),
    "hostname": _hostname,
    "ipv4": _is_ipv4,
    "ipv6": _is_ipv6,
    "cidr": _is_cidr,
    "mac": lambda s: bool(_MAC.match(s)),
    "uuid": lambda s: bool(_UUID.match(s)),
    "uuid3": lambda s: bool(_UUID3.match(s)),
    "uuid4": lambda s: bool(_UUID4.match(s)),
    "uuid5": lambda s: bool(_UUID5.match(s)),
    "ssn": lambda s: len(s) == 11 and bool(_SSN.match(s)),
    "hexcolor": lambda s: bool(_HEXCOLOR.match(s)),
    "rgbcolor": lambda s: bool(_RGBCOLOR.match(s)),
    "byte": is_base64,
    "password": lambda s: True,
    "date": is_date,
    "duration": _is_duration,
    "datetime": is_date_time,
}
#: apiextensions ``formats.go supportedFormats``: any other format is stripped before validation.
SUPPORTED_FORMATS = frozenset((
    "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3",
    "uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor",
    "byte", "password", "date", "duration", "datetime",
))
