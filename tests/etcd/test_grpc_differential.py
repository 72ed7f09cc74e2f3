"""Differential tests over gRPC: ``fakeapi etcd`` against a real etcd v3.6.6, request by request.

A seeded random workload (workload.py: puts, deletes, ranges with sort orders and revision
filters, txns nested and at etcd's limits, compactions, leases, watches from the past, now, the
future and compacted revisions, with prev_kv and filters) and targeted cases (txn request checks
and their order, compaction edges, leases and their expiry) are sent over gRPC to both servers.
Every answer is compared as a protobuf message, field by field (text form, so presence counts:
an empty header inside a txn is not an absent one), after the values that differ by nature are
normalized: ``cluster_id`` and ``member_id`` of headers, and lease ids (each server chooses its
own; theirs are mapped to ours wherever one appears: kv.lease, lease responses; ours are mapped
to theirs in requests). Errors are compared as (gRPC code, message).

Watches: each watch set is one gRPC Watch stream per server; creates are sent one at a time and
both answers compared. A companion watch on the whole key space from the current revision is
added last: the workload resumes once both servers delivered the current revision to it and sent
each watch as many responses as the other (etcd catches unsynced watchers up in a background loop
and reads prev_kv when it sends, so no write or compaction may overtake that). At the end one
write to both flushes the streams, and every watch's responses are compared one by one.

What is adjusted, and why
- A lease's remaining TTL is compared within one second (granted milliseconds apart, each
  server on its own clock), exactly when one side says -1 (not found).
- A lease's keys are compared sorted: etcd lists them from a Go map.
- A watch that starts at the compaction revision: compaction removes the changes superseded
  within that revision (a key put, then deleted, by one txn), and a watch opened long after does
  not get them from etcd either; but etcd still sends them for a while after the compaction
  (read views of its backend), so they are dropped from etcd's side. fakeapi never sends them.

``FAKEAPI_DIFF_SEED`` picks other seeds. A difference that is none of the above is a bug.
"""

from __future__ import annotations

import os
import queue
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import grpc
import pytest
from google.protobuf import text_format
from workload import MISSING_LEASE, Workload

from fakeapi.etcd.pb import kv_pb2, rpc_pb2, rpc_pb2_grpc
from fakeapi.store import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    KeyValue,
    PutRequest,
    RangeRequest,
    TxnRequest,
)

pytestmark = pytest.mark.etcd

SEED = int(os.environ.get("FAKEAPI_DIFF_SEED", "20261121"))
N_OPS = 1500


# =================================================================== requests as protobuf

LeaseOf = Callable[[int], int]


def range_pb(r: RangeRequest, serializable: bool = False) -> Any:
    return rpc_pb2.RangeRequest(
        key=r.key, range_end=r.range_end, limit=r.limit, revision=r.revision,
        sort_order=r.sort_order.value, sort_target=r.sort_target.value,
        serializable=serializable, keys_only=r.keys_only, count_only=r.count_only,
        min_mod_revision=r.min_mod_revision, max_mod_revision=r.max_mod_revision,
        min_create_revision=r.min_create_revision, max_create_revision=r.max_create_revision,
    )


def put_pb(p: PutRequest, lease_of: LeaseOf) -> Any:
    return rpc_pb2.PutRequest(
        key=p.key, value=p.value, lease=lease_of(p.lease), prev_kv=p.prev_kv,
        ignore_value=p.ignore_value, ignore_lease=p.ignore_lease,
    )


def delete_pb(d: DeleteRangeRequest) -> Any:
    return rpc_pb2.DeleteRangeRequest(key=d.key, range_end=d.range_end, prev_kv=d.prev_kv)


_COMPARE_FIELD = {
    CompareTarget.VERSION: "version", CompareTarget.CREATE: "create_revision",
    CompareTarget.MOD: "mod_revision", CompareTarget.VALUE: "value", CompareTarget.LEASE: "lease",
}


def compare_pb(c: Compare, lease_of: LeaseOf) -> Any:
    operand = lease_of(c.operand) if c.target is CompareTarget.LEASE else c.operand  # type: ignore[arg-type]
    return rpc_pb2.Compare(
        key=c.key, range_end=c.range_end, target=c.target.value, result=c.result.value,
        **{_COMPARE_FIELD[c.target]: operand},
    )


def op_pb(op: Any, lease_of: LeaseOf) -> Any:
    if isinstance(op, RangeRequest):
        return rpc_pb2.RequestOp(request_range=range_pb(op))
    if isinstance(op, PutRequest):
        return rpc_pb2.RequestOp(request_put=put_pb(op, lease_of))
    if isinstance(op, DeleteRangeRequest):
        return rpc_pb2.RequestOp(request_delete_range=delete_pb(op))
    return rpc_pb2.RequestOp(request_txn=txn_pb(op, lease_of))


