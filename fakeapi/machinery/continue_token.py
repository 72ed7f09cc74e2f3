"""kube-apiserver's continue token (``apiserver/pkg/storage/continue.go``).

A token is unpadded base64url of ``{"v":"meta.k8s.io/v1","rv":<int64>,"start":"<key>"}``, the JSON
exactly as Go's ``json.Marshal`` writes it. ``rv`` is the revision the first page was read at
(every page of a list is read there) or, negative, "continue at the latest revision" (the token a
410 for a compacted continue carries). ``start`` is the next key to read, relative to the list's
key prefix: the caller strips the prefix from the last returned key and appends ``"\\x00"`` (the
smallest key after it) before encoding, and prepends the prefix to what ``decode`` returns.

A bad token is a 400 carrying kube's message, ``invalid continue token: continue key is not valid:
...``, including Go's own base64 and JSON error text.
"""

from __future__ import annotations

import base64
import json

from .gojson import GoJSONError, unmarshal_struct
from .status import StatusError, bad_request

_VERSION = "meta.k8s.io/v1"
_NOT_VALID = "continue key is not valid"
_BASE64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
#: Go's json.Marshal escapes these (HTML safety); Python's json does not.
_GO_HTML_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                  "\u2028": "\\u2028", "\u2029": "\\u2029"})


def encode(rv: int, start_key: str) -> str:
    """``EncodeContinue`` for a start key already relative to the list's key prefix."""
    payload = json.dumps({"v": _VERSION, "rv": rv, "start": start_key}, ensure_ascii=False, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.translate(_GO_HTML_ESCAPES).encode()).rstrip(b"=").decode()


def decode(token: str) -> tuple[int, str]:
    """``DecodeContinue``: ``(rv, start key relative to the list's key prefix)``.

    The key must be what ``path.Clean`` makes of it once rooted, so that, joined to the prefix, it
    can never range over keys outside it (``../`` and the like are refused)."""
    try:
        fields = unmarshal_struct(_decode_base64(token), "storage.continueToken", {"v": str, "rv": int, "start": str})
    except (_Base64Error, GoJSONError) as err:
        raise _invalid(f"{_NOT_VALID}: {err}") from None
    if fields["v"] != _VERSION:
        raise _invalid(f"{_NOT_VALID}: server does not recognize this encoded version {fields['v']}")
    if fields["rv"] == 0:
        raise _invalid(f"{_NOT_VALID}: incorrect encoded start resourceVersion (version {_VERSION})")
    start: str = fields["start"]
    if not start:
        raise _invalid(f"{_NOT_VALID}: encoded start key empty (version {_VERSION})")
    key = start if start.startswith("/") else "/" + start
    if _clean(key) != key:
        raise _invalid(f"{_NOT_VALID}: {start}")
    return fields["rv"], key[1:]


class _Base64Error(ValueError):
    """Go's ``base64.CorruptInputError``."""


def _invalid(reason: str) -> StatusError:
    """The BadRequest kube's storage layer wraps every decoding error in."""
    return bad_request(f"invalid continue token: {reason}")


def _decode_base64(token: str) -> bytes:
    """Go's ``base64.RawURLEncoding.DecodeString``: ``\\r`` and ``\\n`` are skipped, padding is an
    illegal character, and an error names the byte offset Go names."""
    digits = 0
    for offset, char in enumerate(token):  # every character before the first bad one is ASCII
        if char in "\r\n":
            continue
        if char not in _BASE64URL:
            raise _Base64Error(f"illegal base64 data at input byte {offset}")
        digits += 1
    if digits % 4 == 1:  # a lone character cannot hold a byte
        raise _Base64Error(f"illegal base64 data at input byte {len(token) - 1}")
    data = token.replace("\r", "").replace("\n", "")
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


def _clean(rooted: str) -> str:
    """Go's ``path.Clean`` of a rooted path (``..`` at the root stays at the root)."""
    parts: list[str] = []
    for part in rooted.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/" + "/".join(parts)
