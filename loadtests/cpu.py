"""CPU over a run: the server process, each Locust process, the whole host; and whether the
run measured the server or Locust.

A Locust process is one gevent loop: it saturates at one core. When one is at ~100 % while
the server is not, its users' requests queue in Locust, and the latencies and rates the run
reports are Locust's limits, not the server's: the run is *client-bound*. ``judge`` says so
from the samples ``Sampler`` takes; ``run.py`` prints it, stores it in ``summary.json`` and
does not judge missed thresholds of a client-bound run as the server's.

Locust-free (psutil reads /proc), so ``run.py`` and the tests import it without gevent.
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
#: A process at or above this share of a core (the server: of its cores) is saturated.
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


def _cpu_seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


@dataclass
class Sampler:
    """Samples every ``SAMPLE_INTERVAL_SECONDS`` in a thread: CPU seconds and RSS of the server
    (``server_pid``, when it runs here), CPU seconds of the Locust process ``locust_pid`` and of
    each process it forked (``--processes``), the host's busy CPU seconds, and the ``METRICS``
    sums from the server's /metrics when it serves them.

    A sample: ``time``, ``cpu_seconds`` and ``rss_bytes`` (the server), ``locust_cpu_seconds``
    ({pid: seconds}), ``host_cpu_seconds``, ``host_cores``, and the metrics by name."""

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
        return {"time": time.time(), **self._server(), "locust_cpu_seconds": self._locust(),
                "host_cpu_seconds": sum(host) - host.idle - getattr(host, "iowait", 0.0),
                "host_cores": psutil.cpu_count() or 1, **self._metrics()}

    def _process(self, pid: int) -> psutil.Process:
        # One Process object per pid: psutil checks it is still the same process (start time).
        if pid not in self._processes:
            self._processes[pid] = psutil.Process(pid)
        return self._processes[pid]

    def _server(self) -> Sample:
        if self.server_pid is None:
            return {}
        try:
            process = self._process(self.server_pid)
            return {"cpu_seconds": _cpu_seconds(process), "rss_bytes": process.memory_info().rss}
        except psutil.Error:
            return {}

    def _locust(self) -> dict[str, float]:
        if self.locust_pid is None:
            return {}
        out: dict[str, float] = {}
        try:
            root = self._process(self.locust_pid)
            family = [root, *root.children(recursive=True)]
        except psutil.Error:
            return out
        for process in family:
            try:
                out[str(process.pid)] = _cpu_seconds(self._process(process.pid))
            except psutil.Error:
                continue  # exited between the listing and the read
        return out

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
    """CPU use between two samples, in cores (1.0 = one core busy)."""

    seconds: float
    server: float | None  # None: the server's CPU is unknown (not a process of this host)
    locust: dict[str, float]  # per Locust process
    host: float | None  # everything on the host


def interval(before: Sample, after: Sample) -> Interval | None:
    """CPU use between two samples; None if no time passed."""
    seconds = after["time"] - before["time"]
    if seconds <= 0:
        return None

    def rate(earlier: float | None, later: float | None) -> float | None:
        return (later - earlier) / seconds if earlier is not None and later is not None else None

    locust_before = before.get("locust_cpu_seconds", {})
    return Interval(seconds, rate(before.get("cpu_seconds"), after.get("cpu_seconds")),
                    {pid: (value - locust_before[pid]) / seconds
                     for pid, value in after.get("locust_cpu_seconds", {}).items() if pid in locust_before},
                    rate(before.get("host_cpu_seconds"), after.get("host_cpu_seconds")))


def intervals(samples: list[Sample]) -> list[Interval]:
    return [span for before, after in zip(samples, samples[1:]) if (span := interval(before, after)) is not None]


@dataclass
class Verdict:
    """Whether a run measured the server: ``bound`` is ``client-bound`` (a Locust process
    saturated while the server was not, for at least ``CLIENT_BOUND_SHARE`` of the run),
    ``server-bound`` (the server saturated for that share), ``not saturated``, or ``unknown``
    (too few samples). Shares are of the sampled time; CPU in cores (server: of its cores)."""

    bound: str
    client_bound_share: float = 0.0
    server_saturated_share: float = 0.0
    server_cpu: float | None = None  # mean, share of the server's cores
    server_cpu_peak: float | None = None
    locust_cpu: float = 0.0  # mean of the busiest Locust process, share of a core
    locust_processes: int = 0
    others_cpu: float | None = None  # mean cores used by the host's other processes

    @property
    def client_bound(self) -> bool:
        return self.bound == "client-bound"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sentence(self) -> str:
        """What the run measured, in words."""
        if self.bound == "unknown":
            return "bound: unknown (too few CPU samples to tell whether Locust or the server was saturated)"
        server = (f"fakeapi averaged {self.server_cpu:.0%} of its core (peak {self.server_cpu_peak:.0%})"
                  if self.server_cpu is not None else "fakeapi's CPU unknown (not a process of this host)")
        locust = f"the busiest of {self.locust_processes} Locust process(es) averaged {self.locust_cpu:.0%} of a core"
        others = (f"; other processes on this host used {self.others_cpu:.1f} cores"
                  if self.others_cpu is not None and self.others_cpu >= 0.25 else "")
        if self.bound == "client-bound":
            return (f"CLIENT-BOUND: a Locust process was saturated (>= {SATURATED:.0%} of a core) while fakeapi was not "
                    f"for {self.client_bound_share:.0%} of the run; {server}, {locust}{others}. The latencies and "
                    "rates below are Locust's limits, not fakeapi's: run more Locust processes (--processes), "
                    "fewer users, or a lighter profile.")
        if self.bound == "server-bound":
            return (f"server-bound: fakeapi was saturated (>= {SATURATED:.0%} of its core) for "
                    f"{self.server_saturated_share:.0%} of the run; {locust}{others}.")
        return f"not saturated: {server}; {locust}{others}."


def judge(samples: list[Sample], server_cores: int = 1) -> Verdict:
    """The verdict over ``samples`` (``Sampler``'s); ``server_cores``: cores the server can use."""
    spans = intervals(samples)
    total = sum(span.seconds for span in spans)
    if not spans or total <= 0:
        return Verdict("unknown")
    client_bound = server_saturated = 0.0
    server_known = all(span.server is not None for span in spans)
    for span in spans:
        locust_saturated = max(span.locust.values(), default=0.0) >= SATURATED
        server_busy = span.server is not None and span.server / server_cores >= SATURATED
        server_saturated += span.seconds if server_busy else 0.0
        client_bound += span.seconds if locust_saturated and not server_busy else 0.0
    busiest = [max(span.locust.values(), default=0.0) for span in spans]
    server = [span.server / server_cores for span in spans] if server_known else None
    others = None
    if server_known and all(span.host is not None for span in spans):
        used = sum((span.host - span.server - sum(span.locust.values())) * span.seconds for span in spans)  # type: ignore[operator]
        others = max(0.0, used / total)
    verdict = Verdict(
        "not saturated",
        client_bound_share=client_bound / total,
        server_saturated_share=server_saturated / total,
        server_cpu=sum(s * span.seconds for s, span in zip(server, spans)) / total if server else None,
        server_cpu_peak=max(server) if server else None,
        locust_cpu=sum(b * span.seconds for b, span in zip(busiest, spans)) / total,
        locust_processes=max(len(span.locust) for span in spans),
        others_cpu=others,
    )
    if verdict.client_bound_share >= CLIENT_BOUND_SHARE:
        verdict.bound = "client-bound"
    elif verdict.server_saturated_share >= CLIENT_BOUND_SHARE:
        verdict.bound = "server-bound"
    return verdict
