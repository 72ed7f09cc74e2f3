"""fakeapi as one process against ``--workers N``: the comparison benchmark's client-go workloads
(``benchmarks/compare.py``, its Go load generator) against fakeapi with each worker count in
turn, one table with the ratios to one process. Not a test: run it and read.

    .venv/bin/python benchmarks/scaleout.py                       # 1 and 2 workers, the quick rows
    .venv/bin/python benchmarks/scaleout.py --workers 1,2,4 --only 'creates, 16|fan-out, 1,000'

One process is ``fakeapi serve`` with its store in-process; N workers are N API processes over a
store process (``fakeapi serve --workers N``, see ``fakeapi/cli/workers.py``). Server CPU is the whole
process tree's (store and workers), so CPU per operation shows what the gRPC hop costs.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (the comparison benchmark's workloads and harness)

#: The rows worth scaling (writes and fan-out); --only chooses others.
DEFAULT_ONLY = r"creates, (16|64) clients$|updates|merge patches|fan-out, 1,000 watchers x (10|100) "


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="1,2", help="worker counts to run, comma-separated (default 1,2)")
    parser.add_argument("--only", default=DEFAULT_ONLY, metavar="REGEX",
                        help="the compare.py rows to run (plus the creates that fill the store)")
    parser.add_argument("--full", action="store_true", help="compare.py's full rows and store sizes, not the quick ones")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    pattern = re.compile(args.only)
    steps = [s for s in compare.plan(not args.full) if s.seeds or pattern.search(s.key) or pattern.search(s.title)]
    binary = compare.build_loadgen()
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    logs = compare.ROOT / "results" / f"scaleout-{stamp}"
    logs.mkdir(parents=True, exist_ok=True)
    tmpfs = Path("/dev/shm")
    workdir = Path(tempfile.mkdtemp(prefix="fakeapi-scaleout-", dir=tmpfs if os.access(tmpfs, os.W_OK) else None))
    results: dict[int, dict[str, Any]] = {}
    try:
        for n in counts:
            extra = [] if n == 1 else [f"--workers={n}"]
            results[n] = compare.run_server(compare.FAKEAPI, steps, 1, extra, binary, workdir / str(n), logs)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(table(steps, results, counts))
    print(f"\n{compare.machine()['cpu']}; results and logs: {logs}", file=sys.stderr)
    return 0


def _label(n: int) -> str:
    return "1 process" if n == 1 else f"{n} workers"


def table(steps: list[compare.Step], results: dict[int, dict[str, Any]], counts: list[int]) -> str:
    base = counts[0]
    head = ["workload", *(_label(n) for n in counts), *(f"{_label(n)} / {_label(base)}" for n in counts[1:]),
            *(f"CPU ms/op, {_label(n)}" for n in counts)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for step in steps:
        cells, numbers, cpu = [], {}, []
        better = compare.HIGHER
        for n in counts:
            result = results[n].get(step.key)
            if result is None:
                break
            text, numbers[n], better = compare.describe(step, result)
            cells.append(text)
            ops = result.get("ops")
            cpu.append(f"{result['server_cpu_seconds'] * 1000 / ops:.3g}" if ops and "server_cpu_seconds" in result else "")
        else:
            ratios = [compare.ratio_text(numbers[n], numbers[base], better) for n in counts[1:]]
            lines.append("| " + " | ".join([step.title, *cells, *ratios, *cpu]) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
