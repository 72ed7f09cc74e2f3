"""Seed 000: 5,000 StatefulSets x 10 ControllerRevisions under the real StatefulSet controller
(kube-controller-manager v1.35.4), on fakeapi and on the real kube-apiserver + etcd.

Per backend: the cluster is written through the API (``fakeapi seed``'s objects, ``--seed``),
then the controller manager starts (``--controllers``, default the StatefulSet controller alone;
no leader election) and runs until its ``statefulset`` workqueue has taken every set and drained
(its own ``/metrics``: ``workqueue_adds_total``, ``workqueue_depth``,
``workqueue_unfinished_work_seconds``), is stopped and started again — the restart: its informers
list everything anew and every set is synced once more. For each start:

- the seconds to sync every set (from the process' launch);
- its API cost, from the server's ``apiserver_request_total`` and ``apiserver_response_sizes``
  (the same series on both servers): requests and response bytes per verb and resource; on
  fakeapi also the per-client report (``GET /fakeapi/v1/report``): which controller costs what;
- memory (resident, and peak) of the controller manager and of the server's processes.

Not a test: ~10-15 minutes at full size on 2 cores (seeding 55,000 objects over HTTP is most of
it). ``--json FILE`` keeps the numbers."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
from scenario_support import (
    BACKENDS,
    Backend,
    Samples,
    backend,
    counter_delta,
    markdown_table,
    memory,
    size,
    pids_of,
    scrape,
    scratch_dir,
)

from fakeapi.seed import seeder
from fakeapi.cluster.control_plane import ControllerManager, KubeAPIServer
from fakeapi.testing.report import Report

QUEUE = "statefulset"


def queue_state(kcm: ControllerManager) -> tuple[float, float, float]:
    """(adds, depth, unfinished seconds) of the StatefulSet controller's workqueue."""
    # Loopback, to the controller manager's own self-signed certificate.
    with httpx.Client(base_url=kcm.url, verify=False, timeout=10) as client:
        samples = scrape(client)
    values = {name: sum(v for (n, labels), v in samples.items() if n == name and ("name", QUEUE) in labels)
              for name in ("workqueue_adds_total", "workqueue_depth", "workqueue_unfinished_work_seconds")}
    return values["workqueue_adds_total"], values["workqueue_depth"], values["workqueue_unfinished_work_seconds"]


def api_cost(before: Samples, after: Samples) -> list[dict[str, Any]]:
    """Requests and response bytes per (verb, resource) between two scrapes of the server, and
    the events and bytes its watches sent per resource (informers list through WatchList: their
    initial objects are watch events)."""
    rows = []
    for name, size_name, verb_of in (
            ("apiserver_request_total", "apiserver_response_sizes_sum", lambda labels: labels.get("verb")),
            ("apiserver_watch_events_total", "apiserver_watch_events_sizes_sum", lambda labels: "WATCH events")):
        keys = {(verb_of(dict(labels)), dict(labels).get("resource")) for (sample, labels) in after if sample == name}
        for verb, resource in sorted(keys):
            match = {"resource": resource} if verb == "WATCH events" else {"verb": verb, "resource": resource}
            count = counter_delta(before, after, name, **match)
            if count > 0 and resource:
                rows.append({"verb": verb, "resource": resource, "requests": int(count),
                             "response_bytes": int(counter_delta(before, after, size_name, **match))})
    return rows


