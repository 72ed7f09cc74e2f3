"""Representations of objects other than themselves, as clients ask for them with ``as=`` in
the Accept header (kube's ``endpoints/handlers/response.go`` ``transformObject``).

* ``PartialObjectMetadata`` (metadata informers, the garbage collector, kubectl's metadata-only
  reads): the object's metadata under kind ``PartialObjectMetadata`` of ``meta.k8s.io/v1`` (or
  ``v1beta1``, as asked), in lists ``PartialObjectMetadataList`` whose items carry that kind too
  (``asPartialObjectMetadataList``). Shared by every request: each object is converted once.
* ``Table`` (``kubectl get``): rows printed by ``tables``; one per request, since ages move and
  a watch sends its column definitions only once.

A view is a ``cacher.ObjectView`` (``encode`` one stored object, frame watch events) that also
makes GET bodies (``body``) and assembles LIST pages (``item``, ``list_body``). These are the JSON
views; the HTTP layer adds protobuf ones (``http.protobuf_views``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

import orjson

from ..apis.catalogue import ResourceType
from ..cacher import CachedObject, json_event

META_GROUP = "meta.k8s.io"
#: The versions of ``meta.k8s.io`` that serve ``PartialObjectMetadata`` and ``Table``.
META_VERSIONS = ("v1", "v1beta1")


class ResponseView(Protocol):
    name: str
    shared: bool  # encodings may be cached on objects and events and reused by other requests
    kind: str  # of bookmark objects
    api_version: str
    #: The view reads only metadata, which every served version of an object shares.
    metadata_only: bool

    def encode(self, raw: bytes) -> bytes: ...

    def body(self, encoded: bytes) -> bytes:
        """A GET or write response's body for one object ``encode`` made."""
        ...

    def item(self, obj: CachedObject) -> bytes: ...

    def list_body(self, items: list[bytes], list_meta: dict[str, Any]) -> bytes: ...

    def event(self, event_type: str, encoded: bytes) -> bytes: ...

    def bookmark(self, rv: int, annotations: Mapping[str, str] | None) -> bytes | None: ...


class JsonView:
    """What the JSON views share: an encoded object is its response body, watch events are
    JSON lines, bookmarks the watcher's own."""

    metadata_only = False

    def body(self, encoded: bytes) -> bytes:
        return encoded

    def event(self, event_type: str, encoded: bytes) -> bytes:
        return json_event(event_type, encoded)

    def bookmark(self, rv: int, annotations: Mapping[str, str] | None) -> bytes | None:
        return None


class MetadataView(JsonView):
    """An object as ``PartialObjectMetadata`` of ``api_version`` (``meta.k8s.io`` v1 or v1beta1:
    the same Go type, whose JSON differs only by its apiVersion)."""

    shared = True
    kind = "PartialObjectMetadata"
    list_kind = "PartialObjectMetadataList"
    metadata_only = True

    def __init__(self, api_version: str) -> None:
        self.api_version = api_version
        self.name = f"PartialObjectMetadata {api_version}"

    def encode(self, raw: bytes) -> bytes:
        metadata = orjson.loads(raw)["metadata"]
        return orjson.dumps({"kind": self.kind, "apiVersion": self.api_version, "metadata": metadata})

    def item(self, obj: CachedObject) -> bytes:
        return obj.encoded(self)

    def list_body(self, items: list[bytes], list_meta: dict[str, Any]) -> bytes:
        head = orjson.dumps({"kind": self.list_kind, "apiVersion": self.api_version, "metadata": list_meta})
        return head[:-1] + b',"items":[' + b",".join(items) + b"]}"


#: The metadata views by ``meta.k8s.io`` version (the ``v`` of the Accept header's ``as=``).
PARTIAL_OBJECT_METADATA = {version: MetadataView(f"{META_GROUP}/{version}") for version in META_VERSIONS}


class TableView(JsonView):
    """Objects of one resource as a ``Table`` (``meta.k8s.io/v1`` or ``v1beta1``). The printers
    (every built-in kind's columns, some described by the OpenAPI schemas) are loaded with the
    first Table asked for, not at start."""

    name = "Table"
    shared = False

    def __init__(self, resource_type: ResourceType, *, api_version: str, include_object: str | None,
                 printer_columns: Sequence[Mapping[str, Any]] | None = None) -> None:
        self.resource_type = resource_type
        self.kind = resource_type.kind
        self.api_version = api_version
        self._include_object = include_object
        self._printer_columns = printer_columns
        from ..printers.tables import WatchTables

        self._watch = WatchTables(resource_type, include_object=include_object, api_version=api_version,
                                  additional_printer_columns=printer_columns)

    def encode(self, raw: bytes) -> bytes:
        """One object's Table (a GET, or a watch event: column definitions the first time only)."""
        return orjson.dumps(self._watch.event_object(orjson.loads(raw), datetime.now(UTC)))

    def item(self, obj: CachedObject) -> bytes:
        return obj.raw

    def list_body(self, items: list[bytes], list_meta: dict[str, Any]) -> bytes:
        from ..printers.tables import table

        objects = [orjson.loads(raw) for raw in items]
        return orjson.dumps(table(self.resource_type, objects, list_meta=list_meta, include_object=self._include_object,
                                  now=datetime.now(UTC), api_version=self.api_version,
                                  additional_printer_columns=self._printer_columns))
