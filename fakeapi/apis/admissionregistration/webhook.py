"""apiserver's ``pkg/util/webhook`` validation of a webhook's client config (``ValidateWebhookURL``,
``ValidateWebhookService``), with the parts of Go's ``net/url.Parse`` its messages show."""

from __future__ import annotations

import string
from dataclasses import dataclass
from urllib.parse import unquote

from ...machinery.golang import go_quote
from ...machinery.status import FieldError, invalid_error, required_error
from ...machinery.validation import child, is_dns1123_subdomain, is_valid_port_num

_FORM = "; desired format: https://host[/path]"
_HEX = frozenset(string.hexdigits)
_SCHEME_LETTERS = frozenset(string.ascii_letters)
_SCHEME_OTHERS = frozenset(string.digits + "+-.")
#: What ``shouldEscape`` leaves alone in a host besides letters and digits.
_HOST_CHARACTERS = frozenset("-_.~!$&'()*+,;=:[]<>\"")
#: What ``shouldEscape(c, encodeUserPassword)`` leaves alone besides letters and digits.
_USERINFO_CHARACTERS = frozenset("-_.~$&+,;=!*'()")


class URLError(ValueError):
    """A ``*url.Error`` or one of the errors ``parse`` returns unwrapped."""


@dataclass
class URL:
    """The fields of a parsed ``url.URL`` the validation reads."""

    scheme: str = ""
    host: str = ""
    user: str | None = None  # ``Userinfo.String()``
    raw_query: str = ""
    fragment: str = ""


def _unescape(text: str, host: bool = False) -> str:
    """``unescape``: percent escapes checked (the host also for Go's forbidden characters); the
    decoded text is not needed."""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "%":
            escape = text[i:i + 3]
            if len(escape) < 3 or escape[1] not in _HEX or escape[2] not in _HEX:
                raise URLError(f"invalid URL escape {go_quote(text[i:][:3])}")
            if host and int(escape[1], 16) < 8 and escape != "%25":
                raise URLError(f"invalid URL escape {go_quote(escape)}")
            i += 3
            continue
        if host and c < "\x80" and not c.isalnum() and c not in _HOST_CHARACTERS:
            raise URLError(f"invalid character {go_quote(c)} in host name")
        i += 1
    return text


def _parse_host(host: str) -> str:
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            raise URLError("missing ']' in host")
        colon_port = host[end + 1:]
    else:
        colon = host.rfind(":")
        colon_port = host[colon:] if colon >= 0 else ""
    if colon_port and (colon_port[0] != ":" or not all(c in string.digits for c in colon_port[1:])):
        raise URLError(f"invalid port {go_quote(colon_port)} after host")
    return _unescape(host, host=True)


def _userinfo(userinfo: str) -> str:
    """The user information as ``Userinfo.String()`` prints it (re-escaped)."""
    def escape(part: str) -> str:
        return "".join(c if c.isascii() and (c.isalnum() or c in _USERINFO_CHARACTERS) else
                       "".join(f"%{b:02X}" for b in c.encode()) for c in part)
    parts = [unquote(_unescape(part)) for part in userinfo.split(":", 1)]
    return ":".join(escape(part) for part in parts)


def _parse(raw: str) -> URL:
    """``parse(rawURL, viaRequest=false)``."""
    if any(c < " " or c == "\x7f" for c in raw):
        raise URLError("net/url: invalid control character in URL")
    url = URL()
    if raw == "*":
        return url
    rest = raw
    for i, c in enumerate(raw):
        if c in _SCHEME_LETTERS:
            continue
        if c in _SCHEME_OTHERS:
            if i == 0:
                break
            continue
        if c == ":":
            if i == 0:
                raise URLError("missing protocol scheme")
            url.scheme, rest = raw[:i].lower(), raw[i + 1:]
        break
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    else:
        rest, _, url.raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if url.scheme:
            return url  # opaque
        if ":" in rest.partition("/")[0]:
            raise URLError("first path segment in URL cannot contain colon")
    if (url.scheme or not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        at = authority.rfind("@")
        url.host = _parse_host(authority[at + 1:])
        if at >= 0:
            url.user = _userinfo(authority[:at])
    _unescape(rest)
    return url


def parse_url(raw: str) -> URL:
    """Go's ``url.Parse``; errors read as Go's (``parse "x": missing protocol scheme``)."""
    before, _, fragment = raw.partition("#")
    try:
        url = _parse(before)
    except URLError as err:
        raise URLError(f"parse {go_quote(before)}: {err}") from None
    if fragment:
        try:
            url.fragment = unquote(_unescape(fragment))
        except URLError as err:
            raise URLError(f"parse {go_quote(raw)}: {err}") from None
    return url


def validate_webhook_url(path: str, raw: str, force_https: bool) -> list[FieldError]:
    """``ValidateWebhookURL``."""
    try:
        url = parse_url(raw)
    except URLError as err:
        return [required_error(path, f"url must be a valid URL: {err}{_FORM}")]
    errors = []
    if force_https and url.scheme != "https":
        errors.append(invalid_error(path, url.scheme, "'https' is the only allowed URL scheme" + _FORM))
    if not url.host:
        errors.append(invalid_error(path, url.host, "host must be specified" + _FORM))
    if url.user is not None:
        errors.append(invalid_error(path, url.user, "user information is not permitted in the URL"))
    if url.fragment:
        errors.append(invalid_error(path, url.fragment, "fragments are not permitted in the URL"))
    if url.raw_query:
        errors.append(invalid_error(path, url.raw_query, "query parameters are not permitted in the URL"))
    return errors


def validate_webhook_service(path: str, namespace: str, name: str, url_path: str | None,
                             port: int) -> list[FieldError]:
    """``ValidateWebhookService``."""
    errors = []
    if not name:
        errors.append(required_error(child(path, "name")))
    if not namespace:
        errors.append(required_error(child(path, "namespace")))
    port_errors = is_valid_port_num(port)
    if port_errors:
        errors.append(invalid_error(child(path, "port"), port, "port is not valid: " + ", ".join(port_errors)))
    if url_path is None or url_path in ("", "/"):
        return errors
    path_field = child(path, "path")
    if url_path == "//":
        return errors + [invalid_error(path_field, url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errors.append(invalid_error(path_field, url_path, "must start with a '/'"))
    to_check = url_path[1:]
    if to_check.endswith("/"):
        to_check = to_check[:-1]
    for i, step in enumerate(to_check.split("/")):
        if not step:
            errors.append(invalid_error(path_field, url_path, f"segment[{i}] may not be empty"))
            continue
        errors += [invalid_error(path_field, url_path, f"segment[{i}]: {failure}")
                   for failure in is_dns1123_subdomain(step)]
    return errors
