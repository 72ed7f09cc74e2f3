"""Generic validation, ported from apimachinery v0.35.4 with kube's exact messages:

* ``pkg/util/validation`` and ``pkg/api/validate/content`` (``is_*``): the format checks every
  group's validation builds on. They return Go's ``[]string`` of problems (empty: valid), except
  the IP/CIDR checks, which return field errors as upstream does.
* ``pkg/api/validation`` (``validate_object_meta``, ``validate_object_meta_update``, name rules,
  annotations, owner references, finalizers, immutable fields).
* ``pkg/apis/meta/v1/validation`` (labels, label selectors, managed fields, conditions).

Field paths are strings as ``field.Path.String()`` prints them (``spec.containers[0].name``,
``metadata.labels``); ``child``, ``index`` and ``key`` build them. Errors are
``fakeapi.machinery.status.FieldError`` tuples, in Go's order, so a 422 lists its causes as
kube's does. Map iteration is random in Go; here maps are walked in the JSON's order (no sort
on the hot path), so an object with one bad label gives kube's answer and one with several gives
one of kube's answers.

Lengths are in bytes, as Go's ``len`` of a string.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from .golang import go_quote
from .status import FieldError, forbidden_error, invalid_error, not_supported_error, required_error, too_long_error

Json = dict[str, Any]


# ----------------------------------------------------------------------------- field paths

def child(path: str, name: str, *more: str) -> str:
    """``fldPath.Child(name, ...)``."""
    path = f"{path}.{name}" if path else name
    for name in more:
        path = f"{path}.{name}"
    return path


def index(path: str, i: int) -> str:
    """``fldPath.Index(i)``."""
    return f"{path}[{i}]"


def key(path: str, name: str) -> str:
    """``fldPath.Key(name)``."""
    return f"{path}[{name}]"


def byte_len(text: str) -> int:
    """Go's ``len`` of a string: its UTF-8 length."""
    return len(text) if text.isascii() else len(text.encode())


# ----------------------------------------------------------------------------- messages

def max_len_error(length: int) -> str:
    """``validation.MaxLenError`` (util/validation: characters)."""
    return f"must be no more than {length} characters"


def max_bytes_error(length: int) -> str:
    """``content.MaxLenError`` (api/validate/content, which label keys and values use: bytes)."""
    return f"must be no more than {length} bytes"


def regex_error(message: str, regex: str, *examples: str) -> str:
    """``validation.RegexError`` (the ``'x',  or`` double space is upstream's)."""
    if not examples:
        return f"{message} (regex used for validation is '{regex}')"
    return message + " (e.g. " + " or ".join(f"'{e}', " for e in examples) + f"regex used for validation is '{regex}')"


def empty_error() -> str:
    return "must be non-empty"


def inclusive_range_error(low: int, high: int) -> str:
    return f"must be between {low} and {high}, inclusive"


def invalid_json(field: str, value: Any, detail: str) -> FieldError:
    """``field.Invalid`` of a value that is neither a string nor a number: ``ErrorBody`` prints
    it as ``json.Marshal`` does. ``value`` is built in the Go type's field order (structs) or
    with sorted keys (maps); HTML characters are escaped as Go does."""
    text = orjson.dumps(value).decode()
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    body = f"Invalid value: {text}"
    return field, "FieldValueInvalid", f"{body}: {detail}" if detail else body


# ----------------------------------------------------------------------------- util/validation

_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL)
_DNS1123_LABEL_MESSAGE = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                          "and must start and end with an alphanumeric character")
_DNS1123_SUBDOMAIN = _DNS1123_LABEL + "(\\." + _DNS1123_LABEL + ")*"
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN)
_DNS1123_SUBDOMAIN_MESSAGE = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                              "'-' or '.', and must start and end with an alphanumeric character")
_DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL)
_DNS1035_LABEL_MESSAGE = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                          "alphabetic character, and end with an alphanumeric character")
_WILDCARD_DNS1123_SUBDOMAIN = "\\*\\." + _DNS1123_SUBDOMAIN
_WILDCARD_DNS1123_SUBDOMAIN_RE = re.compile(_WILDCARD_DNS1123_SUBDOMAIN)
_WILDCARD_MESSAGE = ("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which "
                     "must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric "
                     "character")
DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1035_LABEL_MAX_LENGTH = 63

_DNS1123_LABEL_ERROR = regex_error(_DNS1123_LABEL_MESSAGE, _DNS1123_LABEL, "my-name", "123-abc")
_DNS1123_SUBDOMAIN_ERROR = regex_error(_DNS1123_SUBDOMAIN_MESSAGE, _DNS1123_SUBDOMAIN, "example.com")
_DNS1035_LABEL_ERROR = regex_error(_DNS1035_LABEL_MESSAGE, _DNS1035_LABEL, "my-name", "abc-123")


