"""Kube's CEL function libraries that the engine lacks, as functions of the engine's context:
those kube 1.35's base environment declares (``k8s.io/apiserver/pkg/cel/environment/base.go``):
kube's lists, regex, quantity, ip, cidr, url, semver and format libraries
(``k8s.io/apiserver/pkg/cel/library``), cel-go's strings (version 2), lists and sets extensions,
and the functions the engine's rewrites call (``engine._engine_source``: the optional syntax,
``optMap``/``optFlatMap``, ``size`` in code points, two-variable comprehensions).

The engine calls ``x.f(a)`` as ``f(x, a)``, so one Python function serves a name for every
receiver: ``indexOf`` is the strings extension's on a string and the lists library's on a list.
A call kube would refuse as a type error raises ``LibraryError("no such overload")``; a failure
kube reports at runtime raises it with kube's message (the engine wraps it; ``engine`` unwraps
the message into its ``EvaluationError``).

Values of kube's own types (``Quantity``, ``IP``, ``CIDR``, ``URL``, ``Semver``, ``Format``)
cannot cross the engine's boundary as Python objects: they are carried as one-key maps,
``{"@kubernetes.Quantity": "1Gi"}`` (the kind, the value's canonical string), made by
``quantity()``, ``ip()``, ``cidr()``, ``url()``, ``semver()``, ``format.*`` and read back by their
member functions. Equality of two such values is equality of the
canonical strings (kube's ``Equal`` for these types); ``type()`` of one is ``map`` here.
"""

from __future__ import annotations

import datetime
import ipaddress
import operator
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..machinery import quantity as quantities
from ..machinery import strfmt, validation
from .formatting import FormatError, format_string
from .gosort import slice_order
from .rust import interpreter


def _some(value: Any) -> Any:
    """CEL's ``optional.of(value)``."""
    return interpreter().OptionalValue.of(value)


def _none() -> Any:
    """CEL's ``optional.none()``."""
    return interpreter().OptionalValue.none()


def _is_optional(value: Any) -> bool:
    return isinstance(value, interpreter().OptionalValue)


class LibraryError(ValueError):
    """A library function's failure; the message is kube's (cel-go's) error text."""


_NO_OVERLOAD = "no such overload"


def _expect(condition: bool) -> None:
    if not condition:
        raise LibraryError(_NO_OVERLOAD)


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --- strings (cel-go ext.Strings, version 2 as kube's base environment declares: no reverse) ----

def _char_at(text: str, index: int) -> str:
    _expect(_is_string(text) and _is_int(index))
    if index < 0 or index > len(text):
        raise LibraryError(f"index out of range: {index}")
    return text[index:index + 1]


def _index_of(receiver: Any, item: Any, start: int | None = None) -> int:
    """``indexOf``: the strings extension's on a string (a code point offset, from ``start``), the
    lists library's on a list."""
    if isinstance(receiver, list):
        _expect(start is None)
        return next((i for i, element in enumerate(receiver) if _equal(element, item)), -1)
    _expect(_is_string(receiver) and _is_string(item) and (start is None or _is_int(start)))
    offset = start or 0
    if offset < 0 or offset > len(receiver):
        raise LibraryError(f"index out of range: {offset}")
    return receiver.find(item, offset)


def _last_index_of(receiver: Any, item: Any, end: int | None = None) -> int:
    if isinstance(receiver, list):
        _expect(end is None)
        return next((i for i in range(len(receiver) - 1, -1, -1) if _equal(receiver[i], item)), -1)
    _expect(_is_string(receiver) and _is_string(item) and (end is None or _is_int(end)))
    if end is None:
        return receiver.rfind(item)
    if end < 0 or end > len(receiver):
        raise LibraryError(f"index out of range: {end}")
    return receiver.rfind(item, 0, end + len(item))


def _ascii_case(convert: Callable[[str], str]) -> Callable[[str], str]:
    def change(text: str) -> str:
        _expect(_is_string(text))
        return "".join(convert(c) if c.isascii() else c for c in text)
    return change


def _replace(text: str, old: str, new: str, count: int = -1) -> str:
    _expect(_is_string(text) and _is_string(old) and _is_string(new) and _is_int(count))
    return text.replace(old, new, count)


def _split(text: str, separator: str, limit: int = -1) -> list[str]:
    _expect(_is_string(text) and _is_string(separator) and _is_int(limit))
    if limit == 0:
        return []
    if separator == "":
        parts = list(text)
        return parts if limit < 0 or limit >= len(parts) else parts[:limit - 1] + ["".join(parts[limit - 1:])]
    return text.split(separator, -1 if limit < 0 else limit - 1)


def _substring(text: str, start: int, end: int | None = None) -> str:
    _expect(_is_string(text) and _is_int(start) and (end is None or _is_int(end)))
    stop = len(text) if end is None else end
    if start < 0 or start > len(text):
        raise LibraryError(f"index out of range: {start}")
    if stop < 0 or stop > len(text):
        raise LibraryError(f"index out of range: {stop}")
    if start > stop:
        raise LibraryError(f"invalid substring range. start: {start}, end: {stop}")
    return text[start:stop]


#: Unicode white space as Go's ``unicode.IsSpace`` (what ``strings.TrimSpace`` trims).
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def _trim(text: str) -> str:
    _expect(_is_string(text))
    return text.strip(_GO_SPACE)


def _join(items: list[Any], separator: str = "") -> str:
    _expect(isinstance(items, list) and _is_string(separator) and all(_is_string(i) for i in items))
    return separator.join(items)


def _quote(text: str) -> str:
    _expect(_is_string(text))
    escapes = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               "\\": "\\\\", '"': '\\"'}
    return '"' + "".join(escapes.get(c, c) for c in text) + '"'


