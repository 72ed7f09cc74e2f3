"""``fakeapi report`` against a ``fakeapi serve`` process, and the report's serve flags."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fakeapi.cli.main import main
from fakeapi.testing import ServerProcess

NS = "/api/v1/namespaces/default/configmaps"


def fakeapi_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fakeapi.cli", *args], capture_output=True, text=True, timeout=60)


def test_report_table_and_json_with_the_serve_flags(tmp_path: Path) -> None:
    with ServerProcess(tmp_path, "--client-header", "X-Team", "--max-clients", "5",
                       "--detector", "hot-loop:writes=3,window=2m") as server:
        http = server.http
        http.post(NS, json={"metadata": {"name": "x"}}, headers={"X-Team": "payments"}).raise_for_status()
        for i in range(3):
            http.patch(f"{NS}/x", json={"data": {"i": str(i)}}, headers={
                "X-Team": "payments", "content-type": "application/merge-patch+json"}).raise_for_status()
        http.get(NS, headers={"X-Team": "search"}).raise_for_status()

        table = fakeapi_cli("report", "--url", server.url)
        assert table.returncode == 0, table.stderr
        lines = table.stdout.splitlines()
        assert lines[0].startswith("clients by time, since the server started (from ")
        assert lines[1].split()[:3] == ["CLIENT", "REQUESTS", "SECONDS"]
        payments = next(line for line in lines if line.startswith("payments "))
        assert payments.split()[1] == "4" and payments.endswith("hot-loop")
        assert any(line.startswith("  patch configmaps (resource)") for line in lines)
        assert "findings: 1" in lines
        assert any(line.startswith("hot-loop        payments on configmaps: 1x at ") and "writes=3" in line
                   for line in lines)

        as_json = fakeapi_cli("report", "--url", server.url, "--json", "--since", "5m", "--sort", "requests")
        report = json.loads(as_json.stdout)
        assert [c["client"] for c in report["clients"]] == ["payments", "search"]
        assert report["since"] == 300 and report["sort"] == "requests"
        assert report["detectors"]["hot-loop"] == {"writes": 3, "noop_writes": 5, "window": 120.0}
        assert report["limits"]["maxClients"] == 5 and report["limits"]["clientHeader"] == "X-Team"
        assert server.report().findings("hot-loop", client="payments")


@pytest.mark.parametrize(("args", "message"), [
    (["serve", "--detector", "hot-loop:speed=3"], "hot-loop has no knob 'speed'"),
    (["serve", "--detector", "slow-poke:x=1"], "unknown detector 'slow-poke'"),
    (["serve", "--detector", "relist-storm:relists=0"], "relists must be positive"),
    (["serve", "--detector", "relist-storm:relists"], "expected KNOB=VALUE"),
    (["report", "--since", "never"], "not a positive duration: never"),
])
def test_bad_flags_are_refused(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2 and message in capsys.readouterr().err


def test_an_unreachable_server_is_reported() -> None:
    with pytest.raises(SystemExit) as exited:
        main(["report", "--url", "http://127.0.0.1:9"])
    assert str(exited.value.code).startswith("fakeapi report: http://127.0.0.1:9/fakeapi/v1/report?sort=time: ")
