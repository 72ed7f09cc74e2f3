"""What the load client reads of response bodies, and only that (no Locust import, so tests
use it directly).

Decoding a whole body costs the Locust process more than the server spent making it: orjson
takes ~0.35 s of a core for a LIST of 5,000 pods (15 MB), ~7 us for one pod's watch line. A
LIST's ``metadata`` (resourceVersion, continue token) is read from the bytes before
``"items"`` (``list_head``, a microsecond); watch lines and name lists are decoded with
msgspec into structs of the fields used, skipping the rest without building it (~2 us a line).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec


class ListMeta(msgspec.Struct):
    resourceVersion: str = ""  # noqa: N815 (kube's field names)
    continue_: str = msgspec.field(name="continue", default="")


class _ListHead(msgspec.Struct):
    """A list's ``metadata``; decoding skips ``items`` (and all else) without building them."""

    metadata: ListMeta


class _NameMeta(msgspec.Struct):
    name: str
    namespace: str = ""


class _Named(msgspec.Struct):
    metadata: _NameMeta


class _NamesList(msgspec.Struct):
    items: list[_Named] = []


class ObjectMeta(msgspec.Struct):
    resourceVersion: str = ""  # noqa: N815
    annotations: dict[str, str] | None = None


class _EventObject(msgspec.Struct):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)


class WatchEvent(msgspec.Struct):
    """A watch line's type and its object's resourceVersion and annotations (an ERROR
    event's Status has neither: decode the line whole for its code)."""

    type: str
    object: _EventObject


_list_head = msgspec.json.Decoder(_ListHead)
_list_names = msgspec.json.Decoder(_NamesList)
watch_event = msgspec.json.Decoder(WatchEvent).decode


def list_head(body: bytes) -> ListMeta:
    """A LIST body's ``metadata``. kube's encoders and fakeapi's write ``kind``, ``apiVersion``
    and ``metadata`` before ``items``, so the bytes before the first ``"items":`` plus ``}``
    are the list without its items. That prefix decodes only if it ends at the top level (a
    ``"items":`` inside a string is escaped, one inside an object leaves it unclosed), so a
    decoded prefix with ``metadata`` is the real head; any other layout falls back to a decode
    that skips items. A body that is no list raises ``msgspec.DecodeError``."""
    end = body.find(b'"items":')
    if end > 0:
        try:
            return _list_head.decode(body[:end].rstrip().rstrip(b",") + b"}").metadata
        except msgspec.DecodeError:
            pass
    return _list_head.decode(body).metadata


def list_names(body: bytes) -> list[tuple[str, str]]:
    """(namespace, name) of every item of a LIST body."""
    return [(item.metadata.namespace, item.metadata.name) for item in _list_names.decode(body).items]


def read_list_head(read: Callable[..., bytes], block_size: int) -> tuple[bytes, int]:
    """A LIST body's bytes up to its items, and the whole body's length, from ``read`` (a
    response's: ``read(n)`` up to n bytes, b"" at the end; ``read()`` the rest). The items are
    read off the socket block by block and dropped: a third less CPU than keeping 15 MB to
    read a head off it. Where ``metadata`` does not come before the items (not kube's order)
    the whole body is kept, for ``list_head``'s fallback."""
    head = b""
    while (end := head.find(b'"items":')) < 0 and (block := read(block_size)):
        head += block
    if end < 0 or b'"metadata"' not in head[:end]:
        head += read()
        return head, len(head)
    length = len(head)
    while block := read(block_size):
        length += len(block)
    return head, length