def _format(template: str, arguments: list[Any]) -> str:
    """``string.format(list)``, as cel-go's strings library version 2 (``formatting``)."""
    _expect(_is_string(template) and isinstance(arguments, list))
    try:
        return format_string(template, arguments)
    except FormatError as error:
        raise LibraryError(str(error)) from None


# --- lists (k8s.io/apiserver/pkg/cel/library/lists.go) -----------------------------------------

def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return bool(a == b)


def _comparable(items: list[Any]) -> list[Any]:
    _expect(isinstance(items, list))
    kinds = {type(i) for i in items}
    numeric = kinds <= {int, float}
    _expect(numeric or len(kinds) <= 1)
    _expect(all(isinstance(i, (int, float, str, bytes)) and not isinstance(i, bool) for i in items)
            or all(isinstance(i, bool) for i in items))
    return items


def _is_sorted(items: list[Any]) -> bool:
    items = _comparable(items)
    return all(items[i] <= items[i + 1] for i in range(len(items) - 1))


def _sum(items: list[Any]) -> Any:
    _expect(isinstance(items, list) and all(isinstance(i, (int, float)) and not isinstance(i, bool) for i in items))
    total = sum(items) if items else 0
    if _is_int(total) and not -(2**63) <= total < 2**63:
        raise LibraryError("integer overflow")
    return total


def _extreme(pick: Callable[..., Any]) -> Callable[[list[Any]], Any]:
    def extreme(items: list[Any]) -> Any:
        items = _comparable(items)
        if not items:
            raise LibraryError(f"{pick.__name__}(list) argument must not be empty")
        return pick(items)
    return extreme


# --- cel-go's ext.Lists and ext.Sets -----------------------------------------------------------

def _reverse(items: list[Any]) -> list[Any]:
    _expect(isinstance(items, list))
    return items[::-1]


def _sort(items: list[Any]) -> list[Any]:
    """cel-go's ``l.sort()``: ``l`` sorted by itself (``_sorted_by``)."""
    _expect(isinstance(items, list))
    return _sorted_by(items, items)


#: The Python types of the values cel-go orders (its ``traits.Comparer``s: int, uint, double,
#: bool, string, bytes, timestamp, duration); a key of another type is no sort key.
_ORDERED_TYPES = (int, float, str, bytes, datetime.datetime, datetime.timedelta)


def _sort_by_receiver(value: Any) -> list[Any]:
    """``sortBy``'s receiver, which cel-go's sort takes only a list for (a map's keys are mapped
    to keys but not sorted)."""
    if not isinstance(value, list):
        raise LibraryError(f"{_NO_OVERLOAD}: @sortByAssociatedKeys")
    return value


