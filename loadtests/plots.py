"""PNG plots of a run folder (``run.py`` writes it): latency percentiles over time, the
write-to-delivery latency histogram, the server and Locust's processes over the run.
matplotlib (the ``load`` extra) draws off-screen; a plot with no data is skipped."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from cpu import SATURATED, interval  # noqa: E402

#: Request types whose samples are not latencies of a call (counts, cadences).
_NOT_LATENCY = {"BOOKMARK", "WATCH_EVENT_UNTIMED"}
#: Sample keys drawn as CPU panels, or not at all.
_NOT_SERIES = {"time", "cpu_seconds", "wait_seconds", "locust_cpu_seconds", "locust_wait_seconds", "host_cpu_seconds"}
_OTHERS = {"linestyle": ":", "color": "grey"}
SERVER_CPU = "server CPU, % of a core (dashed: busy, on a core or waiting for one)"
CLIENT_CPU = "client: Locust CPU per process, % of a core (dashed: busy)"


def plot_run(out: Path, summary: dict[str, Any]) -> list[Path]:
    drawn = [latency_over_time(out), delivery_histogram(out), server_over_time(out, summary)]
    return [path for path in drawn if path is not None]


def latency_over_time(out: Path) -> Path | None:
    """p50 (dashed) and p99 of each request type and name, from Locust's full stats history."""
    history = out / "stats_stats_history.csv"
    if not history.exists():
        return None
    series: dict[str, dict[str, list[tuple[float, float, float]]]] = defaultdict(lambda: defaultdict(list))
    with history.open() as f:
        for row in csv.DictReader(f):
            kind, name = row["Type"], row["Name"]
            if not kind or name == "Aggregated" or kind in _NOT_LATENCY or row["99%"] in ("N/A", ""):
                continue
            series[kind][name].append((float(row["Timestamp"]), float(row["50%"]), float(row["99%"])))
    if not series:
        return None
    start = min(points[0][0] for names in series.values() for points in names.values())
    fig, axes = plt.subplots(len(series), 1, figsize=(9, 2.6 * len(series)), sharex=True, squeeze=False)
    for ax, (kind, names) in zip(axes[:, 0], sorted(series.items())):
        for name, points in sorted(names.items()):
            t = [p[0] - start for p in points]
            line, = ax.plot(t, [p[2] for p in points], label=f"{name} p99")
            ax.plot(t, [p[1] for p in points], linestyle="--", color=line.get_color())
        ax.set_title(kind, fontsize=9)
        ax.set_ylabel("ms")
        ax.legend(fontsize=7, loc="upper left")
    axes[-1, 0].set_xlabel("seconds into the run")
    fig.suptitle("latency percentiles over time (p99 solid, p50 dashed)", fontsize=10)
    return _save(fig, out / "latency.png")


def delivery_histogram(out: Path) -> Path | None:
    """Write-to-delivery latency of WATCH_EVENT samples (Locust's buckets: whole ms under
    100 ms, two significant digits above)."""
    stats = out / "stats.json"
    if not stats.exists():
        return None
    counts: dict[float, int] = defaultdict(int)
    for entry in json.loads(stats.read_text()):
        if entry.get("method") == "WATCH_EVENT":
            for ms, n in entry.get("response_times", {}).items():
                counts[float(ms)] += n
    if not counts:
        return None
    fig, ax = plt.subplots(figsize=(8, 3.5))
    xs = sorted(counts)
    ax.bar([max(x, 0.5) for x in xs], [counts[x] for x in xs], width=[max(x, 1) * 0.08 + 0.6 for x in xs])
    ax.set_xscale("log")
    ax.set_xlabel("write-to-delivery latency, ms (log)")
    ax.set_ylabel("events")
    ax.set_title(f"WATCH_EVENT delivery latency ({sum(counts.values())} events)", fontsize=10)
    return _save(fig, out / "delivery-latency.png")


def server_over_time(out: Path, summary: dict[str, Any]) -> Path | None:
    """The server over the run: its CPU and memory (from /proc), /metrics series when it has
    them (counters, ``*_total``, as rates; gauges as values), the host's other processes; and
    the client panel: each Locust process's CPU against the saturation line. Dashed: busy
    (CPU and waiting for a core). A Locust process busy on the line while the server is below
    it is a client-bound run (``cpu.judge``)."""
    samples = summary.get("server_samples") or []
    if len(samples) < 2:
        return None
    start = samples[0]["time"]
    panels: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    labels: dict[str, str] = {}

    def point(panel: str, line: str, t: float, y: float) -> None:
        xs, ys = panels.setdefault(panel, {}).setdefault(line, ([], []))
        xs.append(t)
        ys.append(y)

    for previous, sample in zip(samples, samples[1:]):
        span = interval(previous, sample)
        if span is None:
            continue
        t, dt = sample["time"] - start, span.seconds
        if span.server is not None and span.server_busy is not None:
            point(SERVER_CPU, "fakeapi", t, span.server * 100)
            point(SERVER_CPU, "fakeapi busy", t, span.server_busy * 100)
        for pid, cores in span.locust.items():  # the process run.py started first, then its workers
            label = labels.setdefault(pid, f"locust worker {len(labels)}" if labels else "locust")
            point(CLIENT_CPU, label, t, cores * 100)
            point(CLIENT_CPU, f"{label} busy", t, span.locust_busy[pid] * 100)
        if span.server is not None and span.host is not None:
            point(SERVER_CPU, "other processes on the host", t,
                  max(0.0, span.host - span.server - sum(span.locust.values())) * 100)
        for key, value in sample.items():
            if key not in previous or not isinstance(value, (int, float)) or key in _NOT_SERIES:
                continue
            if key.endswith("_total"):
                point(f"{key} per second", key, t, (value - previous[key]) / dt)
            elif key == "rss_bytes":
                point("server RSS (MiB)", key, t, value / 2**20)
            elif key.endswith("_bytes"):
                point(f"{key} (MiB)", key, t, value / 2**20)
            else:
                point(key, key, t, value)
    if not panels:
        return None
    order = [label for label in (SERVER_CPU, CLIENT_CPU) if label in panels]
    order += sorted(label for label in panels if label not in order)
    fig, axes = plt.subplots(len(order), 1, figsize=(8, 2.2 * len(order)), sharex=True, squeeze=False)
    for ax, label in zip(axes[:, 0], order):
        colors: dict[str, Any] = {}
        for line, (xs, ys) in panels[label].items():
            if line.endswith(" busy"):  # dashed, in its process's color
                ax.plot(xs, ys, linestyle="--", color=colors.get(line.removesuffix(" busy")), linewidth=0.8)
            else:
                drawn, = ax.plot(xs, ys, label=line, **(_OTHERS if line == "other processes on the host" else {}))
                colors[line] = drawn.get_color()
        if label in (SERVER_CPU, CLIENT_CPU):
            ax.axhline(SATURATED * 100, color="grey", linewidth=0.8, linestyle="--")
            ax.set_ylim(0, max(105, ax.get_ylim()[1]))
        if len(colors) > 1:
            ax.legend(fontsize=7, loc="upper left")
        ax.set_title(label, fontsize=9)
    axes[-1, 0].set_xlabel("seconds into the run")
    fig.suptitle(summary.get("bound", {}).get("bound", ""), fontsize=10)
    return _save(fig, out / "server.png")


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path
