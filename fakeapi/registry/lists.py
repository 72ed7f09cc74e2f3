"""LIST bodies assembled from stored bytes: the items as the store holds them (built-in kinds'
without their ``kind`` and ``apiVersion``), never re-encoded objects."""

from __future__ import annotations

from typing import Any

import orjson

Json = dict[str, Any]


def list_item(raw: bytes) -> bytes:
    """A stored built-in object as a LIST item: without ``kind`` and ``apiVersion``, which kube's
    lists of built-in kinds leave out (the items' ``TypeMeta`` is empty once decoded). Stored
    objects start with exactly those two members (``gostruct.decode`` puts them first), so this is
    one slice. Custom resources keep theirs (unstructured objects carry them)."""
    if not raw.startswith(b'{"kind":'):
        return raw
    kind_end = raw.index(b'",', 9)
    if not raw.startswith(b'"apiVersion":"', kind_end + 2):
        return raw
    return b"{" + raw[raw.index(b'",', kind_end + 16) + 2:]


def list_bytes(kind: str, api_version: str, list_meta: Json, items: list[bytes]) -> bytes:
    """A LIST body around already encoded items."""
    head = orjson.dumps({"kind": kind, "apiVersion": api_version, "metadata": list_meta})
    return head[:-1] + b',"items":[' + b",".join(items) + b"]}"
