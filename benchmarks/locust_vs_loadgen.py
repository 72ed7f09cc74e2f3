"""Do the two load clients agree? The same workloads against one fakeapi, driven by the Go load
generator (benchmarks/loadgen, client-go v0.35, what `make bench-compare` runs) and by a Locust
profile (loadtests/loadgen_workloads.py, the fast client the profiles use), one after the other,
and one table of their operations per second. Not a test: run it and read.

    make bench-agree                   # 3 rounds of 15 s runs per client and workload, ~8 min
    make bench-agree QUICK=1           # 1 round of 10 s runs, ~2 min
    .venv/bin/python benchmarks/locust_vs_loadgen.py --only merge --duration 30

What "the same" means here: the same pod (the generator prints it, `loadgen pod`, as its typed
client encodes it; Locust posts those bytes with each index's name and shard label), the same
namespace of pods for the reads and patches (the generator's creates seed it), JSON both ways
(the generator runs with --content-type json), the same number of closed-loop clients (one
Locust user per generator client, each its next request as soon as the previous one answered,
one connection in use). Locust runs in one process for a fixed time and stops by itself; its rate
is taken over the steady part (after --warm-up: Locust's start-up and the users' first LIST of
the pod names), the generator's over its measured part (after its connections are made). The
generator's counted workloads (creates, LISTs) are given the count Locust's rate would reach in
that time, so both run about as long. Each workload runs in rounds, Locust first in odd ones and
the generator first in even ones, and the table shows medians: on a machine shared with other
work, what the server gets of the cores changes from one run to the next.

Two load clients measure the same thing when neither is the bottleneck: a Locust process is one
gevent loop on one core, so the Locust column says whether it was client-bound (cpu.judge over
the steady samples: a Locust process saturated while the server was not), and the CPU columns
say what each client and the rest of the machine took while the server was measured.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "loadtests"))

import compare  # noqa: E402
from client_bench import measure, steady_samples  # noqa: E402
from cpu import judge  # noqa: E402
from profiles import LOADGEN_WORKLOADS, Variant  # noqa: E402
from run import run_profile  # noqa: E402

#: Two load clients' rates agree when they differ by at most this share of the generator's.
AGREEMENT = 0.2
PODS_NAMESPACE = "agree-pods"
#: The creates of round r name their pods from index r x this (each client its own namespace).
ROUND_STRIDE = 100_000


@dataclass(frozen=True, slots=True)
class Workload:
    """One row: Locust's ``WORKLOAD`` with ``clients`` users against the generator's ``loadgen``
    workload with ``loadgen_args``. ``counted``: the generator's run ends after --count
    operations (sized from Locust's rate) rather than after --duration."""

    key: str
    title: str
    locust: str
    clients: int
    loadgen: str
    loadgen_args: tuple[str, ...]
    counted: bool = False

    def first(self, round_: int) -> tuple[str, ...]:
        """The generator's --first of a round's creates (Locust's FIRST knob has the same value)."""
        return ("--first", str(round_ * ROUND_STRIDE)) if self.locust == "create" else ()

    def namespace(self, client: str) -> str:
        """Creates go to a namespace per client (the same names in each); the rest share the pods."""
        return f"agree-creates-{client}" if self.locust == "create" else PODS_NAMESPACE


def workloads(pods: int) -> list[Workload]:
    def merge(clients: int) -> Workload:
        return Workload(f"merge-{clients}", f"pod merge patches, {clients} client{'s' * (clients > 1)}", "merge",
                        clients, "mutate", ("--verb", "merge", "--clients", str(clients), "--pods", str(pods)))

    return [
        Workload("list", f"LIST RV=0 of {pods:,} pods, 1 client", "list", 1, "list", ("--mode", "rv0"), counted=True),
        merge(1),
        merge(16),
        Workload("create-16", "pod creates, 16 clients", "create", 16, "create", ("--clients", "16"), counted=True),
    ]


def run_locust(workload: Workload, round_: int, server: compare.Running, pod_file: Path, pods: int, duration: int,
               warm_up: int, out: Path) -> dict[str, Any]:
    """One Locust run of ``duration`` seconds: its steady rate and CPU (client_bench.measure) and
    whether it was client-bound over that part."""
    knobs = {"WORKLOAD": workload.locust, "NAMESPACE": workload.namespace("locust"), "POD_FILE": str(pod_file),
             "PODS": str(pods), "FIRST": str(round_ * ROUND_STRIDE)}
    result = run_profile(LOADGEN_WORKLOADS, server.url, out, Variant("", workload.clients, f"{duration}s"),
                         knobs=knobs, server_pid=server.pids[0], processes=1)
    verdict = judge(steady_samples(result, warm_up))
    return {**measure(result, warm_up), "bound": verdict.bound, "others_cpu": verdict.others_cpu,
            "exit_code": result.exit_code, "out": str(result.out),
            "failures": sum(row["failures"] for row in result.summary.get("request_types", {}).values())}


def run_go(workload: Workload, round_: int, server: compare.Running, binary: Path, seconds: int, locust_rate: float,
           log: Path) -> dict[str, Any]:
    """One generator run of about ``seconds`` measured seconds (a counted workload: the count
    Locust's rate reaches in that time); compare.run_loadgen's result."""
    limit = ("--count", str(max(5 * workload.clients, round(locust_rate * seconds)))) if workload.counted \
        else ("--duration", f"{seconds}s")
    step = compare.Step(workload.key, workload.title, workload.loadgen,
                        (*workload.loadgen_args, *limit, *workload.first(round_)), namespace=workload.namespace("go"), content_type="json")
    return compare.run_loadgen(binary, server, step, log)


def run_rounds(workload: Workload, server: compare.Running, binary: Path, pod_file: Path, args: argparse.Namespace,
               out: Path) -> dict[str, list[dict[str, Any]]]:
    """``args.rounds`` runs of each client, alternating which goes first (Locust in the first
    round: a counted generator run is sized from the latest Locust rate), so that a change in
    what else the machine runs does not fall on one client only."""
    runs: dict[str, list[dict[str, Any]]] = {"go": [], "locust": []}
    for round_ in range(args.rounds):
        clients = ("locust", "go") if round_ % 2 == 0 else ("go", "locust")
        for client in clients:
            if client == "locust":
                runs["locust"].append(run_locust(workload, round_, server, pod_file, args.pods, args.duration, args.warm_up,
                                                 out / f"locust-{workload.key}-{round_ + 1}"))
            else:
                runs["go"].append(run_go(workload, round_, server, binary, args.duration - args.warm_up,
                                         runs["locust"][-1]["requests_per_second"], out / "loadgen.log"))
    return runs


def seed(binary: Path, server: compare.Running, pods: int, out: Path) -> Path:
    """The namespace of pods the reads and patches use, created by the generator; the pod file
    Locust's creates post."""
    step = compare.Step("seed", "seed", "create", ("--clients", "16", "--count", str(pods)), namespace=PODS_NAMESPACE,
                        content_type="json")
    created = compare.run_loadgen(binary, server, step, out / "loadgen.log")
    if created.get("ops") != pods:
        raise SystemExit(f"seeding {pods} pods failed: {created}")
    pod_file = out / "pod.json"
    pod_file.write_bytes(subprocess.run([str(binary), "pod"], check=True, capture_output=True).stdout)
    return pod_file


# --- the table -----------------------------------------------------------------------------------

@dataclass(slots=True)
class Row:
    """A workload's medians over its rounds."""

    title: str
    go_rate: float
    locust_rate: float
    go_server_ms: float | None  # the server's CPU per operation
    locust_server_ms: float | None
    go_client_cpu: float | None  # cores the load client used
    locust_client_cpu: float
    locust_busy: float  # the Locust process on a core or waiting for one, share of the time
    locust_bound: str  # cpu.judge's verdicts of the rounds
    go_others_cpu: float | None  # cores the rest of the machine used
    locust_others_cpu: float | None
    errors: str = ""

    @property
    def ratio(self) -> float | None:
        return self.locust_rate / self.go_rate if self.go_rate else None

    @property
    def agrees(self) -> bool:
        return self.ratio is not None and abs(self.ratio - 1) <= AGREEMENT


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def go_numbers(go: dict[str, Any]) -> dict[str, float | None]:
    """A generator run's rate and, per second of it, the CPU of the server (per operation), of the
    generator and of everything else on the machine."""
    ops, seconds = go.get("ops") or 0, go.get("seconds") or 0
    if "failed" in go or not seconds:
        return {"rate": None, "server_ms": None, "client_cpu": None, "others_cpu": None}
    others = go["machine_cpu_seconds"] - go["server_cpu_seconds"] - go["client_cpu_seconds"]
    return {"rate": go["rate"], "server_ms": go["server_cpu_seconds"] * 1000 / ops if ops else None,
            "client_cpu": go["client_cpu_seconds"] / seconds, "others_cpu": max(0.0, others) / seconds}


def build_row(workload: Workload, runs: dict[str, list[dict[str, Any]]]) -> Row:
    go = [go_numbers(result) for result in runs["go"]]
    locust = runs["locust"]
    errors = [f"Go: {result['failed']}" for result in runs["go"] if "failed" in result]
    if go_errors := sum(result.get("errors", 0) for result in runs["go"]):
        errors.append(f"Go: {go_errors:,} failed requests")
    if locust_errors := sum(result["failures"] for result in locust):
        errors.append(f"Locust: {locust_errors:,} failed requests")
    rates = [result["requests_per_second"] for result in locust]
    return Row(
        workload.title, go_rate=_median([n["rate"] for n in go]) or 0.0, locust_rate=statistics.median(rates),
        go_server_ms=_median([n["server_ms"] for n in go]),
        locust_server_ms=_median([r["server_cpu"] * 1000 / rate if rate else None for r, rate in zip(locust, rates)]),
        go_client_cpu=_median([n["client_cpu"] for n in go]),
        locust_client_cpu=statistics.median(r["locust_cpu"] for r in locust),
        locust_busy=statistics.median(r["locust_busy"] for r in locust),
        locust_bound=", ".join(r["bound"] for r in locust),
        go_others_cpu=_median([n["others_cpu"] for n in go]),
        locust_others_cpu=_median([r["others_cpu"] for r in locust]), errors="; ".join(errors))


def _number(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def markdown_table(rows: list[Row]) -> str:
    header = ["workload", "Go ops/s", "Locust ops/s", "Locust / Go", f"within {AGREEMENT:.0%}",
              "server CPU ms/op (Go / Locust)", "client CPU, cores (Go / Locust, Locust busy)", "Locust run",
              "other processes, cores (Go / Locust)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        ratio = f"{row.ratio:.2f}" if row.ratio is not None else "-"
        cells = [row.title + (f" ({row.errors})" if row.errors else ""), f"{row.go_rate:,.0f}", f"{row.locust_rate:,.0f}",
                 ratio, "yes" if row.agrees else "**no**",
                 f"{_number(row.go_server_ms, '.2f')} / {_number(row.locust_server_ms, '.2f')}",
                 f"{_number(row.go_client_cpu, '.2f')} / {row.locust_client_cpu:.2f}, {row.locust_busy:.0%}",
                 row.locust_bound,
                 f"{_number(row.go_others_cpu, '.2f')} / {_number(row.locust_others_cpu, '.2f')}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- running it ----------------------------------------------------------------------------------

def run(args: argparse.Namespace) -> list[Row]:
    """Starts fakeapi, seeds it, runs the workloads; their rows (results and logs in ``args.results``)."""
    chosen = [w for w in workloads(args.pods) if not args.only or re.search(args.only, f"{w.key} {w.title}")]
    logs = args.results / f"bench-agree-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    logs.mkdir(parents=True, exist_ok=True)
    print("building the load generator ...", file=sys.stderr)
    binary = compare.build_loadgen()
    workdir = Path(tempfile.mkdtemp(prefix="fakeapi-agree-"))
    results: dict[str, Any] = {}
    try:
        with compare.start_fakeapi(workdir, []) as server:
            pod_file = seed(binary, server, args.pods, logs)
            for workload in chosen:
                print(f"  {workload.title}: {args.rounds} x (Locust {args.duration} s, Go) ...", end="", flush=True,
                      file=sys.stderr)
                began = time.monotonic()
                results[workload.key] = run_rounds(workload, server, binary, pod_file, args, logs)
                print(f" {time.monotonic() - began:.0f} s", file=sys.stderr)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    rows = [build_row(w, results[w.key]) for w in chosen]
    (logs / "results.json").write_text(json.dumps({"results": results, "rows": [asdict(r) for r in rows]}, indent=1))
    print(f"results and logs: {logs}", file=sys.stderr)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one round of 10 s runs instead of three of 15 s")
    parser.add_argument("--duration", type=int, help="seconds of each Locust run (default 15; 10 with --quick)")
    parser.add_argument("--rounds", type=int, help="runs of each client per workload, medians shown (default 3; "
                        "1 with --quick)")
    parser.add_argument("--warm-up", type=int, default=5, help="seconds of each Locust run not measured (default 5)")
    parser.add_argument("--pods", type=int, default=1000, help="pods of the namespace listed and patched (default 1000)")
    parser.add_argument("--only", metavar="REGEX", help="run only the workloads whose key or title matches")
    parser.add_argument("--results", type=Path, default=ROOT / "results", help="where results and logs go")
    args = parser.parse_args(argv)
    args.duration = args.duration or (10 if args.quick else 15)
    args.rounds = args.rounds or (1 if args.quick else 3)
    if args.duration < args.warm_up + 6:
        parser.error("--duration must leave at least 6 s after --warm-up (CPU is sampled every 2 s)")
    loadavg = os.getloadavg()
    rows = run(args)
    print(markdown_table(rows))
    print(f"{sum(r.agrees for r in rows)} of {len(rows)} workloads agree within {AGREEMENT:.0%}; load average "
          f"{' '.join(f'{x:.1f}' for x in loadavg)} before, {' '.join(f'{x:.1f}' for x in os.getloadavg())} after "
          f"on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