def _sort_by_keys(pairs: list[list[Any]]) -> list[Any]:
    """``sortBy``'s result from the [element, key] pairs the engine's rewriting maps the list to
    (cel-go's ``@sortByAssociatedKeys`` of the list and its keys)."""
    _expect(isinstance(pairs, list))
    return _sorted_by([element for element, _key in pairs], [key for _element, key in pairs])


def _sorted_by(elements: list[Any], keys: list[Any]) -> list[Any]:
    """``elements`` in the order of their ``keys``, as Go's ``sort.Slice`` leaves them
    (``gosort``: elements of equal keys keep their order up to 12 elements, not always past
    that), cel-go's ``sortListByAssociatedKeys``: the first key must be orderable, every key
    then of its type (cel-go compares each key with another, failing on a key of another type;
    a single key is never compared)."""
    if not keys:
        return []
    first = type(keys[0])
    if not issubclass(first, _ORDERED_TYPES):
        raise LibraryError("list elements must be comparable")
    if any(type(key) is not first for key in keys):
        raise LibraryError("list elements must have the same type")
    return [elements[index] for index in slice_order(keys, operator.lt)]


def _distinct(items: list[Any]) -> list[Any]:
    _expect(isinstance(items, list))
    out: list[Any] = []
    for item in items:
        if not any(_equal(item, seen) for seen in out):
            out.append(item)
    return out


def _flatten(items: list[Any], depth: int = 1) -> list[Any]:
    _expect(isinstance(items, list) and _is_int(depth))
    if depth < 0:
        raise LibraryError("level must be non-negative")
    out: list[Any] = []
    for item in items:
        if isinstance(item, list) and depth > 0:
            out += _flatten(item, depth - 1)
        else:
            out.append(item)
    return out


def _slice(items: list[Any], start: int, end: int) -> list[Any]:
    _expect(isinstance(items, list) and _is_int(start) and _is_int(end))
    if start < 0 or end < 0:
        raise LibraryError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise LibraryError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if end > len(items):
        raise LibraryError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return items[start:end]


def _first(items: list[Any]) -> Any:
    _expect(isinstance(items, list))
    return _some(items[0]) if items else _none()


def _last(items: list[Any]) -> Any:
    _expect(isinstance(items, list))
    return _some(items[-1]) if items else _none()


def _range(count: int) -> list[int]:
    _expect(_is_int(count))
    return list(range(count))


def _unwrap_optionals(function: str) -> Callable[[list[Any]], list[Any]]:
    """cel-go's ``optional.unwrap(l)`` and ``l.unwrapOpt()`` (``function``): the values of the
    optionals of ``l`` that have one. cel-go's runtime overload check takes a list whose first
    element is an optional for a list of optionals (``no such overload`` otherwise); the
    function then fails on any later element that is no optional."""
    def unwrap(items: list[Any]) -> list[Any]:
        _expect(isinstance(items, list))
        if items and not _is_optional(items[0]):
            raise LibraryError(f"{_NO_OVERLOAD}: {function}(list)")
        for item in items:
            if not _is_optional(item):
                raise LibraryError(f"value {_go_text(item)} is not optional")
        return [item.value() for item in items if item.has_value()]
    return unwrap


def _sets_contains(items: list[Any], wanted: list[Any]) -> bool:
    _expect(isinstance(items, list) and isinstance(wanted, list))
    return all(any(_equal(item, have) for have in items) for item in wanted)


def _sets_intersects(items: list[Any], other: list[Any]) -> bool:
    _expect(isinstance(items, list) and isinstance(other, list))
    return any(any(_equal(item, have) for have in items) for item in other)


# --- regex (library/regex.go) ------------------------------------------------------------------

def _compile_regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as error:
        raise LibraryError(f"error parsing regexp: {error}") from None


