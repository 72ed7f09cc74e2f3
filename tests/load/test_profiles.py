"""Every profile, headless for a few seconds against a seeded server: no failed request, a
sample of every request type it declares, thresholds met, reports and plots written."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from fakeapi.testing import ServerProcess
from profiles import PROFILES
from run import run_profile
from plots import plot_run


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_profile_runs_clean(name: str, tmp_path: Path) -> None:
    profile = PROFILES[name]
    with ServerProcess(tmp_path, "--seed", profile.test.seed, *profile.server_args) as server:
        result = run_profile(profile, server.url, tmp_path / "out", profile.test, server_pid=server.process.pid)
    log = (result.out / "locust.log").read_text()
    assert result.exit_code == 0, log[-3000:]

    with (result.out / "stats_stats.csv").open() as f:
        rows = list(csv.DictReader(f))
    aggregated = next(r for r in rows if r["Name"] == "Aggregated")
    assert int(aggregated["Failure Count"]) == 0, (result.out / "stats_failures.csv").read_text()
    counts: dict[str, int] = {}
    for row in rows:
        if row["Name"] != "Aggregated":
            counts[row["Type"]] = counts.get(row["Type"], 0) + int(row["Request Count"])
    for kind in profile.request_types:
        assert counts.get(kind, 0) > 0, f"no {kind} samples: {counts}"

    stats = json.loads((result.out / "stats.json").read_text())
    assert {e["method"] for e in stats} >= set(profile.request_types)
    assert all(v["passed"] for v in result.summary["thresholds"])
    assert (result.out / "report.html").stat().st_size > 0
    plotted = {p.name for p in plot_run(result.out, result.summary)}
    assert "latency.png" in plotted
    if "WATCH_EVENT" in profile.request_types:
        assert "delivery-latency.png" in plotted
