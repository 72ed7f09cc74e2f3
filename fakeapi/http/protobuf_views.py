"""Responses in protobuf: views (``registry.views.ResponseView``) whose encodings are protobuf
messages, so that each stored object version is encoded once and its bytes reused by every
GET, LIST page and watch event that shows it, as the JSON bytes are.

An encoding is the bare message (what a LIST item is); ``body`` wraps it in the
``runtime.Unknown`` envelope for a GET or a write's response, ``event`` frames it as a watch event.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

import orjson

from ..cacher import CachedObject
from ..machinery.status import StatusError, internal_error
from ..registry.views import META_GROUP, META_VERSIONS
from . import protobuf_encoding as encoding

_STATUS_ENCODER_NAME = encoding.STATUS


class ProtobufView:
    """Objects of one kind (or their metadata) as protobuf messages."""

    shared = True

    def __init__(self, *, message: str, api_version: str, kind: str, list_api_version: str, list_kind: str,
                 metadata_only: bool = False, name: str | None = None, list_items_first: bool = False) -> None:
        self.name = name or f"protobuf:{message}"
        #: The list message numbers its items 1 and its ListMeta 2 (meta.k8s.io/v1beta1's
        #: PartialObjectMetadataList, whose ListMeta came late).
        self.list_items_first = list_items_first
        self.message = message
        self.kind = kind
        self.api_version = api_version
        self.list_api_version = list_api_version
        self.list_kind = list_kind
        self.metadata_only = metadata_only

    @cached_property
    def _encode(self) -> encoding.Encoder:
        # Made at the first message, not with the view: the module's shared views are made at
        # import, and the first encoder loads every message's descriptor (tens of ms of a start).
        return encoding.encoder(self.message)

    def encode(self, raw: bytes) -> bytes:
        try:
            return self._encode(orjson.loads(raw))
        except encoding.EncodingError as err:
            raise encoding_failed(self.kind, err) from None

    def encode_object(self, obj: Any) -> bytes:
        """The message of an object already decoded."""
        try:
            return self._encode(obj)
        except encoding.EncodingError as err:
            raise encoding_failed(self.kind, err) from None

    def body(self, encoded: bytes) -> bytes:
        return encoding.envelope(self.api_version, self.kind, encoded)

    def item(self, obj: CachedObject) -> bytes:
        return obj.encoded(self)

    def list_body(self, items: list[bytes], list_meta: dict[str, Any]) -> bytes:
        return encoding.list_envelope(self.list_api_version, self.list_kind, list_meta, items,
                                      items_first=self.list_items_first)

    def event(self, event_type: str, encoded: bytes) -> bytes:
        return encoding.object_watch_frame(event_type, self.api_version, self.kind, encoded)

    def bookmark(self, rv: int, annotations: Mapping[str, str] | None) -> bytes:
        """kube's bookmark: an empty object of the kind with only its resourceVersion (and
        annotations) set, every other field at its zero value as gogo writes it."""
        metadata: dict[str, Any] = {"resourceVersion": str(rv)}
        if annotations:
            metadata["annotations"] = annotations
        return self.event("BOOKMARK", self._encode({"metadata": metadata}))


def object_view(api_version: str, kind: str) -> ProtobufView | None:
    """The protobuf view of a built-in kind; None when kube has no message for it (custom
    resources, which kube serves in JSON to a client that prefers protobuf)."""
    message = encoding.message_name(api_version, kind)
    if message is None:
        return None
    return _view(message, api_version, kind)


def _view(message: str, api_version: str, kind: str) -> ProtobufView:
    return _VIEWS.get(message) or _VIEWS.setdefault(message, ProtobufView(
        message=message, api_version=api_version, kind=kind, list_api_version=api_version, list_kind=f"{kind}List"))


_VIEWS: dict[str, ProtobufView] = {}

#: ``as=PartialObjectMetadata`` (and its List) in protobuf, by ``meta.k8s.io`` version: shared by
#: every resource. Both versions' PartialObjectMetadata is the same message (v1's).
PARTIAL_OBJECT_METADATA = {
    version: ProtobufView(
        message=encoding.PARTIAL_OBJECT_METADATA, api_version=f"{META_GROUP}/{version}", kind="PartialObjectMetadata",
        list_api_version=f"{META_GROUP}/{version}", list_kind="PartialObjectMetadataList", metadata_only=True,
        name=f"protobuf:{encoding.PARTIAL_OBJECT_METADATA} {version}",
        list_items_first=version == "v1beta1")
    for version in META_VERSIONS
}


def status_body(status: Mapping[str, Any]) -> bytes:
    """A ``Status`` (an error, or a DELETE's answer) in protobuf."""
    return encoding.envelope("v1", "Status", encoding.encoder(_STATUS_ENCODER_NAME)(status))


def status_event(status: Mapping[str, Any]) -> bytes:
    """A watch ERROR event carrying a ``Status``."""
    return encoding.watch_frame("ERROR", status_body(status))


def encoding_failed(kind: str, err: Exception) -> StatusError:
    """A stored object its Go type cannot hold: kube would have refused it on write."""
    return internal_error(f"unable to encode {kind} as protobuf: {err}")
