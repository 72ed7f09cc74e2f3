"""The store against a tiny, obviously-correct model: a full snapshot of the key space per
revision and the list of events of each revision.

Rules: put, delete, delete-range, txn, lease grant/revoke, compact, range at a revision, watch
open/poll/cancel/drain, progress (requested and periodic). Invariants: the revision; every range at
every retained revision equals the model's snapshot (and older ones are compacted); every watcher's
concatenated events are a prefix of the model's history from its start (no duplicates, no gaps,
never a revision split across responses) and, once drained, all of it; a progress notification at
revision h comes after every event up to h.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from fakeapi.store import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    ErrCompacted,
    ErrDuplicateKey,
    ErrEmptyWatcherRange,
    ErrFutureRev,
    ErrKeyNotFound,
    ErrLeaseNotFound,
    Event,
    EventType,
    KeyValue,
    PutRequest,
    RangeRequest,
    Store,
    TxnRequest,
    WatchFilter,
)
from fakeapi.store import watcher as watcher_module

KEYS = [b"a", b"a/1", b"a/2", b"b", b"b/1", b"c"]
ENDS = [b"", b"", b"", b"\0", b"a0", b"b", b"b0", b"c", b"d"]
VALUES = [b"", b"x", b"y", b"zz"]
UNKNOWN_LEASE = 999

keys = st.sampled_from(KEYS)
ends = st.sampled_from(ENDS)
values = st.sampled_from(VALUES)
# 0: no lease, else an index into the leases granted so far plus one that never was.
lease_picks = st.sampled_from([0, 0, 0, 0, 1, 2, 3])


def in_range(key: bytes, start: bytes, end: bytes) -> bool:
    if end == b"":
        return key == start
    if end == b"\0":
        return key >= start
    return start <= key < end


def in_literal_interval(key: bytes, start: bytes, end: bytes) -> bool:
    """etcd's duplicate-key check (checkIntervals) takes range_end literally: "\0" is no
    "to the end" there, so a from-key delete overlaps no put."""
    return key == start if end == b"" else start <= key < end


# ----------------------------------------------------------------- the model


class ModelError(Exception):
    def __init__(self, error: type) -> None:
        self.error = error


class Model:
    def __init__(self) -> None:
        self.snaps: list[dict[bytes, KeyValue]] = [{}, {}]  # index = revision; 1 is the start
        self.events: dict[int, list[Event]] = {}
        self.compacted = -1
        self.leases: set[int] = set()
        self.ever_granted: list[int] = []

    @property
    def rev(self) -> int:
        return len(self.snaps) - 1

    def commit(self, snap: dict[bytes, KeyValue], events: list[Event]) -> None:
        if events:
            self.events[self.rev + 1] = events
            self.snaps.append(snap)

    def range(self, key, end, rev=0, limit=0, keys_only=False, count_only=False):
        if rev > self.rev:
            raise ModelError(ErrFutureRev)
        if 0 < rev < self.compacted:
            raise ModelError(ErrCompacted)
        snap = self.snaps[rev if rev > 0 else self.rev]
        return self._range(snap, key, end, limit, keys_only, count_only)

    @staticmethod
    def _range(snap, key, end, limit=0, keys_only=False, count_only=False):
        kvs = [snap[k] for k in sorted(snap) if in_range(k, key, end)]
        count = len(kvs)
        more = 0 < limit < count and not count_only
        if limit > 0:
            kvs = kvs[:limit]
        if keys_only:
            kvs = [kv._replace(value=b"") for kv in kvs]
        if count_only:
            kvs = []
        return kvs, count, more

    @staticmethod
    def holds(snap, cmp: Compare) -> bool:
        kvs = [snap[k] for k in sorted(snap) if in_range(k, cmp.key, cmp.range_end)]
        if not kvs:
            if cmp.target is CompareTarget.VALUE:
                return False
            kvs = [KeyValue(cmp.key, 0, 0, 0, b"", 0)]
        for kv in kvs:
            actual = {
                CompareTarget.VERSION: kv.version, CompareTarget.CREATE: kv.create_revision,
                CompareTarget.MOD: kv.mod_revision, CompareTarget.VALUE: kv.value,
                CompareTarget.LEASE: kv.lease,
            }[cmp.target]
            ok = {
                CompareResult.EQUAL: actual == cmp.operand,
                CompareResult.NOT_EQUAL: actual != cmp.operand,
                CompareResult.GREATER: actual > cmp.operand,
                CompareResult.LESS: actual < cmp.operand,
            }[cmp.result]
            if not ok:
                return False
        return True

    def txn(self, compares, success, failure):
        """(succeeded, responses) where a response is ("range", kvs, count, more),
        ("put", prev_kv) or ("delete", deleted, prev_kvs)."""
        for branch in (success, failure):  # a key written twice, in either branch
            puts: set[bytes] = set()
            dels = [(op.key, op.range_end) for op in branch if isinstance(op, DeleteRangeRequest)]
            for op in branch:
                if isinstance(op, PutRequest):
                    if op.key in puts or any(in_literal_interval(op.key, *d) for d in dels):
                        raise ModelError(ErrDuplicateKey)
                    puts.add(op.key)
        snap = self.snaps[self.rev]
        succeeded = all(self.holds(snap, c) for c in compares)
        path = success if succeeded else failure
        # etcd checks the ops it will run against the store before the txn: puts first.
        for op in path:
            if isinstance(op, PutRequest):
                if (op.ignore_value or op.ignore_lease) and op.key not in snap:
                    raise ModelError(ErrKeyNotFound)
                if op.lease and op.lease not in self.leases:
                    raise ModelError(ErrLeaseNotFound)
        work = dict(snap)
        rev = self.rev + 1
        events: list[Event] = []
        responses = []
        for op in path:
            if isinstance(op, RangeRequest):
                responses.append(("range", *self._range(
                    work, op.key, op.range_end, op.limit, op.keys_only, op.count_only)))
            elif isinstance(op, PutRequest):
                prev = work.get(op.key)
                value, lease = op.value, op.lease
                if op.ignore_value or op.ignore_lease:
                    if prev is None:  # deleted earlier in this txn (etcd itself panics here)
                        raise ModelError(ErrKeyNotFound)
                    value = prev.value if op.ignore_value else value
                    lease = prev.lease if op.ignore_lease else lease
                if prev is None:
                    kv = KeyValue(op.key, rev, rev, 1, value, lease)
                else:
                    kv = KeyValue(op.key, prev.create_revision, rev, prev.version + 1, value, lease)
                work[op.key] = kv
                # A watcher's prev_kv is the key at rev-1; a create has none.
                events.append(Event(EventType.PUT, kv, None if kv.version == 1 else snap[op.key]))
                responses.append(("put", prev if op.prev_kv else None))
            else:
                # A from-key delete may meet a key this txn put (etcd's duplicate check takes
                # "\0" literally), and the response shows that put, the event the key at rev-1.
                victims = [work[k] for k in sorted(work) if in_range(k, op.key, op.range_end)]
                for prev in victims:
                    del work[prev.key]
                    tomb = KeyValue(prev.key, 0, rev, 0)
                    events.append(Event(EventType.DELETE, tomb, snap.get(prev.key)))
                responses.append(("delete", len(victims), victims if op.prev_kv else []))
        self.commit(work, events)
        return succeeded, responses

    def revoke(self, lease: int) -> None:
        self.leases.discard(lease)
        snap = self.snaps[self.rev]
        rev = self.rev + 1
        work = dict(snap)
        events = []
        for key in sorted(snap):
            if snap[key].lease == lease:
                del work[key]
                events.append(Event(EventType.DELETE, KeyValue(key, 0, rev, 0), snap[key]))
        self.commit(work, events)

    def compact(self, rev: int) -> None:
        if rev <= self.compacted:
            raise ModelError(ErrCompacted)
        if rev > self.rev:
            raise ModelError(ErrFutureRev)
        self.compacted = rev


def store_txn_response(resp):
    out = []
    for r in resp.responses:
        if isinstance(r, tuple) and hasattr(r, "kvs"):
            out.append(("range", r.kvs, r.count, r.more))
        elif hasattr(r, "deleted"):
            out.append(("delete", r.deleted, r.prev_kvs))
        else:
            out.append(("put", r.prev_kv))
    return out


# ----------------------------------------------------------------- watch bookkeeping


@dataclass
class WatchRecord:
    stream: int
    id: int
    key: bytes
    end: bytes
    start: int  # resolved: the first revision it must report
    prev_kv: bool
    filters: tuple
    received: list = field(default_factory=list)  # events, in order
    canceled: bool = False  # by the store (compaction)
    closed: bool = False  # by us

    def wants(self, ev: Event) -> bool:
        if not in_range(ev.kv.key, self.key, self.end):
            return False
        if ev.type is EventType.PUT:
            return WatchFilter.NOPUT not in self.filters
        return WatchFilter.NODELETE not in self.filters


@dataclass
class StreamRecord:
    stream: object
    watchers: dict = field(default_factory=dict)  # watch id -> WatchRecord
    pending_progress: list = field(default_factory=list)  # (revision, watch ids) per request


# ----------------------------------------------------------------- strategies

puts = st.builds(
    PutRequest, key=keys, value=values, lease=st.just(0), prev_kv=st.booleans(),
    ignore_value=st.just(False), ignore_lease=st.just(False),
)
ignore_puts = st.builds(
    PutRequest, key=keys, value=st.just(b""), lease=st.just(0), prev_kv=st.booleans(),
    ignore_value=st.just(True), ignore_lease=st.booleans(),
)
deletes = st.builds(DeleteRangeRequest, key=keys, range_end=ends, prev_kv=st.booleans())
ranges = st.builds(
    lambda key, end, limit, keys_only, count_only: RangeRequest(
        key, end, limit=limit, keys_only=keys_only, count_only=count_only),
    keys, ends, st.integers(0, 3), st.booleans(), st.booleans(),
)  # sort and revision filters: tests/store/test_range.py, and the differential tests
ops = st.one_of(puts, puts, puts, puts, ignore_puts, deletes, deletes, ranges, ranges)
compares = st.builds(
    lambda key, end, target, result, n, v: Compare(
        key, target, result, v if target is CompareTarget.VALUE else n, end),
    keys, st.sampled_from([b"", b"", b"\0", b"b"]), st.sampled_from(list(CompareTarget)),
    st.sampled_from(list(CompareResult)), st.integers(0, 12), values,
)


class StoreMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.store = Store()
        self.model = Model()
        self.streams: list[StreamRecord] = []

    # ------------------------------------------------------------- helpers

    def existing_key(self, pick: int, fallback: bytes) -> bytes:
        """Mostly a live key, so that deletes and ignore_* puts usually do something."""
        live = sorted(self.model.snaps[self.model.rev])
        return live[pick % len(live)] if live and pick % 4 else fallback

    def lease_for(self, pick: int) -> int:
        if pick == 0:
            return 0
        choices = self.model.ever_granted + [UNKNOWN_LEASE]
        return choices[pick % len(choices)]

    def both(self, store_call, model_call):
        """Run the same request on both; they must agree on the error, if any."""
        try:
            expected = model_call()
        except ModelError as e:
            with pytest.raises(e.error):
                store_call()
            return None, None
        return store_call(), expected

    def write(self, compares_, success, failure):
        resp, expected = self.both(
            lambda: self.store.txn(TxnRequest(tuple(compares_), tuple(success), tuple(failure))),
            lambda: self.model.txn(compares_, success, failure),
        )
        if resp is not None:
            succeeded, responses = expected
            assert resp.succeeded is succeeded
            assert store_txn_response(resp) == responses
            assert resp.header_revision == self.model.rev

    # ------------------------------------------------------------- writes

    @initialize(data=st.lists(st.tuples(keys, values), min_size=2, max_size=6))
    def seed(self, data):
        """Start with some history, so that compares, deletes and ignore_* have keys to meet."""
        for key, value in data:
            self.write([], [PutRequest(key, value)], [])

    @rule(
        req=puts, lease=lease_picks, pick=st.integers(0, 20),
        ignoring=st.sampled_from([None, None, "value", "lease", "both"]),
    )
    def put(self, req, lease, ignoring, pick):
        if ignoring is None:
            req = req._replace(lease=self.lease_for(lease))
        else:
            req = req._replace(
                key=self.existing_key(pick, req.key), value=b"",
                ignore_value=ignoring in ("value", "both"),
                ignore_lease=ignoring in ("lease", "both"),
                lease=0 if ignoring in ("lease", "both") else self.lease_for(lease),
            )
        self.write([], [req], [])

    @rule(req=deletes, single=st.booleans(), pick=st.integers(0, 20))
    def delete(self, req, single, pick):
        """A one-key delete (mostly of a live key) or a delete-range."""
        if single:
            req = req._replace(key=self.existing_key(pick, req.key), range_end=b"")
        self.write([], [req], [])

    @rule(
        cmps=st.lists(compares, max_size=2),
        success=st.lists(ops, min_size=1, max_size=4),
        failure=st.lists(ops, max_size=3),
        lease=lease_picks,
    )
    def txn(self, cmps, success, failure, lease):
        lid = self.lease_for(lease)
        success = [op._replace(lease=lid) if isinstance(op, PutRequest) and not op.ignore_lease
                   else op for op in success]
        self.write(cmps, success, failure)

    @rule(grant=st.booleans(), pick=st.integers(1, 4))
    def lease(self, grant, pick):
        """Grant a lease, or revoke one (and its keys, at one revision)."""
        if grant:
            lid = self.store.lease_grant(60).id
            assert lid not in self.model.ever_granted
            self.model.leases.add(lid)
            self.model.ever_granted.append(lid)
            return
        lid = self.lease_for(pick)
        if lid not in self.model.leases:
            with pytest.raises(ErrLeaseNotFound):
                self.store.lease_revoke(lid)
            return
        self.model.revoke(lid)
        assert self.store.lease_revoke(lid) == self.model.rev

    @rule(offset=st.integers(-4, 1))
    def compact(self, offset):
        rev = self.model.rev + offset
        header, _ = self.both(lambda: self.store.compact(rev), lambda: self.model.compact(rev))
        if header is not None:
            assert header == self.model.rev

    # ------------------------------------------------------------- reads

    @rule(req=ranges, back=st.integers(-1, 8))
    def range_at(self, req, back):
        rev = 0 if back < 0 else self.model.rev + 1 - back  # back=0: the future
        req = req._replace(revision=rev)
        resp, expected = self.both(
            lambda: self.store.range(req),
            lambda: self.model.range(req.key, req.range_end, rev, req.limit, req.keys_only,
                                     req.count_only),
        )
        if resp is not None:
            assert (resp.kvs, resp.count, resp.more) == expected
            assert resp.header_revision == self.model.rev

    # ------------------------------------------------------------- watches

    @initialize(
        capacity=st.sampled_from([1, 2, 3, 64]), prefix_prev_kv=st.booleans(),
        single_key=keys,
    )
    def open_first_stream(self, capacity, prefix_prev_kv, single_key):
        """Every run watches from the start: everything with prev_kv, a prefix, one key."""
        sr = StreamRecord(self.store.new_stream(capacity=capacity))
        self.streams.append(sr)
        for key, end, prev_kv in (
            (b"\0", b"\0", True), (b"a", b"b", prefix_prev_kv), (single_key, b"", False),
        ):
            # From revision 2: in the future or from history, as initializers run in any order.
            wid = sr.stream.watch(key, end, 2, prev_kv=prev_kv, progress_notify=True)
            sr.watchers[wid] = WatchRecord(0, wid, key, end, 2, prev_kv, ())

    @rule(
        new_stream=st.booleans(), which=st.integers(0, 9),
        capacity=st.sampled_from([1, 2, 3, 64]),
        key=keys, end=ends, start=st.integers(-6, 3), prev_kv=st.booleans(),
        filters=st.sampled_from([(), (), (WatchFilter.NOPUT,), (WatchFilter.NODELETE,)]),
        progress_notify=st.booleans(),
    )
    def watch_open(self, new_stream, which, capacity, key, end, start, prev_kv, filters,
                   progress_notify):
        if new_stream or not self.streams:
            self.streams.append(StreamRecord(self.store.new_stream(capacity=capacity)))
            sr = self.streams[-1]
        else:
            sr = self.streams[which % len(self.streams)]
        current = self.model.rev
        start_revision = 0 if start == 0 else max(1, current + start)
        if end not in (b"", b"\0") and key >= end:
            with pytest.raises(ErrEmptyWatcherRange):
                sr.stream.watch(key, end, start_revision)
            return
        wid = sr.stream.watch(
            key, end, start_revision, prev_kv=prev_kv, filters=filters,
            progress_notify=progress_notify,
        )
        sr.watchers[wid] = WatchRecord(
            self.streams.index(sr), wid, key, end,
            current + 1 if start_revision == 0 else start_revision, prev_kv, filters,
        )

    def stream_of(self, which):
        return self.streams[which % len(self.streams)]

    @rule(which=st.integers(0, 9), how=st.sampled_from(["one", "all", "drain"]))
    def watch_poll(self, which, how):
        """Poll one stream once, every stream once, or one stream until it has nothing left
        (then each of its watchers must have had its whole history)."""
        if how == "all":
            for sr in self.streams:
                self.receive(sr)
            return
        sr = self.stream_of(which)
        if how == "one":
            self.receive(sr)
            return
        self.drain(sr)
        for rec in sr.watchers.values():
            if not rec.canceled and not rec.closed:
                assert [ev[:2] for ev in rec.received] == [ev[:2] for ev in self.expected(rec)]

    @rule(which=st.integers(0, 9), pick=st.integers(0, 9))
    def watch_cancel(self, which, pick):
        sr = self.stream_of(which)
        live = [r for r in sr.watchers.values() if not r.canceled and not r.closed]
        if live:
            rec = live[pick % len(live)]
            sr.stream.cancel(rec.id)
            rec.closed = True

    @rule(which=st.integers(0, 9), requested=st.booleans())
    def progress(self, which, requested):
        """A stream's progress request, or the periodic tick."""
        if not requested:
            self.store.notify_progress()
            return
        sr = self.stream_of(which)
        ids = [r.id for r in sr.watchers.values() if not r.canceled and not r.closed]
        if sr.stream.request_progress() and ids:
            sr.pending_progress.append((self.model.rev, ids))

    def drain(self, sr):
        for _ in range(1000):
            if not self.receive(sr) and not sr.stream.has_pending:
                return
        raise AssertionError("stream never drained")

    def expected(self, rec):
        return [
            ev for rev in range(rec.start, self.model.rev + 1)
            for ev in self.model.events.get(rev, ()) if rec.wants(ev)
        ]

    def delivered_up_to(self, rec, rev):
        want = [ev[:2] for ev in self.expected(rec) if ev.kv.mod_revision <= rev]
        assert [ev[:2] for ev in rec.received[: len(want)]] == want, (rec, rev)

    def receive(self, sr) -> int:
        responses = sr.stream.poll()
        for resp in responses:
            assert resp.header_revision <= self.model.rev
            if resp.watch_id == -1:
                rev, ids = sr.pending_progress.pop(0)
                assert resp.header_revision == rev
                assert not resp.events and not resp.canceled
                for wid in ids:
                    if not sr.watchers[wid].canceled:
                        self.delivered_up_to(sr.watchers[wid], rev)
                continue
            rec = sr.watchers[resp.watch_id]
            assert not rec.canceled  # nothing after a cancellation
            if resp.canceled:
                assert 0 < resp.compact_revision <= self.model.compacted
                assert rec.start < resp.compact_revision
                assert resp.events == ()
                rec.canceled = True
                continue
            if not resp.events:  # a periodic progress notification
                self.delivered_up_to(rec, resp.header_revision)
                continue
            revs = sorted({ev.kv.mod_revision for ev in resp.events})
            for rev in revs:  # each revision whole in one response
                whole = [ev for ev in self.model.events.get(rev, ()) if rec.wants(ev)]
                got = [ev for ev in resp.events if ev.kv.mod_revision == rev]
                assert [ev[:2] for ev in got] == [ev[:2] for ev in whole]
            assert revs[-1] <= resp.header_revision
            if not rec.prev_kv:
                assert all(ev.prev_kv is None for ev in resp.events)
            rec.received.extend(resp.events)
        return len(responses)

    # ------------------------------------------------------------- invariants

    @invariant()
    def revision_matches(self):
        assert self.store.revision == self.model.rev
        assert self.store.compact_revision == self.model.compacted

    @invariant()
    def every_retained_revision_reads_as_the_model(self):
        everything = RangeRequest(b"\0", b"\0")
        first = max(1, self.model.compacted)
        for rev in range(first, self.model.rev + 1):
            kvs = [s for _, s in sorted(self.model.snaps[rev].items())]
            resp = self.store.range(everything._replace(revision=rev))
            assert resp.kvs == kvs, rev
            for key in (b"\0", b"a/1", b"b"):  # counts and pages, from several start keys
                tail = [kv for kv in kvs if kv.key >= key]
                page = self.store.range(RangeRequest(key, b"\0", limit=1, revision=rev))
                assert (page.kvs, page.count, page.more) == (tail[:1], len(tail), len(tail) > 1)
                counted = self.store.range(RangeRequest(key, b"c", count_only=True, revision=rev))
                assert counted.count == len([kv for kv in tail if kv.key < b"c"])
        if first > 1:
            with pytest.raises(ErrCompacted):
                self.store.range(everything._replace(revision=first - 1))
        with pytest.raises(ErrFutureRev):
            self.store.range(everything._replace(revision=self.model.rev + 1))

    @invariant()
    def watchers_got_a_prefix_of_the_history(self):
        compacted = self.model.compacted
        for sr in self.streams:
            for rec in sr.watchers.values():
                expected = self.expected(rec)
                assert len(rec.received) <= len(expected)
                for got, want in zip(rec.received, expected):
                    assert got[:2] == want[:2], rec
                    if rec.prev_kv:
                        # prev_kv is read at mod_revision - 1: gone once that is compacted.
                        assert got.prev_kv == want.prev_kv or (
                            got.prev_kv is None and got.kv.mod_revision - 1 < compacted
                        ), (got, want)

    def teardown(self):
        for sr in self.streams:
            self.drain(sr)
            for rec in sr.watchers.values():
                if not rec.canceled and not rec.closed:
                    assert [ev[:2] for ev in rec.received] == [
                        ev[:2] for ev in self.expected(rec)
                    ], rec


def test_store_matches_the_model(monkeypatch):
    # Small catch-up batches, so that tiny queues and long histories split responses.
    monkeypatch.setattr(watcher_module, "CATCHUP_BATCH_REVISIONS", 2)
    run_state_machine_as_test(
        StoreMachine,
        settings=settings(
            max_examples=100, stateful_step_count=50, deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
