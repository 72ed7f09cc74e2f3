"""What the per-client report costs: resource requests through the whole ASGI app with the
report and with a stand-in that records nothing (the metrics middleware runs in both), one
``begin``/``end`` pair on its own, and a report, a scrape and the memory held after traffic
from many more clients than the cap. Prints numbers; not a test. ``--quick`` for a short run."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.applications import Starlette
from metrics_bench import call, per_request
from prometheus_client import CollectorRegistry, generate_latest

from fakeapi.clients import ClientReport
from fakeapi.server import create_app
from fakeapi.http.metrics import MetricsMiddleware
from fakeapi.http.request_info import request_info
from fakeapi.registry.request_cost import RequestCost

USER_AGENT = b"kube-controller-manager/v1.35.4 (linux/amd64) kubernetes/abcdef0/statefulset-controller"


class NoReport:
    """Records nothing: the baseline."""

    def begin(self, scope: Any, info: Any, cost: Any) -> None:
        return None

    def end(self, call: Any, status: int, seconds: float) -> None:
        pass


def app_with(clients: ClientReport | NoReport | None = None) -> Starlette:
    app = create_app()
    if clients is not None:
        for middleware in app.user_middleware:
            if middleware.cls is MetricsMiddleware:
                middleware.kwargs["clients"] = clients
    return app


async def http_costs(n: int, rounds: int = 5) -> None:
    """Both apps served side by side, their rounds interleaved so that the machine's drift hits
    both alike; the best round of each counts."""
    apps = {"report": app_with(), "no report": app_with(NoReport())}
    async with contextlib.AsyncExitStack() as stack:
        for app in apps.values():
            await stack.enter_async_context(app.router.lifespan_context(app))
        cms = "/api/v1/namespaces/default/configmaps"
        headers = [(b"user-agent", USER_AGENT)]
        for app in apps.values():
            for i in range(1000):
                await call(app, "POST", cms, orjson.dumps({"metadata": {"name": f"seed-{i}", "labels": {"i": str(i)}}}))

        def get(app: Starlette) -> Callable[[int], Awaitable[int]]:
            return lambda _i: call(app, "GET", f"{cms}/seed-1", headers=headers)

        def create(app: Starlette) -> Callable[[int], Awaitable[int]]:
            return lambda i: call(app, "POST", cms, orjson.dumps({"metadata": {"name": f"cm-{i}"}}), headers=headers)

        def update(app: Starlette) -> Callable[[int], Awaitable[int]]:  # a no-op write: the hot-loop path
            return lambda _i: call(app, "PUT", f"{cms}/seed-2", orjson.dumps({"metadata": {"name": "seed-2"}}),
                                   headers=headers)

        def list_(app: Starlette) -> Callable[[int], Awaitable[int]]:
            return lambda _i: call(app, "GET", cms, query=b"limit=10", headers=headers)

        def select(app: Starlette) -> Callable[[int], Awaitable[int]]:  # a selector scan of 1,000 objects
            return lambda _i: call(app, "GET", cms, query=b"labelSelector=i%3D7", headers=headers)

        print(f"{'request (µs each, in-process ASGI)':<44} {'report':>9} {'none':>9} {'overhead':>9}")
        names = ("GET one configmap", "POST a configmap", "PUT, no change (no-op write)", "LIST 10 of 1,000+",
                 "LIST by label selector, 1 of 1,000+")
        for name, op in zip(names, (get, create, update, list_, select)):
            best = dict.fromkeys(apps, float("inf"))
            count = n if op is not select else max(n // 20, 10)
            for r in range(rounds):
                for label, app in apps.items():
                    # creates need fresh names each round
                    offset = (r * len(apps) + list(apps).index(label)) * (count + 50)
                    best[label] = min(best[label], await per_request(app, count, lambda i, o=op(app): o(offset + i),
                                                                      rounds=1))
            on, off = best["report"], best["no report"]
            print(f"{name:<44} {on:>9.1f} {off:>9.1f} {on - off:>+9.1f}")


def direct_cost(n: int) -> None:
    """``begin`` + ``end`` of a GET, without the app around them."""
    app = create_app()
    registry = app.state.server.registry
    report = ClientReport()
    scope = {"type": "http", "method": "GET", "path": "/api/v1/namespaces/default/configmaps/a",
             "query_string": b"", "headers": [(b"host", b"x"), (b"user-agent", USER_AGENT), (b"accept", b"*/*")],
             "client": ("127.0.0.1", 5000)}
    info = request_info(registry, scope)
    start = time.perf_counter()
    for _ in range(n):
        cost = RequestCost()
        report.end(report.begin(scope, info, cost), 200, 0.0001)
    print(f"{'ClientReport.begin + end of a GET':<44} {(time.perf_counter() - start) * 1e6 / n:>9.2f} µs")


def many_clients(requests: int, distinct: int) -> None:
    """Traffic from ``distinct`` User-Agents (far more than the cap) over 50 namespaces and 4
    resources: time per request, memory held, report and scrape time."""
    registry = create_app().state.server.registry
    resources = ("configmaps", "secrets", "pods", "services")
    calls = []
    for i in range(requests):
        scope = {"type": "http", "method": "GET", "path": f"/api/v1/namespaces/ns-{i % 50}/{resources[i % 4]}",
                 "query_string": b"labelSelector=app%3Dx", "client": ("127.0.0.1", 5000 + i % 1000),
                 "headers": [(b"user-agent", f"client-{i % distinct}/v1 (linux/amd64) kubernetes/abc".encode())]}
        info = request_info(registry, scope)
        calls.append((scope, info))

    def run(report: ClientReport) -> None:
        for scope, info in calls:
            cost = RequestCost()
            cost.examined, cost.returned = 1000, 2
            report.end(report.begin(scope, info, cost), 200, 0.001)

    report = ClientReport()
    start = time.perf_counter()
    run(report)
    elapsed = time.perf_counter() - start
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    measured = ClientReport()
    run(measured)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    start = time.perf_counter()
    data = report.report()
    report_ms = (time.perf_counter() - start) * 1e3
    collectors = CollectorRegistry(auto_describe=False)
    collectors.register(report)  # type: ignore[arg-type]
    start = time.perf_counter()
    scraped = generate_latest(collectors)
    scrape_ms = (time.perf_counter() - start) * 1e3
    print(f"{requests:,} requests from {distinct:,} clients: {elapsed * 1e6 / requests:.2f} µs each (begin + end), "
          f"{len(report.clients)} clients kept (cap {report.config.max_clients} + other), "
          f"{held / 1e6:.1f} MB held, {len(data['findings'])} findings; report {report_ms:.0f} ms, "
          f"scrape {scrape_ms:.0f} ms ({len(scraped):,} bytes)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    n = 300 if quick else 3000
    asyncio.run(http_costs(n))
    direct_cost(n * 30)
    many_clients(20_000 if quick else 200_000, 10_000)


if __name__ == "__main__":
    main()
