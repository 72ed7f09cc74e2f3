"""`make conformance`'s runner (scripts/conformance.py) reads ginkgo's JSON report as e2e.test
writes it, tells the specs that ran from the ones the focus filtered out, blames fakeapi only for
the specs kube passed, and skips what the kwok cluster cannot serve without skipping the API specs
next to them. The suite itself is not run here: `make conformance` runs it."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

# The runner is a script, not a package: imported from its directory, as it runs.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import conformance as runner  # noqa: E402


def _spec(containers: list[str], leaf: str, state: str, message: str = "", node_type: str = "It") -> dict[str, Any]:
    """A spec as ginkgo v2's JSON report has it (the fields the runner reads, and a few others)."""
    spec: dict[str, Any] = {"ContainerHierarchyTexts": containers, "LeafNodeType": node_type,
                            "LeafNodeText": leaf, "LeafNodeLabels": ["Conformance"], "State": state,
                            "RunTime": 1_500_000_000, "NumAttempts": 1}
    if message:
        spec["Failure"] = {"Message": message, "FailureNodeType": node_type}
    return spec


def _report(tmp_path: Path, name: str, specs: list[dict[str, Any]]) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps([{"SuitePath": "/e2e", "SuiteDescription": "Kubernetes e2e suite",
                                 "SuiteSucceeded": False, "SpecReports": specs}]))
    return path


def test_report_keeps_specs_that_ran_or_skipped_themselves(tmp_path: Path) -> None:
    path = _report(tmp_path, "fakeapi", [
        _spec([], "", "passed", node_type="SynchronizedBeforeSuite"),
        _spec(["[sig-api-machinery] Watchers"], "should observe an object deletion [Conformance]", "passed"),
        _spec(["[sig-api-machinery] ResourceQuota"], "should manage the lifecycle [Conformance]", "failed",
              "expected 2 got 1\nfull stack trace"),
        _spec(["[sig-apps] Job"], "should delete a job [Conformance]", "skipped"),  # filtered out
        _spec(["[sig-node] Pods"], "should run on gce", "skipped", "Only supported for providers [gce]"),
        _spec(["[sig-apps] Deployment"], "should roll over [Conformance]", "timedout", "context deadline"),
    ])
    outcomes = runner.read_report(path)
    assert [name for name, outcome in outcomes.items() if not outcome.spec] == ["SynchronizedBeforeSuite"]
    assert {name: (o.state, o.message) for name, o in outcomes.items()} == {
        "SynchronizedBeforeSuite": ("passed", ""),
        "[sig-api-machinery] Watchers should observe an object deletion [Conformance]": ("passed", ""),
        "[sig-api-machinery] ResourceQuota should manage the lifecycle [Conformance]": ("failed", "expected 2 got 1"),
        "[sig-node] Pods should run on gce": ("skipped", "Only supported for providers [gce]"),
        "[sig-apps] Deployment should roll over [Conformance]": ("timedout", "context deadline"),
    }


def test_fakeapi_is_blamed_only_for_what_kube_passed() -> None:
    outcome = runner.Outcome
    kube = runner.Run("kube", {"SynchronizedBeforeSuite": outcome("passed", spec=False),
                               "a": outcome("passed"), "b": outcome("failed", "no pod"),
                               "c": outcome("passed"), "d": outcome("passed")}, 60.0)
    fakeapi = runner.Run("fakeapi", {"a": outcome("failed", "406"), "b": outcome("failed", "no pod"),
                                     "c": outcome("passed"), "d": outcome("timedout")}, 90.0)
    assert sorted(runner.fakeapi_failures([kube, fakeapi])) == ["a", "d"]
    assert sorted(runner.fakeapi_failures([fakeapi])) == ["a", "b", "d"]
    crashed = runner.Run("fakeapi", {}, 5.0, error="ControlPlaneError: fakeapi exited with 1")
    assert runner.fakeapi_failures([kube, crashed]) == [crashed.error]

    summary = runner.summarize([kube, fakeapi])
    assert "| spec | kube | fakeapi |" in summary
    assert "| a | passed | failed |" in summary
    assert "- kube: 1 failed, 3 passed in 1.0 min" in summary
    assert "- fakeapi: 2 failed, 1 passed, 1 timedout in 1.5 min" in summary
    assert "- a: 406" in summary.split("Failures on fakeapi:")[1]


def test_skip_list_skips_what_kwok_cannot_serve_and_keeps_the_api_specs() -> None:
    skip = re.compile(runner.skip_pattern(["Lease lease API"]))
    focus = re.compile(runner.DEFAULT_FOCUS)
    skipped = [
        "[sig-api-machinery] AdmissionWebhook [Privileged:ClusterAdmin] should mutate pod and apply defaults after mutation [Conformance]",
        "[sig-api-machinery] CustomResourceFieldSelectors [Privileged:ClusterAdmin] CustomResourceFieldSelectors "
        "MUST list and watch custom resources matching the field selector [Conformance]",
        "[sig-node] ConfigMap should be consumable via environment variable [NodeConformance] [Conformance]",
        "[sig-node] Sysctls [LinuxOnly] [NodeConformance] should support sysctls [Environment:NotInUserNS] [Conformance]",
        "[sig-node] Pods should support remote command execution over websockets [NodeConformance] [Conformance]",
        "[sig-auth] ServiceAccounts should mount an API token into pods [Conformance]",
        "[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] Burst scaling should run to "
        "completion even with unhealthy pods [Slow] [Conformance]",
        "[sig-apps] Job with successPolicy succeededCount rule should succeeded even when some indexes remain "
        "pending [Conformance]",
        "[sig-node] Pods should allow activeDeadlineSeconds to be updated [NodeConformance] [Conformance]",
        "[sig-apps] Daemon set [Serial] should rollback without unnecessary restarts [Conformance]",
        "[sig-node] Lease lease API should be available [Conformance]",  # the extra pattern
    ]
    kept = [
        "[sig-api-machinery] Watchers should be able to start watching from a specific resource version [Conformance]",
        "[sig-node] ConfigMap should fail to create ConfigMap with empty key [Conformance]",
        "[sig-node] Sysctls [LinuxOnly] [NodeConformance] should reject invalid sysctls [Conformance]",
        "[sig-auth] ServiceAccounts should run through the lifecycle of a ServiceAccount [Conformance]",
        "[sig-scheduling] LimitRange should list, patch and delete a LimitRange by collection [Conformance]",
        "[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform canary updates "
        "and phased rolling updates of template modifications [Conformance]",
        "[sig-apps] Job with successPolicy should succeeded when all indexes succeeded [Conformance]",
        "[sig-node] Pods should get a host IP [NodeConformance] [Conformance]",
        # One ginkgo process runs the specs one at a time: a [Serial] spec has the cluster to itself.
        "[sig-api-machinery] Namespaces [Serial] should patch a Namespace [Conformance]",
        "[sig-apps] Daemon set [Serial] should run and stop simple daemon [Conformance]",
    ]
    assert [name for name in skipped if not skip.search(name)] == []
    assert [name for name in kept if skip.search(name) or not focus.search(name)] == []
    assert not focus.search("[sig-network] Services should provide secure master service [Conformance]")
