"""kube-apiserver's continue token (``apiserver/pkg/storage/continue.go``): base64url, no
padding, of ``{"v":"meta.k8s.io/v1","rv":<int64>,"start":"<key without the resource prefix>"}``.
``rv`` < 0 means "continue at the latest revision" (what a 410 for a compacted token offers)."""

from __future__ import annotations

import base64
import binascii
import posixpath

import orjson

from .status import bad_request

_VERSION = "meta.k8s.io/v1"


def encode(rv: int, start_key: str) -> str:
    raw = orjson.dumps({"v": _VERSION, "rv": rv, "start": start_key})
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def decode(token: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = orjson.loads(raw)
    except (binascii.Error, ValueError):
        raise bad_request("continue key is not valid: illegal base64 data or JSON") from None
    if not isinstance(data, dict) or data.get("v") != _VERSION:
        raise bad_request("continue key is not valid: server does not recognize this encoded version")
    rv = data.get("rv")
    start = data.get("start")
    if not isinstance(rv, int) or rv == 0:
        raise bad_request(f"continue key is not valid: incorrect encoded start resourceVersion (version {_VERSION})")
    if not isinstance(start, str) or not start:
        raise bad_request(f"continue key is not valid: encoded start key empty (version {_VERSION})")
    # Refuse keys that would range outside the resource prefix once joined to it: the start
    # key must be what path.Clean makes of it (kube's defence against "../" traversal).
    key = start if start.startswith("/") else "/" + start
    if posixpath.normpath(key) != key:
        raise bad_request(f"continue key is not valid: {start}")
    return rv, key[1:]
