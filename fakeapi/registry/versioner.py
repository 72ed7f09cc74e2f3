"""An object's ``metadata.resourceVersion`` in its stored bytes (kube's ``APIObjectVersioner``).

kube-apiserver stores objects without a resourceVersion and sets it from the key-value's
``mod_revision`` on every read. fakeapi stores the bytes it will serve, resourceVersion included:
a writer encodes the object with the revision its write is expected to get, which is always
right for the in-process store's one writer. When several API processes share an etcd a write
can get a later revision than expected (another process wrote in between), and an object written
by kube-apiserver itself has none; ``with_resource_version`` repairs both on the read path, and
``restamped`` repairs a write's own answer.

Stored metadata is in Go's field order (``metadata.go_object_meta``) with apiVersion and kind
before it, so the first ``"resourceVersion":"`` of the bytes is metadata's: name, generateName
and namespace, the only fields before it, cannot hold a quote.
"""

from __future__ import annotations

import orjson

from ..machinery import metadata

_FIELD = b'"resourceVersion":"'


def with_resource_version(_key: bytes, value: bytes, revision: int) -> bytes:
    """``value`` whose metadata.resourceVersion is ``revision`` (the same bytes when it already
    is). A value that is not a JSON object (a kube-apiserver's protobuf) is left as it is."""
    start = value.find(_FIELD)
    if start >= 0:
        start += len(_FIELD)
        end = value.find(b'"', start)
        if value[start:end] == b"%d" % revision:
            return value
        return b"%s%d%s" % (value[:start], revision, value[end:])
    if not value.startswith(b"{"):
        return value
    obj = orjson.loads(value)
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return value
    meta["resourceVersion"] = str(revision)
    obj["metadata"] = metadata.go_object_meta(meta)
    return orjson.dumps(obj)


def restamped(value: bytes, expected: int, revision: int) -> bytes:
    """A write's encoding made for revision ``expected`` as of the ``revision`` it got."""
    return value if expected == revision else with_resource_version(b"", value, revision)