def _find(text: str, pattern: str) -> str:
    _expect(_is_string(text) and _is_string(pattern))
    match = _compile_regex(pattern).search(text)
    return match.group() if match else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    _expect(_is_string(text) and _is_string(pattern) and _is_int(limit))
    if limit == 0:
        return []
    found = [m.group() for m in _compile_regex(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


# --- kube's types: Quantity, IP, CIDR, URL ----------------------------------------------------

_QUANTITY, _IP, _CIDR, _URL = "@kubernetes.Quantity", "@net.IP", "@net.IPNet", "@kubernetes.URL"
_SEMVER = "@kubernetes.Semver"


def _wrapped(kind: str, value: Any) -> str:
    _expect(isinstance(value, dict) and list(value) == [kind])
    return value[kind]


def _parse_quantity(text: str) -> quantities.Quantity:
    try:
        return quantities.parse(text)
    except quantities.QuantityError as error:
        raise LibraryError(str(error)) from None


def _quantity(text: str) -> dict[str, str]:
    _expect(_is_string(text))
    return {_QUANTITY: str(_parse_quantity(text))}


def _is_quantity(text: str) -> bool:
    _expect(_is_string(text))
    try:
        quantities.parse(text)
    except quantities.QuantityError:
        return False
    return True


def _q(value: Any) -> quantities.Quantity:
    return quantities.parse(_wrapped(_QUANTITY, value))


def _q_or_int(value: Any) -> quantities.Quantity:
    if _is_int(value):
        return quantities.Quantity(value, 0, quantities.DECIMAL_SI)
    return _q(value)


def _compare_to(a: Any, b: Any) -> int:
    """``compareTo`` of two quantities or two semvers (one name, two receivers)."""
    if isinstance(a, dict) and _SEMVER in a:
        return _semver_cmp(_the_semver(a), _the_semver(b))
    return _q(a).cmp(_q(b))


def _quantity_add(a: Any, b: Any) -> dict[str, str]:
    return {_QUANTITY: str(_q(a) + _q_or_int(b))}


def _quantity_sub(a: Any, b: Any) -> dict[str, str]:
    other = _q_or_int(b)
    return {_QUANTITY: str(_q(a) + quantities.Quantity(-other.unscaled, other.scale, other.format))}


def _as_integer(a: Any) -> int:
    value = _q(a)
    whole = value.value()
    if value.as_fraction() != whole or not -(2**63) <= whole < 2**63:
        raise LibraryError("cannot convert value to integer")
    return whole


def _is_integer(a: Any) -> bool:
    value = _q(a)
    return value.as_fraction().denominator == 1 and -(2**63) <= value.value() < 2**63


_SEMVER_PATTERN = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?")


def _normalized_semver(text: str) -> str:
    """``semver(s, true)``'s tolerance: a leading ``v`` dropped, missing minor and patch as 0,
    leading zeros of the numbers dropped."""
    text = text.removeprefix("v")
    core, sep, rest = text.partition("-") if "-" in text.split("+")[0] else text.partition("+")
    numbers = core.split(".")
    numbers += ["0"] * (3 - len(numbers))
    numbers = [n.lstrip("0") or "0" if n.isdigit() else n for n in numbers]
    return ".".join(numbers) + sep + rest


def _parse_semver(text: str, normalize: bool = False) -> tuple[int, int, int, tuple[str, ...]] | None:
    match = _SEMVER_PATTERN.fullmatch(_normalized_semver(text) if normalize else text)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3)), tuple((match.group(4) or "").split(".")) if match.group(4) else ()


def _semver(text: str, normalize: bool = False) -> dict[str, str]:
    _expect(_is_string(text) and isinstance(normalize, bool))
    parsed = _parse_semver(text, normalize)
    if parsed is None:
        raise LibraryError(f"could not parse {text!r} as semver".replace("'", '"'))
    return {_SEMVER: _normalized_semver(text) if normalize else text}


def _is_semver(text: str, normalize: bool = False) -> bool:
    _expect(_is_string(text) and isinstance(normalize, bool))
    return _parse_semver(text, normalize) is not None


def _the_semver(value: Any) -> tuple[int, int, int, tuple[str, ...]]:
    parsed = _parse_semver(_wrapped(_SEMVER, value))
    _expect(parsed is not None)
    return parsed  # type: ignore[return-value]


