"""The seeded random workload of the differential tests (test_grpc_differential.py): request
generators over a small key alphabet where keys collide, get deleted and re-created, and bytes
order matters; the operations mix (puts, deletes, ranges, txns nested and at etcd's limits,
compactions, leases, watch sets opened at the past, now, the future and compacted revisions).

The workload drives a *differ* (``put``, ``delete``, ``range``, ``txn``, ``compact``,
``lease_grant``, ``lease_revoke``, ``lease_time_to_live``, ``store.revision``,
``store.compact_revision``, ``store.get``) and opens watch sets through ``open_watch_set``
(``wait_delivered`` before a compaction, so no compaction overtakes a server's send).

What it never sends: a txn with an ignore_value/ignore_lease put and a delete. etcd checks
ignore_* against the store before the txn and, when an earlier op of the same txn deleted the key
through a delete its duplicate-key check lets through (range_end "\\0"), the put fails inside the
txn and etcd dies (``panic: unexpected error during txn``, applyUnion / lg.Panic).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from fakeapi.store import (
    Compare,
    CompareResult,
    CompareTarget,
    DeleteRangeRequest,
    PutRequest,
    RangeRequest,
    SortOrder,
    SortTarget,
    TxnRequest,
    WatchFilter,
    prefix_range_end,
)

WRITE_KEYS = [
    b"a", b"a/", b"a/1", b"a/2", b"a/2/x", b"b", b"b\x00", b"b\xff", b"c", b"d/1", b"d/2", b"\xff",
]
READ_KEYS = WRITE_KEYS + [b"zz", b"\xff\xff", b"a/3"]  # some never written
PREFIXES = [b"a", b"a/", b"a/2", b"b", b"d/", b"\xff", b"z"]
VALUES = [b"", b"0", b"1", b"x", b"yy", b"\x00\xff", b"long-value-" * 4]
#: A lease id neither side ever grants: puts with it fail on both.
MISSING_LEASE = 0x7777


def walk_ops(t: TxnRequest) -> list[Any]:
    out: list[Any] = []
    for op in (*t.success, *t.failure):
        out.append(op)
        if isinstance(op, TxnRequest):
            out.extend(walk_ops(op))
    return out


class Workload:
    def __init__(self, differ: Any, rng: random.Random,
                 open_watch_set: Callable[[Any, list[dict[str, Any]]], Any]) -> None:
        self.d = differ
        self.store = differ.store
        self.rng = rng
        self.open_watch_set = open_watch_set
        self.live_leases: list[int] = []
        self.dead_leases: list[int] = []
        self.watch_sets: list[Any] = []
        self.kinds: Counter[str] = Counter()

    # ----------------------------------------------------------------- generators

    def bounds(self, wide: float = 1.0) -> tuple[bytes, bytes]:
        rng = self.rng
        r = rng.random()
        if r < 1 - 0.6 * wide:
            return rng.choice(READ_KEYS), b""
        r = rng.random()
        if r < 0.45:
            p = rng.choice(PREFIXES)
            return p, prefix_range_end(p)
        if r < 0.6:
            return rng.choice(READ_KEYS), b"\0"
        if r < 0.67:
            return b"\0", b"\0"
        return rng.choice(READ_KEYS), rng.choice(READ_KEYS)  # possibly empty or inverted

    def read_revision(self) -> int:
        rng, cur, comp = self.rng, self.store.revision, self.store.compact_revision
        r = rng.random()
        if r < 0.55:
            return 0
        if r < 0.88:
            return rng.randint(max(1, comp), cur)
        return rng.choice([cur + 1, cur + 2, max(1, comp - 1), max(1, comp), 1])

    def gen_range(self) -> RangeRequest:
        rng = self.rng
        key, end = self.bounds()
        limit = rng.choice([0, 0, 0, 1, 2, 3, 5])
        r = RangeRequest(
            key, end, limit=limit, revision=self.read_revision(),
            keys_only=rng.random() < 0.2, count_only=rng.random() < 0.15,
        )
        if rng.random() < 0.3:
            r = r._replace(sort_order=rng.choice(list(SortOrder)),
                           sort_target=rng.choice(list(SortTarget)))
        if rng.random() < 0.2:
            field = rng.choice(["min_mod_revision", "max_mod_revision", "min_create_revision",
                                "max_create_revision"])
            r = r._replace(**{field: rng.randint(1, self.store.revision + 1)})
        return r

    def pick_lease(self) -> int:
        rng = self.rng
        r = rng.random()
        if r < 0.6 or not self.live_leases:
            return MISSING_LEASE if r > 0.97 else 0
        if r < 0.95 or not self.dead_leases:
            return rng.choice(self.live_leases)
        return rng.choice(self.dead_leases)

    def gen_put(self) -> PutRequest:
        rng = self.rng
        key, value, lease = rng.choice(WRITE_KEYS), rng.choice(VALUES), self.pick_lease()
        ignore_value = ignore_lease = False
        r = rng.random()
        if r < 0.07:
            ignore_value = True
            value = b"" if rng.random() < 0.8 else b"x"
        elif r < 0.14:
            ignore_lease = True
            lease = 0 if rng.random() < 0.75 else rng.choice(self.live_leases or [MISSING_LEASE])
        return PutRequest(key, value, lease, rng.random() < 0.5, ignore_value, ignore_lease)

    def gen_delete(self) -> DeleteRangeRequest:
        key, end = self.bounds(wide=0.5)
        return DeleteRangeRequest(key, end, prev_kv=self.rng.random() < 0.5)

    def gen_compare(self) -> Compare:
        rng, store = self.rng, self.store
        if rng.random() < 0.2:
            key, end = self.bounds()
        else:
            key, end = rng.choice(READ_KEYS), b""
        kv = store.get(key) if not end else None
        target = rng.choice(list(CompareTarget))
        result = rng.choice(list(CompareResult))
        cur = store.revision
        operand: int | bytes
        if target is CompareTarget.VERSION:
            operand = rng.choice([0, 1, 2, 3, kv.version if kv else 0])
        elif target is CompareTarget.CREATE:
            operand = rng.choice([0, rng.randint(1, cur + 1), kv.create_revision if kv else 0])
        elif target is CompareTarget.MOD:
            operand = rng.choice([0, rng.randint(1, cur + 1), kv.mod_revision if kv else 0])
        elif target is CompareTarget.VALUE:
            operand = rng.choice([*VALUES, kv.value if kv else b"x"])
        else:
            granted = self.live_leases + self.dead_leases
            operand = rng.choice([0, kv.lease if kv else 0, *(granted[-3:] or [0])])
        return Compare(key, target, result, operand, end)

    def gen_ops(self, depth: int) -> tuple[Any, ...]:
        rng = self.rng
        ops: list[Any] = []
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
            r = rng.random()
            if r < 0.38:
                ops.append(self.gen_range())
            elif r < 0.7:
                ops.append(self.gen_put())
            elif r < 0.88:
                ops.append(self.gen_delete())
            elif depth < 2:
                ops.append(self.gen_txn(depth + 1))
            else:
                ops.append(self.gen_range())
        return tuple(ops)

    def gen_txn(self, depth: int = 0) -> TxnRequest:
        compares = tuple(self.gen_compare() for _ in range(self.rng.choice([0, 1, 1, 2, 3])))
        return TxnRequest(compares, self.gen_ops(depth), self.gen_ops(depth))

    @staticmethod
    def _strip_ignores(t: TxnRequest) -> TxnRequest:
        def fix(op: Any) -> Any:
            if isinstance(op, PutRequest) and (op.ignore_value or op.ignore_lease):
                return op._replace(ignore_value=False, ignore_lease=False)
            if isinstance(op, TxnRequest):
                return Workload._strip_ignores(op)
            return op

        return t._replace(success=tuple(map(fix, t.success)), failure=tuple(map(fix, t.failure)))

    # ----------------------------------------------------------------- operations

    def op_txn(self) -> None:
        t = self.gen_txn()
        ops = walk_ops(t)
        if any(isinstance(o, DeleteRangeRequest) for o in ops):
            # etcd checks ignore_value/ignore_lease against the store before the txn and panics
            # (applyUnion) when an earlier op of the same txn deleted the key through a delete its
            # duplicate-key check lets through (range_end "\0"): never send that to etcd.
            t = self._strip_ignores(t)
        self.kinds["txn"] += 1
        self.kinds["txn(nested)"] += any(isinstance(o, TxnRequest) for o in ops)
        self.d.txn(t)

    def op_txn_limits(self) -> None:
        """Txns at and over etcd's limits: 128 ops per list (a nested txn gets what its parent
        left), and keys that must not be empty."""
        rng = self.rng
        cmp = self.gen_compare()
        ranges = [RangeRequest(rng.choice(READ_KEYS)) for _ in range(129)]
        n = rng.choice([99, 100])  # + the nested txn: 100 ops (it may have 28) or 101 (27)
        t = rng.choice([
            TxnRequest(compare=(cmp,) * rng.choice([128, 129])),
            TxnRequest(compare=(cmp,), success=tuple(ranges[: rng.choice([128, 129])])),
            TxnRequest(failure=(*ranges[:n], TxnRequest(success=tuple(ranges[:28])))),
            TxnRequest(compare=(cmp._replace(key=b""),), success=(self.gen_put(),)),
            TxnRequest(success=(TxnRequest(success=(RangeRequest(b""),)),)),
        ])
        self.kinds["txn(limits)"] += 1
        self.d.txn(self._strip_ignores(t))

    def op_compact(self) -> None:
        rng, cur, comp = self.rng, self.store.revision, self.store.compact_revision
        r = rng.random()
        if r < 0.7 and comp + 1 < cur:
            lo = max(comp + 1, 1)
            rev = rng.randint(lo, lo + (cur - lo) // 3)
        elif r < 0.8:
            rev = comp  # ErrCompacted (or compacting at 0/-1 before any compaction)
        elif r < 0.9:
            rev = max(comp - 1, 1)
        else:
            rev = cur + rng.randint(1, 3)  # ErrFutureRev
        if rev < 1:
            rev = 1
        self.kinds["compact"] += 1
        for ws in self.watch_sets:
            ws.wait_delivered()
        self.d.compact(rev)

    def op_lease(self) -> None:
        rng = self.rng
        r = rng.random()
        if r < 0.35 or not self.live_leases:
            self.kinds["lease_grant"] += 1
            g = self.d.lease_grant(rng.randint(600, 3600))
            if g is not None:
                self.live_leases.append(g.id)
        elif r < 0.6:
            self.kinds["lease_revoke"] += 1
            if rng.random() < 0.75:
                lease = self.live_leases.pop(rng.randrange(len(self.live_leases)))
                self.dead_leases.append(lease)
            else:
                lease = rng.choice(self.dead_leases or [MISSING_LEASE])
            self.d.lease_revoke(lease)
        else:
            self.kinds["lease_ttl"] += 1
            pool = self.live_leases
            if rng.random() < 0.25 and self.dead_leases:
                pool = self.dead_leases
            self.d.lease_time_to_live(rng.choice(pool), keys=rng.random() < 0.7)

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
        self.watch_sets.append(self.open_watch_set(self.d, specs))

    def run(self, n_ops: int) -> None:
        rng = self.rng
        watch_every = max(1, n_ops // 9)
        table: list[tuple[float, Callable[[], None]]] = [
            (22, lambda: self.d.put(self.gen_put())),
            (10, lambda: self.d.delete(self.gen_delete())),
            (20, lambda: self.d.range(self.gen_range())),
            (30, self.op_txn),
            (0.8, self.op_txn_limits),
            (2.5, self.op_compact),
            (6, self.op_lease),
        ]
        names = ["put", "delete", "range", "txn", "txn_limits", "compact", "lease"]
        weights = [w for w, _ in table]
        for i in range(n_ops):
            if i % watch_every == watch_every // 2:
                self.open_watches()
            idx = rng.choices(range(len(table)), weights)[0]
            if names[idx] in ("put", "delete", "range"):
                self.kinds[names[idx]] += 1
            table[idx][1]()


