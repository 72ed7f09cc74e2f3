"""Representations of objects other than themselves, as clients ask for them with ``as=`` in
the Accept header (kube's ``endpoints/handlers/response.go`` ``transformObject``).

``PartialObjectMetadata`` (metadata informers, the garbage collector, kubectl's metadata-only
reads): the object's metadata under kind ``PartialObjectMetadata`` of ``meta.k8s.io/v1``, in
lists ``PartialObjectMetadataList`` whose items carry that kind too
(``asPartialObjectMetadataList``).
"""

from __future__ import annotations

import orjson

META_API_VERSION = "meta.k8s.io/v1"


class MetadataView:
    """An object as ``PartialObjectMetadata``; a ``cacher.ObjectView``."""

    name = "PartialObjectMetadata"
    kind = "PartialObjectMetadata"
    list_kind = "PartialObjectMetadataList"
    api_version = META_API_VERSION

    def encode(self, raw: bytes) -> bytes:
        metadata = orjson.loads(raw)["metadata"]
        return orjson.dumps({"kind": self.kind, "apiVersion": self.api_version, "metadata": metadata})


PARTIAL_OBJECT_METADATA = MetadataView()