def txn_pb(t: TxnRequest, lease_of: LeaseOf) -> Any:
    return rpc_pb2.TxnRequest(
        compare=[compare_pb(c, lease_of) for c in t.compare],
        success=[op_pb(o, lease_of) for o in t.success],
        failure=[op_pb(o, lease_of) for o in t.failure],
    )


# =================================================================== one server


class Side:
    """One server's stubs; answers are normalized to text (or an error tuple)."""

    def __init__(self, url: str, name: str) -> None:
        self.name = name
        self.channel = grpc.insecure_channel(url.removeprefix("http://"), options=[
            ("grpc.max_send_message_length", 8 << 20), ("grpc.max_receive_message_length", 8 << 20)])
        self.kv = rpc_pb2_grpc.KVStub(self.channel)
        self.lease = rpc_pb2_grpc.LeaseStub(self.channel)
        self.watch = rpc_pb2_grpc.WatchStub(self.channel)
        self.lease_to_ours: dict[int, int] = {}  # identity on our side

    def close(self) -> None:
        self.channel.close()

    def normalize(self, message: Any) -> str:
        message = type(message).FromString(message.SerializeToString())
        self._normalize(message)
        return text_format.MessageToString(message, as_utf8=False)

    def _normalize(self, message: Any) -> None:
        for field, value in message.ListFields():
            if field.message_type is not None:
                for sub in value if field.is_repeated else [value]:
                    self._normalize(sub)
        if isinstance(message, rpc_pb2.ResponseHeader):
            message.cluster_id = message.member_id = 0
        elif isinstance(message, kv_pb2.KeyValue) and message.lease:
            message.lease = self.lease_to_ours.get(message.lease, message.lease)

    def call(self, stub: Any, method: str, request: Any) -> tuple[Any, ...]:
        try:
            return ("ok", getattr(stub, method)(request, timeout=10))
        except grpc.RpcError as err:
            return ("error", err.code().name, err.details())


# =================================================================== both servers


class Shadow:
    """What the workload generator reads of "the store": the revision and compaction point our
    server reported last, and current values (read from our server, not compared)."""

    def __init__(self, ours: Side) -> None:
        self.ours = ours
        self.revision = 1
        self.compact_revision = -1

    def get(self, key: bytes, rev: int = 0) -> KeyValue | None:
        resp = self.ours.kv.Range(rpc_pb2.RangeRequest(key=key, revision=rev), timeout=10)
        if not resp.kvs:
            return None
        kv = resp.kvs[0]
        return KeyValue(kv.key, kv.create_revision, kv.mod_revision, kv.version, kv.value, kv.lease)


