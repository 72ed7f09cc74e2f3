"""An object's ``metadata.resourceVersion`` in its stored bytes (kube's ``APIObjectVersioner``).

kube-apiserver stores objects without a resourceVersion and sets it from the key-value's
``mod_revision`` on every read. fakeapi stores the bytes it will serve, resourceVersion included:
a writer encodes the object with the revision its write is expected to get, which is always
right for the in-process store's one writer. When several API processes share an etcd a write
can get a later revision than expected (another process wrote in between), and an object written
by kube-apiserver itself has none; ``with_resource_version`` repairs both, on the read path and
in a write's own answer.
"""

from __future__ import annotations

import orjson

from ..cacher.watch_cache import RESOURCE_VERSION_FIELD
from ..cacher.watch_cache import with_resource_version as _replaced
from ..machinery import metadata


def with_resource_version(value: bytes, revision: int) -> bytes:
    """``value`` whose metadata.resourceVersion is ``revision`` (the same bytes when it already
    is): replaced in place when it has one (the watch cache's ``with_resource_version``), put in
    its place in Go's field order when not. A value that is not a JSON object (a
    kube-apiserver's protobuf) is left as it is."""
    if RESOURCE_VERSION_FIELD in value:
        return _replaced(value, revision)
    if not value.startswith(b"{"):
        return value
    obj = orjson.loads(value)
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return value
    meta["resourceVersion"] = str(revision)
    obj["metadata"] = metadata.go_object_meta(meta)
    return orjson.dumps(obj)
