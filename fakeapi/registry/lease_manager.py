"""Store leases for objects with a time to live (events), shared the way kube-apiserver shares
them (``storage/etcd3/lease_manager.go``): a lease is reused by later writes while it still
outlives their TTL, for at most ``reuse`` seconds (5 % of the TTL, capped at 60 s) and 1,000
objects, so a burst of events costs one lease, not one each."""

from __future__ import annotations

import time
from collections.abc import Callable

from ..store import StoreInterface

REUSE_DURATION_SECONDS = 60
REUSE_DURATION_PERCENT = 0.05
MAX_OBJECTS_PER_LEASE = 1000


class LeaseManager:
    def __init__(self, store: StoreInterface, clock: Callable[[], float] = time.monotonic) -> None:
        """``clock`` must be the store's: the lease expires by the store's lessor."""
        self.store = store
        self._clock = clock
        self._lease_id = 0
        self._expires = 0.0
        self._attached = 0

    def lease_for(self, ttl: int) -> int:
        """A lease that keeps an object at least ``ttl`` seconds (and at most ttl + reuse)."""
        now = self._clock()
        reuse = min(int(REUSE_DURATION_PERCENT * ttl), REUSE_DURATION_SECONDS)
        self._attached += 1
        still_valid = now + ttl < self._expires
        not_too_long = now + ttl + reuse > self._expires
        if still_valid and not_too_long and self._attached <= MAX_OBJECTS_PER_LEASE:
            return self._lease_id
        granted = self.store.lease_grant(ttl + reuse)
        self._lease_id, self._expires, self._attached = granted.id, now + ttl + reuse, 1
        return self._lease_id