class GrpcDiffer:
    """``Differ``'s interface (tests/store) over gRPC to both servers."""

    def __init__(self, ours_url: str, theirs_url: str) -> None:
        self.ours = Side(ours_url, "fakeapi")
        self.theirs = Side(theirs_url, "etcd")
        self.store = Shadow(self.ours)
        self.ours_to_theirs: dict[int, int] = {}
        self.step = 0
        self.outcomes: Counter[str] = Counter()
        self.after_request: Callable[[], None] = lambda: None

    def close(self) -> None:
        self.ours.close()
        self.theirs.close()

    def theirs_lease(self, lease: int) -> int:
        return self.ours_to_theirs.get(lease, lease)

    def _both(self, what: str, request: Any, service: str, method: str,
              build: Callable[[LeaseOf], Any]) -> tuple[Any, ...]:
        self.step += 1
        o = self.ours.call(getattr(self.ours, service), method, build(lambda lease: lease))
        t = self.theirs.call(getattr(self.theirs, service), method, build(self.theirs_lease))
        self.after_request()
        if o[0] == "ok":
            header = getattr(o[1], "header", None)
            if header is not None and header.revision:
                self.store.revision = header.revision
        self.outcomes[f"{what}:{o[2] if o[0] == 'error' else 'ok'}"] += 1
        mine = o if o[0] == "error" else ("ok", self.ours.normalize(o[1]))
        real = t if t[0] == "error" else ("ok", self.theirs.normalize(t[1]))
        if mine != real:
            pytest.fail(f"step {self.step}: {what} differs\n  request: {request!r}\n"
                        f"  fakeapi: {mine!r}\n  etcd:    {real!r}", pytrace=False)
        return o

    def range(self, r: RangeRequest, serializable: bool = False) -> Any:
        return self._both("range", r, "kv", "Range", lambda _: range_pb(r, serializable))

    def put(self, p: PutRequest) -> Any:
        return self._both("put", p, "kv", "Put", lambda lease_of: put_pb(p, lease_of))

    def delete(self, d: DeleteRangeRequest) -> Any:
        return self._both("delete", d, "kv", "DeleteRange", lambda _: delete_pb(d))

    def txn(self, t: TxnRequest) -> Any:
        return self._both("txn", t, "kv", "Txn", lambda lease_of: txn_pb(t, lease_of))

    def compact(self, rev: int) -> Any:
        o = self._both("compact", rev, "kv", "Compact",
                       lambda _: rpc_pb2.CompactionRequest(revision=rev, physical=True))
        if o[0] == "ok":
            self.store.compact_revision = rev
        return o

    def lease_grant(self, ttl: int, lease_id: int = 0) -> Any:
        self.step += 1
        o = self.ours.call(self.ours.lease, "LeaseGrant", rpc_pb2.LeaseGrantRequest(TTL=ttl, ID=lease_id))
        t = self.theirs.call(self.theirs.lease, "LeaseGrant", rpc_pb2.LeaseGrantRequest(TTL=ttl, ID=lease_id))
        if o[0] == "ok" and t[0] == "ok":
            self.ours_to_theirs[o[1].ID] = t[1].ID
            self.theirs.lease_to_ours[t[1].ID] = o[1].ID
            self.store.revision = o[1].header.revision
        self.outcomes[f"lease_grant:{o[2] if o[0] == 'error' else 'ok'}"] += 1
        mine = o if o[0] == "error" else ("ok", self.ours.normalize(o[1]))
        real = t if t[0] == "error" else ("ok", self.theirs.normalize(t[1]))
        if lease_id == 0 and o[0] == "ok" and t[0] == "ok":  # the ids differ by nature
            mine = ("ok", self.ours.normalize(_without_id(o[1])))
            real = ("ok", self.theirs.normalize(_without_id(t[1])))
        assert mine == real, f"step {self.step}: grant ttl={ttl}: fakeapi {mine!r} etcd {real!r}"
        return Granted(o[1].ID) if o[0] == "ok" else None

    def lease_revoke(self, lease: int) -> Any:
        return self._both("lease_revoke", lease, "lease", "LeaseRevoke",
                          lambda lease_of: rpc_pb2.LeaseRevokeRequest(ID=lease_of(lease)))

    def lease_time_to_live(self, lease: int, keys: bool, exact: bool = False) -> None:
        self.step += 1
        o = self.ours.lease.LeaseTimeToLive(rpc_pb2.LeaseTimeToLiveRequest(ID=lease, keys=keys), timeout=10)
        t = self.theirs.lease.LeaseTimeToLive(
            rpc_pb2.LeaseTimeToLiveRequest(ID=self.theirs_lease(lease), keys=keys), timeout=10)
        self.outcomes["lease_ttl:" + ("missing" if o.TTL == -1 else "ok")] += 1
        ttls = (o.TTL, t.TTL)
        t.ID = self.theirs.lease_to_ours.get(t.ID, t.ID)
        o.TTL = t.TTL = 0
        for resp in (o, t):  # etcd lists a lease's keys from a Go map: in no order
            keys = sorted(resp.keys)
            del resp.keys[:]
            resp.keys.extend(keys)
        mine, real = self.ours.normalize(o), self.theirs.normalize(t)
        where = f"step {self.step}: time-to-live of {lease:#x}"
        assert mine == real, f"{where}: fakeapi {mine!r} etcd {real!r}"
        if exact or -1 in ttls:
            assert ttls[0] == ttls[1], f"{where}: TTL left: fakeapi {ttls[0]} etcd {ttls[1]}"
        else:
            assert abs(ttls[0] - ttls[1]) <= 1, f"{where}: TTL left: fakeapi {ttls[0]} etcd {ttls[1]}"


class Granted(NamedTuple):
    id: int


def _without_id(message: Any) -> Any:
    copy = type(message).FromString(message.SerializeToString())
    copy.ID = 0
    return copy


# =================================================================== watches