def is_dns1123_label(value: str) -> list[str]:
    """``IsDNS1123Label``."""
    errors = [max_len_error(DNS1123_LABEL_MAX_LENGTH)] if byte_len(value) > DNS1123_LABEL_MAX_LENGTH else []
    if not _DNS1123_LABEL_RE.fullmatch(value):
        # A valid subdomain that is not a label (the length is checked already): it has dots.
        errors.append("must not contain dots" if _DNS1123_SUBDOMAIN_RE.fullmatch(value) else _DNS1123_LABEL_ERROR)
    return errors


def is_dns1123_subdomain(value: str) -> list[str]:
    """``IsDNS1123Subdomain``."""
    errors = [max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH)] if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH else []
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errors.append(_DNS1123_SUBDOMAIN_ERROR)
    return errors


def is_dns1035_label(value: str) -> list[str]:
    """``IsDNS1035Label``."""
    errors = [max_len_error(DNS1035_LABEL_MAX_LENGTH)] if byte_len(value) > DNS1035_LABEL_MAX_LENGTH else []
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errors.append(_DNS1035_LABEL_ERROR)
    return errors


def is_wildcard_dns1123_subdomain(value: str) -> list[str]:
    """``IsWildcardDNS1123Subdomain``."""
    errors = [max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH)] if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH else []
    if not _WILDCARD_DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errors.append(regex_error(_WILDCARD_MESSAGE, _WILDCARD_DNS1123_SUBDOMAIN, "*.example.com"))
    return errors


def is_long_name(value: str) -> list[str]:
    """``content.IsDNS1123Subdomain`` (declarative validation's ``LongName``): a DNS subdomain,
    its length given in bytes."""
    errors = [max_bytes_error(DNS1123_SUBDOMAIN_MAX_LENGTH)] if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH else []
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errors.append(_DNS1123_SUBDOMAIN_ERROR)
    return errors


def is_fully_qualified_name(path: str, name: str) -> list[FieldError]:
    """``IsFullyQualifiedName``: a subdomain of at least three segments."""
    if not name:
        return [required_error(path)]
    if errors := is_dns1123_subdomain(name):
        return [invalid_error(path, name, ",".join(errors))]
    if len(name.split(".")) < 3:
        return [invalid_error(path, name, "should be a domain with at least three segments separated by dots")]
    return []


def is_fully_qualified_domain_name(path: str, name: str) -> list[FieldError]:
    """``IsFullyQualifiedDomainName``: a subdomain of at least two labels, a final ``.`` allowed."""
    if not name:
        return [required_error(path)]
    name = name.removesuffix(".")
    if errors := is_dns1123_subdomain(name):
        return [invalid_error(path, name, ",".join(errors))]
    if len(name.split(".")) < 2:
        return [invalid_error(path, name, "should be a domain with at least two segments separated by dots")]
    for label in name.split("."):
        if errors := is_dns1123_label(label):
            return [invalid_error(path, label, ",".join(errors))]
    return []


_HTTP_PATH = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH_RE = re.compile(_HTTP_PATH)


