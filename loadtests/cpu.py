"""CPU over a run: the server process, each Locust process, the whole host; and whether the
run measured the server or Locust.

A Locust process is one gevent loop: it saturates at one core. When one is saturated while
the server is not, its users' requests queue in Locust, and the latencies and rates the run
reports are Locust's limits, not the server's: the run is *client-bound*. ``judge`` says so
from the samples ``Sampler`` takes; ``run.py`` prints it, stores it in ``summary.json`` and
does not judge missed thresholds of a client-bound run as the server's.

Saturated means busy: on a core, or ready to run and waiting for one (Linux's run-queue
delay, ``/proc/<pid>/task/*/schedstat``), at least ``SATURATED`` of the time. On a host
shared with other work a process that always has work may get 60 % of a core and wait the
rest; CPU alone would call it idle.

Locust-free (psutil and /proc), so ``run.py`` and the tests import it without gevent.
"""

from __future__ import annotations

import os
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from typing import Any

import psutil

SAMPLE_INTERVAL_SECONDS = 2.0
#: A process busy (on a core or waiting for one) at least this share of the time (the server:
#: of its cores) is saturated.
SATURATED = 0.9
#: A run is client-bound when it was so for at least this share of its sampled time: enough to
#: move a p99.
CLIENT_BOUND_SHARE = 0.1
#: /metrics series sampled when the server has them (summed over labels).
METRICS = ("apiserver_current_inflight_requests", "apiserver_longrunning_requests",
           "apiserver_request_total", "apiserver_watch_events_total", "process_resident_memory_bytes")

Sample = dict[str, Any]


def locust_processes_for(server_cores: int = 1, cores: int | None = None) -> int:
    """Locust worker processes for this machine: one per core left after the server, at least
    one (Locust runs one gevent loop per process)."""
    return max(1, (cores or os.cpu_count() or 1) - server_cores)