class WatchClient:
    """One gRPC Watch stream; every response received so far is in ``responses``, in order."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self.requests: queue.Queue[Any] = queue.Queue()
        self.responses: list[Any] = []
        self.error: BaseException | None = None
        self.cond = threading.Condition()
        self.call = side.watch.Watch(iter(self.requests.get, None))
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for resp in self.call:
                with self.cond:
                    self.responses.append(resp)
                    self.cond.notify_all()
        except grpc.RpcError as err:
            if err.code() is not grpc.StatusCode.CANCELLED:
                self.error = err
        finally:
            with self.cond:
                self.cond.notify_all()

    def send(self, **create: Any) -> None:
        self.requests.put(rpc_pb2.WatchRequest(create_request=rpc_pb2.WatchCreateRequest(**create)))

    def request_progress(self) -> None:
        self.requests.put(rpc_pb2.WatchRequest(progress_request=rpc_pb2.WatchProgressRequest()))

    def wait_for(self, predicate: Callable[[list[Any]], bool], timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate(self.responses):
                if self.error is not None:
                    raise RuntimeError(f"{self.side.name} watch stream failed: {self.error!r}")
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True

    def close(self) -> None:
        self.call.cancel()
        self.requests.put(None)
        self.thread.join(timeout=5)


class GrpcWatchSet:
    """``WatchSet``'s interface (tests/store) over one gRPC Watch stream per server."""

    def __init__(self, differ: GrpcDiffer, specs: list[dict[str, Any]]) -> None:
        self.differ = differ
        self.specs = specs
        self.current = differ.store.revision
        self.compacted_at_open = differ.store.compact_revision
        self.clients = (WatchClient(differ.ours), WatchClient(differ.theirs))
        self.ids: set[int] = set()
        self.from_compaction: set[int] = set()  # watches starting at the compaction revision
        for spec in specs:
            create = {
                "key": spec["key"], "range_end": spec["range_end"],
                "start_revision": spec["start"], "prev_kv": spec["prev_kv"],
                "filters": [f.value for f in spec["filters"]],
            }
            mine, real = (self._create(client, create) for client in self.clients)
            differ.outcomes[f"watch:{'rejected' if mine[2] else 'created'}"] += 1
            if mine != real:
                pytest.fail(f"watch creation differs\n  spec: {spec!r}\n  fakeapi: {mine!r}\n"
                            f"  etcd:    {real!r}", pytrace=False)
            if not mine[2]:
                self.ids.add(mine[1])
                if spec["start"] == self.compacted_at_open:
                    self.from_compaction.add(mine[1])
        companion = {"key": b"\0", "range_end": b"\0", "start_revision": self.current}
        self.companion = self._create(self.clients[0], companion)[1]
        assert self._create(self.clients[1], companion)[1] == self.companion
        self.wait_delivered()

    def _create(self, client: WatchClient, create: dict[str, Any]) -> tuple[Any, ...]:
        before = sum(1 for r in client.responses if r.created)
        client.send(**create)
        if not client.wait_for(lambda responses: sum(1 for r in responses if r.created) > before):
            pytest.fail(f"{client.side.name} did not answer the watch create request {create!r}")
        r = [r for r in client.responses if r.created][before]
        return (r.header.revision, r.watch_id, r.canceled, r.cancel_reason)

    def poll(self) -> None:
        """Nothing to do: a thread per stream reads as responses come."""

    def wait_delivered(self, timeout: float = 10.0) -> None:
        """Until both servers delivered the current revision to the companion and sent each
        watch as many responses as the other; a difference is left to ``compare``."""
        rev = self.differ.store.revision

        def companion_at(responses: list[Any]) -> bool:
            return any(
                r.watch_id == self.companion and not r.created
                and any(ev.kv.mod_revision >= rev for ev in r.events)
                for r in responses
            )

        deadline = time.monotonic() + timeout
        for client in self.clients:
            if not client.wait_for(companion_at, timeout=max(0.1, deadline - time.monotonic())):
                self.compare(rev)  # fails, showing the difference
        ours, theirs = self.clients
        while time.monotonic() < deadline:
            with ours.cond, theirs.cond:
                if self._counts(ours.responses) == self._counts(theirs.responses):
                    return
            time.sleep(0.01)

    def _counts(self, responses: list[Any]) -> Counter[int]:
        return Counter(r.watch_id for r in responses if r.watch_id in self.ids and not r.created)

    def normalized(self, client: WatchClient, last_rev: int) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {wid: [] for wid in self.ids}
        for r in list(client.responses):
            if r.created or r.watch_id not in self.ids:
                continue
            if r.events and all(ev.kv.mod_revision > last_rev for ev in r.events):
                continue  # the final flush write
            if r.watch_id in self.from_compaction and client is self.clients[1]:
                r = _without_superseded(r, self.compacted_at_open)
            out[r.watch_id].append(client.side.normalize(r))
        return out

    def compare(self, last_rev: int) -> None:
        ours, theirs = (self.normalized(client, last_rev) for client in self.clients)
        for wid in sorted(self.ids):
            mine, real = ours[wid], theirs[wid]
            outcome = "canceled" if any("canceled: true" in x for x in mine) else "events" if mine else "quiet"
            self.differ.outcomes[f"watch:{outcome}"] += 1
            if mine != real:
                at = next((i for i, (x, y) in enumerate(zip(mine, real, strict=False)) if x != y),
                          min(len(mine), len(real)))
                pytest.fail(
                    f"watch {wid} opened at revision {self.current} differs at response {at} of "
                    f"{len(mine)} (fakeapi) / {len(real)} (etcd)\n"
                    f"  fakeapi: {mine[at:at + 2]!r}\n  etcd:    {real[at:at + 2]!r}",
                    pytrace=False,
                )

    def close(self) -> None:
        for client in self.clients:
            client.close()


