"""What measuring costs: resource requests through the whole ASGI app with and without the
metrics middleware (called directly, no socket or client in the way), store calls through
``TimedStore`` and ``Store``, one ``BucketCounts`` observation (the per-line cost of a watch
event), and one scrape. Prints numbers; not a test. ``--quick`` for a short run."""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.applications import Starlette
from prometheus_client import generate_latest

from fakeapi.cacher.cache_watcher import FINE_LATENCY_EDGES, BucketCounts
from fakeapi.server import create_app
from fakeapi.http.metrics import MetricsMiddleware
from fakeapi.metrics.storage_timing import TimedStore
from fakeapi.store import Compare, CompareResult, CompareTarget, PutRequest, Store, TxnRequest


def app_without_metrics() -> Starlette:
    app = create_app()
    app.user_middleware = [m for m in app.user_middleware if m.cls is not MetricsMiddleware]
    return app


async def call(app: Starlette, method: str, path: str, body: bytes = b"", query: bytes = b"",
               headers: list[tuple[bytes, bytes]] | None = None) -> int:
    """One request straight into the ASGI app (with ``headers`` besides content type and
    length); returns the status."""
    return (await exchange(app, method, path, body, query, headers))[0]


async def exchange(app: Starlette, method: str, path: str, body: bytes = b"", query: bytes = b"",
                   headers: list[tuple[bytes, bytes]] | None = None,
                   content_type: bytes = b"application/json") -> tuple[int, bytes]:
    """``call``, answering the status and the response's body."""
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": query, "root_path": "",
        "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
                    *(headers or ())],
        "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
    }
    sent = False
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


async def per_request(app: Starlette, n: int, request: Callable[[int], Awaitable[int]], rounds: int = 5) -> float:
    """µs per request: the best mean of ``rounds`` rounds of ``n`` requests, after a warm-up
    (the best round is the least disturbed by the machine)."""
    for i in range(50):
        await request(-1 - i)
    best = float("inf")
    for r in range(rounds):
        start = time.perf_counter()
        for i in range(n):
            await request(r * n + i)
        best = min(best, (time.perf_counter() - start) * 1e6 / n)
    return best


async def http_costs(n: int) -> None:
    results: dict[str, list[float]] = {}
    for label, app in (("with metrics", create_app()), ("without", app_without_metrics())):
        async with app.router.lifespan_context(app):
            cms = "/api/v1/namespaces/default/configmaps"
            for i in range(100):
                await call(app, "POST", cms, orjson.dumps({"metadata": {"name": f"seed-{i}"}}))

            async def get(_i: int) -> int:
                return await call(app, "GET", f"{cms}/seed-1")

            async def create(i: int) -> int:
                return await call(app, "POST", cms, orjson.dumps({"metadata": {"name": f"cm-{i}"}}))

            async def list_(_i: int) -> int:
                return await call(app, "GET", cms, query=b"limit=10")

            results[label] = [await per_request(app, n, op) for op in (get, create, list_)]
    print(f"{'request (µs each, in-process ASGI)':<40} {'with':>9} {'without':>9} {'overhead':>9}")
    for i, name in enumerate(("GET one configmap", "POST a configmap", "LIST 10 of 100+ configmaps")):
        on, off = results["with metrics"][i], results["without"][i]
        print(f"{name:<40} {on:>9.1f} {off:>9.1f} {on - off:>+9.1f}")


def store_costs(n: int) -> None:
    print(f"{'store call (µs each)':<40} {'timed':>9} {'plain':>9}")
    timings = []
    for store in (TimedStore(), Store()):
        if isinstance(store, TimedStore):
            store.resource_prefixes = {b"/registry/configmaps/": ("", "configmaps")}
        keys = [f"/registry/configmaps/default/cm-{i}".encode() for i in range(n)]
        start = time.perf_counter()
        for key in keys:
            store.txn(TxnRequest(compare=(Compare(key, CompareTarget.MOD, CompareResult.EQUAL, 0),),
                                 success=(PutRequest(key, b"{}"),)))
        created = time.perf_counter() - start
        start = time.perf_counter()
        for key in keys:
            store.get(key)
        got = time.perf_counter() - start
        timings.append((created * 1e6 / n, got * 1e6 / n))
    for i, name in enumerate(("txn (create)", "get")):
        print(f"{name:<40} {timings[0][i]:>9.2f} {timings[1][i]:>9.2f}")


def observe_cost(n: int) -> None:
    counts = BucketCounts(FINE_LATENCY_EDGES)
    start = time.perf_counter()
    for i in range(n):
        counts.observe(i * 1e-7)
    print(f"{'BucketCounts.observe (per watch line)':<40} {(time.perf_counter() - start) * 1e9 / n:>9.0f} ns")


async def scrape_cost() -> None:
    app = create_app()
    async with app.router.lifespan_context(app):
        metrics = app.state.server.metrics
        start = time.perf_counter()
        body = generate_latest(metrics.prometheus)
        elapsed = time.perf_counter() - start
        print(f"{'one scrape of a fresh server':<40} {elapsed * 1e3:>9.1f} ms ({len(body):,} bytes)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    n = 300 if parser.parse_args().quick else 3000
    asyncio.run(http_costs(n))
    store_costs(n * 10)
    observe_cost(n * 100)
    asyncio.run(scrape_cost())


if __name__ == "__main__":
    main()
