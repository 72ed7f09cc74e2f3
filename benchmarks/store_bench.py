"""Micro-benchmarks of the in-memory etcd store (fakeapi.store). Not a test: run it and read.

    .venv/bin/python benchmarks/store_bench.py            # 100k keys, 1,000 watchers (< 2 min)
    .venv/bin/python benchmarks/store_bench.py --quick    # 10k keys, 100 watchers

It measures, on one thread, what one request costs in the store itself (no network, no
serialization): single-key puts; single-key gets, prefix ranges with limit 500 (at the present and
at a past revision, as kube-apiserver pages a list pinned to its first page's revision),
count_only over every key; watch events delivered to many watchers, with their streams polled;
and memory per key (tracemalloc), with and without the value bytes.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakeapi.store import (  # noqa: E402
    PutRequest,
    RangeRequest,
    Store,
    WatchStream,
    prefix_range_end,
)

PREFIX = b"/registry/pods/"
END = prefix_range_end(PREFIX)
VALUE_SIZE = 100


def key_of(i: int) -> bytes:
    return b"/registry/pods/ns-%03d/pod-%07d" % (i % 100, i)


def value_of(i: int) -> bytes:
    return (b"%07d" % i) * (VALUE_SIZE // 7) + b"v" * (VALUE_SIZE % 7)  # distinct objects


def timed(ops: int, fn: Callable[[], None]) -> tuple[int, float]:
    gc.collect()
    start = time.perf_counter()
    fn()
    return ops, time.perf_counter() - start


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str]] = []

    def rate(self, name: str, ops: int, seconds: float, unit: str = "ops/s") -> None:
        self.rows.append((name, f"{ops:,}", f"{seconds:.3f}", f"{ops / seconds:,.0f} {unit}"))
        print(f"  {name}: {ops / seconds:,.0f} {unit}", file=sys.stderr, flush=True)

    def value(self, name: str, value: str) -> None:
        self.rows.append((name, "", "", value))
        print(f"  {name}: {value}", file=sys.stderr, flush=True)

    def print(self) -> None:
        header = ("benchmark", "ops", "seconds", "result")
        widths = [max(len(r[i]) for r in [header, *self.rows]) for i in range(4)]
        line = "  ".join("-" * w for w in widths)
        print(line)
        print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
        print(line)
        for r in self.rows:
            print("  ".join([r[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(r[1:], widths[1:]))]))
        print(line)


def bench_kv(table: Table, n: int) -> None:
    keys = [key_of(i) for i in range(n)]
    values = [value_of(i) for i in range(n)]
    s = Store()

    def puts() -> None:
        put = s.put
        for k, v in zip(keys, values):
            put(PutRequest(k, v))

    table.rate(f"put, single key ({n:,} new keys)", *timed(n, puts))
    past = s.revision  # every key exists at this revision
    updates = n // 10

    def updates_fn() -> None:
        put = s.put
        for i in range(updates):
            put(PutRequest(keys[(i * 7919) % n], values[i]))

    table.rate(f"put, update existing ({updates:,})", *timed(updates, updates_fn))

    rng = random.Random(42)
    sample = [keys[rng.randrange(n)] for _ in range(n)]

    def gets() -> None:
        rng_ = s.range
        for k in sample:
            rng_(RangeRequest(k))

    table.rate(f"range, single-key get (of {n:,})", *timed(n, gets))

    pages = max(200, n // 100)
    starts = [keys[rng.randrange(n)] for _ in range(pages)]

    def prefix_pages(revision: int) -> Callable[[], None]:
        def run() -> None:
            for k in starts:
                resp = s.range(RangeRequest(k, END, limit=500, revision=revision))
                assert len(resp.kvs) <= 500
        return run

    table.rate(f"range, prefix limit 500, present (of {n:,})", *timed(pages, prefix_pages(0)))
    table.rate(f"range, prefix limit 500, at past rev (of {n:,})", *timed(pages, prefix_pages(past)))
    counts = 2000

    def count_only() -> None:
        for _ in range(counts):
            resp = s.range(RangeRequest(PREFIX, END, count_only=True))
        assert resp.count == n

    table.rate(f"range, count_only over {n:,} keys", *timed(counts, count_only))

    def count_only_past() -> None:
        for _ in range(counts // 10):
            resp = s.range(RangeRequest(PREFIX, END, count_only=True, revision=past))
        assert resp.count == n

    table.rate(f"range, count_only over {n:,} keys, past rev", *timed(counts // 10, count_only_past))

    def full_list_past() -> None:
        # kube-apiserver's paged LIST: pages of 500 from the prefix, all at one revision.
        key, seen = PREFIX, 0
        while True:
            resp = s.range(RangeRequest(key, END, limit=500, revision=past))
            seen += len(resp.kvs)
            if not resp.more:
                break
            key = resp.kvs[-1].key + b"\0"
        assert seen == n

    ops, secs = timed(n, full_list_past)
    table.rate(f"paged LIST of {n:,} keys at a past rev", ops, secs, "keys/s")


def _drain(streams: list[WatchStream]) -> int:
    """Events waiting on ``streams`` (one poll each)."""
    return sum(len(resp.events) for st in streams for resp in st.poll())


def _put_and_poll(s: Store, streams: list[WatchStream], keys: Callable[[int], bytes], writes: int,
                  poll_every: int) -> tuple[int, float]:
    """``writes`` puts to ``keys(i)``, the consumers polling every ``poll_every`` puts (so their
    bounded queues never fill) and once at the end; returns the events received and the seconds."""
    value = b"v" * VALUE_SIZE
    received = 0

    def run() -> None:
        nonlocal received
        put = s.put
        for i in range(writes):
            put(PutRequest(keys(i), value))
            if i % poll_every == poll_every - 1:
                received += _drain(streams)
        received += _drain(streams)

    _, secs = timed(0, run)
    return received, secs


def bench_watch(table: Table, watchers: int, writes: int) -> None:
    # 1) Every watcher on one prefix, each on its own stream (one client each); consumers poll
    # every 50 puts (queues hold 128 responses).
    s = Store()
    streams = []
    for _ in range(watchers):
        st = s.new_stream()
        st.watch(PREFIX, END, prev_kv=True)
        streams.append(st)
    received, secs = _put_and_poll(s, streams, lambda i: key_of(i % 1000), writes, 50)
    assert received == writes * watchers, (received, writes * watchers)
    table.rate(f"watch: {watchers:,} watchers on one prefix, {writes:,} puts", received, secs,
               "events/s")

    # 2) Every watcher on its own key, each on its own stream; every put hits one watcher.
    s = Store()
    streams = []
    for i in range(watchers):
        st = s.new_stream()
        st.watch(key_of(i), prev_kv=True)
        streams.append(st)
    single_writes = writes * 20
    received, secs = _put_and_poll(s, streams, lambda i: key_of(i % watchers), single_writes, watchers * 50)
    assert received == single_writes, (received, single_writes)
    table.rate(f"watch: {watchers:,} watchers on distinct keys, {single_writes:,} puts",
               received, secs, "events/s")

    # 3) Watchers that fall behind and catch up from the log (tiny queues).
    s = Store()
    streams = []
    for _ in range(watchers):
        st = s.new_stream(capacity=2)
        st.watch(PREFIX, END)
        streams.append(st)
    value = b"v" * VALUE_SIZE
    received = 0

    def catch_up_run() -> None:
        nonlocal received
        put = s.put
        for i in range(writes):
            put(PutRequest(key_of(i % 1000), value))
        for st in streams:
            while True:
                got = st.poll()
                for resp in got:
                    received += len(resp.events)
                if not got and not st.has_pending:
                    break

    _, secs = timed(0, catch_up_run)
    assert received == writes * watchers, (received, writes * watchers)
    table.rate(f"watch: {watchers:,} behind (queue of 2), catch-up", received, secs, "events/s")


def bench_memory(table: Table, n: int) -> None:
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        s = Store()
        value_bytes = 0
        key_bytes = 0
        for i in range(n):
            k, v = key_of(i), value_of(i)
            value_bytes += sys.getsizeof(v)
            key_bytes += sys.getsizeof(k)
            s.put(PutRequest(k, v))
        gc.collect()
        total = tracemalloc.get_traced_memory()[0] - base
        s.compact(s.revision)
        gc.collect()
        compacted = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    per = total / n
    table.value(f"memory per key ({n:,} keys, {VALUE_SIZE} B values), with values",
                f"{per:,.0f} B/key")
    table.value("  ... without value bytes", f"{(total - value_bytes) / n:,.0f} B/key")
    table.value("  ... without value or key bytes", f"{(total - value_bytes - key_bytes) / n:,.0f} B/key")
    table.value("  ... after compact(current), with values", f"{compacted / n:,.0f} B/key")
    table.value("  ... after compact(current), without value bytes",
                f"{(compacted - value_bytes) / n:,.0f} B/key")
    table.value("  (value object / key object sizes)",
                f"{value_bytes / n:,.0f} B / {key_bytes / n:,.0f} B")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10x smaller (10k keys, 100 watchers)")
    args = parser.parse_args()
    n = 10_000 if args.quick else 100_000
    watchers = 100 if args.quick else 1_000
    writes = 200 if args.quick else 1_000
    table = Table()
    started = time.perf_counter()
    print(f"Python {sys.version.split()[0]}; {n:,} keys, {watchers:,} watchers", file=sys.stderr)
    bench_kv(table, n)
    bench_watch(table, watchers, writes)
    bench_memory(table, n)
    print()
    table.print()
    print(f"total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