def _without_superseded(response: Any, revision: int) -> Any:
    """etcd's response without the changes superseded within compaction revision ``revision``
    (a key put, then deleted, by one txn): compaction removes them, but etcd can still send
    them for a while (see the module docstring)."""
    last = {}
    for i, ev in enumerate(response.events):
        if ev.kv.mod_revision == revision:
            last[ev.kv.key] = i
    kept = [ev for i, ev in enumerate(response.events)
            if ev.kv.mod_revision != revision or last[ev.kv.key] == i]
    if len(kept) == len(response.events):
        return response
    copy = type(response).FromString(response.SerializeToString())
    del copy.events[:]
    copy.events.extend(kept)
    return copy


def finish_watches(differ: GrpcDiffer, watch_sets: list[GrpcWatchSet]) -> None:
    """One write to both flushes every stream; then every watch is compared."""
    last = differ.store.revision
    differ.put(PutRequest(b"\xff\xff\xff-flush", b"1"))
    for ws in watch_sets:
        ws.wait_delivered()
        ws.compare(last)
        ws.close()


# =================================================================== the workload


@pytest.fixture
def differ(fake_etcd: str, real_etcd: str) -> Iterator[GrpcDiffer]:
    d = GrpcDiffer(fake_etcd, real_etcd)
    try:
        yield d
    finally:
        d.close()


@pytest.mark.parametrize("seed", [SEED, SEED + 1])
def test_random_workload_over_grpc_matches_etcd(differ: GrpcDiffer, seed: int) -> None:
    started = time.monotonic()
    work = Workload(differ, random.Random(seed), GrpcWatchSet)
    work.run(N_OPS)
    finish_watches(differ, work.watch_sets)
    outcomes = differ.outcomes
    print(f"\nseed {seed}: {N_OPS} ops, final revision {differ.store.revision}, "
          f"{time.monotonic() - started:.1f}s")
    print("outcomes:", dict(sorted(outcomes.items())))
    want = [
        "txn:ok", "txn:etcdserver: duplicate key given in txn request",
        "txn:etcdserver: too many operations in txn request", "txn:etcdserver: key is not provided",
        "txn:etcdserver: mvcc: required revision has been compacted",
        "txn:etcdserver: requested lease not found",
        "range:etcdserver: mvcc: required revision has been compacted",
        "range:etcdserver: mvcc: required revision is a future revision",
        "compact:ok", "compact:etcdserver: mvcc: required revision has been compacted",
        "put:etcdserver: key not found", "put:etcdserver: requested lease not found",
        "lease_revoke:ok", "lease_revoke:etcdserver: requested lease not found",
        "lease_ttl:ok", "lease_ttl:missing", "watch:rejected", "watch:canceled", "watch:events",
    ]
    missing = [w for w in want if not outcomes[w]]
    assert not missing, f"seed {seed} does not exercise {missing}"


K = [b"k%03d" % i for i in range(130)]


def _puts(keys: list[bytes]) -> tuple[PutRequest, ...]:
    return tuple(PutRequest(k, b"v") for k in keys)


