"""Every profile, headless for a few seconds against a seeded server: no failed request, a
sample of every request type it declares, thresholds met, reports and plots written, CPU of
the server and of every Locust process sampled and judged. Two profiles also run in two Locust
worker processes: roles that join at a fraction of the run need the run time the master
announces (informer-relist's restart), roles split across the run need the worker layout
(cluster-churn's kubelets: one per node)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from fakeapi.testing import ServerProcess
from profiles import PROFILES
from run import run_profile
from plots import plot_run


@pytest.mark.parametrize(("name", "processes"), [(name, 1) for name in sorted(PROFILES)]
                         + [("cluster-churn", 2), ("informer-relist", 2)])
def test_profile_runs_clean(name: str, processes: int, tmp_path: Path) -> None:
    profile = PROFILES[name]
    with ServerProcess(tmp_path, "--seed", profile.test.seed, *profile.server_args) as server:
        result = run_profile(profile, server.url, tmp_path / "out", profile.test, server_pid=server.process.pid,
                             processes=processes)
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

    if name == "cluster-churn":  # each seeded node's Lease read once, then only renewed: no 409s
        assert sum(int(r["Request Count"]) for r in rows if (r["Type"], r["Name"]) == ("GET", "leases")) == 10

    samples = result.summary["server_samples"]
    assert len(samples) >= 3 and all("cpu_seconds" in sample for sample in samples)
    # The process run.py started, and with --processes its forked workers.
    assert max(len(sample["locust_cpu_seconds"]) for sample in samples) == (1 if processes == 1 else 1 + processes)
    assert result.summary["bound"]["bound"] in ("not saturated", "server-bound", "client-bound")
    assert result.summary["bound_sentence"] == result.verdict.sentence()

    stats = json.loads((result.out / "stats.json").read_text())
    assert {e["method"] for e in stats} >= set(profile.request_types)
    assert all(v["passed"] for v in result.summary["thresholds"])
    assert (result.out / "report.html").stat().st_size > 0
    plotted = {p.name for p in plot_run(result.out, result.summary)}
    assert {"latency.png", "server.png"} <= plotted
    if "WATCH_EVENT" in profile.request_types:
        assert "delivery-latency.png" in plotted
