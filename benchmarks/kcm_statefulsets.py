"""The real kube-controller-manager v1.35.4 (``fakeapi.cluster.control_plane``) on fakeapi seeded
with StatefulSets and their ControllerRevisions — 5,000 x 10 by default, the scenario of the
``statefulset-revisions`` load profile — and the client report once the StatefulSet controller
has synced every set: which controller costs what. Prints the report's table (and the seconds
each phase took); ``--json FILE`` keeps the report. Not a test; a few minutes at full size."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from fakeapi.clients.table import render
from fakeapi.testing import ServerProcess
from fakeapi.cluster.control_plane import ControllerManager

STATEFULSET_CONTROLLER = "kube-controller-manager/statefulset-controller"


def synced_sets(server: ServerProcess) -> int:
    """Status updates the StatefulSet controller has made (one per set it synced)."""
    for client in server.report().clients:
        if client["client"] == STATEFULSET_CONTROLLER:
            return sum(r["requests"] for r in client["requests"]
                       if r["verb"] == "update" and r["resource"] == "statefulsets.apps/status")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--statefulsets", type=int, default=5000)
    parser.add_argument("--revisions", type=int, default=10)
    parser.add_argument("--namespaces", type=int, default=50)
    parser.add_argument("--controllers", default="*", help="kube-controller-manager --controllers (default *)")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds to run on once every set is synced")
    parser.add_argument("--timeout", type=float, default=1200.0)
    parser.add_argument("--json", type=Path, help="write the report's JSON here")
    args = parser.parse_args()
    seed = f"namespaces={args.namespaces},statefulsets={args.statefulsets},revisions={args.revisions},seed=1"
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        started = time.perf_counter()
        with ServerProcess(workdir, "--controllers", "", "--seed", seed) as server:
            seeded = time.perf_counter()
            print(f"fakeapi seeded with {seed} in {seeded - started:.0f} s", flush=True)
            with ControllerManager(workdir / "kcm", server.kubeconfig, controllers=args.controllers,
                                   leader_elect=False):
                ready = time.perf_counter()
                print(f"kube-controller-manager healthy in {ready - seeded:.0f} s", flush=True)
                deadline = ready + args.timeout
                while synced_sets(server) < args.statefulsets and time.perf_counter() < deadline:
                    time.sleep(2)
                synced = time.perf_counter()
                print(f"{synced_sets(server):,} of {args.statefulsets:,} sets synced in {synced - ready:.0f} s; "
                      f"{args.settle:.0f} s more", flush=True)
                time.sleep(args.settle)
                report = server.report()
    print(render(report.data, rows_per_client=4))
    if args.json:
        args.json.write_text(json.dumps(report.data, indent=2))


if __name__ == "__main__":
    main()