def test_txn_request_checks_match_etcd(differ: GrpcDiffer) -> None:
    """Op limits (nested txns get what their parent left), empty keys, put flags in branches that
    do not run, duplicate-key rules (then/else, nesting, etcd's literal "\\0" range ends), the
    order of those checks, checks before a txn runs (lease, ignore_*, revisions) and their order,
    and keys written twice in one txn as watchers see them."""
    d = differ
    store = d.store
    for key in (b"a", b"b", b"c"):
        d.put(PutRequest(key, b"v-" + key))
    lease = d.lease_grant(3600)
    assert lease is not None
    watches = GrpcWatchSet(d, [
        {"key": b"\0", "range_end": b"\0", "start": 0, "prev_kv": True, "filters": ()},
        {"key": b"c", "range_end": b"", "start": 0, "prev_kv": True, "filters": ()},
        {"key": b"a", "range_end": b"", "start": 0, "prev_kv": False, "filters": ()},
        {"key": b"b", "range_end": b"a", "start": 0, "prev_kv": False, "filters": ()},  # empty
        {"key": b"a", "range_end": b"a", "start": 0, "prev_kv": False, "filters": ()},  # empty
    ])
    r = RangeRequest
    put, delete, txn, cmp = PutRequest, DeleteRangeRequest, TxnRequest, Compare
    v0 = cmp(b"a", CompareTarget.VERSION, CompareResult.GREATER, 0)
    cases: list[TxnRequest] = [
        # how many ops
        txn(success=_puts(K[:129])),
        txn(failure=tuple(r(k) for k in K[:129])),
        txn(compare=(v0,) * 129),
        txn(success=_puts(K[:128])),
        txn(success=(*(r(k) for k in K[:100]), txn(success=tuple(r(k) for k in K[:29])))),
        txn(success=(*(r(k) for k in K[:100]), txn(success=tuple(r(k) for k in K[:28])))),
        txn(compare=(v0,) * 100, success=(txn(failure=tuple(r(k) for k in K[:29])),)),
        # empty keys and put flags, checked in branches that do not run too
        txn(compare=(cmp(b"", CompareTarget.VERSION, CompareResult.EQUAL, 0),)),
        txn(compare=(cmp(b"", CompareTarget.VERSION, CompareResult.EQUAL, 0),) * 129),
        txn(compare=(v0,), failure=(put(b"a", b"x", ignore_value=True),)),
        txn(compare=(v0,), failure=(put(b"a", lease=lease.id, ignore_lease=True),)),
        txn(compare=(v0,), failure=(txn(success=(r(b""),)),)),
        txn(success=(put(b"a"), put(b"a")), failure=(delete(b""),)),
        # duplicate keys
        txn(success=(put(b"a"), put(b"a"))),
        txn(success=(put(b"a"), delete(b"a"))),
        txn(success=(delete(b"a"), put(b"a"))),
        txn(success=(put(b"a"), delete(b"a", b"b"))),
        txn(success=(put(b"b"), delete(b"a", b"b"))),
        txn(success=(put(b"b"), delete(b"c", b"a"))),
        txn(failure=(put(b"a"), put(b"a"))),
        txn(success=(txn(success=(put(b"a"),), failure=(put(b"a"),)),)),
        txn(success=(put(b"a"), txn(success=(put(b"a"),)))),
        txn(success=(put(b"a"), txn(failure=(delete(b"a"),)))),
        txn(success=(txn(success=(delete(b"a"),)), put(b"a"))),
        txn(success=(txn(success=(delete(b"a"),)), txn(success=(put(b"a"),)))),
        txn(success=(txn(success=(put(b"a"),), failure=(delete(b"a"),)),)),
        # etcd's duplicate check takes range_end literally: "\0" overlaps nothing, so these run,
        # writing a key twice in one revision
        txn(success=(put(b"c", b"c2"), delete(b"b", b"\0", prev_kv=True))),
        txn(success=(put(b"c", b"c3"),)),
        txn(success=(delete(b"b", b"\0"), put(b"c", b"c4"), r(b"\0", b"\0"))),
        txn(success=(put(b"a", b"a2", prev_kv=True), delete(b"\0", b"\0", prev_kv=True))),
        txn(success=(put(b"a", b"a3"), put(b"c", b"c5"))),
        txn(success=(txn(success=(put(b"a", b"a4"),)), txn(success=(delete(b"a"),)))),
        # nested compares see the store before the txn
        txn(success=(put(b"z", b"1"), txn(compare=(cmp(b"z", CompareTarget.VERSION,
                                                        CompareResult.EQUAL, 0),),
                                          success=(r(b"z"),), failure=(delete(b"z"),)))),
        # checks before a txn runs: every put (ignore_* key, lease), then every range revision
        txn(success=(put(b"q", b"1"), r(b"q", revision=store.revision + 1))),
        txn(success=(r(b"a", revision=store.revision + 5), put(b"a", lease=MISSING_LEASE))),
        txn(success=(r(b"a", revision=store.revision + 5), put(b"nope", ignore_value=True))),
        txn(success=(put(b"a", lease=MISSING_LEASE), put(b"nope", ignore_value=True))),
        txn(success=(put(b"nope", ignore_lease=True, lease=0), put(b"a", lease=MISSING_LEASE))),
        txn(success=(txn(success=(put(b"nope", ignore_value=True),)),)),
        txn(success=(put(b"a", b"x", lease=lease.id, prev_kv=True),
                     put(b"b", ignore_value=True, lease=0, prev_kv=True))),
        txn(success=(put(b"a", ignore_value=True, ignore_lease=True, prev_kv=True),)),
        # ranges inside txns: count_only with a limit, keys_only, reads after writes
        txn(success=(r(b"\0", b"\0", limit=1, count_only=True),
                     r(b"\0", b"\0", limit=1, keys_only=True), put(b"d", b"1"),
                     r(b"\0", b"\0", limit=2), r(b"a", revision=store.revision))),
    ]
    for t in cases:
        d.txn(t)
    # Plain requests: empty keys, put flags, and a plain put checks its lease before ignore_*.
    d.put(PutRequest(b"", b"x"))
    d.delete(DeleteRangeRequest(b""))
    d.range(RangeRequest(b""))
    d.put(PutRequest(b"a", b"x", ignore_value=True))
    d.put(PutRequest(b"a", lease=lease.id, ignore_lease=True))
    d.put(PutRequest(b"nope", lease=MISSING_LEASE, ignore_value=True))
    d.txn(TxnRequest(success=(PutRequest(b"nope", lease=MISSING_LEASE, ignore_value=True),)))
    d.put(PutRequest(b"nope", ignore_lease=True))
    d.range(RangeRequest(b"\0", b"\0", limit=1, count_only=True))
    finish_watches(d, [watches])
    assert d.outcomes["txn:ok"] >= 10 and d.outcomes["watch:rejected"] == 2


