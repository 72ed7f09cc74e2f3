"""Differential tests over gRPC: ``fakeapi etcd`` against a real etcd v3.6.6, request by request.

The seeded random workload of tests/store/test_etcd_differential.py (puts, deletes, ranges, txns
nested and at etcd's limits, compactions, leases, watches from the past, now, the future and
compacted revisions, with prev_kv and filters) is sent over gRPC to both servers, plus what that
test cannot send through the store API: range sort orders and targets, min/max revision filters,
serializable reads. Every answer is compared as a protobuf message, field by field (text form,
so presence counts: an empty header inside a txn is not an absent one), after the values that
differ by nature are normalized: ``cluster_id`` and ``member_id`` of headers, and lease ids
(both servers choose their own; theirs are mapped to ours wherever one appears: kv.lease, lease
responses; ours are mapped to theirs in requests). Errors are compared as (gRPC code, message).

Watches: each watch set is one gRPC Watch stream per server; creates are sent one at a time and
both answers compared. A companion watch on the whole key space from the current revision is
added last: the workload resumes once both servers delivered the current revision to it and sent
each watch as many responses as the other (etcd catches unsynced watchers up in a background loop
and reads prev_kv when it sends, so no write or compaction may overtake that). At the end one
write to both flushes the streams, and every watch's responses are compared one by one.

What is adjusted, and why
- Lease time-to-live's remaining TTL is compared within one second (granted milliseconds apart).
- The workload never sends a txn with an ignore_value/ignore_lease put and a delete: etcd panics
  on it (see the store differential test's docstring).
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
import test_etcd_differential as store_diff  # tests/store, on sys.path through conftest.py
from google.protobuf import text_format

from fakeapi.etcd.pb import kv_pb2, rpc_pb2, rpc_pb2_grpc
from fakeapi.store import (
    Compare,
    CompareTarget,
    DeleteRangeRequest,
    KeyValue,
    PutRequest,
    RangeRequest,
    SortOrder,
    SortTarget,
    TxnRequest,
    WatchFilter,
)

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
        self.channel = grpc.insecure_channel(url.removeprefix("http://"))
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
        self.clients = (WatchClient(differ.ours), WatchClient(differ.theirs))
        self.ids: set[int] = set()
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
        companion = {"key": b"\0", "range_end": b"\0", "start_revision": self.current}
        self.companion = self._create(self.clients[0], companion)[1]
        assert self._create(self.clients[1], companion)[1] == self.companion
        self.wait_delivered()

    def _create(self, client: WatchClient, create: dict[str, Any]) -> tuple[Any, ...]:
        before = sum(1 for r in client.responses if r.created)
        client.send(**create)
        if not client.wait_for(lambda rs: sum(1 for r in rs if r.created) > before):
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
            ) or rev <= self.current

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


def finish_watches(differ: GrpcDiffer, watch_sets: list[GrpcWatchSet]) -> None:
    """One write to both flushes every stream; then every watch is compared."""
    last = differ.store.revision
    differ.put(PutRequest(b"\xff\xff\xff-flush", b"1"))
    for ws in watch_sets:
        ws.wait_delivered()
        ws.compare(last)
        ws.close()


# =================================================================== the workload


class GrpcWorkload(store_diff.Workload):
    """The store differential test's workload, plus sort orders, revision filters and
    serializable reads, with its watches over gRPC."""

    def gen_range(self) -> RangeRequest:
        r = super().gen_range()
        rng = self.rng
        if rng.random() < 0.3:
            r = r._replace(sort_order=rng.choice(list(SortOrder)),
                           sort_target=rng.choice(list(SortTarget)))
        if rng.random() < 0.2:
            cur = self.store.revision
            field = rng.choice(["min_mod_revision", "max_mod_revision", "min_create_revision",
                                "max_create_revision"])
            r = r._replace(**{field: rng.randint(1, cur + 1)})
        return r

    def open_watches(self) -> None:
        rng, store = self.rng, self.store
        cur, comp = store.revision, store.compact_revision
        if cur < 2 or comp >= cur:
            return
        specs = []
        for _ in range(rng.randint(3, 6)):
            r = rng.random()
            if r < 0.15:
                start = 0
            elif r < 0.25:
                start = cur + rng.randint(1, 20)
            elif r < 0.4 and comp >= 1:
                start = comp
            elif r < 0.55 and comp > 1:
                start = rng.randint(max(1, comp - 10), comp - 1)  # compacted
            else:
                start = rng.randint(max(1, comp, cur - 900), cur)
            key, end = self.bounds(wide=1.5)
            filters: tuple[WatchFilter, ...] = ()
            f = rng.random()
            if f < 0.12:
                filters = (WatchFilter.NOPUT,)
            elif f < 0.24:
                filters = (WatchFilter.NODELETE,)
            specs.append({"key": key, "range_end": end, "start": start,
                          "prev_kv": rng.random() < 0.5, "filters": filters})
        self.kinds["watch"] += len(specs)
        self.watch_sets.append(GrpcWatchSet(self.d, specs))  # type: ignore[arg-type]


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
    work = GrpcWorkload(differ, random.Random(seed))  # type: ignore[arg-type]
    work.run(N_OPS)
    finish_watches(differ, work.watch_sets)  # type: ignore[arg-type]
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
