"""``Store``: the etcd server's KV, Watch and Lease services over one MVCC store."""

from __future__ import annotations

import time
from collections.abc import Callable

from .errors import ErrLeaseNotFound
from .kvstore import DEFAULT_MAX_TXN_OPS, WriteTxn
from .kv import DeleteRangeRequest, LeaseGrantResponse
from .lease import MIN_LEASE_TTL, Lessor, LeaseTimeToLive
from .watchable_store import WatchableStore


class Store(WatchableStore):
    """The whole etcd emulator. Not thread-safe by design: see the package docstring."""

    #: Its reads and writes run to completion in the caller's step of the event loop.
    calls_wait = False

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_txn_ops: int = DEFAULT_MAX_TXN_OPS,
        min_lease_ttl: int = MIN_LEASE_TTL,
    ) -> None:
        super().__init__(max_txn_ops=max_txn_ops)
        self.lessor: Lessor = Lessor(clock, min_lease_ttl)

    def lease_grant(self, ttl: int, lease_id: int = 0) -> LeaseGrantResponse:
        lease = self.lessor.grant(ttl, lease_id)
        if self.journal is not None:
            try:
                self.journal.log_lease(lease)
            except BaseException:
                self.lessor.remove(lease.id)
                raise
        return LeaseGrantResponse(self._rev, lease.id, lease.ttl)

    def lease_revoke(self, lease_id: int) -> int:
        """Revoke the lease and delete its keys, in key order, at one revision (none when the
        lease holds no key). Returns the header revision."""
        lease = self.lessor.get(lease_id)
        wtxn = WriteTxn(self)
        for key in sorted(lease.keys):
            wtxn.delete_range(DeleteRangeRequest(key))
        return wtxn.commit(revoked_lease=lease_id)

    def lease_keep_alive(self, lease_id: int) -> int:
        try:
            ttl = self.lessor.keep_alive(lease_id)
            if self.journal is not None:
                # Logged after the renewal: a renewal lost in a crash leaves the lease with less
                # time than it was given, never more.
                self.journal.log_lease(self.lessor.get(lease_id))
            return ttl
        except ErrLeaseNotFound:
            # etcd answers a renewal of an expired lease once it is revoked: revoke it now.
            if self.lessor.exists(lease_id):
                self.lease_revoke(lease_id)
            raise

    def lease_time_to_live(self, lease_id: int, keys: bool = False) -> LeaseTimeToLive:
        return self.lessor.time_to_live(lease_id, keys)

    def leases(self) -> list[int]:
        return self.lessor.leases()

    def leases_by_expiry(self) -> list[int]:
        """Lease ids, soonest deadline first (the order of etcd's ``LeaseLeases``)."""
        return self.lessor.leases_by_expiry()

    def expire_leases(self) -> list[int]:
        """Revoke every lease past its deadline, each at its own revision; returns their ids."""
        expired = self.lessor.expired()
        for lease_id in expired:
            self.lease_revoke(lease_id)
        return expired
