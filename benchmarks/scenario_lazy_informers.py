"""Seeds 002/003: a controller-runtime v0.23 manager with lazily started informers and a resync
period (``benchmarks/lazyinformers``, Go) against a whole fake cluster, and the LIST/WATCH
traffic it causes — on fakeapi and on the real kube-apiserver + etcd.

Per backend: a cluster (``fakeapi.cluster.cluster.Cluster``: the real controller manager and scheduler,
kwok's nodes) holding ``--deployments`` Deployments rolled out to Ready pods, each annotated with
the ConfigMap it reads, among ``--configmaps`` ConfigMaps; then the manager runs for
``--duration`` in each ``--variants``: ``lazy`` (informers started by the reconciler's first read
of a kind) and ``eager`` (started before the controller). It counts on its own transport what it
asked of the server, per verb and resource (requests, response bytes), and when each informer
synced; its reconciles per second show the resyncs (``--sync-period``). On fakeapi the client
report shows the same traffic from the server's side.

Not a test: a few minutes per backend. ``--json FILE`` keeps the numbers."""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from scenario_support import BACKENDS, backend, markdown_table, scratch_dir, size

from fakeapi.cluster.cluster import Cluster, ClusterConfig
from fakeapi.testing.client import FakeCluster
from fakeapi.testing.report import Report

PROGRAM_DIR = Path(__file__).resolve().parent / "lazyinformers"
CLIENT = "lazy-informers"


def build_program() -> Path:
    go = shutil.which("go") or "/usr/local/go/bin/go"
    output = PROGRAM_DIR / "bin" / "lazyinformers"
    subprocess.run([go, "build", "-o", str(output), "."], cwd=PROGRAM_DIR, check=True)
    return output


