"""Registry write and read throughput (no HTTP): pod creates with and without managedFields
tracking, strategic-merge patches, server-side applies, and LIST pages from the watch cache.
Prints numbers; not a test. ``--quick`` for a short run."""

from __future__ import annotations

import argparse
import asyncio
import time

import orjson

from fakeapi.machinery.list_options import ListOptions
from fakeapi.registry.registry import Registry
from fakeapi.store import Store


def pod(i: int) -> dict:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"pod-{i}", "labels": {"app": f"app-{i % 50}", "tier": "web"},
                     "annotations": {"note": "x" * 200}},
        "spec": {"nodeName": f"node-{i % 100}", "containers": [
            {"name": "app", "image": "registry.example/app:1.2.3", "ports": [{"containerPort": 8080, "protocol": "TCP"}],
             "env": [{"name": f"E{j}", "value": "v" * 20} for j in range(10)],
             "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}},
            {"name": "sidecar", "image": "registry.example/sidecar:4"}]},
    }


def rate(label: str, count: int, seconds: float) -> None:
    print(f"{label:<48} {count / seconds:>10,.0f}/s  ({seconds * 1e6 / count:,.0f} µs each)")


async def main(n: int) -> None:
    registry = Registry(Store())
    registry.start()
    pods = registry.resources[("", "v1", "pods")]
    start = time.perf_counter()
    for i in range(n):
        pods.create("default", pod(i))
    rate("create pod (untracked)", n, time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(n, 2 * n):
        pods.create("default", pod(i), manager="bench")
    rate("create pod (managedFields tracked)", n, time.perf_counter() - start)
    patch = orjson.dumps({"spec": {"containers": [{"name": "app", "image": "registry.example/app:2"}]}})
    start = time.perf_counter()
    for i in range(n, 2 * n):
        pods.patch("default", f"pod-{i}", "application/strategic-merge-patch+json", patch, manager="bench")
    rate("strategic-merge patch (tracked)", n, time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(n, 2 * n):
        applied = orjson.dumps({"apiVersion": "v1", "kind": "Pod",
                                "metadata": {"name": f"pod-{i}", "labels": {"applied": "yes"}}})
        pods.apply("default", f"pod-{i}", applied, manager="applier", force=False)
    rate("server-side apply of a label", n, time.perf_counter() - start)
    await asyncio.sleep(0.2)  # the cache catches up
    opts = ListOptions(resource_version="0")
    start = time.perf_counter()
    rounds = 20
    for _ in range(rounds):
        await pods.list("default", opts)
    rate(f"LIST {2 * n} pods from the cache (RV=0)", rounds, time.perf_counter() - start)
    await registry.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(500 if args.quick else 3000))