def is_domain_prefixed_path(path: str, value: str) -> list[FieldError]:
    """``IsDomainPrefixedPath``: ``acme.io/foo``."""
    if not value:
        return [required_error(path)]
    segments = value.split("/", 1)
    if len(segments) != 2 or not segments[0] or not segments[1]:
        return [invalid_error(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    host, rest = segments
    errors = [invalid_error(path, host, e) for e in is_dns1123_subdomain(host)]
    if not _HTTP_PATH_RE.fullmatch(rest):
        errors.append(invalid_error(path, rest, regex_error("Invalid path", _HTTP_PATH)))
    return errors


_LABEL_KEY_NAME = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_NAME_RE = re.compile(_LABEL_KEY_NAME)
_LABEL_KEY_MESSAGE = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                      "alphanumeric character")
_LABEL_KEY_NAME_ERROR = "name part " + regex_error(_LABEL_KEY_MESSAGE, _LABEL_KEY_NAME, "MyName", "my.name", "123-abc")
_LABEL_KEY_SHAPE_ERROR = ("a valid label key " + regex_error(_LABEL_KEY_MESSAGE, _LABEL_KEY_NAME, "MyName", "my.name",
                                                             "123-abc")
                          + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
_LABEL_VALUE = f"({_LABEL_KEY_NAME})?"
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE)
_LABEL_VALUE_ERROR = regex_error(
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character", _LABEL_VALUE, "MyValue", "my_value", "12345")
LABEL_VALUE_MAX_LENGTH = 63
_LABEL_KEY_NAME_MAX_LENGTH = 63
#: Label keys and values repeat across objects (``app``, ``app.kubernetes.io/name``): their
#: verdicts are remembered, up to a bound.
_VERDICT_CACHE_LIMIT = 4096
_label_key_verdicts: dict[str, tuple[str, ...]] = {}
_label_value_verdicts: dict[str, tuple[str, ...]] = {}


def _remember(cache: dict[str, tuple[str, ...]], value: str, verdict: list[str]) -> list[str]:
    if len(cache) >= _VERDICT_CACHE_LIMIT:
        cache.clear()
    cache[value] = tuple(verdict)
    return verdict


def is_qualified_name(value: str) -> list[str]:
    """``IsQualifiedName`` = ``content.IsLabelKey``: an optional DNS subdomain prefix and ``/``,
    then a name of at most 63 bytes."""
    known = _label_key_verdicts.get(value)
    if known is not None:
        return list(known)
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part " + empty_error())
        else:
            errors += ["prefix part " + message for message in is_long_name(prefix)]
    else:
        return _remember(_label_key_verdicts, value, [_LABEL_KEY_SHAPE_ERROR])
    if not name:
        errors.append("name part " + empty_error())
    elif byte_len(name) > _LABEL_KEY_NAME_MAX_LENGTH:
        errors.append("name part " + max_bytes_error(_LABEL_KEY_NAME_MAX_LENGTH))
    if not _LABEL_KEY_NAME_RE.fullmatch(name):
        errors.append(_LABEL_KEY_NAME_ERROR)
    return _remember(_label_key_verdicts, value, errors)


def is_valid_label_value(value: str) -> list[str]:
    """``IsValidLabelValue`` = ``content.IsLabelValue``."""
    known = _label_value_verdicts.get(value)
    if known is not None:
        return list(known)
    errors = [max_bytes_error(LABEL_VALUE_MAX_LENGTH)] if byte_len(value) > LABEL_VALUE_MAX_LENGTH else []
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(_LABEL_VALUE_ERROR)
    return _remember(_label_value_verdicts, value, errors)


_C_IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_RE = re.compile(_C_IDENTIFIER)


def is_c_identifier(value: str) -> list[str]:
    """``IsCIdentifier``."""
    if _C_IDENTIFIER_RE.fullmatch(value):
        return []
    return [regex_error("a valid C identifier must start with alphabetic character or '_', followed by a string of "
                        "alphanumeric characters or '_'", _C_IDENTIFIER, "my_name", "MY_NAME", "MyName")]


def is_valid_port_num(port: int) -> list[str]:
    """``IsValidPortNum``: 1-65535."""
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


def is_in_range(value: int, low: int, high: int) -> list[str]:
    return [] if low <= value <= high else [inclusive_range_error(low, high)]


_MAX_ID = 2**31 - 1


def is_valid_group_id(gid: int) -> list[str]:
    return [] if 0 <= gid <= _MAX_ID else [inclusive_range_error(0, _MAX_ID)]


def is_valid_user_id(uid: int) -> list[str]:
    return [] if 0 <= uid <= _MAX_ID else [inclusive_range_error(0, _MAX_ID)]


_PORT_NAME_CHARSET_RE = re.compile("[-a-z0-9]+")
_PORT_NAME_LETTER_RE = re.compile("[a-z]")


def is_valid_port_name(port: str) -> list[str]:
    """``IsValidPortName``: an IANA_SVC_NAME (at most 15 characters of ``[-a-z0-9]``, a letter,
    no ``--``, no hyphen at either end)."""
    errors = [max_len_error(15)] if byte_len(port) > 15 else []
    if not _PORT_NAME_CHARSET_RE.fullmatch(port):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER_RE.search(port):
        errors.append("must contain at least one letter (a-z)")
    if "--" in port:
        errors.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errors.append("must not begin or end with a hyphen")
    return errors


_PERCENT = "[0-9]+%"
_PERCENT_RE = re.compile(_PERCENT)


def is_valid_percent(percent: str) -> list[str]:
    if _PERCENT_RE.fullmatch(percent):
        return []
    return [regex_error("a valid percent string must be a numeric string followed by an ending '%'", _PERCENT,
                        "1%", "93%")]


_HTTP_HEADER_NAME = "[-A-Za-z0-9]+"
_HTTP_HEADER_NAME_RE = re.compile(_HTTP_HEADER_NAME)


def is_http_header_name(value: str) -> list[str]:
    if _HTTP_HEADER_NAME_RE.fullmatch(value):
        return []
    return [regex_error("a valid HTTP header must consist of alphanumeric characters or '-'", _HTTP_HEADER_NAME,
                        "X-Header-Name")]


_ENV_VAR_NAME = "[-._a-zA-Z][-._a-zA-Z0-9]*"
_ENV_VAR_NAME_RE = re.compile(_ENV_VAR_NAME)


def _chdir_prefix_errors(value: str) -> list[str]:
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


def is_env_var_name(value: str) -> list[str]:
    """``IsEnvVarName`` (the strict rule, before RelaxedEnvironmentVariableValidation)."""
    errors = [] if _ENV_VAR_NAME_RE.fullmatch(value) else [regex_error(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and "
        "must not start with a digit", _ENV_VAR_NAME, "my.env-name", "MY_ENV.NAME", "MyEnvName1")]
    return errors + _chdir_prefix_errors(value)


def is_relaxed_env_var_name(value: str) -> list[str]:
    """``IsRelaxedEnvVarName``: printable ASCII but ``=``."""
    errors = ["environment variable name " + empty_error()] if not value else []
    if any(char > "~" or char < " " or char == "=" for char in value):
        errors.append("a valid environment variable name must consist only of printable ASCII characters other "
                      "than '='")
    return errors


_CONFIG_MAP_KEY = "[-._a-zA-Z0-9]+"
_CONFIG_MAP_KEY_RE = re.compile(_CONFIG_MAP_KEY)


def is_config_map_key(value: str) -> list[str]:
    """``IsConfigMapKey``: the keys of ConfigMaps and Secrets."""
    errors = [max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH)] if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH else []
    if not _CONFIG_MAP_KEY_RE.fullmatch(value):
        errors.append(regex_error("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                                  _CONFIG_MAP_KEY, "key.name", "KEY_NAME", "key-name"))
    return errors + _chdir_prefix_errors(value)


# ----------------------------------------------------------------------------- IP addresses

_IPV4_SLOPPY = re.compile(r"([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})")
_IPV4_SLOPPY_TAIL = re.compile(r"(.*:)([0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})")
_IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _ipv4_sloppy(text: str) -> ipaddress.IPv4Address | None:
    """Go's ``net.ParseIP`` of dotted decimal (leading zeros are decimal, as ``ParseIPSloppy``)."""
    match = _IPV4_SLOPPY.fullmatch(text)
    if match is None:
        return None
    octets = [int(part) for part in match.groups()]
    if any(octet > 255 for octet in octets):
        return None
    return ipaddress.IPv4Address(bytes(octets))


def parse_ip_sloppy(text: str) -> _IPAddress | None:
    """``netutils.ParseIPSloppy``; an IPv4-mapped IPv6 address comes back as its IPv4 address
    (Go's ``net.IP`` does not tell them apart either). None: not an IP address."""
    if "." in text and ":" not in text:
        return _ipv4_sloppy(text)
    if ":" not in text or "%" in text:
        return None
    tail = _IPV4_SLOPPY_TAIL.fullmatch(text)
    if tail is not None:  # an embedded IPv4 address may have leading zeros too
        embedded = _ipv4_sloppy(tail.group(2))
        if embedded is None:
            return None
        text = tail.group(1) + str(embedded)
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        return None
    return address.ipv4_mapped or address


def go_ip_string(address: _IPAddress) -> str:
    """``net.IP.String()``: RFC 5952 for IPv6."""
    return address.compressed


def _strict_ip(text: str) -> _IPAddress | None:
    """``netip.ParseAddr``: no leading zeros; None where it fails."""
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _is_4in6(address: _IPAddress | None) -> bool:
    return isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None


def _parse_ip(path: str, value: str, strict: bool) -> tuple[_IPAddress | None, list[FieldError]]:
    address = parse_ip_sloppy(value)
    if address is None:
        return None, [invalid_error(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
    errors = []
    if strict:
        parsed = _strict_ip(value)
        if parsed is None:
            errors.append(invalid_error(path, value, "must not have leading 0s"))
        if _is_4in6(parsed):
            errors.append(invalid_error(path, value, "must not be an IPv4-mapped IPv6 address"))
    return address, errors


def is_valid_ip_for_legacy_field(path: str, value: str, strict: bool, valid_old_ips: Sequence[str] = ()) -> list[FieldError]:
    """``IsValidIPForLegacyField``: IP fields that accepted sloppy forms before (strict only
    when the StrictIPCIDRValidation gate is on, which it is not in 1.35)."""
    if value in valid_old_ips:
        return []
    return _parse_ip(path, value, strict)[1]


def is_valid_ip(path: str, value: str) -> list[FieldError]:
    """``IsValidIP``: strict and canonical."""
    address, errors = _parse_ip(path, value, True)
    if errors or address is None:
        return errors
    canonical = go_ip_string(address)
    if value != canonical:
        return [invalid_error(path, value, f"must be in canonical form ({go_quote(canonical)})")]
    return []


def warnings_for_ip(path: str, value: str) -> list[str]:
    """``GetWarningsForIP``: non-standard forms of an address that validated as a legacy field."""
    address = parse_ip_sloppy(value)
    if address is None:
        return []
    parsed = _strict_ip(value)
    if parsed is None or _is_4in6(parsed):
        return [f"{path}: non-standard IP address {go_quote(value)} will be considered invalid in a future "
                f"Kubernetes release: use {go_quote(go_ip_string(address))}"]
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.compressed != value:
        return [f"{path}: IPv6 address {go_quote(value)} should be in RFC 5952 canonical format "
                f"({go_quote(parsed.compressed)})"]
    return []


_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_cidr_sloppy(value: str) -> tuple[_IPAddress, _Network] | None:
    """``netutils.ParseCIDRSloppy``: the address and its network (host bits cleared)."""
    address_text, slash, length_text = value.partition("/")
    if not slash or not length_text.isdigit() or not length_text.isascii() or len(length_text) > 3:
        return None
    address = parse_ip_sloppy(address_text)
    if address is None:
        return None
    length = int(length_text)
    if isinstance(address, ipaddress.IPv4Address) and ":" in address_text:  # IPv4-mapped: 128-bit prefix
        if length > 128 or length < 96:
            return None if length > 128 else (address, ipaddress.IPv4Network("0.0.0.0/0"))
        length -= 96
    try:
        network = ipaddress.ip_network(f"{address}/{length}", strict=False)
    except ValueError:
        return None
    return address, network


def _parse_cidr(path: str, value: str, strict: bool) -> tuple[_Network | None, list[FieldError]]:
    parsed = parse_cidr_sloppy(value)
    if parsed is None:
        return None, [invalid_error(path, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")]
    address, network = parsed
    errors = []
    if strict:
        try:
            prefix = ipaddress.ip_network(value, strict=False)
            strict_address = ipaddress.ip_address(value.partition("/")[0])
        except ValueError:
            errors.append(invalid_error(path, value, "must not have leading 0s in IP or prefix length"))
        else:
            if value.partition("/")[2].startswith("0") and value.partition("/")[2] != "0":
                errors.append(invalid_error(path, value, "must not have leading 0s in IP or prefix length"))
            elif _is_4in6(strict_address):
                errors.append(invalid_error(path, value, "must not have an IPv4-mapped IPv6 address"))
            elif strict_address != prefix.network_address:
                errors.append(invalid_error(path, value, "must not have bits set beyond the prefix length"))
    return network, errors


def is_valid_cidr_for_legacy_field(path: str, value: str, strict: bool, valid_old_cidrs: Sequence[str] = ()) -> list[FieldError]:
    if value in valid_old_cidrs:
        return []
    return _parse_cidr(path, value, strict)[1]


def is_valid_cidr(path: str, value: str) -> list[FieldError]:
    """``IsValidCIDR``: strict and canonical."""
    network, errors = _parse_cidr(path, value, True)
    if errors or network is None:
        return errors
    if value != network.compressed:
        return [invalid_error(path, value, f"must be in canonical form ({go_quote(network.compressed)})")]
    return []


# ----------------------------------------------------------------------------- api/validation

#: ``FieldImmutableErrorMsg``.
FIELD_IMMUTABLE_ERROR_MSG = "field is immutable"
#: ``IsNegativeErrorMsg``.
IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024

#: ``ValidateNameFunc``: (name, prefix) -> problems; prefix when a suffix will be appended.
NameValidator = Callable[[str, bool], list[str]]


def _mask_trailing_dash(name: str) -> str:
    """``maskTrailingDash`` (upstream drops the character before the dash too)."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """``NameIsDNSSubdomain``: most kinds' names."""
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """``NameIsDNSLabel`` (= ``ValidateNamespaceName``)."""
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    """``NameIsDNS1035Label`` (Services)."""
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


validate_namespace_name = name_is_dns_label
validate_service_account_name = name_is_dns_subdomain


def validate_nonnegative_field(value: int, path: str) -> list[FieldError]:
    """``ValidateNonnegativeField``."""
    return [invalid_error(path, value, IS_NEGATIVE_ERROR_MSG)] if value < 0 else []


def validate_annotations(annotations: Mapping[str, str] | None, path: str) -> list[FieldError]:
    """``ValidateAnnotations``: keys are qualified names (in any case), 256 KiB in all."""
    if not annotations:
        return []
    errors = []
    total = 0
    for name in annotations:
        value = annotations[name]
        errors += [invalid_error(path, name, message) for message in is_qualified_name(name.lower())]
        total += byte_len(name) + (byte_len(value) if isinstance(value, str) else 0)
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errors.append(too_long_error(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errors


def _owner_reference_json(reference: Json) -> Json:
    """A ``metav1.OwnerReference`` as ``json.Marshal`` writes it (field order, omitempty)."""
    out: Json = {"apiVersion": reference.get("apiVersion") or "", "kind": reference.get("kind") or "",
                 "name": reference.get("name") or "", "uid": reference.get("uid") or ""}
    for name in ("controller", "blockOwnerDeletion"):
        if reference.get(name) is not None:
            out[name] = reference[name]
    return out


def validate_owner_references(references: Sequence[Json] | None, path: str) -> list[FieldError]:
    """``ValidateOwnerReferences``."""
    errors: list[FieldError] = []
    first_controller = ""
    for reference in references or ():
        api_version = reference.get("apiVersion") or ""
        group, _, version = api_version.rpartition("/") if "/" in api_version else ("", "", api_version)
        kind = reference.get("kind") or ""
        if not version:
            errors.append(invalid_error(child(path, "apiVersion"), api_version, "version must not be empty"))
        if not kind:
            errors.append(invalid_error(child(path, "kind"), kind, "must not be empty"))
        if not reference.get("name"):
            errors.append(invalid_error(child(path, "name"), reference.get("name") or "", "must not be empty"))
        if not reference.get("uid"):
            errors.append(invalid_error(child(path, "uid"), reference.get("uid") or "", "must not be empty"))
        if (group, version, kind) == ("", "v1", "Event"):
            errors.append(invalid_json(path, _owner_reference_json(reference),
                                       "/v1, Kind=Event is disallowed from being an owner"))
        if reference.get("controller"):
            current = f"{kind}/{reference.get('name') or ''}"
            if first_controller:
                errors.append(invalid_json(path, [_owner_reference_json(r) for r in references or ()], (
                    'Only one reference can have Controller set to true. Found "true" in references for '
                    f"{first_controller} and {current}")))
            else:
                first_controller = current
    return errors


#: The finalizer names kube itself uses without a ``/`` (``orphan``, ``foregroundDeletion``: the
#: garbage collector's; ``kubernetes``: namespaces'), which core accepts and custom resources do
#: not warn about.
STANDARD_FINALIZERS = frozenset(("kubernetes", "orphan", "foregroundDeletion"))


def validate_finalizer_name(name: str, path: str) -> list[FieldError]:
    """``ValidateFinalizerName`` (the generic rule; core adds its own standard names)."""
    return [invalid_error(path, name, message) for message in is_qualified_name(name)]


def validate_finalizers(finalizers: Sequence[str] | None, path: str) -> list[FieldError]:
    """``ValidateFinalizers``."""
    if not finalizers:
        return []
    errors = []
    for name in finalizers:
        errors += validate_finalizer_name(name, path)
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        errors.append(invalid_json(path, list(finalizers), "finalizer orphan and foregroundDeletion cannot be both set"))
    return errors


def validate_no_new_finalizers(new: Sequence[str] | None, old: Sequence[str] | None, path: str) -> list[FieldError]:
    """``ValidateNoNewFinalizers``."""
    extra = sorted(set(new or ()) - set(old or ()))
    if not extra:
        return []
    listed = ", ".join(go_quote(name) for name in extra)
    return [forbidden_error(path, "no new finalizers can be added if the object is being deleted, found new "
                                  f"finalizers []string{{{listed}}}")]


def validate_immutable_field(new: Any, old: Any, path: str) -> list[FieldError]:
    """``ValidateImmutableField``: ``apiequality.Semantic.DeepEqual`` of the decoded values (an
    absent value and its zero value are the same to Go, so callers pass zero values)."""
    if new == old:
        return []
    if isinstance(new, (str, int, float, bool)):
        return [invalid_error(path, new, FIELD_IMMUTABLE_ERROR_MSG)]
    return [invalid_json(path, new, FIELD_IMMUTABLE_ERROR_MSG)]  # nil pointers print as null


def validate_object_meta(meta: Json, requires_namespace: bool, name_fn: NameValidator,
                         path: str = "metadata") -> list[FieldError]:
    """``ValidateObjectMeta`` (``ValidateObjectMetaAccessor``) of a new object: generateName and
    name by the kind's name rule, namespace, generation, labels, annotations, owner references,
    finalizers and managed fields."""
    errors = []
    generate_name = meta.get("generateName")
    if generate_name:
        errors += [invalid_error(child(path, "generateName"), generate_name, m) for m in name_fn(generate_name, True)]
    name = meta.get("name")
    if not name:
        errors.append(required_error(child(path, "name"), "name or generateName is required"))
    else:
        errors += [invalid_error(child(path, "name"), name, message) for message in name_fn(name, False)]
    return errors + _validate_object_meta_common(meta, requires_namespace, path)


def validate_object_meta_with_opts(meta: Json, requires_namespace: bool, name_errors: Callable[[str, str], list[FieldError]],
                                   path: str = "metadata") -> list[FieldError]:
    """``ValidateObjectMetaWithOpts``: the kinds validated declaratively check the (generated)
    name with ``name_errors(path, name)`` and not generateName on its own."""
    name = meta.get("name")
    if not name:
        errors = [required_error(child(path, "name"), "name or generateName is required")]
    else:
        errors = name_errors(child(path, "name"), name)
    return errors + _validate_object_meta_common(meta, requires_namespace, path)


def long_name_errors(path: str, name: str) -> list[FieldError]:
    """``validate.LongName``."""
    return [invalid_error(path, name, message) for message in is_long_name(name)]


def _validate_object_meta_common(meta: Json, requires_namespace: bool, path: str) -> list[FieldError]:
    errors = []
    namespace = meta.get("namespace")
    if requires_namespace:
        if not namespace:
            errors.append(required_error(child(path, "namespace")))
        else:
            errors += [invalid_error(child(path, "namespace"), namespace, m)
                       for m in validate_namespace_name(namespace, False)]
    elif namespace:
        errors.append(forbidden_error(child(path, "namespace"), "not allowed on this type"))
    errors += validate_nonnegative_field(meta.get("generation") or 0, child(path, "generation"))
    errors += validate_labels(meta.get("labels"), child(path, "labels"))
    errors += validate_annotations(meta.get("annotations"), child(path, "annotations"))
    errors += validate_owner_references(meta.get("ownerReferences"), child(path, "ownerReferences"))
    errors += validate_finalizers(meta.get("finalizers"), child(path, "finalizers"))
    errors += validate_managed_fields(meta.get("managedFields"), child(path, "managedFields"))
    return errors


def validate_object_meta_update(new: Json, old: Json, path: str = "metadata") -> list[FieldError]:
    """``ValidateObjectMetaUpdate``."""
    errors = []
    if old.get("deletionTimestamp"):
        errors += validate_no_new_finalizers(new.get("finalizers"), old.get("finalizers"), child(path, "finalizers"))
    if not new.get("resourceVersion"):
        errors.append(invalid_error(child(path, "resourceVersion"), "", "must be specified for an update"))
    if (new.get("generation") or 0) < (old.get("generation") or 0):
        errors.append(invalid_error(child(path, "generation"), new.get("generation") or 0, "must not be decremented"))
    for name in ("name", "namespace", "uid", "creationTimestamp"):
        errors += validate_immutable_field(new.get(name) or "", old.get(name) or "", child(path, name))
    for name in ("deletionTimestamp", "deletionGracePeriodSeconds"):
        errors += validate_immutable_field(new.get(name), old.get(name), child(path, name))
    errors += validate_labels(new.get("labels"), child(path, "labels"))
    errors += validate_annotations(new.get("annotations"), child(path, "annotations"))
    errors += validate_owner_references(new.get("ownerReferences"), child(path, "ownerReferences"))
    errors += validate_managed_fields(new.get("managedFields"), child(path, "managedFields"))
    return errors


# ----------------------------------------------------------------------------- meta/v1/validation

def validate_label_name(name: str, path: str) -> list[FieldError]:
    """``ValidateLabelName``."""
    return [invalid_error(path, name, message) for message in is_qualified_name(name)]


def validate_labels(labels: Mapping[str, str] | None, path: str) -> list[FieldError]:
    """``ValidateLabels``: qualified-name keys, label values."""
    if not labels:
        return []
    errors: list[FieldError] = []
    for name in labels:
        value = labels[name]
        if is_qualified_name(name):
            errors += validate_label_name(name, path)
        if isinstance(value, str) and is_valid_label_value(value):
            errors += [invalid_error(path, value, message) for message in is_valid_label_value(value)]
    return errors


@dataclass(frozen=True, slots=True)
class LabelSelectorValidationOptions:
    """``LabelSelectorValidationOptions``."""

    allow_invalid_label_value_in_selector: bool = False
    allow_unknown_operator_in_requirement: bool = False


DEFAULT_LABEL_SELECTOR_OPTIONS = LabelSelectorValidationOptions()


def label_selector_has_invalid_label_value(selector: Json | None) -> bool:
    """``LabelSelectorHasInvalidLabelValue``."""
    if not selector:
        return False
    return any(is_valid_label_value(value) for expression in selector.get("matchExpressions") or ()
               for value in expression.get("values") or ())


def validate_label_selector(selector: Json | None, options: LabelSelectorValidationOptions,
                            path: str) -> list[FieldError]:
    """``ValidateLabelSelector``."""
    if selector is None:
        return []
    errors = validate_labels(selector.get("matchLabels"), child(path, "matchLabels"))
    for i, requirement in enumerate(selector.get("matchExpressions") or ()):
        errors += validate_label_selector_requirement(requirement, options, index(child(path, "matchExpressions"), i))
    return errors


def validate_label_selector_requirement(requirement: Json, options: LabelSelectorValidationOptions,
                                        path: str) -> list[FieldError]:
    """``ValidateLabelSelectorRequirement``."""
    errors = []
    operator = requirement.get("operator") or ""
    values = requirement.get("values") or ()
    if operator in ("In", "NotIn"):
        if not values:
            errors.append(required_error(child(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errors.append(forbidden_error(child(path, "values"),
                                          "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif not options.allow_unknown_operator_in_requirement:
        errors.append(invalid_error(child(path, "operator"), operator, "not a valid selector operator"))
    errors += validate_label_name(requirement.get("key") or "", child(path, "key"))
    if not options.allow_invalid_label_value_in_selector:
        for i, value in enumerate(values):
            errors += [invalid_error(index(child(path, "values"), i), value, m) for m in is_valid_label_value(value)]
    return errors


FIELD_MANAGER_MAX_LENGTH = 128
MAX_SUBRESOURCE_NAME_LENGTH = 256


def validate_field_manager(manager: str, path: str) -> list[FieldError]:
    """``ValidateFieldManager``: at most 128 bytes, printable."""
    errors = [too_long_error(path, FIELD_MANAGER_MAX_LENGTH)] if byte_len(manager) > FIELD_MANAGER_MAX_LENGTH else []
    position = 0
    for char in manager:
        if not char.isprintable():
            errors.append(invalid_error(path, manager,
                                        f"invalid character U+{ord(char):04X} (at position {position})"))
        position += len(char.encode())
    return errors


def validate_managed_fields(entries: Iterable[Json] | None, path: str) -> list[FieldError]:
    """``ValidateManagedFields``."""
    errors: list[FieldError] = []
    for i, entry in enumerate(entries or ()):
        entry_path = index(path, i)
        operation = entry.get("operation") or ""
        if operation not in ("Apply", "Update"):
            errors.append(invalid_error(child(entry_path, "operation"), operation, "must be `Apply` or `Update`"))
        fields_type = entry.get("fieldsType") or ""
        if fields_type and fields_type != "FieldsV1":
            errors.append(invalid_error(child(entry_path, "fieldsType"), fields_type, "must be `FieldsV1`"))
        errors += validate_field_manager(entry.get("manager") or "", child(entry_path, "manager"))
        if byte_len(entry.get("subresource") or "") > MAX_SUBRESOURCE_NAME_LENGTH:
            errors.append(too_long_error(child(entry_path, "subresource"), MAX_SUBRESOURCE_NAME_LENGTH))
    return errors


_CONDITION_REASON = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_CONDITION_REASON_RE = re.compile(_CONDITION_REASON)
_CONDITION_STATUSES = ("False", "True", "Unknown")


def validate_conditions(conditions: Sequence[Json] | None, path: str) -> list[FieldError]:
    """``ValidateConditions`` (``metav1.Condition`` lists)."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, condition in enumerate(conditions or ()):
        condition_path = index(path, i)
        kind = condition.get("type") or ""
        if kind in seen:
            errors.append((child(condition_path, "type"), "FieldValueDuplicate", f"Duplicate value: {go_quote(kind)}"))
        seen.add(kind)
        errors += validate_label_name(kind, child(condition_path, "type"))
        status = condition.get("status") or ""
        if status not in _CONDITION_STATUSES:
            errors.append(not_supported_error(child(condition_path, "status"), status, _CONDITION_STATUSES))
        if (condition.get("observedGeneration") or 0) < 0:
            errors.append(invalid_error(child(condition_path, "observedGeneration"), condition["observedGeneration"],
                                        "must be greater than or equal to zero"))
        if not condition.get("lastTransitionTime"):
            errors.append(required_error(child(condition_path, "lastTransitionTime")))
        reason = condition.get("reason") or ""
        if not reason:
            errors.append(required_error(child(condition_path, "reason")))
        else:
            if not _CONDITION_REASON_RE.fullmatch(reason):
                errors.append(invalid_error(child(condition_path, "reason"), reason, regex_error(
                    "a condition reason must start with alphabetic character, optionally followed by a string of "
                    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
                    _CONDITION_REASON, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")))
            if byte_len(reason) > 1024:
                errors.append(too_long_error(child(condition_path, "reason"), 1024))
        if byte_len(condition.get("message") or "") > 32 * 1024:
            errors.append(too_long_error(child(condition_path, "message"), 32 * 1024))
    return errors