def report_delta(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """What each client cost between two client reports: per client, verb, resource and scope,
    the growth of requests, response bytes and watch events, costliest first."""
    def cells(report: dict[str, Any]) -> dict[tuple[str, str, str, str], tuple[int, int, int]]:
        return {(client["client"], row["verb"], row["resource"], row["scope"]):
                (row["requests"], row["responseBytes"], row["watchEvents"])
                for client in report["clients"] for row in client["requests"]}

    start, end = cells(before), cells(after)
    rows = []
    for key, (requests, response_bytes, events) in end.items():
        was = start.get(key, (0, 0, 0))
        grown = (requests - was[0], response_bytes - was[1], events - was[2])
        if any(grown):
            rows.append({"client": key[0], "verb": key[1], "resource": key[2], "scope": key[3],
                         "requests": grown[0], "response_bytes": grown[1], "watch_events": grown[2]})
    return sorted(rows, key=lambda row: (row["response_bytes"], row["requests"]), reverse=True)


def start_and_sync(server: Backend, workdir: Path, sets: int, controllers: str, kcm_args: tuple[str, ...],
                   timeout: float) -> dict[str, Any]:
    """Start a controller manager, wait until every set is synced; returns the numbers (and
    stops it)."""
    http = server.apiserver.http
    before = scrape(http)
    report_before = Report.fetch(http).data if server.name == "fakeapi" else None
    launched = time.monotonic()
    kcm = ControllerManager(workdir, server.apiserver.kubeconfig, *kcm_args, controllers=controllers,
                            leader_elect=False)
    try:
        healthy = time.monotonic() - launched
        while True:
            adds, depth, unfinished = queue_state(kcm)
            if adds >= sets and depth == 0 and unfinished == 0:
                break
            if time.monotonic() - launched > timeout:
                raise RuntimeError(f"not synced within {timeout:.0f} s: {adds:.0f} adds, depth {depth:.0f}")
            time.sleep(0.5)
        synced = time.monotonic() - launched
        after = scrape(http)
        resident, peak = memory(kcm.process.pid)  # type: ignore[union-attr]
        result: dict[str, Any] = {
            "healthy_s": round(healthy, 1), "synced_s": round(synced, 1), "queue_adds": int(adds),
            "cost": api_cost(before, after), "kcm_rss": resident, "kcm_peak_rss": peak,
        }
        if report_before is not None:
            result["clients"] = report_delta(report_before, Report.fetch(http).data)
        return result
    finally:
        kcm.stop()


def seed_cluster(server: Backend, spec: seeder.SeedSpec, concurrency: int) -> float:
    api = server.apiserver
    token = api.token if isinstance(api, KubeAPIServer) else None
    verify = api.ssl_context if isinstance(api, KubeAPIServer) else True
    started = time.monotonic()
    asyncio.run(seeder.seed_over_http(api.url, spec, concurrency, token=token, verify=verify))
    return time.monotonic() - started


def run_backend(name: str, args: argparse.Namespace) -> dict[str, Any]:
    spec = seeder.parse_spec(f"namespaces={args.namespaces},statefulsets={args.statefulsets},"
                           f"revisions={args.revisions},seed=1")
    kcm_args = (f"--kube-api-qps={args.kcm_qps:g}", f"--kube-api-burst={2 * args.kcm_qps:.0f}")
    with scratch_dir("scenario-statefulsets-") as tmp, backend(name, tmp) as server:
        print(f"{name}: seeding {spec}", flush=True)
        row: dict[str, Any] = {"backend": name, "seed_s": round(seed_cluster(server, spec, args.concurrency), 1)}
        print(f"  seeded in {row['seed_s']:.0f} s", flush=True)
        for phase in ("first start", "restart"):
            row[phase] = start_and_sync(server, tmp / "kcm", args.statefulsets, args.controllers, kcm_args,
                                        args.timeout)
            print(f"  {phase}: every set synced in {row[phase]['synced_s']} s", flush=True)
        row["server_memory"] = {process: memory(pid) for process, pid in pids_of(server.processes).items()}
    return row


def print_results(rows: list[dict[str, Any]]) -> None:
    header = ["backend", "phase", "synced s", "requests", "watch events (bytes)", "writes", "KCM RSS / peak",
              "server RSS / peak"]
    table = []
    for row in rows:
        server = " + ".join(f"{size(rss)} / {size(peak)}" for rss, peak in row["server_memory"].values())
        for phase in ("first start", "restart"):
            result = row[phase]
            cost = result["cost"]
            events = [c for c in cost if c["verb"] == "WATCH events"]
            writes = [c for c in cost if c["verb"] in ("POST", "PUT", "PATCH", "DELETE", "APPLY")]
            table.append([
                row["backend"], phase, result["synced_s"], f"{sum(c['requests'] for c in cost if c not in events):,}",
                f"{sum(c['requests'] for c in events):,} ({size(sum(c['response_bytes'] for c in events))})",
                ", ".join(f"{c['verb']} {c['resource']} {c['requests']:,}" for c in writes) or "0",
                f"{size(result['kcm_rss'])} / {size(result['kcm_peak_rss'])}", server,
            ])
    print(markdown_table(header, table))
    for row in rows:
        for phase in ("first start", "restart"):
            print(f"\n{row['backend']}, {phase}: the server's metrics, by verb and resource")
            print(markdown_table(["verb", "resource", "requests / events", "response bytes"],
                                 [[c["verb"], c["resource"], f"{c['requests']:,}", size(c["response_bytes"])]
                                  for c in row[phase]["cost"]]))
            if "clients" in row[phase]:
                print(f"\n{row['backend']}, {phase}: the client report, by client (top 12 rows)")
                print(markdown_table(["client", "verb", "resource", "requests", "response bytes", "watch events"],
                                     [[c["client"], c["verb"], c["resource"], f"{c['requests']:,}",
                                       size(c["response_bytes"]), f"{c['watch_events']:,}"]
                                      for c in row[phase]["clients"][:12]]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statefulsets", type=int, default=5000)
    parser.add_argument("--revisions", type=int, default=10)
    parser.add_argument("--namespaces", type=int, default=50)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--controllers", default="statefulset",
                        help="kube-controller-manager --controllers (default: the StatefulSet controller)")
    parser.add_argument("--kcm-qps", type=float, default=100.0,
                        help="its --kube-api-qps (burst twice that; default 100: at kube's 20 the first start's "
                             "10,000 writes take 500 s whatever the server)")
    parser.add_argument("--concurrency", type=int, default=16, help="seeding requests in flight")
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = []
    for name in args.backends.split(","):
        rows.append(run_backend(name, args))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2))
    print_results(rows)


if __name__ == "__main__":
    main()
