"""What persistence costs and what a snapshot saves. Prints numbers; not a test.

1. Puts per second without a data directory and with one in each fsync mode: store calls
   (``Store.put``, 1 KiB values), and configmap creates through the whole ASGI app (in process,
   no socket or client in the way; ``metrics_bench.call``).
2. A seeded cluster of ``--pods`` pods (100,000 by default: 100k pods, 1,000 deployments and
   their ReplicaSets, 100 nodes), compacted and saved once to ``--cache`` (re-used by later
   runs), then loaded: the snapshot into a bare store, a whole server in process (load, then
   start: the registry's caches list the store), ``fakeapi serve --from-snapshot`` from launch
   to its "listening" line, the same with ``--data-dir`` restored from it, and, for scale, an
   empty ``fakeapi serve``.

``--quick``: fewer puts and a 10,000-pod cluster.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from fakeapi.seed import seeder
from fakeapi.server import ServerConfig, create_app
from fakeapi.server import Server
from fakeapi.store import FsyncPolicy, Journal, PutRequest, Store, snapshot
from metrics_bench import call  # benchmarks/ is sys.path[0] when run as a script

MODES = ("memory", *(policy.value for policy in FsyncPolicy))


def _journaled(mode: str, directory: Path) -> tuple[Store, Journal | None]:
    store = Store()
    if mode == "memory":
        return store, None
    return store, Journal.open(store, directory / mode, policy=FsyncPolicy(mode))


def store_puts(n: int, directory: Path, rounds: int = 3) -> dict[str, float]:
    """Best of ``rounds``, the modes interleaved (the machine's noise hits them alike)."""
    value = b"x" * 1024
    keys = [f"/registry/configmaps/default/cm-{i % 1000}".encode() for i in range(n)]
    rates = dict.fromkeys(MODES, 0.0)
    for round_ in range(rounds):
        for mode in MODES:
            store, journal = _journaled(mode, directory / str(round_))
            count = n // 20 if mode == "always" else n  # each is one fdatasync
            start = time.perf_counter()
            for key in keys[:count]:
                store.put(PutRequest(key, value))
            rates[mode] = max(rates[mode], count / (time.perf_counter() - start))
            if journal is not None:
                journal.close()
    return rates


async def api_creates(n: int, directory: Path, rounds: int = 3) -> dict[str, float]:
    """Best of ``rounds``, the modes interleaved."""
    rates = dict.fromkeys(MODES, 0.0)
    cms = "/api/v1/namespaces/default/configmaps"
    body = {"metadata": {"name": ""}, "data": {"payload": "x" * 1024}}
    for round_ in range(rounds):
        for mode in MODES:
            config = ServerConfig(controllers=frozenset())
            if mode != "memory":
                config = ServerConfig(controllers=frozenset(), data_dir=directory / f"api-{mode}-{round_}",
                                      fsync=FsyncPolicy(mode))
            app = create_app(config)
            async with app.router.lifespan_context(app):
                for i in range(50):  # warm-up
                    body["metadata"]["name"] = f"warm-{i}"
                    await call(app, "POST", cms, orjson.dumps(body))
                start = time.perf_counter()
                for i in range(n):
                    body["metadata"]["name"] = f"cm-{i}"
                    status = await call(app, "POST", cms, orjson.dumps(body))
                    assert status == 201, status
                rates[mode] = max(rates[mode], n / (time.perf_counter() - start))
    return rates


async def make_snapshot(pods: int, path: Path) -> None:
    spec = seeder.parse_spec(f"namespaces=10,nodes=100,pods={pods},deployments={max(1, pods // 100)}")
    server = Server(ServerConfig(controllers=frozenset(), compaction_interval=0))
    server.start()
    try:
        started = time.perf_counter()
        result = await seeder.seed_registry(server.registry, spec)
        print(f"  seeded: {result} ({time.perf_counter() - started:.1f} s)")
        server.compact()  # the smallest file: one version per object
        chunks = snapshot.encode(server.store)
        path.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_file(path, chunks)
    finally:
        await server.stop()


async def server_load(path: Path) -> tuple[float, float, float, float]:
    """Wall and CPU seconds to build the server from the snapshot, then to start it (caches
    filled): (load wall, load cpu, start wall, start cpu)."""
    wall, cpu = time.perf_counter(), time.process_time()
    server = Server(ServerConfig(from_snapshot=path))
    loaded = time.perf_counter() - wall, time.process_time() - cpu
    wall, cpu = time.perf_counter(), time.process_time()
    server.start()
    ready = time.perf_counter() - wall, time.process_time() - cpu
    await server.stop()
    return (*loaded, *ready)


def serve_until_listening(*args: str) -> tuple[float, float]:
    """Wall seconds from launching ``fakeapi serve`` to its "listening" line, and the CPU
    seconds the process used in all (best of 3 each)."""
    best, best_cpu = float("inf"), float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(3):
            for extra in Path(tmp).glob("data*"):
                shutil.rmtree(extra)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            process = subprocess.Popen(
                [sys.executable, "-m", "fakeapi.cli", "serve", "--port", "0", "--kubeconfig", f"{tmp}/kubeconfig",
                 *[a.replace("{tmp}", tmp) for a in args]],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            assert process.stdout is not None
            line = process.stdout.readline()
            elapsed = time.perf_counter() - started
            process.terminate()
            process.wait(30)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if "listening on" not in line:
                raise SystemExit(f"fakeapi serve {' '.join(args)} did not start: {line}")
            best = min(best, elapsed)
            best_cpu = min(best_cpu, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return best, best_cpu


def best_load(data: bytes) -> tuple[float, float]:
    """Wall and CPU seconds of ``snapshot.load`` into a bare store, best of 3."""
    wall = cpu = float("inf")
    for _ in range(3):
        started, started_cpu = time.perf_counter(), time.process_time()
        snapshot.load(Store(), data)
        wall = min(wall, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - started_cpu)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--pods", type=int)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "fakeapi")
    args = parser.parse_args()
    pods = args.pods or (10_000 if args.quick else 100_000)
    n = 2_000 if args.quick else 20_000

    with tempfile.TemporaryDirectory(dir=args.cache.parent if args.cache.parent.exists() else None) as tmp:
        directory = Path(tmp)
        store = store_puts(n, directory)
        api = asyncio.run(api_creates(n // 10, directory))
    print(f"{'puts per second':<34} {'Store.put 1 KiB':>16} {'POST configmap':>16}")
    for mode in MODES:
        label = "no --data-dir" if mode == "memory" else f"--data-dir --fsync {mode}"
        print(f"{label:<34} {store[mode]:>16,.0f} {api[mode]:>16,.0f}")

    path = args.cache / f"bench-{pods}-pods.snap"
    if not path.exists():
        print(f"making {path} (once):")
        asyncio.run(make_snapshot(pods, path))
    info = snapshot.info(path.read_bytes())
    print(f"snapshot {path}: {info.keys:,} keys, {info.size / 1e6:.0f} MB  (seconds: wall / CPU, best of 3;"
          " CPU includes the checksum's thread)")
    wall, cpu = best_load(path.read_bytes())
    print(f"{'snapshot.load into a Store':<44} {wall:>6.3f} / {cpu:.3f}")
    runs = [asyncio.run(server_load(path)) for _ in range(3)]
    print(f"{'Server(from_snapshot=...)':<44} {min(r[0] for r in runs):>6.3f} / {min(r[1] for r in runs):.3f}")
    print(f"{'  then start() (watch caches filled)':<44} {min(r[2] for r in runs):>6.3f} / {min(r[3] for r in runs):.3f}")
    store = Store()
    snapshot.load_file(store, path)
    wall = cpu = float("inf")
    for _ in range(3):
        started, started_cpu = time.perf_counter(), time.process_time()
        snapshot.capture(store)
        wall, cpu = min(wall, time.perf_counter() - started), min(cpu, time.process_time() - started_cpu)
    print(f"{'snapshot.capture (the loop pauses this long)':<44} {wall:>6.3f} / {cpu:.3f}")
    del store
    rows = [("fakeapi serve, empty: launch to listening", serve_until_listening()),
            ("fakeapi serve --from-snapshot", serve_until_listening("--from-snapshot", str(path))),
            ("  ... --data-dir (restored, then opened)",
             serve_until_listening("--from-snapshot", str(path), "--data-dir", "{tmp}/data"))]
    for label, (wall, cpu) in rows:
        print(f"{label:<44} {wall:>6.3f} / {cpu:.3f} (CPU until stopped)")


if __name__ == "__main__":
    main()
