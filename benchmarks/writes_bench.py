"""Server CPU per pod write, through the whole ASGI app in-process (no socket, no client in the
way): creates with JSON and protobuf bodies, PUT updates with protobuf bodies, merge patches of
an annotation, strategic merge patches of a label and a container's image, server-side applies
of an annotation (forced), each as the Go load generator sends it (``benchmarks/loadgen``: its
realistic ~3.7 KB pod, a counter per write) and answered as it asks (protobuf, JSON for the
JSON create). Prints CPU µs per operation (process time, best of ``--rounds``); not a test.

``--save FILE`` keeps the numbers and ``--before FILE`` prints them beside this run's (run the
script on the old commit with ``--save``, on the new one with ``--before``). ``--profile OP``
runs OP under cProfile and prints its top functions instead. The garbage collector is set as
``fakeapi serve`` sets it once started (``fakeapi.runtime.settle_heap``).

The pod is the load generator's own (``loadgen pod``, built with Go), named and sharded per
index as the generator does; with ``--varied``, the generator's pods whose content differs per pod
(``loadgen pod --varied``), which no answer the server keeps by content serves. The server runs without built-in controllers, as
``benchmarks/compare.py`` runs it against kube-apiserver (which runs none): with the garbage
collector on, every pod's absent owner would have it deleted."""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette

from fakeapi.runtime import settle_heap
from fakeapi.server import ServerConfig, create_app
from fakeapi.http.protobuf import MAGIC, decode_body
from fakeapi.http.protobuf import MEDIA_TYPE as PROTOBUF
from fakeapi.http.protobuf_views import object_view
from metrics_bench import exchange  # benchmarks/ is sys.path[0] when run as a script

LOADGEN_DIR = Path(__file__).resolve().parent / "loadgen"
NAMESPACE = "bench"
PODS = f"/api/v1/namespaces/{NAMESPACE}/pods"
#: The generator's label and annotation keys (benchmarks/loadgen/objects.go).
SHARD_LABEL, SHARD_COUNT = "bench.fakeapi.dev/shard", 10
COUNTER_ANNOTATION = "bench.fakeapi.dev/counter"
MERGE_PATCH = "application/merge-patch+json"
POD_VIEW = object_view("v1", "Pod")
#: What the generator's typed client sends besides the body's type (its user agent names the field manager),
#: accepting protobuf answers as client-go's does with --content-type protobuf (every row of the
#: comparison but the JSON one), or JSON.
USER_AGENT = (b"user-agent", b"loadgen/v0.0.0")
ACCEPT_PROTOBUF = [(b"accept", f"{PROTOBUF}, application/json".encode()), USER_AGENT]
ACCEPT_JSON = [(b"accept", b"application/json"), USER_AGENT]
OPERATIONS = ("create json", "create protobuf", "update protobuf", "merge patch", "strategic merge patch", "apply")
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"


def loadgen_pods(*args: str) -> list[dict[str, Any]]:
    """``loadgen pod``'s pods: what a typed client-go client sends, as JSON."""
    binary = LOADGEN_DIR / "bin" / "loadgen"
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=LOADGEN_DIR, check=True)
    printed = subprocess.run([str(binary), "pod", *args], check=True, capture_output=True).stdout
    return [orjson.loads(line) for line in printed.splitlines()]


def pod_named(template: dict[str, Any], index: int) -> dict[str, Any]:
    metadata = template["metadata"]
    labels = {**metadata["labels"], SHARD_LABEL: str(index % SHARD_COUNT)}
    return {**template, "metadata": {**metadata, "name": f"web-5d4f8c7b9-{index:06d}", "labels": labels}}


def pod_maker(varied: int) -> Callable[[int], dict[str, Any]]:
    """The i-th pod a run creates: the generator's pod named and sharded per index, or with
    ``varied`` (how many a run creates), its ``--varied`` pods, whose content differs per pod."""
    if not varied:
        template = loadgen_pods()[0]
        return lambda index: pod_named(template, index)
    return loadgen_pods("--varied", "--count", str(varied)).__getitem__


def answered(body: bytes) -> dict[str, Any]:
    """A pod as the server answered it, in protobuf or JSON."""
    return decode_body(body) if body.startswith(MAGIC) else orjson.loads(body)


def protobuf_body(obj: dict[str, Any]) -> bytes:
    assert POD_VIEW is not None
    return POD_VIEW.body(POD_VIEW.encode_object(obj))


