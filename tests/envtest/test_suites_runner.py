"""`make envtest-suites`' runner (scripts/envtest_suites.py) blames fakeapi only for the specs the
real binaries passed, counts specs (not the suite's own nodes) per package and server, and names
a run that wrote no report. The suites themselves are not run here: `make envtest-suites` runs
them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

# The runner is a script, not a package: imported from its directory, as it runs.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import envtest_suites as runner  # noqa: E402


def _run(package: str, server: str, **states: str) -> runner.Run:
    return runner.Run(package, server, [runner.Spec(name.replace("_", " "), state) for name, state in states.items()], 12.4)


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
    runs = [runner.Run("manager", "kube", [], 3.0), runner.Run("manager", "fakeapi", [], 1.0, error="no report")]
    summary = runner.summarize(runs)
    assert "| pkg/manager | 0 | 0 | 3 s | 0 | 0 | 1 s |" in summary
    assert summary.endswith("- pkg/manager on fakeapi: no report")


def test_report_counts_specs_of_the_same_name_and_leaves_out_the_suites_nodes(tmp_path: Path) -> None:
    def spec(leaf: str, state: str, node_type: str = "It", message: str = "") -> dict[str, object]:
        return {"ContainerHierarchyTexts": ["Client", "Get"] if leaf else [], "LeafNodeType": node_type,
                "LeafNodeText": leaf, "State": state, **({"Failure": {"Message": message}} if message else {})}
    report = tmp_path / "report.json"
    report.write_text(json.dumps([{"SuitePath": "/pkg/client", "SpecReports": [
        spec("", "passed", node_type="BeforeSuite"), spec("works", "passed"), spec("works", "passed"),
        spec("scales", "failed", message="Unexpected error:\n    invalid object type"),
        spec("filtered out", "skipped"), spec("pending", "pending")]}]))
    specs = runner.read_specs(report)
    assert [(s.name, s.state, s.message) for s in specs] == [
        ("Client Get works", "passed", ""), ("Client Get works", "passed", ""),
        ("Client Get scales", "failed", "Unexpected error:"), ("Client Get pending", "pending", "")]


def test_phases_and_the_specs_furthest_from_half_the_real_binaries_time(tmp_path: Path) -> None:
    def node(node_type: str, seconds: float, leaf: str = "", state: str = "passed") -> dict[str, object]:
        return {"ContainerHierarchyTexts": ["Client"] if leaf else [], "LeafNodeType": node_type, "LeafNodeText": leaf,
                "State": state, "RunTime": int(seconds * 1e9)}

    runs = []
    for server, times in (("kube", (5.0, 0.2, 0.2, 0.1, 0.4, 1.0)), ("fakeapi", (1.0, 0.05, 0.15, 0.04, 0.3, 0.1))):
        report = tmp_path / f"{server}.json"
        start, same_a, same_b, fast, failing, stop = times
        report.write_text(json.dumps([{"SpecReports": [
            node("BeforeSuite", start), node("It", same_a, "twin"), node("It", same_b, "twin"), node("It", fast, "quick"),
            node("It", failing, "flaky", "failed" if server == "fakeapi" else "passed"), node("AfterSuite", stop)]}]))
        runs.append(runner.Run("client", server, runner.read_specs(report), 9.0, phases=runner.read_phases(report)))
    assert runs[1].phases == pytest.approx({"BeforeSuite": 1.0, "specs": 0.54, "AfterSuite": 0.1})
    summary = runner.summarize(runs)
    assert "| pkg/client | fakeapi | 1.00 s | 0.54 s | 0.10 s |" in summary
    assert "pkg/client, the real binaries' time over fakeapi's: BeforeSuite 5.00x, specs 1.67x, AfterSuite 10.00x" in summary
    # The second "twin" is paired with kube's second, the failed spec with none.
    slow = summary.split("furthest from half the real binaries' time (kube, fakeapi):\n")[1].split("\n\n")[0]
    assert slow == "- Client twin: 0.200 s, 0.150 s"
