"""fakeapi: a fake Kubernetes API server with an etcd-grade MVCC store inside.

Layers, imports pointing down only::

    http      -> the Starlette/uvicorn surface (routing, streaming, Status errors)
    registry  -> Kubernetes semantics (catalogue, metadata, selectors, patches)
    cacher    -> per-resource watch cache (cyclic event buffer, watcher fan-out)
    store     -> the etcd emulator (MVCC revisions, txns, compaction, watches, leases)
"""

__version__ = "0.1.0"
