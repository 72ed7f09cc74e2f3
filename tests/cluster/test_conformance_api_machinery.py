"""kubernetes v1.35.4's sig-api-machinery conformance specs (but the [Serial] ones), run by
`make conformance`'s runner (scripts/conformance.py) on a whole fake cluster on fakeapi: the real
kube-controller-manager and kube-scheduler, kwok's nodes, e2e.test built from the Go module proxy.

On this cluster, with the runner's skip list (what kwok's pods cannot serve, skipped on both
servers alike), the real kube-apiserver + etcd pass ``KUBE_PASSES`` specs (`make conformance
KUBE=1 FOCUS=...` runs them on both): fakeapi must pass every one. The count guards against a
run that passes because it ran less (a focus that stopped matching, a spec newly skipped): a
change to the skip list that changes it says so here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# The runner is a script, not a package: imported from its directory, as it runs.
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))
import conformance as runner  # noqa: E402

FOCUS = r"\[sig-api-machinery\].*\[Conformance\]"
#: The [Serial] specs (9 more, each with the cluster to itself: minutes one after the other) are
#: `make conformance`'s; CI's budget runs those that share the cluster.
SKIP = r"\[Serial\]"
#: The specs of ``FOCUS`` kube-apiserver v1.35.4 passes on this cluster, the skip list applied.
KUBE_PASSES = 60
#: e2e.test's processes (ginkgo's CLI, as kubernetes' hack/ginkgo-e2e.sh runs them): the specs
#: mostly wait on the cluster, so four share two cores well and take a third of the serial time.
PROCS = 4


@pytest.mark.timeout(3600)
def test_sig_api_machinery_conformance_specs_pass_on_fakeapi(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "conformance.py"), "--focus", FOCUS, "--skip", SKIP, "--procs", str(PROCS),
         "--results", str(tmp_path)],
        capture_output=True, text=True,
    )
    summary = f"{result.stdout[-20000:]}\n{result.stderr[-4000:]}"
    report = tmp_path / "fakeapi" / "report.json"
    assert report.exists(), f"the suite wrote no report (e2e log: {tmp_path / 'fakeapi' / 'e2e.log'}):\n{summary}"
    outcomes = runner.read_report(report)
    failed = sorted(name for name, outcome in outcomes.items() if outcome.state not in (runner.PASSED, runner.SKIPPED))
    assert not failed, f"{len(failed)} specs failed on fakeapi:\n" + "\n".join(failed) + f"\n\n{summary}"
    passed = [name for name, outcome in outcomes.items() if outcome.spec and outcome.state == runner.PASSED]
    assert len(passed) == KUBE_PASSES, f"{len(passed)} specs passed, kube passes {KUBE_PASSES}:\n{summary}"
    assert result.returncode == 0, summary
