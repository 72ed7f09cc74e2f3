"""Run one load profile headless and write its reports: ``make load PROFILE=<name>``.

    python loadtests/run.py PROFILE [--users N] [--duration 60s] [--set KNOB=VALUE ...]
                            [--url http://127.0.0.1:PORT] [--test] [--out results]

Without ``--url`` it starts ``fakeapi serve --seed <profile's cluster>`` on 127.0.0.1 (a free
port) and stops it afterwards. Locust runs as a subprocess (importing it here would
gevent-patch this process). Into ``results/<profile>-<timestamp>/`` go Locust's CSV
(``stats_*.csv``, full history), HTML (``report.html``) and JSON (``stats.json``) reports,
``summary.json`` (per request type percentiles, threshold verdicts, server samples) and PNG
plots. The exit code is Locust's: 0 ok, 1 failed requests, 3 a percentile threshold missed.

Server samples: the server process's CPU and memory from /proc (when it runs here), and
``/metrics`` every 2 s when the server has that endpoint.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

LOADTESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(LOADTESTS))

from client_report import client_report  # noqa: E402
from profiles import PROFILES, Profile, Variant  # noqa: E402

#: Locust's grace for users to finish after --run-time (watch readers are killed at once).
STOP_TIMEOUT_SECONDS = 5
SAMPLE_INTERVAL_SECONDS = 2.0
#: /metrics series plotted when present (summed over labels).
METRICS = ("apiserver_current_inflight_requests", "apiserver_longrunning_requests",
           "apiserver_request_total", "apiserver_watch_events_total", "process_resident_memory_bytes")


@dataclass
class ServerSampler:
    """Samples the server every ``SAMPLE_INTERVAL_SECONDS`` in a thread: CPU seconds and RSS of
    its process (Linux /proc), and the ``METRICS`` sums from /metrics when it serves them."""

    url: str
    pid: int | None
    samples: list[dict[str, float]] = field(default_factory=list)
    has_metrics: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            sample = {"time": time.time(), **self._process(), **self._metrics()}
            self.samples.append(sample)
            self._stop.wait(SAMPLE_INTERVAL_SECONDS)

    def _process(self) -> dict[str, float]:
        if self.pid is None:
            return {}
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            rss_pages = int(Path(f"/proc/{self.pid}/statm").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            return {}
        ticks = os.sysconf("SC_CLK_TCK")
        return {"cpu_seconds": (int(stat[11]) + int(stat[12])) / ticks,
                "rss_bytes": rss_pages * os.sysconf("SC_PAGE_SIZE")}

    def _metrics(self) -> dict[str, float]:
        try:
            with urllib.request.urlopen(self.url + "/metrics", timeout=2) as response:
                text = response.read().decode()
        except (urllib.error.URLError, OSError):
            return {}
        self.has_metrics = True
        return parse_metrics(text)


def parse_metrics(text: str) -> dict[str, float]:
    """Sums of the ``METRICS`` series in Prometheus text, over all their labels."""
    sums: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        name = line.split("{", 1)[0].split(" ", 1)[0]
        if name in METRICS:
            try:
                sums[name] = sums.get(name, 0.0) + float(line.rsplit(" ", 1)[1])
            except ValueError:
                continue
    return sums


@dataclass
class RunResult:
    out: Path
    exit_code: int
    summary: dict


def run_profile(profile: Profile, url: str, out: Path, variant: Variant, *, users: int | None = None,
                duration: str | None = None, knobs: dict[str, str] | None = None, server_pid: int | None = None,
                workers: int = 0) -> RunResult:
    """Run ``profile``'s locustfile headless against ``url``; reports into ``out``."""
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
    if workers:
        command += ["--processes", str(workers)]
    sampler = ServerSampler(url, server_pid)
    sampler.start()
    started = time.time()
    with open(out / "locust.log", "w") as log:
        exit_code = subprocess.run(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=LOADTESTS).returncode
    sampler.stop()
    locust_summary_file = out / "locust-summary.json"
    locust_summary = json.loads(locust_summary_file.read_text()) if locust_summary_file.exists() else {}
    summary = {
        "profile": profile.name, "url": url, "users": users, "duration": duration, "seed": variant.seed,
        "knobs": {**variant.knobs, **(knobs or {})}, "started": started, "exit_code": exit_code,
        **locust_summary, "server_samples": sampler.samples, "server_has_metrics": sampler.has_metrics,
    }
    summary["clients"] = client_report(url, out)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return RunResult(out, exit_code, summary)


def print_summary(result: RunResult) -> None:
    print(f"{result.summary['profile']}: exit code {result.exit_code}; reports in {result.out}")
    print(f"{'type':<22}{'requests':>10}{'fail':>6}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    for kind, row in result.summary.get("request_types", {}).items():
        print(f"{kind:<22}{row['requests']:>10}{row['failures']:>6}{row['requests_per_second']:>9}"
              f"{row['p50_ms']:>9}{row['p95_ms']:>9}{row['p99_ms']:>9}")
    for verdict in result.summary.get("thresholds", []):
        print(f"threshold {verdict['type']} p{verdict['percentile'] * 100:g} <= {verdict['limit_ms']:g} ms: "
              f"{'ok' if verdict['passed'] else 'MISSED'} ({verdict['value_ms']})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", choices=sorted(PROFILES))
    parser.add_argument("--users", type=int, help="the profile's principal users (default: the profile's)")
    parser.add_argument("--duration", help="run time, e.g. 60s, 5m (default: the profile's)")
    parser.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE", help="a profile knob")
    parser.add_argument("--seed", help="the cluster to seed instead of the profile's (a fakeapi seed SPEC)")
    parser.add_argument("--url", help="an already running server (no seeding); default: start one")
    parser.add_argument("--test", action="store_true", help="the profile's short CI variant")
    parser.add_argument("--workers", type=int, default=0, help="Locust worker processes (default: one process)")
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
                             knobs=knobs, workers=args.workers)
    else:
        from fakeapi.testing import ServerProcess

        out.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        with ServerProcess(out, "--seed", variant.seed, "--compaction-interval", "5m", *profile.server_args) as server:
            print(f"fakeapi at {server.url}, seeded with {variant.seed} in {time.perf_counter() - started:.1f} s "
                  "(start-up included)", flush=True)
            result = run_profile(profile, server.url, out, variant, users=args.users, duration=args.duration,
                                 knobs=knobs, server_pid=server.process.pid, workers=args.workers)
    from plots import plot_run

    plot_run(result.out, result.summary)
    print_summary(result)
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
