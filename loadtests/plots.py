"""PNG plots of a run folder (``run.py`` writes it): latency percentiles over time, the
write-to-delivery latency histogram, the server over the run. matplotlib (the ``load`` extra)
draws off-screen; a plot with no data is skipped."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

#: Request types whose samples are not latencies of a call (counts, cadences).
_NOT_LATENCY = {"BOOKMARK", "WATCH_EVENT_UNTIMED"}


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
    """Server CPU and memory (from /proc), and /metrics series when the server has them:
    counters (``*_total``) as rates, gauges as values."""
    samples = summary.get("server_samples") or []
    if len(samples) < 2:
        return None
    start = samples[0]["time"]
    panels: dict[str, tuple[list[float], list[float]]] = {}
    for previous, sample in zip(samples, samples[1:]):
        t, dt = sample["time"] - start, sample["time"] - previous["time"]
        for key, value in sample.items():
            if key == "time" or key not in previous:
                continue
            if key == "cpu_seconds":
                label, y = "server CPU, % of a core", (value - previous[key]) / dt * 100
            elif key.endswith("_total"):
                label, y = f"{key} per second", (value - previous[key]) / dt
            elif key.endswith("_bytes"):
                label, y = f"{key} (MiB)", value / 2**20
            else:
                label, y = key, value
            xs, ys = panels.setdefault(label, ([], []))
            xs.append(t)
            ys.append(y)
    if not panels:
        return None
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.2 * len(panels)), sharex=True, squeeze=False)
    for ax, (label, (xs, ys)) in zip(axes[:, 0], sorted(panels.items())):
        ax.plot(xs, ys)
        ax.set_title(label, fontsize=9)
    axes[-1, 0].set_xlabel("seconds into the run")
    return _save(fig, out / "server.png")


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path
