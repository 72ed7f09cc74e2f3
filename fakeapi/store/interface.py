"""The store as its users call it, declared once: ``StoreInterface``, what the registry, the watch
caches, the lease manager and the store's timers use (kube's ``storage.Interface``, kine's
``Backend``). Three kinds of store implement it: the in-process ``Store`` (store.py), the etcd
client's ``RemoteStore`` (``fakeapi.etcd.client``), and either of them timed
(``fakeapi.metrics.storage_timing``). Where they behave differently (a remote store has channels
to close and no snapshot to save) their users test ``isinstance``.

And ``ChangeLog``: what a store tells the log that persists it (journal.py's ``Journal``),
declared here so that the store calls its journal without importing it.

Protocols are structural and for the type checker only: nothing here runs on a call, which goes
straight to the implementation's own method.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

from .kv import (
    KeyValue,
    LeaseGrantResponse,
    RangeRequest,
    RangeResponse,
    TxnRequest,
    TxnResponse,
    WatchFilter,
    WatchResponse,
)

if TYPE_CHECKING:
    from .lease import Lease


class WatchStreamInterface(Protocol):
    """A store's watch stream as a watch cache follows it: watches made on it, responses polled
    from it after its ``on_ready`` (``new_stream``'s) said there may be some."""

    def watch(self, key: bytes, range_end: bytes = b"", start_revision: int = 0, *, prev_kv: bool = False,
              filters: tuple[WatchFilter, ...] = (), progress_notify: bool = False, watch_id: int = -1) -> int: ...

    def request_progress(self) -> bool: ...

    def poll(self) -> list[WatchResponse]: ...

    @property
    def has_pending(self) -> bool:
        """Responses are ready to poll without waiting for ``on_ready``."""
        ...


class LessorClock(Protocol):
    """What the registry reads of a store's lessor: the clock its leases expire by."""

    @property
    def clock(self) -> Callable[[], float]: ...


class ChangeLog(Protocol):
    """Where a persisted store logs each change before it applies it (write-ahead), and the log's
    upkeep, which the store's timers run."""

    def log_commit(self, revision: int, changes: list[tuple[KeyValue, KeyValue | None]], revoked_lease: int) -> None:
        """One revision: the records it installs, each with the key's live record before it."""
        ...

    def log_compact(self, revision: int) -> None: ...

    def log_lease(self, lease: Lease) -> None:
        """A lease granted or renewed."""
        ...

    def tick(self) -> None: ...


#: A store's own watch stream type: a store closes only the streams it opened.
StreamT = TypeVar("StreamT", bound=WatchStreamInterface)


class StoreInterface(Protocol[StreamT]):
    """The calls the API layer makes on its store. Reads and writes are synchronous: the
    in-process store's run to completion in the caller's step of the event loop; a remote
    store's block the loop for their round trip, or, where the caller can wait
    (``fakeapi.runtime.run_awaiting``) and the store says so (``calls_wait``), wait on it while
    other requests are served. Watches are streams polled from a task."""

    @property
    def calls_wait(self) -> bool:
        """Whether reads and writes made where they can wait (``run_awaiting``) wait on the
        event loop: a request's should run there."""
        ...

    @property
    def revision(self) -> int:
        """The store's current revision, as of now (a remote store asks for it)."""
        ...

    @property
    def known_revision(self) -> int:
        """The newest revision known without asking (a remote store's: the newest any answer
        carried)."""
        ...

    @property
    def compact_revision(self) -> int: ...

    @property
    def max_txn_ops(self) -> int: ...

    @property
    def lessor(self) -> LessorClock: ...

    @property
    def journal(self) -> ChangeLog | None:
        """The log that persists the store, None when nothing does (or the store is remote)."""
        ...

    def range(self, req: RangeRequest) -> RangeResponse: ...

    def get(self, key: bytes, rev: int = 0) -> KeyValue | None: ...

    def txn(self, req: TxnRequest) -> TxnResponse: ...

    def compact(self, rev: int) -> int: ...

    def lease_grant(self, ttl: int, lease_id: int = 0) -> LeaseGrantResponse: ...

    def new_stream(self, capacity: int = ..., on_ready: Callable[[], None] | None = None) -> StreamT: ...

    def close_stream(self, stream: StreamT) -> None: ...

    def commit_time(self, rev: int) -> float:
        """perf_counter() when ``rev`` was committed, 0.0 when unknown."""
        ...

    def notify_progress(self) -> int:
        """The periodic progress tick (``StoreTimers``)."""
        ...

    def expire_leases(self) -> list[int]:
        """Revoke the leases past their deadline (``StoreTimers``); returns their ids."""
        ...


__all__ = ["ChangeLog", "LessorClock", "StoreInterface", "WatchStreamInterface"]