def test_compaction_edges_match_etcd(differ: GrpcDiffer) -> None:
    """Compacting at 1 and twice at the same revision, reads at and below the compaction
    revision, watches from it (with the 3.4 adjustment of the module docstring) and below it."""
    d = differ
    store = d.store
    d.compact(2)  # future
    d.compact(-1)  # not above etcd's initial compactMainRev (-1)
    d.compact(0)
    d.compact(0)
    d.compact(1)
    d.compact(1)
    d.range(RangeRequest(b"a", revision=1))
    for i in range(6):
        d.put(PutRequest(b"a", b"%d" % i, prev_kv=True))
        d.put(PutRequest(b"b", b"%d" % i))
    d.delete(DeleteRangeRequest(b"a", prev_kv=True))  # revision 14
    d.put(PutRequest(b"c", b"1"))
    d.txn(TxnRequest(success=(PutRequest(b"c", b"2"), DeleteRangeRequest(b"b", b"\0"))))  # 16
    d.put(PutRequest(b"a", b"again"))
    watch_sets = []
    for rev in (14, 16):
        d.compact(rev)
        d.compact(rev)
        d.compact(rev - 1)
        for read_rev in (0, rev - 1, rev, rev + 1, store.revision + 1):
            d.range(RangeRequest(b"\0", b"\0", revision=read_rev))
            d.range(RangeRequest(b"a", revision=read_rev))
            d.range(RangeRequest(b"\0", b"\0", revision=read_rev, limit=1, count_only=True))
        specs = [
            {"key": b"\0", "range_end": b"\0", "start": start, "prev_kv": prev, "filters": ()}
            for start in (rev - 1, rev, rev + 1) for prev in (False, True)
        ]
        watch_sets.append(GrpcWatchSet(d, specs))
        d.put(PutRequest(b"b", b"after-%d" % rev, prev_kv=True))
    d.compact(store.revision + 1)
    for ws in watch_sets:
        ws.wait_delivered()
    d.compact(store.revision)
    finish_watches(d, watch_sets)
    assert d.outcomes["watch:canceled"] == 4