def _semver_cmp(a: tuple[int, int, int, tuple[str, ...]], b: tuple[int, int, int, tuple[str, ...]]) -> int:
    """Semantic versioning's precedence: numbers, then a pre-release below its release, its
    identifiers compared numerically or lexically, numeric ones lower."""
    if a[:3] != b[:3]:
        return -1 if a[:3] < b[:3] else 1
    if a[3] == b[3]:
        return 0
    if not a[3] or not b[3]:
        return 1 if not a[3] else -1
    for x, y in zip(a[3], b[3]):
        if x == y:
            continue
        if x.isdigit() and y.isdigit():
            return -1 if int(x) < int(y) else 1
        if x.isdigit() != y.isdigit():
            return -1 if x.isdigit() else 1
        return -1 if x < y else 1
    return (len(a[3]) > len(b[3])) - (len(a[3]) < len(b[3]))


def _ip_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``netip.ParseAddr`` without zones, and no IPv4-mapped IPv6 (kube's ``ip()`` refuses both)."""
    if "%" in text:
        return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return None
    return address


def _ip(text: Any) -> dict[str, str]:
    """``ip(string)``, and ``cidr.ip()`` (the address of a CIDR: same name, other receiver)."""
    if isinstance(text, dict) and _CIDR in text:
        return {_IP: str(_the_cidr(text).ip)}
    _expect(_is_string(text))
    address = _ip_address(text)
    if address is None:
        raise LibraryError(f"IP Address {text!r} parse error during conversion from string: ParseAddr({text!r}): invalid IP address".replace("'", '"'))
    return {_IP: str(address)}


def _is_ip(text: str) -> bool:
    _expect(_is_string(text))
    return _ip_address(text) is not None


def _ip_is_canonical(text: str) -> bool:
    _expect(_is_string(text))
    address = _ip_address(text)
    if address is None:
        raise LibraryError(f'IP Address "{text}" parse error during conversion from string: ParseAddr("{text}"): invalid IP address')
    return str(address) == text


def _the_ip(value: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(_wrapped(_IP, value))


def _family(value: Any) -> int:
    if isinstance(value, dict) and _CIDR in value:
        return ipaddress.ip_network(value[_CIDR], strict=False).version
    return _the_ip(value).version


def _cidr_network(text: str) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface | None:
    if "/" not in text:
        return None
    address, _slash, bits = text.partition("/")
    if _ip_address(address) is None or not bits.isdigit() or (len(bits) > 1 and bits[0] == "0"):
        return None
    try:
        return ipaddress.ip_interface(text)
    except ValueError:
        return None


def _cidr(text: str) -> dict[str, str]:
    _expect(_is_string(text))
    if _cidr_network(text) is None:
        raise LibraryError(f'network address "{text}" parse error during conversion from string: netip.ParsePrefix("{text}"): bad prefix')
    return {_CIDR: text}


def _is_cidr(text: str) -> bool:
    _expect(_is_string(text))
    return _cidr_network(text) is not None


def _the_cidr(value: Any) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    network = _cidr_network(_wrapped(_CIDR, value))
    _expect(network is not None)
    return network  # type: ignore[return-value]


def _contains_ip(cidr: Any, ip: Any) -> bool:
    network = _the_cidr(cidr).network
    address = _ip_address(ip) if _is_string(ip) else _the_ip(ip)
    _expect(address is not None)
    return address.version == network.version and address in network


def _contains_cidr(cidr: Any, other: Any) -> bool:
    network = _the_cidr(cidr).network
    inner = (_cidr_network(other) if _is_string(other) else _the_cidr(other))
    _expect(inner is not None)
    return inner.network.version == network.version and inner.network.subnet_of(network)  # type: ignore[arg-type]


def _prefix_length(cidr: Any) -> int:
    return _the_cidr(cidr).network.prefixlen


def _masked(cidr: Any) -> dict[str, str]:
    return {_CIDR: str(_the_cidr(cidr).network)}


def _ip_predicate(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    def predicate(value: Any) -> bool:
        return check(_the_ip(value))
    return predicate


def _url(text: str) -> dict[str, str]:
    _expect(_is_string(text))
    if not _is_url(text):
        raise LibraryError(f"URL parse error during conversion from string: parse \"{text}\": invalid URI for request")
    return {_URL: text}


def _is_url(text: str) -> bool:
    """``url.ParseRequestURI``: an absolute URL or an absolute path."""
    _expect(_is_string(text))
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return bool(parts.scheme) or text.startswith("/")


def _url_part(pick: Callable[[Any], str]) -> Callable[[Any], str]:
    def part(value: Any) -> str:
        return pick(urlsplit(_wrapped(_URL, value)))
    return part


def _host(parts: Any) -> str:
    host = parts.netloc.rpartition("@")[2]
    if host.startswith("["):
        return host[:host.find("]") + 1]
    return host.partition(":")[0]


def _port(parts: Any) -> str:
    host = parts.netloc.rpartition("@")[2]
    if host.startswith("["):
        rest = host[host.find("]") + 1:]
        return rest[1:] if rest.startswith(":") else ""
    return host.partition(":")[2]


# --- format (library/format.go) ---------------------------------------------------------------

def _mask_trailing_dash(name: str) -> str:
    """apimachinery's ``maskTrailingDash`` (a generateName prefix may end with ``-``); it drops
    the last two characters for an ``a``, as kube does."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def _uri_errors(text: str) -> list[str]:
    return [] if _is_url(text) else [f'parse "{text}": invalid URI for request']


_FORMAT = "@kubernetes.Format"
#: ``ConstantFormats``: each named format's validation (messages are kube's).
_FORMAT_VALIDATIONS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": validation.is_dns1123_label,
    "dns1123Subdomain": validation.is_dns1123_subdomain,
    "dns1035Label": validation.is_dns1035_label,
    "qualifiedName": validation.is_qualified_name,
    "dns1123LabelPrefix": lambda s: validation.is_dns1123_label(_mask_trailing_dash(s)),
    "dns1123SubdomainPrefix": lambda s: validation.is_dns1123_subdomain(_mask_trailing_dash(s)),
    "dns1035LabelPrefix": lambda s: validation.is_dns1035_label(_mask_trailing_dash(s)),
    "labelValue": validation.is_valid_label_value,
    "uri": _uri_errors,
    "uuid": lambda s: [] if strfmt.FORMATS["uuid"](s) else ["does not match the UUID format"],
    "byte": lambda s: [] if strfmt.is_base64(s) else ["invalid base64"],
    "date": lambda s: [] if strfmt.is_date(s) else ["invalid date"],
    "datetime": lambda s: [] if strfmt.is_date_time(s) else ["invalid datetime"],
}


def _format_named(name: str) -> Any:
    _expect(_is_string(name))
    return _some({_FORMAT: name}) if name in _FORMAT_VALIDATIONS else _none()


def _format_validate(named: Any, text: str) -> Any:
    """``<Format>.validate(s)``: none when ``s`` is valid, else the list of kube's messages."""
    _expect(_is_string(text))
    errors = _FORMAT_VALIDATIONS[_wrapped(_FORMAT, named)](text)
    return _some(list(errors)) if errors else _none()


def _sign_of(value: Any) -> int:
    return _q(value).sign()


# --- optional field and index (what ``x.?f`` and ``x[?k]`` are rewritten to, see engine) -----

def _optional_receiver(receiver: Any) -> tuple[bool, Any]:
    if _is_optional(receiver):
        return (True, receiver.value()) if receiver.has_value() else (False, None)
    return True, receiver


def _opt_field(receiver: Any, name: str) -> Any:
    """``x.?f``: ``f`` of an object or map as an optional (none when absent)."""
    present, value = _optional_receiver(receiver)
    if present and isinstance(value, dict) and name in value:
        return _some(value[name])
    _expect(not present or isinstance(value, dict))
    return _none()


def _opt_index(receiver: Any, key: Any) -> Any:
    """``x[?k]``: a list's element or a map's value as an optional (none when absent)."""
    present, value = _optional_receiver(receiver)
    if not present:
        return _none()
    if isinstance(value, list):
        _expect(_is_int(key))
        return _some(value[key]) if 0 <= key < len(value) else _none()
    _expect(isinstance(value, dict))
    return _some(value[key]) if key in value else _none()


# --- what two-variable comprehensions are rewritten to (see engine) --------------------------

def _entries(receiver: Any) -> list[list[Any]]:
    """A map's [key, value] pairs, a list's [index, element] pairs."""
    if isinstance(receiver, dict):
        return [[key, value] for key, value in receiver.items()]
    _expect(isinstance(receiver, list))
    return [[index, value] for index, value in enumerate(receiver)]


def _pairs_to_map(pairs: list[list[Any]]) -> dict[Any, Any]:
    return {key: value for key, value in pairs}


def _merge_maps(maps: list[dict[Any, Any]]) -> dict[Any, Any]:
    """``transformMapEntry``'s result: the entries' maps merged; a key twice is an error."""
    merged: dict[Any, Any] = {}
    for entry in maps:
        _expect(isinstance(entry, dict))
        for key, value in entry.items():
            if key in merged:
                raise LibraryError(f"insert failed: key {key} already exists")
            merged[key] = value
    return merged


# --- optional entries of list and map literals, optMap and optFlatMap (see engine) -----------

def _go_text(value: Any) -> str:
    """Go's ``%v`` of a CEL value, as cel-go's error texts show it (a double's shortest digits
    as Python writes them, but for a whole one's ``.0``, which Go leaves out)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if isinstance(value, list):
        return "[" + ", ".join(_go_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_go_text(key)}: {_go_text(item)}" for key, item in value.items()) + "}"
    return "0" if value is None else str(value)  # cel-go's null is a protobuf enum's zero value


def _optional_elements(elements: list[Any], optional_indices: list[int]) -> list[Any]:
    """``[a, ?b]``: the list literal's ``elements``, each at ``optional_indices`` (an optional)
    its value, or left out when it has none (cel-go's ``evalList``)."""
    kept = []
    for index, element in enumerate(elements):
        if index not in optional_indices:
            kept.append(element)
        elif not _is_optional(element):
            raise LibraryError(f"cannot initialize optional list element from non-optional value {_go_text(element)}")
        elif element.has_value():
            kept.append(element.value())
    return kept


def _optional_entries(keys_and_values: list[Any], optional_indices: list[int]) -> dict[Any, Any]:
    """``{k: v, ?q: w}``: the map of the literal's keys and values (``[k, v, q, w]``), each
    entry at ``optional_indices`` (of an optional) set to its value, or removing its key when
    it has none (cel-go's ``evalMap``: a later entry replaces an earlier one of the same key)."""
    entries: dict[Any, Any] = {}
    for index in range(len(keys_and_values) // 2):
        key, value = keys_and_values[2 * index], keys_and_values[2 * index + 1]
        _expect(isinstance(key, (str, int)))  # a key of another type is refused, as the engine's literals refuse it
        if index not in optional_indices:
            entries[key] = value
        elif not _is_optional(value):
            raise LibraryError(f"cannot initialize optional entry '{_go_text(key)}' from non-optional value {_go_text(value)}")
        elif value.has_value():
            entries[key] = value.value()
        else:
            entries.pop(key, None)
    return entries


def _optional_values(receiver: Any) -> list[Any]:
    """An optional as the list ``optMap`` and ``optFlatMap`` map over: [its value], or []."""
    _expect(_is_optional(receiver))
    return [receiver.value()] if receiver.has_value() else []


def _opt_map_result(mapped: list[Any]) -> Any:
    """``optMap``'s result from its mapped ``_optional_values``: an optional of the value."""
    return _some(mapped[0]) if mapped else _none()


def _opt_flat_map_result(mapped: list[Any]) -> Any:
    """``optFlatMap``'s: the optional mapped (cel-go's checker has found it one), or none. The
    engine's ``map`` yields the value of an optional that has one, not the optional: a value
    that is no optional is such a value, its optional made again."""
    if not mapped:
        return _none()
    return mapped[0] if _is_optional(mapped[0]) else _some(mapped[0])


def _size_in_code_points(value: Any) -> int:
    """CEL's ``size``: a string's code points, bytes', a list's elements, a map's entries."""
    _expect(isinstance(value, (str, bytes, list, dict)))
    return len(value)


def _string_of_bool(value: Any) -> str:
    """CEL's ``string(bool)``, which the engine lacks (it calls a library ``string`` only for
    the overloads it has not): ``"true"`` or ``"false"``."""
    _expect(isinstance(value, bool))
    return "true" if value else "false"


#: The functions by the name expressions call them with.
KUBE_LIBRARY: dict[str, Callable[..., Any]] = {
    # optional syntax
    "_optField": _opt_field, "_optIndex": _opt_index, "_sizeInCodePoints": _size_in_code_points,
    "_entries": _entries, "_pairsToMap": _pairs_to_map, "_mergeMaps": _merge_maps,
    "_optionalElements": _optional_elements, "_optionalEntries": _optional_entries,
    "_optionalValues": _optional_values, "_optMapResult": _opt_map_result, "_optFlatMapResult": _opt_flat_map_result,
    # conversions the engine lacks
    "string": _string_of_bool,
    # strings
    "charAt": _char_at, "indexOf": _index_of, "lastIndexOf": _last_index_of,
    "lowerAscii": _ascii_case(str.lower), "upperAscii": _ascii_case(str.upper), "replace": _replace,
    "split": _split, "substring": _substring, "trim": _trim, "join": _join,
    "format": _format, "strings.quote": _quote,
    # lists
    "isSorted": _is_sorted, "sum": _sum, "min": _extreme(min), "max": _extreme(max),
    # ext.Lists, ext.Sets
    "reverse": _reverse, "sort": _sort, "distinct": _distinct, "flatten": _flatten, "slice": _slice,
    "first": _first, "last": _last, "lists.range": _range, "_sortByReceiver": _sort_by_receiver,
    "_sortByKeys": _sort_by_keys,
    "optional.unwrap": _unwrap_optionals("optional.unwrap"), "unwrapOpt": _unwrap_optionals("unwrapOpt"),
    "sets.contains": _sets_contains, "sets.equivalent": lambda a, b: _sets_contains(a, b) and _sets_contains(b, a),
    "sets.intersects": _sets_intersects,
    # regex
    "find": _find, "findAll": _find_all,
    # quantity
    "quantity": _quantity, "isQuantity": _is_quantity, "compareTo": _compare_to,
    "isGreaterThan": lambda a, b: _compare_to(a, b) > 0, "isLessThan": lambda a, b: _compare_to(a, b) < 0,
    # semver
    "semver": _semver, "isSemver": _is_semver, "major": lambda v: _the_semver(v)[0],
    "minor": lambda v: _the_semver(v)[1], "patch": lambda v: _the_semver(v)[2],
    "add": _quantity_add, "sub": _quantity_sub, "asInteger": _as_integer, "isInteger": _is_integer,
    "asApproximateFloat": lambda a: float(_q(a).as_fraction()), "sign": _sign_of,
    # ip and cidr
    "ip": _ip, "isIP": _is_ip, "ip.isCanonical": _ip_is_canonical, "family": _family,
    "isUnspecified": _ip_predicate(lambda a: a.is_unspecified), "isLoopback": _ip_predicate(lambda a: a.is_loopback),
    "isLinkLocalMulticast": _ip_predicate(lambda a: a.is_multicast and (
        a in ipaddress.ip_network("224.0.0.0/24") if a.version == 4 else a in ipaddress.ip_network("ff02::/16"))),
    "isLinkLocalUnicast": _ip_predicate(lambda a: a.is_link_local and not a.is_multicast),
    "isGlobalUnicast": _ip_predicate(lambda a: not (a.is_unspecified or a.is_loopback or a.is_multicast or a.is_link_local)
                                     and a != ipaddress.ip_address("255.255.255.255")),
    "cidr": _cidr, "isCIDR": _is_cidr, "containsIP": _contains_ip, "containsCIDR": _contains_cidr,
    "prefixLength": _prefix_length, "masked": _masked,
    # format
    "format.named": _format_named, "validate": _format_validate,
    **{f"format.{name}": (lambda constant: lambda: {_FORMAT: constant})(name) for name in _FORMAT_VALIDATIONS},
    # url
    "url": _url, "isURL": _is_url, "getScheme": _url_part(lambda p: p.scheme), "getHost": _url_part(lambda p: p.netloc.rpartition("@")[2]),
    "getHostname": _url_part(lambda p: (_host(p)[1:-1] if _host(p).startswith("[") else _host(p))),
    "getPort": _url_part(_port), "getEscapedPath": _url_part(lambda p: p.path),
    "getQuery": _url_part(lambda p: parse_qs(p.query, keep_blank_values=True)),
}
#: Namespaces of functions called as ``namespace.name(...)`` (the engine sees the namespace as
#: a variable reference).
NAMESPACES = frozenset(("optional", "strings", "ip", "lists", "sets", "format"))
