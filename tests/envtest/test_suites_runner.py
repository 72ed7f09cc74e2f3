"""`make envtest-suites`' runner (scripts/envtest_suites.py) blames fakeapi only for the specs the
real binaries passed, counts specs (not the suite's own nodes) per package and server, and names
a run that wrote no report. The suites themselves are not run here: `make envtest-suites` runs
them."""

from __future__ import annotations

import sys
from pathlib import Path

# The runner is a script, not a package: imported from its directory, as it runs.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import envtest_suites as runner  # noqa: E402
from conformance import Outcome  # noqa: E402


def _run(package: str, server: str, **states: str) -> runner.Run:
    outcomes = {name.replace("_", " "): Outcome(state) for name, state in states.items()}
    outcomes["BeforeSuite"] = Outcome("passed", spec=False)
    return runner.Run(package, server, outcomes, 12.4)


def test_fakeapi_is_blamed_for_what_kube_passed() -> None:
    runs = [
        _run("client", "kube", applies_scale="passed", needs_etcd="failed", pending_one="pending"),
        _run("client", "fakeapi", applies_scale="failed", needs_etcd="failed", pending_one="pending"),
    ]
    assert runner.blamed(runs) == [("client", "applies scale", "")]
    summary = runner.summarize(runs)
    assert "| pkg/client | 1 | 1 | 12 s | 0 | 2 | 12 s |" in summary
    assert "- pkg/client: applies scale: " in summary
    assert "needs etcd" not in summary


def test_without_kube_every_fakeapi_failure_is_named() -> None:
    runs = [_run("cache", "fakeapi", informs="panicked", lists="passed")]
    assert runner.blamed(runs) == [("cache", "informs", "")]
    summary = runner.summarize(runs)
    assert summary.splitlines()[0] == "| package | fakeapi passed | fakeapi failed | fakeapi wall |"
    assert "| pkg/cache | 1 | 1 | 12 s |" in summary


def test_a_run_without_report_is_named() -> None:
    runs = [runner.Run("manager", "kube", {}, 3.0), runner.Run("manager", "fakeapi", {}, 1.0, error="no report")]
    summary = runner.summarize(runs)
    assert "| pkg/manager | 0 | 0 | 3 s | 0 | 0 | 1 s |" in summary
    assert summary.endswith("- pkg/manager on fakeapi: no report")