def test_leases_match_etcd(differ: GrpcDiffer) -> None:
    """Granted TTLs (the minimum TTL clamp: 2 s with etcd's default election timeout), explicit
    ids, time-to-live, keep-alive, revoke, and expiry deleting every attached key at one
    revision per lease, on both servers' own clocks."""
    d = differ
    for ttl in (1, 0, -5, 2, 3, 9_000_000_000, 9_000_000_001):
        d.lease_grant(ttl)
    d.lease_grant(5, lease_id=77)
    d.lease_grant(5, lease_id=77)  # lease already exists
    long = d.lease_grant(10)
    assert long is not None
    d.put(PutRequest(b"held", b"1", lease=long.id))
    d.lease_time_to_live(long.id, keys=True)
    d.lease_time_to_live(77, keys=False)
    d.lease_time_to_live(MISSING_LEASE, keys=True, exact=True)

    # Expiry: leases of 2 s (the minimum) and 3 s, keys on each, one key without. etcd revokes
    # the leases that expired together concurrently (one goroutine each, in any order), so the
    # two expire one second apart, in different passes of the 500 ms expiry loop.
    short1 = d.lease_grant(1)
    short2 = d.lease_grant(3)
    assert short1 is not None and short2 is not None
    d.put(PutRequest(b"e/2", b"x", lease=short1.id))
    d.put(PutRequest(b"e/1", b"x", lease=short1.id))
    d.put(PutRequest(b"e/3", b"x", lease=short2.id))
    d.put(PutRequest(b"e/4", b"x"))
    d.put(PutRequest(b"e/1", b"y", lease=short2.id, prev_kv=True))  # moves e/1 to short2
    ws = GrpcWatchSet(d, [
        {"key": b"e/", "range_end": b"e0", "start": 0, "prev_kv": True, "filters": ()},
    ])
    d.lease_time_to_live(short1.id, keys=True)
    d.lease_time_to_live(short2.id, keys=True)
    deadline = time.monotonic() + 10
    count = rpc_pb2.RangeRequest(key=b"e/", range_end=b"e0", count_only=True)
    for side in (d.ours, d.theirs):
        while side.kv.Range(count, timeout=5).count != 1:
            assert time.monotonic() < deadline, f"{side.name} did not expire the leases"
            time.sleep(0.05)
    d.store.revision = d.ours.kv.Range(count, timeout=5).header.revision
    d.range(RangeRequest(b"e/", b"e0"))
    d.lease_time_to_live(short1.id, keys=True, exact=True)
    d.lease_revoke(short2.id)
    d.lease_revoke(long.id)
    d.range(RangeRequest(b"held"))
    finish_watches(d, [ws])


def test_progress_requests_match_etcd(differ: GrpcDiffer) -> None:
    """A progress request on a stream whose watchers are all synced is answered once, for the
    stream (watch id -1), with the current revision, behind the events already sent."""
    d = differ
    for i in range(5):
        d.put(PutRequest(b"p/%d" % i, b"v"))
    ws = GrpcWatchSet(d, [
        {"key": b"p/", "range_end": b"p0", "start": 2, "prev_kv": False, "filters": ()},
        {"key": b"q", "range_end": b"", "start": 0, "prev_kv": False, "filters": ()},
    ])
    d.put(PutRequest(b"p/9", b"v"))
    ws.wait_delivered()
    answers = []
    for client in ws.clients:
        client.request_progress()
        assert client.wait_for(lambda responses: any(r.watch_id == -1 for r in responses)), client.side.name
        answers.append([client.side.normalize(r) for r in client.responses if r.watch_id == -1])
    assert answers[0] == answers[1], answers
    finish_watches(d, [ws])


def test_fragmented_watch_responses_match_etcd(differ: GrpcDiffer) -> None:
    """A catch-up response over the request limit (plus gRPC's 512 KiB) is split for a watch
    created with ``fragment`` and sent whole otherwise; the parts compare one by one."""
    d = differ
    for i in range(12):
        d.put(PutRequest(b"big/%02d" % i, bytes([65 + i]) * 200_000))
    ws = GrpcWatchSet(d, [
        {"key": b"big/", "range_end": b"big0", "start": 2, "prev_kv": False, "filters": ()},
    ])
    for client in ws.clients:
        client.send(key=b"big/", range_end=b"big0", start_revision=2, fragment=True, watch_id=100)
    for client in ws.clients:
        assert client.wait_for(lambda responses: any(r.watch_id == 100 and not r.created and not r.fragment
                                                     for r in responses)), client.side.name
    parts = [[(r.fragment, [ev.kv.key for ev in r.events]) for r in client.responses
              if r.watch_id == 100 and not r.created] for client in ws.clients]
    assert parts[0] == parts[1] and len(parts[0]) > 1, parts
    finish_watches(d, [ws])


def test_request_size_limits_match_etcd(differ: GrpcDiffer) -> None:
    """Writes whose raft entry would exceed ``--max-request-bytes`` (1.5 MiB) are refused with
    ``etcdserver: request is too large``; messages over it plus 512 KiB never reach etcd
    (RESOURCE_EXHAUSTED from gRPC, whose wording differs between Go and C-core)."""
    d = differ
    limit = 1536 * 1024
    d.put(PutRequest(b"fits", b"x" * (limit - 64)))
    d.put(PutRequest(b"over", b"x" * (limit + 64)))
    d.txn(TxnRequest(success=(PutRequest(b"over", b"x" * (limit + 64)),)))
    d.range(RangeRequest(b"over"))
    for side in (d.ours, d.theirs):
        with pytest.raises(grpc.RpcError) as refused:
            side.kv.Put(rpc_pb2.PutRequest(key=b"huge", value=b"x" * (3 * 1024 * 1024)), timeout=10)
        assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, side.name
