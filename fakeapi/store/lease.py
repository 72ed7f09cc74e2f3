"""Leases: TTL-bound ownership of keys.

A lease's deadline is kept on a monotonic clock. Expiry is checked, not timed: whoever drives the
store (``StoreTimers`` on the event loop, or a test calling ``Store.expire_leases``) asks for the
leases past their deadline and revokes each, which deletes its keys at one revision per lease,
as etcd's lessor does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import ErrLeaseExist, ErrLeaseNotFound, ErrLeaseTTLTooLarge

#: etcd's ``MaxLeaseTTL`` (about 285 years).
MAX_LEASE_TTL = 9_000_000_000
#: etcd's minimum TTL with default election timing: ceil(1.5 * 1000 ms election timeout).
MIN_LEASE_TTL = 2
#: The first id ``grant`` hands out when the client names none.
FIRST_LEASE_ID = 0x694D_0000_0000_0001


@dataclass(slots=True)
class Lease:
    id: int
    ttl: int  # the TTL granted, in seconds (after the minimum is applied)
    deadline: float  # monotonic seconds
    keys: set[bytes] = field(default_factory=set)


def _deadline(lease: Lease) -> float:
    return lease.deadline


@dataclass(frozen=True, slots=True)
class LeaseTimeToLive:
    id: int
    ttl: int  # whole seconds left (truncated, as etcd); -1 when the lease does not exist
    granted_ttl: int
    keys: tuple[bytes, ...]


class Lessor:
    def __init__(self, clock: Callable[[], float], min_ttl: int = MIN_LEASE_TTL) -> None:
        self.clock = clock
        self._min_ttl = min_ttl
        self._leases: dict[int, Lease] = {}
        # etcd derives ids from the member id and a counter; any unique positive int64 will do.
        #: The next id to try; persisted (journal.py) so ids of revoked leases are not handed out
        #: again after a restart, where a client still holding one would renew a stranger's lease.
        self.next_id = FIRST_LEASE_ID

    def grant(self, ttl: int, lease_id: int = 0) -> Lease:
        if ttl > MAX_LEASE_TTL:
            raise ErrLeaseTTLTooLarge()
        if lease_id == 0:
            lease_id = self.next_id
            while lease_id in self._leases:
                lease_id += 1
            self.next_id = lease_id + 1
        elif lease_id in self._leases:
            raise ErrLeaseExist()
        ttl = max(ttl, self._min_ttl)
        return self.restore(lease_id, ttl, self.clock() + ttl)

    def restore(self, lease_id: int, ttl: int, deadline: float) -> Lease:
        """Install a lease as granted (``grant``, or replaying a log); keys attach as their
        records are installed."""
        lease = Lease(lease_id, ttl, deadline)
        self._leases[lease_id] = lease
        if self.next_id <= lease_id < FIRST_LEASE_ID + (1 << 48):
            self.next_id = lease_id + 1
        return lease

    def all(self) -> list[Lease]:
        return list(self._leases.values())

    def count(self) -> int:
        return len(self._leases)

    def exists(self, lease_id: int) -> bool:
        return lease_id in self._leases

    def get(self, lease_id: int) -> Lease:
        lease = self._leases.get(lease_id)
        if lease is None:
            raise ErrLeaseNotFound()
        return lease

    def remove(self, lease_id: int) -> Lease:
        """Forget the lease; the caller deletes its keys."""
        lease = self.get(lease_id)
        del self._leases[lease_id]
        return lease

    def keep_alive(self, lease_id: int) -> int:
        lease = self.get(lease_id)
        now = self.clock()
        if lease.deadline <= now:
            raise ErrLeaseNotFound()  # expired, only not revoked yet: too late to renew
        lease.deadline = now + lease.ttl
        return lease.ttl

    def time_to_live(self, lease_id: int, with_keys: bool = False) -> LeaseTimeToLive:
        lease = self._leases.get(lease_id)
        if lease is None:
            return LeaseTimeToLive(lease_id, -1, 0, ())
        # etcd answers int64(Remaining().Seconds()): whole seconds left, truncated.
        left = max(0, int(lease.deadline - self.clock()))
        keys = tuple(sorted(lease.keys)) if with_keys else ()
        return LeaseTimeToLive(lease_id, left, lease.ttl, keys)

    def leases(self) -> list[int]:
        return sorted(self._leases)

    def leases_by_expiry(self) -> list[int]:
        return [lease.id for lease in sorted(self._leases.values(), key=_deadline)]

    def expired(self) -> list[int]:
        now = self.clock()
        return [lid for lid, lease in self._leases.items() if lease.deadline <= now]

    def attach(self, lease_id: int, key: bytes) -> None:
        if lease_id:
            lease = self._leases.get(lease_id)
            if lease is not None:
                lease.keys.add(key)

    def detach(self, lease_id: int, key: bytes) -> None:
        if lease_id:
            lease = self._leases.get(lease_id)
            if lease is not None:
                lease.keys.discard(key)