class Workload:
    """The four writes against one app, each request built before its CPU is counted."""

    def __init__(self, app: Starlette, make_pod: Callable[[int], dict[str, Any]]) -> None:
        self.app = app
        self.make_pod = make_pod
        self.created = 0
        #: The pods updated and patched, as the server last returned them (the generator PUTs
        #: the object it got back, changed; answers are decoded and bodies encoded before the
        #: next write's CPU counts).
        self.pods: list[dict[str, Any] | bytes] = []
        self.writes = 0

    async def expect(self, status: int, method: str, path: str, body: bytes, content_type: str,
                     accept_json: bool = False, query: bytes = b"") -> bytes:
        got, answer = await exchange(self.app, method, path, body, query,
                                     headers=ACCEPT_JSON if accept_json else ACCEPT_PROTOBUF,
                                     content_type=content_type.encode())
        if got != status:
            raise SystemExit(f"{method} {path}: {got} {answer[:400]!r}")
        return answer

    def next_create(self, protobuf: bool) -> Callable[[], Awaitable[bytes]]:
        pod = self.make_pod(self.created)
        self.created += 1
        if protobuf:
            body, content_type = protobuf_body(pod), PROTOBUF
        else:
            body, content_type = orjson.dumps(pod), "application/json"
        return lambda: self.expect(201, "POST", PODS, body, content_type, accept_json=not protobuf)

    def next_write(self, operation: str) -> Callable[[], Awaitable[bytes]]:
        """The next PUT or merge patch, round the pods."""
        index = self.writes % len(self.pods)
        self.writes += 1
        pod = self.pods[index]
        if isinstance(pod, bytes):
            pod = self.pods[index] = answered(pod)
        path = f"{PODS}/{pod['metadata']['name']}"
        query = b""
        if operation == "merge patch":
            method, content_type = "PATCH", MERGE_PATCH
            body = orjson.dumps({"metadata": {"annotations": {COUNTER_ANNOTATION: str(self.writes)}}})
        elif operation == "strategic merge patch":  # a label, and a container's image by its name
            method, content_type = "PATCH", STRATEGIC_MERGE_PATCH
            body = orjson.dumps({"metadata": {"labels": {COUNTER_ANNOTATION: str(self.writes)}},
                                 "spec": {"containers": [{"name": "web", "image": f"registry.example/web:1.2.{self.writes}"}]}})
        elif operation == "apply":  # an annotation, forced
            method, content_type = "PATCH", APPLY_PATCH
            query = b"fieldManager=fakeapi-loadgen-apply&force=true"
            body = orjson.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {
                "name": pod["metadata"]["name"], "annotations": {COUNTER_ANNOTATION: str(self.writes)}}})
        else:
            method, content_type = "PUT", PROTOBUF
            body = protobuf_body({**pod, "metadata": {**pod["metadata"], "annotations": {
                **pod["metadata"]["annotations"], COUNTER_ANNOTATION: str(self.writes)}}})

        async def write() -> bytes:
            answer = await self.expect(200, method, path, body, content_type, query=query)
            self.pods[index] = answer
            return answer

        return write

    def request(self, operation: str) -> Callable[[], Awaitable[bytes]]:
        if operation.startswith("create"):
            return self.next_create(operation.endswith("protobuf"))
        return self.next_write(operation)


async def cpu_per_op(workload: Workload, operation: str, n: int, rounds: int,
                     profiler: cProfile.Profile | None = None) -> float:
    """CPU µs per ``operation``: the best mean of ``rounds`` rounds of ``n`` (the least disturbed
    by the machine), only the server's part of each request counted."""
    best = float("inf")
    for _ in range(rounds):
        spent = 0.0
        for _ in range(n):
            request = workload.request(operation)
            if profiler is not None:
                profiler.enable()
            start = time.process_time()
            await request()
            spent += time.process_time() - start
            if profiler is not None:
                profiler.disable()
        best = min(best, spent * 1e6 / n)
    return best


#: The creates a warm-up makes before the measured rounds (``measure``), of each create operation.
WARM_UP = 20


async def measure(n: int, rounds: int, profile: str | None, varied: bool) -> dict[str, float]:
    app = create_app(ServerConfig(controllers=frozenset()))  # as benchmarks/compare.py serves it
    creates = n + (WARM_UP + rounds * n) * sum(operation.startswith("create") for operation in OPERATIONS)
    workload = Workload(app, pod_maker(creates if varied else 0))
    async with app.router.lifespan_context(app):
        await workload.expect(201, "POST", "/api/v1/namespaces", orjson.dumps({"metadata": {"name": NAMESPACE}}),
                              "application/json")
        for _ in range(n):  # the pods the updates and patches write, and a warm-up of every path
            workload.pods.append(await workload.request("create protobuf")())
        for operation in OPERATIONS:
            await cpu_per_op(workload, operation, WARM_UP, 1)
        settle_heap()  # the collector as `fakeapi serve` sets it once started
        if profile is not None:
            profiler = cProfile.Profile()
            await cpu_per_op(workload, profile, n, 1, profiler)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(40)
            return {}
        return {operation: await cpu_per_op(workload, operation, n, rounds) for operation in OPERATIONS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="200 writes a round instead of 1,000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--save", type=Path, help="write the numbers to this JSON file")
    parser.add_argument("--before", type=Path, help="a --save file to print beside this run")
    parser.add_argument("--profile", choices=OPERATIONS, help="cProfile one operation instead")
    parser.add_argument("--varied", action="store_true", help="pods whose content differs per pod (loadgen's "
                        "--varied): no answer a server keeps by content serves them")
    args = parser.parse_args()
    results = asyncio.run(measure(200 if args.quick else 1000, args.rounds, args.profile, args.varied))
    if args.profile is not None:
        return
    before = orjson.loads(args.before.read_bytes()) if args.before else None
    print(f"{'pod write (server CPU µs each, in-process ASGI)':<48} {'before':>8} {'now':>8} {'now/before':>10}"
          if before else f"{'pod write (server CPU µs each, in-process ASGI)':<48} {'now':>8}")
    for operation, now in results.items():
        if before:
            print(f"{operation:<48} {before[operation]:>8,.0f} {now:>8,.0f} {now / before[operation]:>10.2f}")
        else:
            print(f"{operation:<48} {now:>8,.0f}")
    if args.save:
        args.save.write_bytes(orjson.dumps(results))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
