"""The real kube-controller-manager v1.35.4 (every controller; ``fakeapi.cluster.control_plane``)
on a fakeapi seeded with StatefulSets and their ControllerRevisions: the report names each
controller by the User-Agent kube gives it and says what it cost — the StatefulSet controller's
status updates and revisions, the shared informers' watches — and no detector fires for a
controller manager that only uses informers. (The 5,000 x 10 run of the same scenario is
``benchmarks/kcm_statefulsets.py``.)"""

from __future__ import annotations

from pathlib import Path

from fakeapi.testing import ServerProcess, eventually
from fakeapi.cluster.control_plane import ControllerManager

STATEFULSETS = 60
REVISIONS = 10
STATEFULSET_CONTROLLER = "kube-controller-manager/statefulset-controller"


def status_updates(server: ServerProcess) -> int:
    try:
        rows = server.report().client(STATEFULSET_CONTROLLER)["requests"]
    except KeyError:
        return 0
    return sum(r["requests"] for r in rows if r["verb"] == "update" and r["resource"] == "statefulsets.apps/status")


def test_the_report_names_the_controllers_of_the_real_controller_manager(tmp_path: Path) -> None:
    seed = f"namespaces=3,statefulsets={STATEFULSETS},revisions={REVISIONS},seed=1"
    # fakeapi's own garbage collector and namespace controller off: the controller manager runs them.
    with ServerProcess(tmp_path, "--controllers", "", "--seed", seed) as server, \
            ControllerManager(tmp_path / "kcm", server.kubeconfig, leader_elect=False):
        eventually(lambda: status_updates(server) >= STATEFULSETS, "every set synced", timeout=120)
        report = server.report()
    names = {c["client"] for c in report.clients}
    assert {STATEFULSET_CONTROLLER, "kube-controller-manager/shared-informers"} <= names
    statefulsets = report.client(STATEFULSET_CONTROLLER)
    assert statefulsets["version"] == "v1.35.4"
    assert statefulsets["userAgent"].startswith("kube-controller-manager/v1.35.4 (linux/")
    assert statefulsets["totals"]["servingSeconds"] > 0 and statefulsets["totals"]["requestBytes"] > 0
    informers = report.client("kube-controller-manager/shared-informers")
    revisions = next(r for r in informers["requests"]
                     if r["verb"] == "watch" and r["resource"] == "controllerrevisions.apps")
    assert revisions["watchEvents"] >= STATEFULSETS * REVISIONS  # the initial state, streamed (WatchList)
    assert informers["openWatches"] >= 10
    assert report.findings() == [], str(report)
