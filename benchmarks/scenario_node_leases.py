"""Seed 004: kwok's fake nodes renewing their Leases every 10 s (N nodes: N/10 writes/s) under
the real kube-controller-manager (node lifecycle: a node whose Lease goes stale turns NotReady
and gets tainted) and kube-scheduler, plus a Deployment's pods — the API server's write latency
and CPU at each node count, on fakeapi and on the real kube-apiserver + etcd.

Per backend and node count: a fresh cluster (``fakeapi.cluster.cluster.Cluster``), the time until every
node is Ready, a Deployment of ``--pods`` rolled out, ``--settle`` seconds, then a ``--window``
of measurement:

- lease renewals per second and their server-side p50/p99 (``apiserver_request_duration_seconds``
  of PUT leases, kube's buckets), and the p99 of every write (POST/PUT/PATCH/DELETE);
- the client's view: a probe PUTs a Lease of its own 10 times a second and times each write;
- how stale the nodes' Leases are at the end (now - renewTime; held: at most ~10 s) and how many
  nodes are not Ready;
- CPU (% of one core) of each process, and the API server's memory.

The largest node count holding the write p99 under 1 s is the answer to "how far one machine
goes". Not a test: minutes per row. ``--json FILE`` keeps the rows."""

from __future__ import annotations

import argparse
import json
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from scenario_support import (
    BACKENDS,
    Backend,
    CpuMeter,
    backend,
    counter_delta,
    histogram_quantile,
    markdown_table,
    memory,
    size,
    percentile,
    pids_of,
    scrape,
    scratch_dir,
)

from fakeapi.cluster.cluster import Cluster, ClusterConfig, node_ready
from fakeapi.testing.client import FakeCluster
from fakeapi.cluster.control_plane import ControlPlaneError

PROBE = "fakeapi-scenario-probe"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
WRITE_VERBS = ("POST", "PUT", "PATCH", "DELETE")
DURATION = "apiserver_request_duration_seconds"


def _micro_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LeaseProbe(threading.Thread):
    """Renews a Lease of its own ``rate`` times a second, timing each PUT as a client sees it."""

    def __init__(self, http: httpx.Client, rate: float = 10.0) -> None:
        super().__init__(daemon=True)
        self.http = http
        self.rate = rate
        self.latencies: list[float] = []
        self.errors = 0
        self._stopping = threading.Event()

    def run(self) -> None:
        lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                 "metadata": {"name": PROBE, "namespace": "kube-node-lease"},
                 "spec": {"holderIdentity": PROBE, "leaseDurationSeconds": 40, "renewTime": _micro_now()}}
        response = self.http.post(LEASES, json=lease)
        lease = response.json() if response.status_code == 201 else self.http.get(f"{LEASES}/{PROBE}").json()
        next_at = time.monotonic()
        while not self._stopping.is_set():
            lease["spec"]["renewTime"] = _micro_now()
            started = time.perf_counter()
            try:
                response = self.http.put(f"{LEASES}/{PROBE}", json=lease)
                self.latencies.append(time.perf_counter() - started)
                if response.status_code == 200:
                    lease = response.json()
                else:
                    self.errors += 1
                    lease = self.http.get(f"{LEASES}/{PROBE}").json()
            except httpx.TransportError:
                self.errors += 1
            next_at += 1 / self.rate
            self._stopping.wait(max(0.0, next_at - time.monotonic()))

    def stop(self) -> None:
        self._stopping.set()
        self.join(10)


def _deployment(replicas: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "load", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "load"}},
                     "template": {"metadata": {"labels": {"app": "load"}},
                                  "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
                                                           "resources": {"requests": {"cpu": "10m"}}}]}}}}