def run_queue_seconds(pid: int) -> float | None:
    """Seconds the threads of ``pid`` have waited, ready to run, for a core; None without
    schedstat (not Linux, or a kernel built without it)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    waited = 0
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/schedstat") as f:
                waited += int(f.read().split()[1])
        except FileNotFoundError:
            continue  # the thread ended
        except (OSError, IndexError, ValueError):
            return None
    return waited / 1e9


@dataclass
class Sampler:
    """Samples every ``SAMPLE_INTERVAL_SECONDS`` in a thread: CPU and run-queue seconds and RSS
    of the server (``server_pid``, when it runs here), CPU and run-queue seconds of the Locust
    process ``locust_pid`` and of each process it forked (``--processes``), the host's busy CPU
    seconds, and the ``METRICS`` sums from the server's /metrics when it serves them.

    A sample: ``time``; ``cpu_seconds``, ``wait_seconds`` and ``rss_bytes`` (the server);
    ``locust_cpu_seconds`` and ``locust_wait_seconds`` ({pid: seconds}); ``host_cpu_seconds``;
    the metrics by name."""

    url: str
    server_pid: int | None
    locust_pid: int | None = None
    samples: list[Sample] = field(default_factory=list)
    has_metrics: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _processes: dict[int, psutil.Process] = field(default_factory=dict)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Takes a last sample, so even a short run has an interval to judge."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.samples.append(self._sample())

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(self._sample())
            self._stop.wait(SAMPLE_INTERVAL_SECONDS)

    def _sample(self) -> Sample:
        host = psutil.cpu_times()
        return {"time": time.time(), **self._server(), **self._locust(),
                "host_cpu_seconds": sum(host) - host.idle - getattr(host, "iowait", 0.0), **self._metrics()}

    def _process(self, pid: int) -> psutil.Process:
        # One Process object per pid: psutil checks it is still the same process (start time).
        if pid not in self._processes:
            self._processes[pid] = psutil.Process(pid)
        return self._processes[pid]

    def _usage(self, pid: int) -> tuple[float, float | None]:
        times = self._process(pid).cpu_times()
        return times.user + times.system, run_queue_seconds(pid)

    def _server(self) -> Sample:
        if self.server_pid is None:
            return {}
        try:
            cpu, waited = self._usage(self.server_pid)
            sample = {"cpu_seconds": cpu, "rss_bytes": self._process(self.server_pid).memory_info().rss}
        except psutil.Error:
            return {}
        return sample if waited is None else {**sample, "wait_seconds": waited}

    def _locust(self) -> Sample:
        cpu: dict[str, float] = {}
        waits: dict[str, float] = {}
        if self.locust_pid is not None:
            try:
                root = self._process(self.locust_pid)
                family = [root, *root.children(recursive=True)]
            except psutil.Error:
                family = []
            for process in family:
                try:
                    seconds, waited = self._usage(process.pid)
                except psutil.Error:
                    continue  # exited between the listing and the read
                cpu[str(process.pid)] = seconds
                if waited is not None:
                    waits[str(process.pid)] = waited
        return {"locust_cpu_seconds": cpu, "locust_wait_seconds": waits}

    def _metrics(self) -> Sample:
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
class Interval:
    """Use between two samples, in cores (1.0 = one core's worth of the time): CPU, and busy
    (CPU plus waiting for a core; CPU alone where the run-queue wait is unknown)."""

    seconds: float
    server: float | None  # None: the server's CPU is unknown (not a process of this host)
    server_busy: float | None
    locust: dict[str, float]  # per Locust process
    locust_busy: dict[str, float]
    host: float | None  # CPU of everything on the host


def _per_second(before: Sample, after: Sample, key: str, seconds: float) -> float | None:
    return (after[key] - before[key]) / seconds if key in before and key in after else None


def _per_process(before: Sample, after: Sample, key: str, seconds: float) -> dict[str, float]:
    earlier, later = before.get(key, {}), after.get(key, {})
    return {pid: (value - earlier[pid]) / seconds for pid, value in later.items() if pid in earlier}


def interval(before: Sample, after: Sample) -> Interval | None:
    """Use between two samples; None if no time passed."""
    seconds = after["time"] - before["time"]
    if seconds <= 0:
        return None
    server = _per_second(before, after, "cpu_seconds", seconds)
    server_wait = _per_second(before, after, "wait_seconds", seconds)
    locust = _per_process(before, after, "locust_cpu_seconds", seconds)
    locust_wait = _per_process(before, after, "locust_wait_seconds", seconds)
    return Interval(seconds, server, server + (server_wait or 0.0) if server is not None else None,
                    locust, {pid: cores + locust_wait.get(pid, 0.0) for pid, cores in locust.items()},
                    _per_second(before, after, "host_cpu_seconds", seconds))


def intervals(samples: list[Sample]) -> list[Interval]:
    return [span for before, after in zip(samples, samples[1:]) if (span := interval(before, after)) is not None]


@dataclass
class Verdict:
    """Whether a run measured the server: ``bound`` is ``client-bound`` (a Locust process
    saturated while the server was not, for at least ``CLIENT_BOUND_SHARE`` of the run),
    ``server-bound`` (the server saturated for that share), ``not saturated``, or ``unknown``
    (too few samples). Shares are of the sampled time; means are time-weighted, in cores (the
    server's: of its cores); "busy" counts the time waiting for a core."""

    bound: str
    client_bound_share: float = 0.0
    server_saturated_share: float = 0.0
    server_cpu: float | None = None
    server_cpu_peak: float | None = None
    server_busy: float | None = None
    locust_cpu: float = 0.0  # the busiest Locust process, interval by interval
    locust_busy: float = 0.0
    locust_processes: int = 0
    others_cpu: float | None = None  # cores used by the host's other processes

    @property
    def client_bound(self) -> bool:
        return self.bound == "client-bound"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sentence(self) -> str:
        """What the run measured, in words."""
        if self.bound == "unknown":
            return "bound: unknown (too few CPU samples to tell whether Locust or the server was saturated)"
        server = "fakeapi's CPU unknown (not a process of this host)"
        if self.server_cpu is not None and self.server_busy is not None:
            server = (f"fakeapi used {self.server_cpu:.0%} of its core (peak {self.server_cpu_peak:.0%}), "
                      f"busy {self.server_busy:.0%}")
        locust = (f"the busiest of {self.locust_processes} Locust process(es) used {self.locust_cpu:.0%} of a core, "
                  f"busy {self.locust_busy:.0%}")
        others = (f"; other processes on this host used {self.others_cpu:.1f} cores"
                  if self.others_cpu is not None and self.others_cpu >= 0.25 else "")
        means = f"{server}; {locust} (means; busy = on a core or waiting for one){others}"
        if self.bound == "client-bound":
            return (f"CLIENT-BOUND: a Locust process was saturated (busy >= {SATURATED:.0%}) while fakeapi was not for "
                    f"{self.client_bound_share:.0%} of the run; {means}. The latencies and rates are Locust's limits, "
                    "not fakeapi's: run more Locust processes (--processes), fewer users, or a lighter profile.")
        if self.bound == "server-bound":
            return (f"server-bound: fakeapi was saturated (busy >= {SATURATED:.0%}) for "
                    f"{self.server_saturated_share:.0%} of the run; {means}.")
        return f"not saturated: {means}."


def _mean(values: list[float], spans: list[Interval], total: float) -> float:
    return sum(value * span.seconds for value, span in zip(values, spans)) / total


def judge(samples: list[Sample], server_cores: int = 1) -> Verdict:
    """The verdict over ``samples`` (``Sampler``'s); ``server_cores``: cores the server can use."""
    spans = intervals(samples)
    total = sum(span.seconds for span in spans)
    if not spans or total <= 0:
        return Verdict("unknown")
    client_bound = server_saturated = 0.0
    for span in spans:
        locust_saturated = max(span.locust_busy.values(), default=0.0) >= SATURATED
        server_saturated_now = span.server_busy is not None and span.server_busy / server_cores >= SATURATED
        server_saturated += span.seconds if server_saturated_now else 0.0
        client_bound += span.seconds if locust_saturated and not server_saturated_now else 0.0
    verdict = Verdict(
        "not saturated", client_bound_share=client_bound / total, server_saturated_share=server_saturated / total,
        locust_cpu=_mean([max(span.locust.values(), default=0.0) for span in spans], spans, total),
        locust_busy=_mean([max(span.locust_busy.values(), default=0.0) for span in spans], spans, total),
        locust_processes=max(len(span.locust) for span in spans))
    if all(span.server is not None and span.server_busy is not None for span in spans):
        server = [span.server / server_cores for span in spans]  # type: ignore[operator]
        verdict.server_cpu, verdict.server_cpu_peak = _mean(server, spans, total), max(server)
        verdict.server_busy = _mean([span.server_busy / server_cores for span in spans], spans, total)  # type: ignore[operator]
        if all(span.host is not None for span in spans):
            used = [span.host - span.server - sum(span.locust.values()) for span in spans]  # type: ignore[operator]
            verdict.others_cpu = max(0.0, _mean(used, spans, total))
    if verdict.client_bound_share >= CLIENT_BOUND_SHARE:
        verdict.bound = "client-bound"
    elif verdict.server_saturated_share >= CLIENT_BOUND_SHARE:
        verdict.bound = "server-bound"
    return verdict