def workload(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Namespaces, ConfigMaps, and Deployments each naming one of them."""
    namespaces = [f"team-{i}" for i in range(args.namespaces)]
    objects: list[dict[str, Any]] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
                                     for ns in namespaces]
    objects += [{"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"name": f"config-{i}", "namespace": namespaces[i % len(namespaces)]},
                 "data": {"settings.yaml": "x" * args.configmap_bytes}} for i in range(args.configmaps)]
    for i in range(args.deployments):
        name = f"app-{i}"
        objects.append({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespaces[i % len(namespaces)],
                         "annotations": {"example.com/config": f"config-{i}"}},
            "spec": {"replicas": args.replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}},
        })
    return objects


def run_backend(name: str, program: Path, args: argparse.Namespace) -> dict[str, Any]:
    with scratch_dir("scenario-lazy-") as tmp, backend(name, tmp) as server:
        config = ClusterConfig(nodes=args.nodes, logs=tmp / "logs", kubeconfig=tmp / "kubeconfig",
                               client_qps=args.client_qps, kwok_args=("--v=WARN",))
        with Cluster(config, apiserver=server.apiserver) as cluster:
            handle = FakeCluster(cluster)
            objects = workload(args)
            namespaces = [o for o in objects if o["kind"] == "Namespace"]
            handle.apply(namespaces)
            with concurrent.futures.ThreadPoolExecutor(16) as pool:
                list(pool.map(handle.apply, [o for o in objects if o["kind"] != "Namespace"]))
            started = time.monotonic()
            for deployment in (o for o in objects if o["kind"] == "Deployment"):
                handle.wait_for_rollout("deployments.apps", deployment["metadata"]["name"],
                                        deployment["metadata"]["namespace"], timeout=600)
            row: dict[str, Any] = {"backend": name, "rollout_s": round(time.monotonic() - started, 1), "runs": {}}
            print(f"{name}: {args.deployments} deployments rolled out in {row['rollout_s']} s", flush=True)
            for variant in args.variants.split(","):
                report_before = Report.fetch(handle.http).data if name == "fakeapi" else None
                output = subprocess.run(
                    [str(program), f"--kubeconfig={cluster.kubeconfig}", f"--duration={args.duration:g}s",
                     f"--sync-period={args.sync_period:g}s", f"--eager={str(variant == 'eager').lower()}"],
                    capture_output=True, text=True, check=True, timeout=args.duration + 120)
                run = json.loads(output.stdout)
                if report_before is not None:
                    run["server_view"] = _client_rows(report_before, Report.fetch(handle.http).data)
                row["runs"][variant] = run
                print(f"  {variant}: {run['reconciles']} reconciles, timeline {run['timeline']}", flush=True)
    return row


def _client_rows(before: dict[str, Any], after: dict[str, Any]) -> dict[str, dict[str, int]]:
    """The program's requests as fakeapi's client report counted them between two reports,
    keyed like the program's own counts ("LIST pods")."""
    def rows(report: dict[str, Any]) -> dict[str, tuple[int, int]]:
        found: dict[str, tuple[int, int]] = {}
        for client in report["clients"]:
            if client["client"].split("/")[0] != CLIENT:
                continue
            for row in client["requests"]:
                key = f"{row['verb'].upper()} {row['resource'].split('.')[0]}"
                requests, response_bytes = found.get(key, (0, 0))
                found[key] = (requests + row["requests"], response_bytes + row["responseBytes"])
        return found

    start = rows(before)
    return {key: {"requests": requests - start.get(key, (0, 0))[0],
                  "responseBytes": response_bytes - start.get(key, (0, 0))[1]}
            for key, (requests, response_bytes) in rows(after).items()}


def print_results(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    header = ["backend", "variant", "reconciles", "first reconcile s", "informers synced s (replicasets, pods, "
              "configmaps)", "LIST", "WATCH", "GET", "response bytes"]
    table = []
    for row in rows:
        for variant, run in row["runs"].items():
            traffic, timeline = run["traffic"], run["timeline"]

            def of(verb: str, traffic: dict[str, Any] = traffic) -> str:
                counts = {key.split(" ", 1)[1]: value["requests"] for key, value in traffic.items()
                          if key.startswith(verb + " ")}
                return f"{sum(counts.values())} ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})"

            synced = ", ".join(str(round(timeline.get(f"{kind} informer synced", float("nan")), 2))
                               for kind in ("replicasets", "pods", "configmaps"))
            table.append([row["backend"], variant, run["reconciles"], round(timeline.get("first reconcile", 0), 2),
                          synced, of("LIST"), of("WATCH"), of("GET"),
                          size(sum(value["responseBytes"] for value in traffic.values()))])
    print(markdown_table(header, table))
    for row in rows:
        for variant, run in row["runs"].items():
            per_period = _per_period(run["reconcilesPerSecond"], args.sync_period)
            print(f"\n{row['backend']}, {variant}: reconciles per {args.sync_period:g} s period: {per_period}")
            if "server_view" in run:
                print("  as fakeapi's client report saw it: "
                      + ", ".join(f"{k} {v['requests']} ({size(v['responseBytes'])})"
                                  for k, v in sorted(run["server_view"].items())))


def _per_period(per_second: list[int], period: float) -> list[int]:
    step = max(1, int(period))
    return [sum(per_second[i:i + step]) for i in range(0, len(per_second), step)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--variants", default="lazy,eager")
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--namespaces", type=int, default=10)
    parser.add_argument("--deployments", type=int, default=50)
    parser.add_argument("--replicas", type=int, default=4)
    parser.add_argument("--configmaps", type=int, default=2000)
    parser.add_argument("--configmap-bytes", type=int, default=1024)
    parser.add_argument("--duration", type=float, default=95.0, help="seconds each manager runs")
    parser.add_argument("--sync-period", type=float, default=30.0, help="the cache's SyncPeriod, seconds")
    parser.add_argument("--client-qps", type=float, default=200,
                        help="the controller manager's and scheduler's --kube-api-qps")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    program = build_program()
    rows = []
    for name in args.backends.split(","):
        rows.append(run_backend(name, program, args))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2))
    print_results(rows, args)


if __name__ == "__main__":
    main()