def _lease_ages(http: httpx.Client, names: set[str]) -> list[float]:
    now = datetime.now(UTC)
    ages = []
    for lease in http.get(LEASES, params={"resourceVersion": "0"}).json()["items"]:
        if lease["metadata"]["name"] in names:
            renewed = datetime.strptime(lease["spec"]["renewTime"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
            ages.append((now - renewed).total_seconds())
    return ages


def run_one(backend_name: str, nodes: int, args: argparse.Namespace) -> dict[str, Any]:
    row: dict[str, Any] = {"backend": backend_name, "nodes": nodes}
    with scratch_dir("scenario-leases-") as tmp, backend(backend_name, tmp) as server:
        logs = args.logs / f"{backend_name}-{nodes}" if args.logs else tmp / "logs"
        config = ClusterConfig(nodes=nodes, logs=logs, kubeconfig=tmp / "kubeconfig",
                               lease_parallelism=args.lease_parallelism, client_qps=args.client_qps,
                               kwok_args=("--v=WARN",))
        cluster = Cluster(config, apiserver=server.apiserver)
        print(f"{backend_name}, {nodes:,} nodes: starting", flush=True)
        try:
            cluster.start(wait=False)
        except (ControlPlaneError, httpx.HTTPError) as err:
            row["error"] = str(err).splitlines()[0] or repr(err)
            print(f"  {row['error']}", flush=True)
            return row
        try:
            started = time.monotonic() - cluster.ready_seconds
            try:
                cluster.wait_ready(args.ready_timeout)
                row["ready_s"] = round(time.monotonic() - started, 1)
            except ControlPlaneError as err:
                # Not every node Ready in time: how the cluster holds up then is the result.
                row["ready_s"] = f"no: {str(err).split('waiting for ')[-1]}"
            print(f"  ready: {row['ready_s']}", flush=True)
            measure(row, server, cluster, args)
        except (httpx.HTTPError, TimeoutError) as err:
            row["error"] = f"while measuring: {err!r}"
        finally:
            cluster.stop()
    print(f"  {json.dumps(row)}", flush=True)
    return row


def measure(row: dict[str, Any], server: Backend, cluster: Cluster, args: argparse.Namespace) -> None:
    """The rollout, then the measurement window's numbers, into ``row``."""
    handle = FakeCluster(cluster)
    started = time.monotonic()
    handle.apply(_deployment(args.pods))
    try:
        handle.wait_for_rollout("deployments.apps", "load", "default", timeout=args.rollout_timeout)
        row["pods_rollout_s"] = round(time.monotonic() - started, 1)
    except TimeoutError:
        row["pods_rollout_s"] = f"> {args.rollout_timeout:.0f}"
    time.sleep(args.settle)
    meter = CpuMeter(pids_of({**server.processes, **cluster.components}))
    probe = LeaseProbe(server.apiserver.http)
    before = scrape(server.apiserver.http)
    meter.start()
    probe.start()
    time.sleep(args.window)
    probe.stop()
    cpu = meter.stop()
    after = scrape(server.apiserver.http)
    leases = dict(verb="PUT", resource="leases")
    ages = _lease_ages(server.apiserver.http, set(cluster.node_names))
    listing = server.apiserver.http.get("/api/v1/nodes", params={"resourceVersion": "0"}).json()["items"]
    row.update({
        "lease_puts_per_s": round(counter_delta(before, after, "apiserver_request_total", **leases) / args.window),
        "lease_put_p50_ms": _ms(histogram_quantile(before, after, DURATION, 0.5, **leases)),
        "lease_put_p99_ms": _ms(histogram_quantile(before, after, DURATION, 0.99, **leases)),
        "write_p99_ms": _ms(histogram_quantile(before, after, DURATION, 0.99, verb=WRITE_VERBS)),
        "probe_p50_ms": round(1000 * percentile(probe.latencies, 0.5), 1),
        "probe_p99_ms": round(1000 * percentile(probe.latencies, 0.99), 1),
        "probe_errors": probe.errors,
        "lease_age_p99_s": round(percentile(ages, 0.99), 1),
        "lease_age_max_s": round(max(ages), 1) if ages else None,
        "not_ready_nodes": sum(1 for node in listing if node["metadata"]["name"] in set(cluster.node_names)
                               and not node_ready(node)),
        "cpu_percent": {name: round(value) for name, value in cpu.items()},
        "rss": {name: size(memory(pid)[0]) for name, pid in pids_of(server.processes).items()},
    })




def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(1000 * seconds, 1)


def holds(row: dict[str, Any]) -> bool:
    """The write p99 under 1 s, by the server's histogram and by the probe."""
    return ("error" not in row and (row.get("write_p99_ms") or 0) < 1000 and row["probe_p99_ms"] < 1000
            and row["not_ready_nodes"] == 0)


def print_table(rows: list[dict[str, Any]]) -> None:
    header = ["backend", "nodes", "ready s", "pods s", "lease PUT/s", "lease PUT p50/p99 ms", "write p99 ms",
              "probe p50/p99 ms", "lease age p99/max s", "NotReady", "server CPU %", "kwok/kcm/sched CPU %",
              "server RSS", "holds"]
    table = []
    for row in rows:
        if "error" in row:
            table.append([row["backend"], f"{row['nodes']:,}", row["error"], *[""] * (len(header) - 3)])
            continue
        cpu = row["cpu_percent"]
        server_cpu = " + ".join(f"{cpu[name]}" for name in ("fakeapi", "kube-apiserver", "etcd") if name in cpu)
        table.append([
            row["backend"], f"{row['nodes']:,}", row["ready_s"], row["pods_rollout_s"], row["lease_puts_per_s"],
            f"{row['lease_put_p50_ms']} / {row['lease_put_p99_ms']}", row["write_p99_ms"],
            f"{row['probe_p50_ms']} / {row['probe_p99_ms']}", f"{row['lease_age_p99_s']} / {row['lease_age_max_s']}",
            row["not_ready_nodes"], server_cpu,
            " / ".join(str(cpu.get(name, "")) for name in ("kwok", "kube-controller-manager", "kube-scheduler")),
            " + ".join(row["rss"].values()), "yes" if holds(row) else "no",
        ])
    print(markdown_table(header, table))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", default="1000,5000,10000", help="node counts, comma-separated")
    parser.add_argument("--backends", default=",".join(BACKENDS), help="fakeapi,kube")
    parser.add_argument("--pods", type=int, default=100, help="replicas of the Deployment (default 100)")
    parser.add_argument("--settle", type=float, default=30.0, help="seconds between rollout and measuring")
    parser.add_argument("--window", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--ready-timeout", type=float, default=600.0,
                        help="seconds to wait for every node Ready; the row is measured anyway after it")
    parser.add_argument("--rollout-timeout", type=float, default=300.0)
    parser.add_argument("--lease-parallelism", type=int, default=32,
                        help="kwok's lease renewals in flight (kwok's default 4 cannot renew 1,000 leases/s "
                             "when a write takes over 4 ms)")
    parser.add_argument("--client-qps", type=float, default=200,
                        help="the controller manager's and scheduler's --kube-api-qps (default 200; kube's 20 "
                             "takes 1,000 s to untaint 10,000 nodes)")
    parser.add_argument("--json", type=Path, help="write the rows here")
    parser.add_argument("--logs", type=Path, help="keep the components' logs here, a folder per row")
    args = parser.parse_args()
    rows = []
    for name in args.backends.split(","):
        for nodes in (int(n) for n in args.nodes.split(",")):
            rows.append(run_one(name, nodes, args))
            if args.json:
                args.json.write_text(json.dumps(rows, indent=2))
    print_table(rows)


if __name__ == "__main__":
    main()
