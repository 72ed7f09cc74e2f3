"""The MVCC key-value store: one global revision, per-key history, ranges, txns, compaction.

Data layout
- ``_history``: SortedDict key -> KeyHistory (see key_history.py) for every key with a retained
  version, live or not; it answers reads of the past.
- ``_live``: SortedList of the keys alive at the current revision; it answers reads of the present,
  including ``count``, in O(log n) whatever the size of the range.
- ``_log``: the events of every revision since the compaction point, ``_log[rev - _log_base]``.
  Revisions are dense (every revision is one committed change set), so locating a revision is
  arithmetic, not a search. Watch catch-up reads from it; compaction trims it.

A write request is staged in a ``WriteTxn`` and applied all at once at its end, so a request that
fails half-way (a bad lease, a future revision in a txn's range) changes nothing, and the revision
moves by exactly one when, and only when, the request changed something.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from sortedcontainers import SortedDict, SortedList

from . import key_history
from .request_size import put_size, raft_entry_size, txn_size
from .errors import (
    ErrCompacted,
    ErrDuplicateKey,
    ErrEmptyKey,
    ErrFutureRev,
    ErrKeyNotFound,
    ErrLeaseNotFound,
    ErrLeaseProvided,
    ErrRequestTooLarge,
    ErrTooManyOps,
    ErrValueProvided,
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
    PutRequest,
    PutResponse,
    RangeRequest,
    RangeResponse,
    Request,
    Response,
    SortOrder,
    SortTarget,
    TxnRequest,
    TxnResponse,
    range_bounds,
)

if TYPE_CHECKING:
    from .interface import ChangeLog
    from .lease import Lessor

#: etcd's ``--max-txn-ops`` default.
DEFAULT_MAX_TXN_OPS = 128


class KVContents(NamedTuple):
    """What a ``KVStore`` holds, as a snapshot saves it (``KVStore.contents``) and loads it back
    (``KVStore.restore``)."""

    #: Every key with a retained version, live or not, in key order.
    keys: list[bytes]
    #: Each key's retained versions, oldest first (its ``KeyHistory``).
    histories: list[list[KeyValue]]
    #: The events of every revision from ``log_base`` to ``revision``.
    log: list[tuple[Event, ...]]
    revision: int
    compact_revision: int
    log_base: int


class KVStore:
    def __init__(self, *, max_txn_ops: int = DEFAULT_MAX_TXN_OPS) -> None:
        self._rev = 1  # a fresh etcd is at revision 1; the first write gets 2
        self._compact_rev = -1  # etcd's compactMainRev before any compaction
        self._history: SortedDict = SortedDict()
        self._live: SortedList = SortedList()
        self._log: list[tuple[Event, ...]] = []
        self._log_base = 2  # revision of _log[0]
        self.max_txn_ops = max_txn_ops
        #: etcd's ``--max-request-bytes``: a write whose raft entry would be larger is refused
        #: (``request_size``). None leaves it to a front that measures requests itself (the
        #: gRPC server measures the messages it receives).
        self.max_request_bytes: int | None = None
        self.lessor: Lessor | None = None  # set by Store; None means "no lease may be attached"
        #: The write-ahead log when the store persists (journal.py's ``Journal``); None keeps it
        #: in memory only.
        self.journal: ChangeLog | None = None

    # ----------------------------------------------------------------- revisions

    @property
    def revision(self) -> int:
        return self._rev

    @property
    def known_revision(self) -> int:
        """The newest revision its user knows without asking: here, the current one (a remote
        store's is the newest any of its answers carried)."""
        return self._rev

    @property
    def compact_revision(self) -> int:
        """The last compaction's revision, -1 before any."""
        return self._compact_rev

    def _check_read_revision(self, rev: int, current: int) -> int:
        if rev <= 0:
            return current
        if rev > current:
            raise ErrFutureRev()
        if rev < self._compact_rev:
            raise ErrCompacted()
        return rev

    # ----------------------------------------------------------------- reads

    def range(self, req: RangeRequest) -> RangeResponse:
        if not req.key:
            raise ErrEmptyKey()
        rev = self._check_read_revision(req.revision, self._rev)
        kvs, count = self._range_at(req.key, req.range_end, rev, req.fetch_limit, req.count_only)
        return self._range_response(req, kvs, count)

    def _range_response(self, req: RangeRequest, kvs: list[KeyValue], count: int) -> RangeResponse:
        """etcd's ``executeRange`` after the read of ``req.fetch_limit`` kvs: filters, sort,
        then ``limit`` (``more`` when more kvs were read than it lets through), keys_only."""
        if req.fetch_limit == 0 or req.sort_order or req.sort_target:
            kvs = _filter_and_sort(req, kvs)
        limit = req.limit
        more = 0 < limit < len(kvs)
        if more:
            kvs = kvs[:limit]
        if req.keys_only:
            kvs = [kv._replace(value=b"") for kv in kvs]
        return RangeResponse(self._rev, kvs, count, more)

    def _range_at(
        self, key: bytes, range_end: bytes, rev: int, limit: int, count_only: bool
    ) -> tuple[list[KeyValue], int]:
        start, end, single = range_bounds(key, range_end)
        if single:
            history = self._history.get(start)
            kv = key_history.visible_at(history, rev) if history else None
            return ([] if kv is None or count_only else [kv]), (0 if kv is None else 1)
        if rev == self._rev:
            return self._range_present(start, end, limit, count_only)
        return self._range_past(start, end, rev, limit, count_only)

    def _range_present(
        self, start: bytes, end: bytes | None, limit: int, count_only: bool
    ) -> tuple[list[KeyValue], int]:
        live = self._live
        lo = live.bisect_left(start)
        hi = len(live) if end is None else live.bisect_left(end)
        count = max(0, hi - lo)
        if count_only:
            return [], count
        stop = hi if limit <= 0 else min(hi, lo + limit)
        history = self._history
        return [history[k][-1] for k in live.islice(lo, stop)], count

    def _range_past(
        self, start: bytes, end: bytes | None, rev: int, limit: int, count_only: bool
    ) -> tuple[list[KeyValue], int]:
        history = self._history
        visible_at = key_history.visible_at
        if limit <= 0 and not count_only:  # every kv is wanted: one pass gives them all
            kvs = [
                kv for k in history.irange(start, end, inclusive=(True, False))
                if (kv := visible_at(history[k], rev)) is not None
            ]
            return kvs, len(kvs)
        kvs = []
        if not count_only:  # stop at the limit: a page costs its size, not the range's
            for k in history.irange(start, end, inclusive=(True, False)):
                kv = visible_at(history[k], rev)
                if kv is not None:
                    kvs.append(kv)
                    if len(kvs) == limit:
                        break
        return kvs, self._count_past(start, end, rev)

    def _count_past(self, start: bytes, end: bytes | None, rev: int) -> int:
        """The number of keys in [start, end) alive at ``rev``: the live count now (O(log n)),
        corrected by the keys changed since ``rev``, read from the log; a scan of the range
        when more revisions have passed than it holds keys."""
        live = self._live
        lo = live.bisect_left(start)
        hi = len(live) if end is None else live.bisect_left(end)
        count = max(0, hi - lo)
        history = self._history
        visible_at = key_history.visible_at
        if self._rev - rev > count:
            return sum(
                1 for k in history.irange(start, end, inclusive=(True, False))
                if visible_at(history[k], rev) is not None
            )
        # The log holds every revision after the compaction point, and rev >= that point.
        changed = {
            ev.kv.key
            for evs in self._log[rev + 1 - self._log_base:]
            for ev in evs
            if ev.kv.key >= start and (end is None or ev.kv.key < end)
        }
        for key in changed:
            h = history[key]
            count += (visible_at(h, rev) is not None) - (h[-1].version != 0)
        return count

    def _live_keys(self, start: bytes, end: bytes | None) -> Iterator[bytes]:
        return self._live.irange(start, end, inclusive=(True, False))

    def get(self, key: bytes, rev: int = 0) -> KeyValue | None:
        """The key's value at ``rev`` (0 = now), or None; a convenience over ``range``."""
        rev = self._check_read_revision(rev, self._rev)
        history = self._history.get(key)
        return key_history.visible_at(history, rev) if history else None

    # ----------------------------------------------------------------- writes

    def put(self, req: PutRequest) -> PutResponse:
        """etcd's plain Put, checked in its order: the request (empty key, put flags), then its
        lease (before ignore_*'s key: a txn does the reverse), then ignore_*'s key."""
        if not req.key:
            raise ErrEmptyKey()
        if req.ignore_value and req.value:
            raise ErrValueProvided()
        if req.ignore_lease and req.lease:
            raise ErrLeaseProvided()
        if self.max_request_bytes is not None and raft_entry_size(put_size(req)) > self.max_request_bytes:
            raise ErrRequestTooLarge()
        if req.lease and (self.lessor is None or not self.lessor.exists(req.lease)):
            raise ErrLeaseNotFound()
        wtxn = WriteTxn(self)
        prev_kv = wtxn.put(req).prev_kv
        return PutResponse(wtxn.commit(), prev_kv)

    def delete_range(self, req: DeleteRangeRequest) -> DeleteRangeResponse:
        resp = self.txn(TxnRequest(success=(req,)))
        deleted: DeleteRangeResponse = resp.responses[0]  # type: ignore[assignment]
        return deleted._replace(header_revision=resp.header_revision)

    def txn(self, req: TxnRequest) -> TxnResponse:
        _check_txn_shape(req, self.max_txn_ops)
        if self.max_request_bytes is not None and raft_entry_size(txn_size(req)) > self.max_request_bytes:
            raise ErrRequestTooLarge()
        wtxn = WriteTxn(self)
        succeeded = all(self._compare(c) for c in req.compare)
        ops = req.success if succeeded else req.failure
        self._check_txn_path(ops)
        responses = wtxn.run(ops)
        return TxnResponse(wtxn.commit(), succeeded, responses)

    def _check_txn_path(self, ops: tuple[Request, ...]) -> None:
        """etcd 3.6's ``checkTxn`` before a txn runs, on the ops it will run, in order (nested
        compares see the store before the txn): a range's revision must be readable; a put with
        ignore_value/ignore_lease needs its key, and its lease must exist."""
        lessor = self.lessor
        for op in self._txn_path(ops):
            if isinstance(op, PutRequest):
                if (op.ignore_value or op.ignore_lease) and self.get(op.key) is None:
                    raise ErrKeyNotFound()
                if op.lease and (lessor is None or not lessor.exists(op.lease)):
                    raise ErrLeaseNotFound()
            elif isinstance(op, RangeRequest) and op.revision > 0:
                self._check_read_revision(op.revision, self._rev)

    def _txn_path(self, ops: tuple[Request, ...]) -> Iterator[Request]:
        for op in ops:
            yield op
            if isinstance(op, TxnRequest):
                succeeded = all(self._compare(c) for c in op.compare)
                yield from self._txn_path(op.success if succeeded else op.failure)

    def _compare(self, cmp: Compare) -> bool:
        start, end, single = range_bounds(cmp.key, cmp.range_end)
        if single:
            kv = self.get(start)
            kvs = [] if kv is None else [kv]
        else:
            history = self._history
            kvs = [history[k][-1] for k in self._live_keys(start, end)]
        if not kvs:
            # etcd compares a missing key against an all-zero KeyValue, except VALUE, which fails.
            if cmp.target is CompareTarget.VALUE:
                return False
            return _compare_kv(cmp, KeyValue(cmp.key, 0, 0, 0))
        return all(_compare_kv(cmp, kv) for kv in kvs)

    def _apply(self, rev: int, changes: list[tuple[KeyValue, KeyValue | None]]) -> tuple[Event, ...]:
        """Install one revision's changes (new record, previous live value) and log its events."""
        history = self._history
        live = self._live
        lessor = self.lessor
        events = []
        for kv, prev in changes:
            key = kv.key
            h = history.get(key)
            if h is None:
                history[key] = [kv]
            else:
                h.append(kv)
            deleted = kv.version == 0
            if deleted:
                live.remove(key)
                ev_prev = prev
                if prev is not None and prev.mod_revision == rev:
                    # Put earlier in this same revision (a txn may put a key, then delete it with
                    # a from-key delete): the event's prev_kv is the key at rev-1, as etcd reads.
                    ev_prev = next(e.prev_kv for e in events if e.kv.key == key)
                events.append(Event(EventType.DELETE, kv, ev_prev))
            else:
                if prev is None:
                    live.add(key)
                events.append(Event(EventType.PUT, kv, prev))
            if lessor is not None:
                old_lease = prev.lease if prev is not None else 0
                new_lease = 0 if deleted else kv.lease
                if old_lease != new_lease:
                    lessor.detach(old_lease, key)
                    lessor.attach(new_lease, key)
        logged = tuple(events)
        self._log.append(logged)
        self._rev = rev
        return logged

    def _commit(self, changes: list[tuple[KeyValue, KeyValue | None]], revoked_lease: int = 0) -> int:
        """Apply staged changes at the next revision and announce them (and forget
        ``revoked_lease``, whose keys ``changes`` delete); returns the revision. With a journal,
        the change is logged before anything of it is applied (write-ahead): if logging fails,
        the store is unchanged."""
        journal = self.journal
        if journal is not None and (changes or revoked_lease):
            journal.log_commit(self._rev + 1, changes, revoked_lease)
        if revoked_lease:
            assert self.lessor is not None
            self.lessor.remove(revoked_lease)
        if changes:
            events = self._apply(self._rev + 1, changes)
            self._on_commit(self._rev, events)
        return self._rev

    def _on_commit(self, rev: int, events: tuple[Event, ...]) -> None:
        """Called once per new revision, after it is visible to reads; the watchable store
        overrides it to feed watchers."""

    # ----------------------------------------------------------------- compaction

    def compact(self, rev: int) -> int:
        """Compact history at ``rev``: reads below it fail from now on, and every version
        superseded at ``rev`` is released. Returns the header revision."""
        if rev <= self._compact_rev:
            raise ErrCompacted()
        if rev > self._rev:
            raise ErrFutureRev()
        if self.journal is not None:
            self.journal.log_compact(rev)
        self._compact_rev = rev
        # Only keys changed since the previous compaction can hold superseded versions, and those
        # are exactly the keys in the log up to ``rev``: compaction costs what was written, not
        # the size of the key space. Revision ``rev`` itself counts: a version written at ``rev``
        # supersedes one that may predate the log.
        cut = rev - self._log_base
        touched = {ev.kv.key for evs in self._log[: max(0, cut + 1)] for ev in evs}
        history = self._history
        for key in touched:
            h = history.get(key)
            if h is None:
                continue
            kept = key_history.compact(h, rev)
            if not kept:
                del history[key]
            elif kept is not h:
                history[key] = kept
        if cut > 0:
            del self._log[:cut]
            self._log_base = rev
        # An event at exactly ``rev`` keeps no prev_kv: etcd would read it at rev-1, which is gone.
        # And of revision ``rev`` etcd keeps only each key's last change: a key changed twice in
        # one txn (a put, then a from-key delete) loses the superseded change.
        if self._log and self._log_base == rev:
            first = self._log[0]
            last = {ev.kv.key: i for i, ev in enumerate(first)}
            self._log[0] = tuple(
                ev._replace(prev_kv=None) for i, ev in enumerate(first) if last[ev.kv.key] == i
            )
        return self._rev

    # ----------------------------------------------------------------- snapshots and the log's replay

    def contents(self) -> KVContents:
        """Everything the store holds, copied: the lists are new and the records, immutable,
        shared, so the copy stays as it is while the store goes on (100,000 keys: ~30 ms)."""
        history = self._history
        keys = list(history.keys())
        histories = list(map(list, map(history.__getitem__, keys)))
        return KVContents(keys, histories, list(self._log), self._rev, self._compact_rev, self._log_base)

    def restore(self, contents: KVContents) -> None:
        """Become what ``contents`` holds (etcd's ``kvstore.Restore``), the live keys being those
        whose last version is not a tombstone; for a fresh store, before anything reads or watches
        it. ValueError when the log does not cover the revisions from ``log_base`` on."""
        keys, histories = contents.keys, contents.histories
        self._history = SortedDict(zip(keys, histories))
        self._live = SortedList([key for key, h in zip(keys, histories) if h[-1].version != 0])
        self._log = contents.log
        self._rev = contents.revision
        self._compact_rev = contents.compact_revision
        self._log_base = contents.log_base
        if len(self._log) != self._rev - self._log_base + 1:
            raise ValueError("revision log does not match the revision")

    def commit_logged(self, kvs: list[KeyValue], revoked_lease: int = 0) -> int:
        """Commit, as the next revision, the records a logged commit installed (journal.py's
        replay), in their order; and forget ``revoked_lease``. Each change's previous record is
        the key's live one before it, in the store or earlier in ``kvs``, as when the records
        were first committed. Returns the revision."""
        changes: list[tuple[KeyValue, KeyValue | None]] = []
        staged: dict[bytes, KeyValue] = {}
        history = self._history
        for kv in kvs:
            key = kv.key
            if key in staged:
                prev: KeyValue | None = staged[key]
            else:
                h = history.get(key)
                prev = h[-1] if h else None
            changes.append((kv, None if prev is None or prev.version == 0 else prev))
            staged[key] = kv
        return self._commit(changes, revoked_lease)

    # ----------------------------------------------------------------- log access

    def events_between(self, first: int, last: int) -> list[tuple[int, tuple[Event, ...]]]:
        """(revision, events) for every revision in [first, last], from the log."""
        base = self._log_base
        lo = max(first, base) - base
        hi = last - base + 1
        return [(base + i, self._log[i]) for i in range(lo, hi)]

    def hash_kv(self, rev: int = 0) -> tuple[int, int, int]:
        """(hash, compact revision, revision) of every version retained at ``rev`` (0: now), as
        etcd's ``HashKV`` answers, to tell whether two stores hold the same history. The hash
        is a CRC-32 of our own record layout, not etcd's bytes: equal between fakeapi stores,
        not comparable with a real etcd's."""
        if rev <= 0:
            rev = self._rev
        elif rev < self._compact_rev:
            raise ErrCompacted()
        elif rev > self._rev:
            raise ErrFutureRev()
        crc = 0
        for key, history in self._history.items():
            for kv in history:
                if kv.mod_revision > rev:
                    break
                crc = zlib.crc32(b"%s\0%d\0%d\0%d\0%d\0" % (
                    key, kv.create_revision, kv.mod_revision, kv.version, kv.lease), crc)
                crc = zlib.crc32(kv.value, crc)
        return crc, self._compact_rev, rev

    def approximate_size(self) -> int:
        """Bytes of keys and values over every retained version: what Status reports as the
        database size (etcd's is its bbolt file)."""
        return sum(len(kv.key) + len(kv.value) for h in self._history.values() for kv in h)

    def stats(self) -> dict[str, int]:
        """Sizes for metrics and benchmarks."""
        return {
            "revision": self._rev,
            "compact_revision": self._compact_rev,
            "keys_live": len(self._live),
            "keys_indexed": len(self._history),
            "versions": sum(len(h) for h in self._history.values()),
            "log_revisions": len(self._log),
        }


#: etcd's ``kvSortBy*``: the field each sort target orders by.
_SORT_FIELD = {
    SortTarget.KEY: 0, SortTarget.CREATE: 1, SortTarget.MOD: 2, SortTarget.VERSION: 3,
    SortTarget.VALUE: 4,
}


def _filter_and_sort(req: RangeRequest, kvs: list[KeyValue]) -> list[KeyValue]:
    """etcd's min/max revision filters, then its sort. A target other than KEY with order NONE
    sorts ascending; KEY ascending is the range's own order. Ties keep key order, as Go's
    ``sort.Sort`` does on etcd-sized results (insertion sort up to 12 kvs; above that Go's order
    of equal kvs is unspecified)."""
    if req.max_mod_revision:
        kvs = [kv for kv in kvs if kv.mod_revision <= req.max_mod_revision]
    if req.min_mod_revision:
        kvs = [kv for kv in kvs if kv.mod_revision >= req.min_mod_revision]
    if req.max_create_revision:
        kvs = [kv for kv in kvs if kv.create_revision <= req.max_create_revision]
    if req.min_create_revision:
        kvs = [kv for kv in kvs if kv.create_revision >= req.min_create_revision]
    order, target = req.sort_order, req.sort_target
    if target is not SortTarget.KEY and order is SortOrder.NONE:
        order = SortOrder.ASCEND
    elif target is SortTarget.KEY and order is SortOrder.ASCEND:
        order = SortOrder.NONE
    if order is not SortOrder.NONE:
        field = _SORT_FIELD[target]
        kvs = sorted(kvs, key=lambda kv: kv[field], reverse=order is SortOrder.DESCEND)
    return kvs


def _compare_kv(cmp: Compare, kv: KeyValue) -> bool:
    target = cmp.target
    if target is CompareTarget.VALUE:
        actual: int | bytes = kv.value
    elif target is CompareTarget.VERSION:
        actual = kv.version
    elif target is CompareTarget.CREATE:
        actual = kv.create_revision
    elif target is CompareTarget.MOD:
        actual = kv.mod_revision
    else:
        actual = kv.lease
    operand = cmp.operand
    result = cmp.result
    if result is CompareResult.EQUAL:
        return actual == operand
    if result is CompareResult.NOT_EQUAL:
        return actual != operand
    if result is CompareResult.GREATER:
        return actual > operand  # type: ignore[operator]
    return actual < operand  # type: ignore[operator]


def _check_txn_shape(req: TxnRequest, max_ops: int) -> None:
    """etcd's request checks, before anything runs (``checkTxnRequest``, then ``checkIntervals``
    on each branch): op counts, keys and put flags in the whole tree, then no key written twice."""
    _check_txn_request(req, max_ops)
    _written_intervals(req.success)
    _written_intervals(req.failure)


def _check_txn_request(req: TxnRequest, max_ops: int) -> None:
    opc = max(len(req.compare), len(req.success), len(req.failure))
    if opc > max_ops:
        raise ErrTooManyOps()
    if any(not c.key for c in req.compare):
        raise ErrEmptyKey()
    for op in (*req.success, *req.failure):
        if isinstance(op, TxnRequest):
            _check_txn_request(op, max_ops - opc)  # a nested txn gets what its parent left
        elif op is None:  # an empty RequestOp on the wire: etcd's checkRequestOp default
            raise ErrKeyNotFound()
        elif not op.key:
            raise ErrEmptyKey()
        elif isinstance(op, PutRequest):
            if op.ignore_value and op.value:
                raise ErrValueProvided()
            if op.ignore_lease and op.lease:
                raise ErrLeaseProvided()


def _written_intervals(ops: tuple[Request, ...]) -> tuple[set[bytes], list[tuple[bytes, bytes]]]:
    """etcd's ``checkIntervals``: the keys put and ranges deleted by ``ops`` (nested txns
    included), raising ErrDuplicateKey when one key would be written twice."""
    puts: set[bytes] = set()
    dels: list[tuple[bytes, bytes]] = []
    for op in ops:
        if isinstance(op, DeleteRangeRequest):
            dels.append((op.key, op.range_end))
    for op in ops:
        if isinstance(op, TxnRequest):
            # Each branch of a nested txn is checked on its own, then against this level; then
            # and else are exclusive, so they may write the same key. Their deletes count only
            # after both, and against every put of this level (checked below, as etcd does).
            then_puts, then_dels = _written_intervals(op.success)
            else_puts, else_dels = _written_intervals(op.failure)
            for key in then_puts:
                if key in puts or any(_in_range(key, d) for d in dels):
                    raise ErrDuplicateKey()
            puts |= then_puts
            for key in else_puts:
                if (key in puts and key not in then_puts) or any(_in_range(key, d) for d in dels):
                    raise ErrDuplicateKey()
            puts |= else_puts
            dels.extend(then_dels)
            dels.extend(else_dels)
    for op in ops:
        if isinstance(op, PutRequest):
            if op.key in puts or any(_in_range(op.key, d) for d in dels):
                raise ErrDuplicateKey()
            puts.add(op.key)
    return puts, dels


def _in_range(key: bytes, interval: tuple[bytes, bytes]) -> bool:
    # etcd's checkIntervals uses adt string intervals, where range_end is taken literally: the
    # "to the end" marker b"\0" is not special there, so [key, "\0") overlaps no put and a txn
    # may put a key that the same request deletes with a from-key (or all-keys) delete.
    start, end = interval
    if not end:
        return key == start
    return start <= key < end


class WriteTxn:
    """One write request in flight: ops run in order against the store overlaid with the
    request's own earlier writes (etcd reads at ``beginRev+1`` once a txn has changes)."""

    def __init__(self, store: KVStore) -> None:
        self.store = store
        self.rev = store.revision + 1  # the revision this request's writes will get
        self.staged: dict[bytes, KeyValue] = {}  # key -> new record (tombstone for deletes)
        self.changes: list[tuple[KeyValue, KeyValue | None]] = []

    def current(self, key: bytes) -> KeyValue | None:
        if key in self.staged:
            kv = self.staged[key]
            return None if kv.version == 0 else kv
        return self.store.get(key)

    def run(self, ops: tuple[Request, ...]) -> list[Response]:
        return [self.run_op(op) for op in ops]

    def run_op(self, op: Request) -> Response:
        if isinstance(op, RangeRequest):
            return self.range(op)
        if isinstance(op, PutRequest):
            return self.put(op)
        if isinstance(op, DeleteRangeRequest):
            return self.delete_range(op)
        succeeded = all(self.compare(c) for c in op.compare)
        responses = self.run(op.success if succeeded else op.failure)
        return TxnResponse(0, succeeded, responses)  # etcd leaves a nested txn's header empty

    def header_revision(self) -> int:
        """The header of a response inside a txn, as etcd fills it: the revision the txn reads
        at so far (``beginRev``, or ``beginRev+1`` once it has changes). Clients should not
        interpret it (the top-level header is the txn's revision), but it is on the wire."""
        return self.rev if self.changes else self.store.revision

    def compare(self, cmp: Compare) -> bool:
        # etcd evaluates every compare of the txn tree before any op runs (``compareToPath``), so
        # a nested txn compares against the store as it was before this request: nothing is
        # applied to the store until commit.
        return self.store._compare(cmp)

    def range(self, req: RangeRequest) -> RangeResponse:
        store = self.store
        # An explicit revision is checked against the store before the txn (etcd's
        # ``checkRange``): the txn's own revision is a future one.
        if not self.staged or req.revision > 0:
            rev = store._check_read_revision(req.revision, store.revision)
            kvs, count = store._range_at(
                req.key, req.range_end, rev, req.fetch_limit, req.count_only
            )
            resp = store._range_response(req, kvs, count)
            return resp._replace(header_revision=self.header_revision())
        start, end, single = range_bounds(req.key, req.range_end)
        if single:
            kv = self.current(start)
            merged = [] if kv is None else [kv]
        else:
            merged = self._merged_live(start, end)
        count = len(merged)
        if req.count_only:
            merged = []
        elif req.fetch_limit:
            merged = merged[: req.fetch_limit]
        return store._range_response(req, merged, count)._replace(header_revision=self.rev)

    def _merged_live(self, start: bytes, end: bytes | None) -> list[KeyValue]:
        history = self.store._history
        merged = {k: history[k][-1] for k in self.store._live_keys(start, end)}
        for key, kv in self.staged.items():
            if key >= start and (end is None or key < end):
                if kv.version == 0:
                    merged.pop(key, None)
                else:
                    merged[key] = kv
        return [merged[k] for k in sorted(merged)]

    def put(self, req: PutRequest) -> PutResponse:
        prev = self.current(req.key)
        value, lease = req.value, req.lease
        if req.ignore_value or req.ignore_lease:
            if req.ignore_value and value:
                raise ErrValueProvided()
            if req.ignore_lease and lease:
                raise ErrLeaseProvided()
            if prev is None:
                raise ErrKeyNotFound()
            if req.ignore_value:
                value = prev.value
            if req.ignore_lease:
                lease = prev.lease
        if lease:
            lessor = self.store.lessor
            if lessor is None or not lessor.exists(lease):
                raise ErrLeaseNotFound()
        if prev is None:
            kv = KeyValue(req.key, self.rev, self.rev, 1, value, lease)
        else:
            kv = KeyValue(req.key, prev.create_revision, self.rev, prev.version + 1, value, lease)
        self.staged[req.key] = kv
        self.changes.append((kv, prev))
        return PutResponse(self.rev, prev if req.prev_kv else None)

    def delete_range(self, req: DeleteRangeRequest) -> DeleteRangeResponse:
        start, end, single = range_bounds(req.key, req.range_end)
        if single:
            kv = self.current(start)
            victims = [] if kv is None else [kv]
        else:
            victims = self._merged_live(start, end) if self.staged else [
                self.store._history[k][-1] for k in self.store._live_keys(start, end)
            ]
        for prev in victims:
            tomb = KeyValue(prev.key, 0, self.rev, 0)
            self.staged[prev.key] = tomb
            self.changes.append((tomb, prev))
        return DeleteRangeResponse(
            self.header_revision(), len(victims), victims if req.prev_kv else []
        )

    def commit(self, revoked_lease: int = 0) -> int:
        return self.store._commit(self.changes, revoked_lease)

