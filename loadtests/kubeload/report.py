"""Pass/fail on percentiles, and a summary per request type, when a headless run ends.

Thresholds are ``TYPE:pNN=MS`` items, e.g. ``LIST:p99=30000,WATCH_EVENT:p99=1000`` (the profile's
defaults, or ``LOAD_THRESHOLDS``). A missed one makes the process exit with code 3 (failed
requests keep Locust's code 1). ``LOAD_SUMMARY_FILE`` names a JSON file for the summary:
per request type count, failures, rate and percentiles over all its names, and the verdicts.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from locust import events
from locust.env import Environment
from locust.runners import WorkerRunner
from locust.stats import StatsEntry

from . import knobs

THRESHOLD_MISSED_EXIT_CODE = 3
PERCENTILES = (0.5, 0.95, 0.99)
log = logging.getLogger("kubeload")


def parse_thresholds(text: str) -> list[tuple[str, float, float]]:
    """``LIST:p99=30000`` -> [("LIST", 0.99, 30000.0)]."""
    out = []
    for item in filter(None, text.replace(" ", "").split(",")):
        kind, _, rest = item.partition(":")
        percentile, _, limit = rest.partition("=")
        if not percentile.startswith("p") or not limit:
            raise ValueError(f"a threshold is TYPE:pNN=MS: {item!r}")
        out.append((kind, float(percentile[1:]) / 100, float(limit)))
    return out


def by_request_type(environment: Environment) -> dict[str, StatsEntry]:
    """One entry per request type, merging its names."""
    merged: dict[str, StatsEntry] = {}
    for entry in environment.stats.entries.values():
        total = merged.get(entry.method)
        if total is None:
            total = merged[entry.method] = StatsEntry(environment.stats, entry.method, entry.method,
                                                      use_response_times_cache=False)
        total.extend(entry)
    return merged


def install(default_thresholds: str) -> None:
    """Judge and summarise at the end of the run (on the master or a standalone runner)."""
    thresholds = parse_thresholds(knobs.text("THRESHOLDS", default_thresholds))

    @events.quitting.add_listener
    def judge(environment: Environment, **_kwargs: Any) -> None:
        if isinstance(environment.runner, WorkerRunner):
            return
        merged = by_request_type(environment)
        verdicts = []
        for kind, percentile, limit in thresholds:
            entry = merged.get(kind)
            value = entry.get_response_time_percentile(percentile) if entry and entry.num_requests else None
            passed = value is not None and value <= limit
            verdicts.append({"type": kind, "percentile": percentile, "limit_ms": limit, "value_ms": value,
                             "passed": passed})
            log.info("threshold %s p%g <= %g ms: %s (%s)", kind, percentile * 100, limit,
                     "ok" if passed else "MISSED", value)
        if not all(v["passed"] for v in verdicts):
            environment.process_exit_code = THRESHOLD_MISSED_EXIT_CODE
        summary_file = knobs.text("SUMMARY_FILE", "")
        if summary_file:
            Path(summary_file).write_text(json.dumps({
                "request_types": {kind: _summary(entry) for kind, entry in sorted(merged.items())},
                "thresholds": verdicts,
            }, indent=2))


def _summary(entry: StatsEntry) -> dict[str, Any]:
    return {
        "requests": entry.num_requests, "failures": entry.num_failures,
        "requests_per_second": round(entry.total_rps, 2),
        "avg_ms": round(entry.avg_response_time, 2), "max_ms": round(entry.max_response_time, 2),
        **{f"p{int(p * 100)}_ms": entry.get_response_time_percentile(p) for p in PERCENTILES},
    }
