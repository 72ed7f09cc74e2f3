"""What the whole-cluster scenarios (``benchmarks/scenario_*.py``, ``docs/scenarios.md``) share:
the two API servers they run on (fakeapi, or the real kube-apiserver v1.35.4 on etcd v3.6.6 from
``fakeapi.cluster.control_plane``), the CPU and memory of processes from /proc, kube-apiserver's
metrics (which fakeapi serves under the same names and buckets) read as deltas between two
scrapes, and Markdown tables."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from fakeapi.cluster.cluster import APIServer, FakeAPIServer
from fakeapi.cluster.control_plane import Component, Etcd, KubeAPIServer

BACKENDS = ("fakeapi", "kube")
_TICKS = os.sysconf("SC_CLK_TCK")
#: /dev/shm when there is one: etcd's data and fakeapi's state in memory, as the benchmarks measure
#: the servers, not the disk.
SCRATCH = "/dev/shm" if Path("/dev/shm").is_dir() else None


@dataclass
class Backend:
    """One API server a scenario runs on, and the processes that make it up (whose CPU and memory
    are its cost)."""

    name: str
    apiserver: APIServer
    processes: dict[str, Component]


@contextlib.contextmanager
def backend(name: str, workdir: Path, *fakeapi_args: str) -> Iterator[Backend]:
    """``fakeapi`` (``fakeapi serve`` without its own controllers: the real ones run) or
    ``kube`` (etcd + kube-apiserver), stopped on exit."""
    if name == "fakeapi":
        server = FakeAPIServer(workdir / "fakeapi", workdir / "fakeapi" / "kubeconfig", "--controllers", "",
                               *fakeapi_args)
        try:
            yield Backend(name, server, {"fakeapi": server})
        finally:
            server.stop()
    elif name == "kube":
        # What ``control_plane.real_apiserver`` starts, with etcd at hand: its CPU and memory count.
        with Etcd(workdir / "etcd") as etcd, KubeAPIServer(workdir / "kube", etcd.client_url) as api:
            yield Backend(name, api, {"kube-apiserver": api, "etcd": etcd})
    else:
        raise ValueError(f"unknown backend {name!r}; known: {', '.join(BACKENDS)}")


@contextlib.contextmanager
def scratch_dir(prefix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix=prefix, dir=SCRATCH) as tmp:
        yield Path(tmp)


# ------------------------------------------------------------------------------ processes


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def memory(pid: int) -> tuple[int, int]:
    """(resident, peak resident) bytes: VmRSS and VmHWM."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) * 1024
    return values["VmRSS"], values["VmHWM"]


class CpuMeter:
    """CPU use of named processes between ``start`` and ``stop``, as % of one core."""

    def __init__(self, pids: Mapping[str, int]) -> None:
        self.pids = dict(pids)
        self._started = 0.0
        self._before: dict[str, float] = {}
        self.percent: dict[str, float] = {}

    def start(self) -> None:
        self._started = time.monotonic()
        self._before = {name: cpu_seconds(pid) for name, pid in self.pids.items()}

    def stop(self) -> dict[str, float]:
        elapsed = time.monotonic() - self._started
        self.percent = {name: 100 * (cpu_seconds(pid) - self._before[name]) / elapsed
                        for name, pid in self.pids.items()}
        return self.percent


def pids_of(components: Mapping[str, Component]) -> dict[str, int]:
    return {name: component.process.pid for name, component in components.items() if component.process is not None}


def size(count: float) -> str:
    """Bytes in the unit that fits: 512 B, 3.4 KiB, 120.5 MiB, 1.2 GiB."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count:.0f} B"


# ------------------------------------------------------------------------------ metrics

#: (metric sample name, sorted label items) -> value
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(http: httpx.Client) -> Samples:
    """Every sample of ``GET /metrics``."""
    response = http.get("/metrics")
    response.raise_for_status()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.text) for sample in family.samples}


def _matching(samples: Samples, name: str, match: Mapping[str, str | Sequence[str]]) -> Iterator[tuple[dict[str, str], float]]:
    for (sample_name, labels), value in samples.items():
        if sample_name != name:
            continue
        label_map = dict(labels)
        if all(label_map.get(key) == wanted if isinstance(wanted, str) else label_map.get(key) in wanted
               for key, wanted in match.items()):
            yield label_map, value


def counter_delta(before: Samples, after: Samples, name: str, **match: str | Sequence[str]) -> float:
    """How much the counters ``name`` matching ``match`` grew between two scrapes."""
    return sum(v for _, v in _matching(after, name, match)) - sum(v for _, v in _matching(before, name, match))


def histogram_quantile(before: Samples, after: Samples, name: str, quantile: float,
                       **match: str | Sequence[str]) -> float | None:
    """Prometheus' ``histogram_quantile`` over the observations of ``name`` (a ``_bucket``
    series) between two scrapes: linear within the bucket; ``None`` without observations."""
    def buckets(samples: Samples) -> dict[float, float]:
        counts: dict[float, float] = {}
        for labels, value in _matching(samples, f"{name}_bucket", match):
            edge = float(labels["le"])
            counts[edge] = counts.get(edge, 0.0) + value
        return counts

    start, end = buckets(before), buckets(after)
    edges = sorted(end)
    cumulative = [end[edge] - start.get(edge, 0.0) for edge in edges]
    if not cumulative or cumulative[-1] <= 0:
        return None
    rank = quantile * cumulative[-1]
    lower_edge, lower_count = 0.0, 0.0
    for edge, count in zip(edges, cumulative, strict=True):
        if count >= rank:
            if edge == float("inf"):
                return lower_edge
            return lower_edge + (edge - lower_edge) * (rank - lower_count) / max(count - lower_count, 1e-12)
        lower_edge, lower_count = edge, count
    return lower_edge


def percentile(values: Sequence[float], quantile: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(quantile * len(ordered)))] if ordered else float("nan")


# ------------------------------------------------------------------------------ output


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def wait_until(check: Callable[[], object], timeout: float, interval: float = 1.0) -> float | None:
    """Seconds until ``check()`` is truthy, or ``None`` after ``timeout``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if check():
            return time.monotonic() - started
        time.sleep(interval)
    return None
