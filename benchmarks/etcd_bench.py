"""fakeapi's etcd server against a real etcd v3.6.6 on this machine, side by side (not a test).

The load comes from ``benchmarks/etcdload`` (Go, etcd's clientv3 v3.6.6, built from the module
proxy), so the client is not the bottleneck:
- a gRPC range of 10,000 keys x 1.5 KB (median of 10 reads, after one warm-up read), and the
  server's CPU time per range;
- puts/s of 1.5 KB values at 1 and 16 clients (one connection each), and the server's CPU
  time per put (user + system, from /proc: steadier than throughput on a shared machine).

The real etcd runs as in production, with fsync, its data dir on disk; fakeapi has no fsync.
Targets (issue 12): range within 1.5x of etcd's time; puts/s at 16 clients >= etcd's.

A third column measures the floor under fakeapi's puts: the same puts against a grpcio asyncio
server (as ``fakeapi etcd`` serves, same options) whose Put answers a fixed response at once,
so what it costs is grpcio's own (HTTP/2, the call's task, the messages), with no store.

Usage: ``.venv/bin/python benchmarks/etcd_bench.py [--duration 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fakeapi.cluster.control_plane import Etcd
from fakeapi.testing.etcd import FakeEtcdProcess

ROOT = Path(__file__).resolve().parents[1]

LOAD_DIR = ROOT / "benchmarks" / "etcdload"


def build_load() -> Path:
    go = shutil.which("go") or "/usr/local/go/bin/go"
    output = LOAD_DIR / "bin" / "etcdload"
    subprocess.run([go, "build", "-o", str(output), "."], cwd=LOAD_DIR, check=True)
    return output


def run(load: Path, url: str, *args: str) -> dict[str, float]:
    out = subprocess.run([str(load), "-endpoint", url, *args], check=True, capture_output=True,
                         text=True, timeout=600).stdout
    return json.loads(out)


def cpu_seconds(pid: int) -> float:
    """User + system CPU the process used so far (from /proc): what a request costs the
    server, whatever else the machine is doing."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(load: Path, url: str, pid: int, duration: float) -> dict[str, float]:
    numbers = {"range_ms": run(load, url, "-mode", "range", "-repeat", "10")["median_ms"]}
    before = cpu_seconds(pid)
    run(load, url, "-mode", "range", "-repeat", "9", "-load=false")  # 10 reads, keys in place
    numbers["range_cpu_ms"] = (cpu_seconds(pid) - before) / 10 * 1e3
    return numbers | puts(load, url, pid, duration)


def puts(load: Path, url: str, pid: int, duration: float) -> dict[str, float]:
    numbers = {}
    for clients in (1, 16):
        before = cpu_seconds(pid)
        result = run(load, url, "-mode", "put", "-clients", str(clients), "-duration", f"{duration}s")
        numbers[f"puts_{clients}"] = result["puts_per_s"]
        numbers[f"cpu_us_{clients}"] = (cpu_seconds(pid) - before) / (result["puts_per_s"] * duration) * 1e6
    return numbers


async def serve_no_op_puts(port_file: Path) -> None:
    """The floor's server: ``fakeapi etcd``'s grpcio server and options, a Put answered with a
    fixed PutResponse; writes its port to ``port_file`` once serving."""
    import grpc

    from fakeapi.etcd.pb import rpc_pb2
    from fakeapi.etcd.server import EtcdServer, _serialize
    from fakeapi.store import Store

    template = EtcdServer(Store())
    answer = rpc_pb2.PutResponse(header=template.header(1)).SerializeToString()

    async def put(request: object, context: object) -> bytes:
        return answer

    server = grpc.aio.server(options=template.grpc_options())
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("etcdserverpb.KV", {
        "Put": grpc.unary_unary_rpc_method_handler(put, request_deserializer=rpc_pb2.PutRequest.FromString,
                                                   response_serializer=_serialize)})])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    port_file.write_text(str(port))
    await server.wait_for_termination()


def floor(load: Path, duration: float) -> dict[str, float]:
    """``puts`` against ``serve_no_op_puts`` in a process of its own."""
    with tempfile.TemporaryDirectory() as scratch:
        port_file = Path(scratch) / "port"
        server = subprocess.Popen([sys.executable, __file__, "--serve-no-op-puts", str(port_file)])
        try:
            deadline = time.monotonic() + 30
            while not port_file.exists() or not port_file.read_text():
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the no-op grpcio server did not start")
                time.sleep(0.05)
            return puts(load, f"http://127.0.0.1:{port_file.read_text()}", server.pid, duration)
        finally:
            server.terminate()
            server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per put run")
    parser.add_argument("--serve-no-op-puts", type=Path, metavar="PORT_FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_no_op_puts is not None:
        asyncio.run(serve_no_op_puts(args.serve_no_op_puts))
        return
    load = build_load()

    with FakeEtcdProcess() as fake:
        assert fake.process is not None
        ours = measure(load, fake.client_url, fake.process.pid, args.duration)
    with tempfile.TemporaryDirectory(dir="/var/tmp") as on_disk, Etcd(Path(on_disk), fsync=True) as real:
        assert real.process is not None
        theirs = measure(load, real.client_url, real.process.pid, args.duration)
    no_op = floor(load, args.duration)

    rows = [
        ("range 10,000 x 1.5 KB (ms, median)", "range_ms", "time ratio (target <= 1.5)"),
        ("server CPU per range (ms)", "range_cpu_ms", "cost ratio"),
        ("puts/s, 1 client", "puts_1", "throughput ratio"),
        ("puts/s, 16 clients", "puts_16", "throughput ratio (target >= 1)"),
        ("server CPU per put (µs), 1 client", "cpu_us_1", "cost ratio"),
        ("server CPU per put (µs), 16 clients", "cpu_us_16", "cost ratio"),
    ]
    print(f"{'':38} {'fakeapi etcd':>14} {'etcd 3.6.6':>12} {'ratio':>8}  {'':32} {'no-op grpcio':>12}")
    for label, key, what in rows:
        ratio = ours[key] / theirs[key]
        shown = f"{no_op[key]:12.1f}" if key in no_op else ""
        print(f"{label:38} {ours[key]:14.1f} {theirs[key]:12.1f} {ratio:8.2f}  {what:32} {shown}")


if __name__ == "__main__":
    main()
