"""The "clients" section of a load run: the resync-storm profile's controllers, re-listing in
lock-step, are named by the report that ``run.py`` fetches at the end of the run."""

from __future__ import annotations

import json
from pathlib import Path

from fakeapi.testing import ServerProcess
from profiles import PROFILES
from run import run_profile


def test_a_load_run_writes_the_client_report_and_names_the_lock_step(tmp_path: Path) -> None:
    profile = PROFILES["resync-storm"]
    with ServerProcess(tmp_path, "--seed", profile.test.seed, *profile.server_args) as server:
        result = run_profile(profile, server.url, tmp_path / "out", profile.test, server_pid=server.process.pid)
    assert result.exit_code == 0, (result.out / "locust.log").read_text()[-3000:]
    clients = result.summary["clients"]
    assert clients == json.loads((result.out / "summary.json").read_text())["clients"]
    assert clients["clients"][0]["client"] == "fakeapi-load" and clients["clients"][0]["requests"] > 0
    lock_step = {f["resource"]: f for f in clients["findings"] if f["detector"] == "lock-step"}
    assert "pods" in lock_step
    assert min(lock_step["pods"]["evidence"]["sourcesPerBurst"]) >= 3  # the controllers, each its connection
    report = json.loads((result.out / "clients.json").read_text())
    assert report["kind"] == "ClientReport"
    assert (result.out / "clients.txt").read_text().startswith("clients by time")
    assert (result.out / "clients.png").stat().st_size > 0
