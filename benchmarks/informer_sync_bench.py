"""Informer sync, fakeapi against the real kube-apiserver + etcd it stands in for (issue 11's row):
a client-go 1.35 typed pods informer syncing N pods (~3.6 KB each once defaulted: labels, an owner
reference, two containers with env, ports, resources, probes), in JSON and protobuf, with WatchList
off and on. Prints one table from one run; not part of ``make test``.

    .venv/bin/python benchmarks/informer_sync_bench.py [--pods 10000] [--runs 3] [--only fakeapi]

Both servers get the same pods from the same Go program (``benchmarks/informersync``; 16 concurrent
protobuf creates), then each (encoding, WatchList) pair is synced ``--runs`` times in a fresh
informer, and the pods are LISTed (the body read, not decoded). fakeapi encodes each stored object
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
from fakeapi.testing.control_plane import real_apiserver

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
        for name, (kubeconfig, control) in found.items():
            [created] = run(binary, kubeconfig, "--create", str(args.pods))
            creates[name] = created["perSecond"]
            log(f"{name}: created {args.pods} pods at {created['perSecond']:.0f}/s")
            results[name] = rows = {}
            for encoding, watch_list in CASES:
                synced = run(binary, kubeconfig, "--encoding", encoding, f"--watchlist={str(watch_list).lower()}",
                             "--runs", str(args.runs))
                if any(r["pods"] != args.pods for r in synced):
                    sys.exit(f"{name}: an informer synced {[r['pods'] for r in synced]} pods, not {args.pods}")
                rows[(f"informer sync, WatchList {'on' if watch_list else 'off'}", encoding)] = times(name, synced)
            for encoding in ("protobuf", "json"):
                listed = run(binary, kubeconfig, "--raw-list", "--encoding", encoding, "--runs", str(args.runs))
                rows[("LIST, body read", encoding)] = times(name, listed)
            if control is not None:
                # The watch cache refilled from the store (fakeapi's "restart" fault): no object has
                # its protobuf bytes any more, the next sync encodes every one.
                httpx.post(f"{control}/fakeapi/v1/faults/restart", timeout=60).raise_for_status()
                cold = run(binary, kubeconfig, "--encoding", "protobuf", "--runs", "1")
                rows[("informer sync, WatchList off, after a cache refill", "protobuf")] = times(name, cold)
    print(table(results, creates, args.pods))


def times(server: str, measured: list[dict[str, Any]]) -> list[float]:
    seconds = [m["seconds"] for m in measured]
    log(f"{server}: {json.dumps({k: v for k, v in measured[0].items() if k not in ('seconds', 'run')})}: "
        + ", ".join(f"{t:.3f}" for t in seconds) + " s")
    return seconds


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def table(results: dict[str, dict[Row, list[float]]], creates: dict[str, float], pods: int) -> str:
    fake, kube = results.get("fakeapi", {}), results.get("kube-apiserver", {})
    rows = list(dict.fromkeys([*fake, *kube]))
    lines = [f"{pods} pods, client-go 1.35; seconds, median of the runs (fakeapi's first run in brackets)",
             "| what | encoding | fakeapi | kube-apiserver + etcd | kube / fakeapi |", "|---|---|---|---|---|"]
    for row in rows:
        f = statistics.median(fake[row]) if row in fake else None
        k = statistics.median(kube[row]) if row in kube else None
        first = f" ({fake[row][0]:.2f})" if row in fake and len(fake[row]) > 1 else ""
        ratio = f"{k / f:.1f}x" if f and k else "-"
        lines.append(f"| {row[0]} | {row[1]} | {f'{f:.2f}' if f is not None else '-'}{first} | "
                     f"{f'{k:.2f}' if k is not None else '-'} | {ratio} |")
    lines.append("| pod creates/s, 16 clients | protobuf | " + " | ".join(
        f"{creates[n]:.0f}" if n in creates else "-" for n in ("fakeapi", "kube-apiserver")) + " | |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
