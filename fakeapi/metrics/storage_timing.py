"""The store timed per call, for etcd_request_duration_seconds (kube's ``etcd3/metrics``): the
in-process store (``TimedStore``) and the etcd client's (``TimedRemoteStore``, in
``remote_store_timing``: gRPC is loaded only by a server with ``--etcd-servers``), each answering
as what it wraps, a ``StoreInterface``."""

from __future__ import annotations

import time
from contextvars import ContextVar
from typing import Any

from ..cacher.cache_watcher import BucketCounts
from ..store import DeleteRangeRequest, KeyValue, RangeRequest, RangeResponse, Store, TxnRequest, TxnResponse
from .buckets import LATENCY_EDGES


#: Whether a timed call is under way in this context: a call made inside it (a remote store's
#: get is a range) is part of it. Per context, not per store: a request whose call waits on the
#: event loop (``RemoteStore.calls_wait``) lets another request's calls run meanwhile.
_timing: ContextVar[bool] = ContextVar("store_call_timed", default=False)


class Timing:
    """Times each call a client of etcd would make, per kube operation and resource
    (``etcd3/metrics``: ``RecordEtcdRequest``): get, list, listWithCount, create, update, delete.
    A call made inside another (a txn's compares) is part of the outer one. Mixed into the
    in-process store (``TimedStore``) and the etcd client (``TimedRemoteStore``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Key prefix -> (group, resource), kept current by ``ServerMetrics``.
        self.resource_prefixes: dict[bytes, tuple[str, str]] = {}
        self.timings: dict[tuple[str, str, str], BucketCounts] = {}

    def get(self, key: bytes, rev: int = 0) -> KeyValue | None:
        if _timing.get():
            return super().get(key, rev)
        start = time.perf_counter()
        token = _timing.set(True)
        try:
            return super().get(key, rev)
        finally:
            _timing.reset(token)
            self._observe("get", key, start)

    def range(self, req: RangeRequest) -> RangeResponse:
        if _timing.get():
            return super().range(req)
        start = time.perf_counter()
        token = _timing.set(True)
        try:
            return super().range(req)
        finally:
            _timing.reset(token)
            operation = "listWithCount" if req.count_only else "list" if req.range_end else "get"
            self._observe(operation, req.key, start)

    def txn(self, req: TxnRequest) -> TxnResponse:
        if _timing.get() or not req.success:
            return super().txn(req)
        start = time.perf_counter()
        token = _timing.set(True)
        try:
            return super().txn(req)
        finally:
            _timing.reset(token)
            op = req.success[0]
            creates = any(c.operand == 0 for c in req.compare)
            operation = "delete" if isinstance(op, DeleteRangeRequest) else "create" if creates else "update"
            self._observe(operation, op.key, start)

    def _observe(self, operation: str, key: bytes, start: float) -> None:
        elapsed = time.perf_counter() - start
        resource = self._resource_of(key)
        if resource is None:
            return
        series = self.timings.get((operation, *resource))
        if series is None:
            series = self.timings[(operation, *resource)] = BucketCounts(LATENCY_EDGES)
        series.observe(elapsed)

    def _resource_of(self, key: bytes) -> tuple[str, str] | None:
        """Keys are ``/registry/<resource>/...`` or ``/registry/<group>/<resource>/...``."""
        prefixes = self.resource_prefixes
        end = key.find(b"/", len(b"/registry/"))
        if end < 0:
            return None
        found = prefixes.get(key[:end + 1])
        if found is None:
            end = key.find(b"/", end + 1)
            if end >= 0:
                found = prefixes.get(key[:end + 1])
        return found


class TimedStore(Timing, Store):  # type: ignore[misc]
    """The in-process store, timed."""

