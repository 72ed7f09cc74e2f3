"""What one Locust process can drive: the ``get-patch`` profile through Locust's
requests-based ``HttpUser`` and through ``KubeClient`` (geventhttpclient), one after the other
against one seeded fakeapi, one Locust process each. Prints, per client, the requests/s it
reached, the CPU of the Locust process and of the server, and requests per Locust CPU-second:
the rate a saturated Locust process would reach (the fast client usually saturates the server
first, so its requests/s alone understate it).

    python loadtests/client_bench.py [--users 20] [--duration 30s]
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from cpu import interval  # noqa: E402
from profiles import PROFILES  # noqa: E402
from run import RunResult, run_profile  # noqa: E402

CLIENTS = ("requests", "fast")
WARM_UP_SECONDS = 6


def measure(result: RunResult, warm_up_seconds: float) -> dict[str, float]:
    """Rates over the steady part of the run: from the first CPU sample ``warm_up_seconds`` in
    (Locust imported, users started, pod names listed) to the last one before Locust stopped;
    requests in that window from Locust's per-second history (cumulative counts, interpolated)."""
    history = []
    with (result.out / "stats_stats_history.csv").open() as f:
        for row in csv.DictReader(f):
            if row["Name"] == "Aggregated":
                history.append((float(row["Timestamp"]), float(row["Total Request Count"])))
    samples = result.summary["server_samples"]
    window = [s for s in samples if samples[0]["time"] + warm_up_seconds <= s["time"] <= history[-1][0]]
    first, last = window[0], window[-1]
    span = interval(first, last)
    assert span is not None, "no steady window: run longer"

    def requests_at(t: float) -> float:
        times, counts = zip(*history)
        return float(np.interp(t, times, counts))

    requests = requests_at(last["time"]) - requests_at(first["time"])
    locust_cores = sum(span.locust.values())
    types = result.summary.get("request_types", {})
    return {"requests_per_second": requests / span.seconds, "locust_cores": locust_cores,
            "server_cores": span.server or 0.0, "per_locust_cpu_second": requests / span.seconds / locust_cores,
            "p99_ms": max(types.get(kind, {}).get("p99_ms") or 0 for kind in ("GET", "PATCH"))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--duration", default="30s")
    args = parser.parse_args(argv)
    from fakeapi.testing import ServerProcess

    profile = PROFILES["get-patch"]
    rows = {}
    with tempfile.TemporaryDirectory() as workdir, ServerProcess(Path(workdir), "--seed", profile.full.seed) as server:
        for client in CLIENTS:
            out = Path(workdir) / client
            result = run_profile(profile, server.url, out, profile.full, users=args.users, duration=args.duration,
                                 knobs={"CLIENT": client}, server_pid=server.process.pid, processes=1)
            if result.exit_code not in (0, 3, 4):
                print((out / "locust.log").read_text()[-3000:])
                return result.exit_code
            rows[client] = measure(result, WARM_UP_SECONDS)
            time.sleep(1)
    print(f"get-patch, {args.users} users, {args.duration} per client, one Locust process; "
          f"rates after the first {WARM_UP_SECONDS} s:")
    print(f"{'client':<10}{'req/s':>9}{'Locust cores':>14}{'fakeapi cores':>15}{'req per Locust CPU-s':>22}{'p99 ms':>8}")
    for client, row in rows.items():
        print(f"{client:<10}{row['requests_per_second']:>9.0f}{row['locust_cores']:>14.2f}{row['server_cores']:>15.2f}"
              f"{row['per_locust_cpu_second']:>22.0f}{row['p99_ms']:>8.0f}")
    ratio = rows["fast"]["per_locust_cpu_second"] / rows["requests"]["per_locust_cpu_second"]
    print(f"fast / requests, requests per Locust CPU-second: {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
