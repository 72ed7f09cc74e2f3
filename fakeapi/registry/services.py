"""Services' storage (kube's ``pkg/registry/core/service/storage``): cluster IPs and node ports
are allocated by the write that creates or updates a service, just before its validation (as
kube's ``BeginCreate``/``BeginUpdate`` run before ``BeforeCreate``/``BeforeUpdate``), and freed
by the write that releases them; deleting a service deletes its Endpoints."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from ..apis.core.service_allocation import Allocator
from ..cacher import DELETED, CacheEvent
from ..machinery.status import StatusError
from ..store import RangeRequest
from .rest import Json, ResourceStore


class ServiceStore(ResourceStore):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.allocator = Allocator(self._stored)
        #: The Endpoints store, whose object of a service's name goes with the service.
        self.endpoints: ResourceStore | None = None
        # Writes of other API processes sharing the store reach the allocator through the cache
        # (this process's own are committed by their write already; committing twice is a no-op).
        self.cacher.listeners.append(self._observe)

    def _observe(self, event: CacheEvent) -> None:
        if event.type == DELETED:
            self.allocator.commit(orjson.loads(event.obj.raw), None)
        else:
            self.allocator.commit(None if event.prev is None else orjson.loads(event.prev.raw),
                                  orjson.loads(event.obj.raw))

    def _stored(self) -> Iterator[Json]:
        start, end = self.key_range(None)
        for kv in self.store.range(RangeRequest(start.encode(), end.encode())).kvs:
            yield orjson.loads(kv.value)

    def _validate_create(self, obj: Json) -> None:
        self.allocator.allocate_create(obj)
        super()._validate_create(obj)

    def _validate_update(self, new: Json, old: Json, subresource: str | None) -> None:
        if subresource is None:
            self.allocator.allocate_update(new, old)
        super()._validate_update(new, old, subresource)

    def _committed(self, old: Json | None, new: Json | None) -> None:
        self.allocator.commit(old, new)
        if new is None and old is not None and self.endpoints is not None:
            meta = old.get("metadata") or {}
            try:
                self.endpoints.delete(meta.get("namespace"), meta.get("name") or "")
            except StatusError as err:
                if err.code != 404:
                    raise
