"""A consistent LIST (RV "") unpaged vs paged (limit 500, each next page asked for with the
continue token), through the registry in process (no HTTP), at 10k and 100k pods side by side.

A paged list is served from the watch cache's state at the first page's revision; its pages
should cost their own size, so the whole paged list should cost about what one unpaged LIST
costs (the goal: paged/unpaged <= 1.5). ``--churn K`` updates K pods between pages: the pages
then read a revision the cache has moved past, the case that must not walk the events written
since for every page. Prints numbers; not a test.

    .venv/bin/python benchmarks/paged_list_bench.py [--sizes 10000,100000] [--churn 0,50] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import pstats
import time
from collections.abc import Awaitable, Callable
from functools import partial

import orjson

from fakeapi.machinery.list_options import ListOptions
from fakeapi.registry.registry import Registry
from fakeapi.registry.rest import ResourceStore
from fakeapi.seed.seeder import SeedSpec, seed_registry
from fakeapi.store import Store

PAGE = 500
NAMESPACE = "ns-0"


def list_meta(body: bytes) -> dict:
    """A JSON LIST's metadata, read without decoding its items (the client's cost, not the
    server's: the timings leave it out)."""
    return orjson.loads(body[:body.index(b',"items":[')] + b"}")["metadata"]


async def unpaged(pods: ResourceStore) -> tuple[float, int]:
    """One consistent LIST: (seconds, bytes)."""
    start = time.perf_counter()
    body = await pods.list(None, ListOptions())
    return time.perf_counter() - start, len(body)


async def paged(pods: ResourceStore, churn: int) -> tuple[float, int]:
    """Every page of a consistent paged list, ``churn`` pods relabelled between pages (spread over
    the whole key range: some already listed, some not yet): (seconds spent in the lists, not in
    the writes; bytes)."""
    names = pods.cacher.cache.snapshot(*pods.key_range(NAMESPACE))
    writes = itertools.cycle(names[::max(1, len(names) // 1000)])  # ~1,000 pods over the whole range, in turn
    spent, size, token, written = 0.0, 0, "", 0
    while True:
        start = time.perf_counter()
        body = await pods.list(None, ListOptions(limit=PAGE, continue_token=token))
        spent += time.perf_counter() - start
        size += len(body)
        token = list_meta(body).get("continue", "")
        if not token:
            return spent, size
        written += 1
        label = orjson.dumps({"metadata": {"labels": {"churn": str(written)}}})
        for obj in itertools.islice(writes, churn):
            pods.patch(NAMESPACE, obj.name, "application/merge-patch+json", label)
        await asyncio.sleep(0)  # the cache takes in the writes


async def best_of(run: Callable[[], Awaitable[tuple[float, int]]], repeats: int) -> tuple[float, int]:
    """The fastest of ``repeats`` runs: (seconds, bytes)."""
    return min([await run() for _ in range(repeats)])


async def measure(size: int, churns: list[int], repeats: int, profile: bool) -> None:
    registry = Registry(Store())
    registry.start()
    await seed_registry(registry, SeedSpec(pods=size))
    await asyncio.sleep(0.2)  # the cache catches up with the seeding
    pods = registry.resources[("", "v1", "pods")]
    flat, flat_bytes = await best_of(partial(unpaged, pods), repeats)
    print(f"{size:>8,} pods  unpaged {flat * 1e3:>8,.0f} ms ({flat_bytes / 1e6:,.1f} MB)")
    for churn in churns:
        profiler = cProfile.Profile() if profile else None
        if profiler:
            profiler.enable()
        pages, paged_bytes = await best_of(partial(paged, pods, churn), repeats)
        if profiler:
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(r"cacher|registry/(delegator|lists)|sortedcontainers", 20)
        print(f"{size:>8,} pods  paged by {PAGE}, {churn} writes between pages {pages * 1e3:>8,.0f} ms "
              f"({paged_bytes / 1e6:,.1f} MB)   paged/unpaged {pages / flat:.2f}x")
    await registry.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="pod counts, comma separated")
    parser.add_argument("--churn", default="0,50", help="pods updated between pages, one paged list each, "
                        "comma separated")
    parser.add_argument("--repeats", type=int, default=3, help="the fastest of this many runs counts")
    parser.add_argument("--profile", action="store_true", help="cProfile the paged lists (and the writes between pages)")
    args = parser.parse_args()
    churns = [int(c) for c in args.churn.split(",")]
    for size in (int(s) for s in args.sizes.split(",")):
        await measure(size, churns, args.repeats, args.profile)


if __name__ == "__main__":
    asyncio.run(main())
