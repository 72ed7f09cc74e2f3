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
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from fakeapi import seed
from fakeapi.http import ServerConfig, create_app
from fakeapi.http.app import Server
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
    spec = seed.parse_spec(f"namespaces=10,nodes=100,pods={pods},deployments={max(1, pods // 100)}")
    server = Server(ServerConfig(controllers=frozenset(), compaction_interval=0))
    server.start()
    try:
        started = time.perf_counter()
        result = await seed.seed_registry(server.registry, spec)
        print(f"  seeded: {result} ({time.perf_counter() - started:.1f} s)")
        server.compact()  # the smallest file: one version per object
        chunks = snapshot.encode(server.store)
        path.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_file(path, chunks)
    finally:
        await server.stop()


async def server_load(path: Path) -> tuple[float, float]:
    """Seconds to build the server from the snapshot, then to start it (caches filled)."""
    started = time.perf_counter()
    server = Server(ServerConfig(from_snapshot=path))
    loaded = time.perf_counter()
    server.start()
    ready = time.perf_counter()
    await server.stop()
    return loaded - started, ready - loaded


def serve_until_listening(*args: str) -> float:
    """Wall seconds from launching ``fakeapi serve`` to its "listening" line (best of 3)."""
    best = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(3):
            for extra in Path(tmp).glob("data*"):
                shutil.rmtree(extra)
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
            if "listening on" not in line:
                raise SystemExit(f"fakeapi serve {' '.join(args)} did not start: {line}")
            best = min(best, elapsed)
    return best


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
    print(f"snapshot {path}: {info.keys:,} keys, {info.size / 1e6:.0f} MB")
    data = path.read_bytes()
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        snapshot.load(Store(), data)
        best = min(best, time.perf_counter() - started)
    print(f"{'snapshot.load into a Store':<44} {best:>7.3f} s")
    loaded, ready = min(asyncio.run(server_load(path)) for _ in range(3))
    print(f"{'Server(from_snapshot) + start()':<44} {loaded:>7.3f} s + {ready:.3f} s")
    empty = serve_until_listening()
    from_snapshot = serve_until_listening("--from-snapshot", str(path))
    data_dir = serve_until_listening("--from-snapshot", str(path), "--data-dir", "{tmp}/data")
    print(f"{'fakeapi serve, empty, launch to listening':<44} {empty:>7.3f} s")
    print(f"{'fakeapi serve --from-snapshot':<44} {from_snapshot:>7.3f} s (+{from_snapshot - empty:.3f} s)")
    print(f"{'  ... --data-dir (restored, then opened)':<44} {data_dir:>7.3f} s (+{data_dir - empty:.3f} s)")


if __name__ == "__main__":
    main()
