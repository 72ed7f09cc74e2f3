"""Run one load profile headless and write its reports: ``make load PROFILE=<name>``.

    python loadtests/run.py PROFILE [--users N] [--duration 60s] [--set KNOB=VALUE ...]
                            [--url http://127.0.0.1:PORT] [--processes N] [--test] [--out results]

Without ``--url`` it starts ``fakeapi serve --seed <profile's cluster>`` on 127.0.0.1 (a free
port) and stops it afterwards. Locust runs as a subprocess (importing it here would
gevent-patch this process), by default with one worker process per core left after the server
(``--processes``; one core left: a single standalone process). Into
``results/<profile>-<timestamp>/`` go Locust's CSV (``stats_*.csv``, full history), HTML
(``report.html``) and JSON (``stats.json``) reports, ``summary.json`` (per request type
percentiles, threshold verdicts, CPU samples of the server and of every Locust process, and
whether the run was client-bound) and PNG plots.

Exit code: 0 ok, 1 failed requests, 3 a percentile threshold missed, 4 a threshold missed on a
client-bound run (a Locust process saturated while the server was not: the miss is Locust's,
not a verdict on the server; see ``cpu.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

LOADTESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(LOADTESTS))

from client_report import client_report  # noqa: E402
from cpu import Sampler, Verdict, judge, locust_processes_for  # noqa: E402
from profiles import PROFILES, Profile, Variant  # noqa: E402

#: Locust's grace for users to finish after --run-time (watch readers are killed at once).
STOP_TIMEOUT_SECONDS = 5
THRESHOLD_MISSED = 3
CLIENT_BOUND_THRESHOLD_MISSED = 4


@dataclass
class RunResult:
    out: Path
    exit_code: int
    summary: dict
    verdict: Verdict


def run_profile(profile: Profile, url: str, out: Path, variant: Variant, *, users: int | None = None,
                duration: str | None = None, knobs: dict[str, str] | None = None, server_pid: int | None = None,
                processes: int = 1) -> RunResult:
    """Run ``profile``'s locustfile headless against ``url`` in ``processes`` Locust worker
    processes (1: one standalone process); reports into ``out``."""
    out = out.resolve()  # Locust runs in loadtests/
    out.mkdir(parents=True, exist_ok=True)
    users = users or variant.users
    duration = duration or variant.duration
    env = dict(os.environ)
    env.update({f"LOAD_{k}": v for k, v in {**variant.knobs, **(knobs or {})}.items()})
    env["LOAD_SUMMARY_FILE"] = str(out / "locust-summary.json")
    command = [sys.executable, "-m", "locust", "-f", str(LOADTESTS / profile.locustfile), "--headless",
               "-H", url, "-u", str(users), "-r", str(profile.spawn_rate), "-t", duration,
               "--stop-timeout", str(STOP_TIMEOUT_SECONDS), "--csv", str(out / "stats"), "--csv-full-history",
               "--html", str(out / "report.html"), "--json-file", str(out / "stats"), "--only-summary",
               "--loglevel", "INFO"]
    if processes > 1:
        command += ["--processes", str(processes)]
    started = time.time()
    with open(out / "locust.log", "w") as log:
        locust = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=LOADTESTS)
        sampler = Sampler(url, server_pid, locust.pid)
        sampler.start()
        try:
            exit_code = locust.wait()
        finally:
            sampler.stop()
    locust_summary_file = out / "locust-summary.json"
    locust_summary = json.loads(locust_summary_file.read_text()) if locust_summary_file.exists() else {}
    verdict = judge(sampler.samples)
    if verdict.client_bound and exit_code == THRESHOLD_MISSED:
        exit_code = CLIENT_BOUND_THRESHOLD_MISSED
    summary = {
        "profile": profile.name, "url": url, "users": users, "duration": duration, "seed": variant.seed,
        "knobs": {**variant.knobs, **(knobs or {})}, "locust_processes": processes, "started": started,
        "exit_code": exit_code, **locust_summary, "bound": verdict.as_dict(), "bound_sentence": verdict.sentence(),
        "server_samples": sampler.samples, "server_has_metrics": sampler.has_metrics,
    }
    summary["clients"] = client_report(url, out)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return RunResult(out, exit_code, summary, verdict)


def print_summary(result: RunResult) -> None:
    print(f"{result.summary['profile']}: exit code {result.exit_code}; reports in {result.out}")
    print(f"{'type':<22}{'requests':>10}{'fail':>6}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    for kind, row in result.summary.get("request_types", {}).items():
        print(f"{kind:<22}{row['requests']:>10}{row['failures']:>6}{row['requests_per_second']:>9}"
              f"{row['p50_ms']:>9}{row['p95_ms']:>9}{row['p99_ms']:>9}")
    client_bound = result.verdict.client_bound
    for verdict in result.summary.get("thresholds", []):
        outcome = "ok" if verdict["passed"] else "MISSED" + (" on a client-bound run: not judged" * client_bound)
        print(f"threshold {verdict['type']} p{verdict['percentile'] * 100:g} <= {verdict['limit_ms']:g} ms: "
              f"{outcome} ({verdict['value_ms']})")
    print(result.verdict.sentence())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", choices=sorted(PROFILES))
    parser.add_argument("--users", type=int, help="the profile's principal users (default: the profile's)")
    parser.add_argument("--duration", help="run time, e.g. 60s, 5m (default: the profile's)")
    parser.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE", help="a profile knob")
    parser.add_argument("--seed", help="the cluster to seed instead of the profile's (a fakeapi seed SPEC)")
    parser.add_argument("--url", help="an already running server (no seeding); default: start one")
    parser.add_argument("--test", action="store_true", help="the profile's short CI variant")
    parser.add_argument("--processes", type=int, default=locust_processes_for(),
                        help="Locust worker processes (default: one per core left after the server, here %(default)s)")
    parser.add_argument("--out", default="results", help="parent folder of the run's folder")
    args = parser.parse_args(argv)
    profile = PROFILES[args.profile]
    variant = profile.test if args.test else profile.full
    if args.seed:
        variant = Variant(args.seed, variant.users, variant.duration, variant.knobs)
    knobs = dict(item.split("=", 1) for item in args.set)
    out = Path(args.out) / f"{profile.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    if args.url:
        result = run_profile(profile, args.url, out, variant, users=args.users, duration=args.duration,
                             knobs=knobs, processes=args.processes)
    else:
        from fakeapi.testing import ServerProcess

        out.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        with ServerProcess(out, "--seed", variant.seed, "--compaction-interval", "5m", *profile.server_args) as server:
            print(f"fakeapi at {server.url}, seeded with {variant.seed} in {time.perf_counter() - started:.1f} s "
                  "(start-up included)", flush=True)
            result = run_profile(profile, server.url, out, variant, users=args.users, duration=args.duration,
                                 knobs=knobs, server_pid=server.process.pid, processes=args.processes)
    from plots import plot_run

    plot_run(result.out, result.summary)
    print_summary(result)
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
