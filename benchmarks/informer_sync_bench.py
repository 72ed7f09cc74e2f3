"""Informer sync, fakeapi against the real kube-apiserver + etcd it stands in for (issue 11's row):
a client-go 1.35 typed pods informer syncing N pods (~3.6 KB each once defaulted: labels, an owner
reference, two containers with env, ports, resources, probes), in JSON and protobuf, with WatchList
off and on. Prints one table from one run; not part of ``make test``.

    .venv/bin/python benchmarks/informer_sync_bench.py [--pods 10000] [--runs 3] [--only fakeapi]

Both servers get the same pods from the same Go program (``benchmarks/informersync``; 16 concurrent
protobuf creates), then each (encoding, WatchList) pair is synced ``--runs`` times in a fresh
informer, and the pods are LISTed (the body read, not decoded), the runs alternating between the
servers so that a machine busy with other work weighs on both alike; the table shows each row's
best run (and the median). fakeapi encodes each stored object
version to protobuf once and reuses the bytes: pods written by a protobuf client (as here) are
encoded once, for their create's answer; a sync after the watch cache refilled from the store
(fakeapi's ``restart`` fault) shows the cost of encoding them all on first use. The real kube-apiserver serialises every object on every LIST
(and gzips large responses for clients that accept it, as client-go does).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx

from fakeapi.testing import ServerProcess
from fakeapi.cluster.control_plane import real_apiserver

PROGRAM = Path(__file__).parent / "informersync"
CASES = [("protobuf", False), ("protobuf", True), ("json", False), ("json", True)]


def build() -> Path:
    env = dict(os.environ, PATH=os.pathsep.join((os.environ.get("PATH", ""), "/usr/local/go/bin")))
    subprocess.run(["go", "build", "-o", "bin/informersync", "."], cwd=PROGRAM, env=env, check=True)
    return PROGRAM / "bin" / "informersync"


def run(binary: Path, kubeconfig: Path, *args: str) -> list[dict[str, Any]]:
    proc = subprocess.run([str(binary), "--kubeconfig", str(kubeconfig), *args], capture_output=True, text=True,
                          timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"informersync {' '.join(args)} failed: {proc.stderr[-3000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines()]


@contextmanager
def servers(workdir: Path, only: str | None) -> Iterator[dict[str, tuple[Path, str | None]]]:
    """name -> (kubeconfig, fakeapi's URL for its control API, or None)."""
    with ExitStack() as stack:
        found: dict[str, tuple[Path, str | None]] = {}
        if only in (None, "fakeapi"):
            fake = stack.enter_context(ServerProcess(workdir / "fakeapi", "--controllers", ""))
            found["fakeapi"] = (fake.kubeconfig, fake.url)
        if only in (None, "kube"):
            found["kube-apiserver"] = (stack.enter_context(real_apiserver(workdir / "kube")).kubeconfig, None)
        yield found


Row = tuple[str, str]  # (what, encoding)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=("fakeapi", "kube"))
    args = parser.parse_args()
    binary = build()
    results: dict[str, dict[Row, list[float]]] = {}
    creates: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, servers(Path(tmp), args.only) as found:
        for name, (kubeconfig, _control) in found.items():
            [created] = run(binary, kubeconfig, "--create", str(args.pods))
            creates[name] = created["perSecond"]
            results[name] = {}
            log(f"{name}: created {args.pods} pods at {created['perSecond']:.0f}/s")
        # Runs alternate between the servers, so that both see the machine as loaded as the other.
        measurements: list[tuple[Row, tuple[str, ...]]] = [
            ((f"informer sync, WatchList {'on' if watch_list else 'off'}", encoding),
             ("--encoding", encoding, f"--watchlist={str(watch_list).lower()}"))
            for encoding, watch_list in CASES]
        measurements += [(("LIST, body read", encoding), ("--raw-list", "--encoding", encoding))
                         for encoding in ("protobuf", "json")]
        for row, flags in measurements:
            for _ in range(args.runs):
                for name, (kubeconfig, _control) in found.items():
                    [measured] = run(binary, kubeconfig, *flags, "--runs", "1")
                    if measured.get("pods", args.pods) != args.pods:
                        sys.exit(f"{name}: an informer synced {measured['pods']} pods, not {args.pods}")
                    results[name].setdefault(row, []).append(measured["seconds"])
            for name in found:
                log(f"{name}: {row[0]} ({row[1]}): " + ", ".join(f"{t:.3f}" for t in results[name][row]) + " s")
        for name, (kubeconfig, control) in found.items():
            if control is not None:
                # The watch cache refilled from the store (fakeapi's "restart" fault): no object has
                # its protobuf bytes any more, the next sync encodes every one.
                httpx.post(f"{control}/fakeapi/v1/faults/restart", timeout=60).raise_for_status()
                [cold] = run(binary, kubeconfig, "--encoding", "protobuf", "--runs", "1")
                results[name][("informer sync, WatchList off, after a cache refill", "protobuf")] = [cold["seconds"]]
    print(table(results, creates, args.pods))


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def table(results: dict[str, dict[Row, list[float]]], creates: dict[str, float], pods: int) -> str:
    fake, kube = results.get("fakeapi", {}), results.get("kube-apiserver", {})
    rows = list(dict.fromkeys([*fake, *kube]))
    lines = [f"{pods} pods, client-go 1.35; seconds: the best of the runs (their median in brackets)",
             "| what | encoding | fakeapi | kube-apiserver + etcd | kube / fakeapi |", "|---|---|---|---|---|"]

    def cell(times: list[float] | None) -> str:
        if not times:
            return "-"
        return f"{min(times):.2f}" + (f" ({statistics.median(times):.2f})" if len(times) > 1 else "")

    for row in rows:
        f, k = fake.get(row), kube.get(row)
        ratio = f"{min(k) / min(f):.1f}x" if f and k else "-"
        lines.append(f"| {row[0]} | {row[1]} | {cell(f)} | {cell(k)} | {ratio} |")
    lines.append("| pod creates/s, 16 clients | protobuf | " + " | ".join(
        f"{creates[n]:.0f}" if n in creates else "-" for n in ("fakeapi", "kube-apiserver")) + " | |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
