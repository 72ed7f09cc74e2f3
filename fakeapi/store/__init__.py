"""An in-memory emulator of etcd v3's MVCC store. It knows bytes and revisions, nothing of
Kubernetes.

Semantics follow etcd 3.5/3.6 (``../shared/reference/etcd-semantics.md``): one global revision
(a fresh store is at 1), per-key create/mod revision, version and lease; ranges over
``[key, range_end)`` with limit/count/revision; txns with compares; compaction; watches with
progress notifications; leases. Errors carry etcd's exact messages (errors.py).

Concurrency model
-----------------
One thread owns a ``Store``: in the server, the asyncio event loop thread. Every method is plain
synchronous code that never blocks and never awaits, so each request runs to completion without
interleaving: a txn is atomic and serializable by construction, with no locks. Other threads
must hand work to the owning loop (``loop.call_soon_threadsafe``) rather than call in.

Watchers are notified synchronously at commit: the revision's events are pushed into each
matching synced watcher's stream queue, then the stream's ``on_ready`` callback runs (on the
owning thread; typically it sets an ``asyncio.Event``). Consumers ``poll()`` the stream from their
own task. A consumer that falls behind never blocks the writer: its queue is bounded, and its
watchers switch to catching up from the store's revision log (watcher.py), as etcd's victims do.

Time (progress ticks, lease expiry) enters only through ``StoreTimers`` (timers.py) or explicit
calls, so tests drive it deterministically.

Persistence (optional): a ``Journal`` (journal.py) attached to a store logs every change before
it is applied, in checksummed records (wal.py), and snapshots the whole store (snapshot.py) to
bound the log; ``Journal.open`` loads a store from its data directory. Without one the store is
memory only and its write path does one ``is None`` test more.

Layout, each module importing only those before it: kv.py (records, requests, responses, range
rules), errors.py, key_history.py (one key's versions), lease.py (lessor), request_size.py,
wal.py (log segments), interface.py (``StoreInterface``, what the API layer calls on any store;
``ChangeLog``, what a store tells its journal), kvstore.py (revisions, range, txn,
compaction), watcher.py (watchers, streams), watchable_store.py (dispatch, progress), store.py
(``Store``), snapshot.py and journal.py (persistence), timers.py (the clock).
"""

from .errors import (
    EtcdError,
    ErrCompacted,
    ErrDuplicateKey,
    ErrEmptyKey,
    ErrEmptyWatcherRange,
    ErrFutureRev,
    ErrKeyNotFound,
    ErrLeaseExist,
    ErrLeaseNotFound,
    ErrLeaseProvided,
    ErrLeaseTTLTooLarge,
    ErrTooManyOps,
    ErrValueProvided,
    ErrWatcherDuplicateID,
)
from .kv import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    DeleteRangeResponse,
    Event,
    EventType,
    KeyValue,
    LeaseGrantResponse,
    PutRequest,
    PutResponse,
    RangeRequest,
    RangeResponse,
    SortOrder,
    SortTarget,
    TxnRequest,
    TxnResponse,
    WatchFilter,
    WatchResponse,
    prefix_range_end,
)
from .interface import StoreInterface, WatchStreamInterface
from .journal import CorruptLog, DataDirInUse, Journal
from .lease import LeaseTimeToLive
from .snapshot import SnapshotError
from .wal import FsyncPolicy
from .store import Store
from .timers import StoreTimers
from .watcher import STREAM_PROGRESS_ID, WatchStream

__all__ = [
    "Compare", "CompareResult", "CompareTarget", "CorruptLog", "DataDirInUse", "DeleteRangeRequest",
    "DeleteRangeResponse", "FsyncPolicy", "Journal", "SnapshotError",
    "ErrCompacted", "ErrDuplicateKey", "ErrEmptyKey", "ErrEmptyWatcherRange", "ErrFutureRev",
    "ErrKeyNotFound",
    "ErrLeaseExist", "ErrLeaseNotFound", "ErrLeaseProvided", "ErrLeaseTTLTooLarge",
    "ErrTooManyOps", "ErrValueProvided", "ErrWatcherDuplicateID", "EtcdError", "Event",
    "EventType", "KeyValue", "LeaseGrantResponse", "LeaseTimeToLive", "PutRequest",
    "PutResponse", "RangeRequest", "RangeResponse", "STREAM_PROGRESS_ID", "SortOrder", "SortTarget", "Store", "StoreInterface", "StoreTimers",
    "TxnRequest", "TxnResponse", "WatchFilter", "WatchResponse", "WatchStream", "WatchStreamInterface",
    "prefix_range_end",
]
