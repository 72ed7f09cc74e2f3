"""fakeapi side by side with the real kube-apiserver v1.35.4 + etcd v3.6.6 on this machine: the same
client-go workloads (the Go load generator in benchmarks/loadgen) against each server in turn, one
table with the ratios. Not a test: run it and read.

    make bench-compare                 # full (10k and 100k pods, ~1 h on 2 cores); writes docs/benchmarks.md
    make bench-compare QUICK=1         # ~4 min: 5k pods, fewer and shorter rows; prints the table
    .venv/bin/python benchmarks/compare.py --quick --only 'create|list' --fakeapi-arg=--workers=2

Each server starts fresh (its start to /readyz is a row), then the workloads run in order on the
same server, growing one store: creates (which also fill it to 10,000 pods; 5,000 in the quick
mode), updates and patches, LISTs and informer syncs, memory, watch fan-out, Lease renewals; in
the full mode the store then grows to 100,000 pods for the second round of LISTs, informer syncs
and memory. Last, the selective LISTs: a namespace of the load generator's selective pods
(benchmarks/loadgen/selective.go) grown to 2,000 and (full mode) 10,000 pods, and at each size
LISTs by label and field selectors picking one pod, 1/1,000, 1/50 and 1/10 of them, at RV=0 and
RV="" (`--only '^select-'` runs them alone, without the other rows' pods;
`--selective-pods 2000,10000,100000` sets the sizes). During each workload's measured part the
server's CPU time is read from /proc (psutil) for its whole process tree (kube-apiserver and etcd
together), and the load generator reports its own, so the table gives CPU milliseconds per
operation (= CPU seconds per 1,000 operations) too.

Both servers run as a test or a load test would: loopback, free ports; etcd with its data on
tmpfs and --unsafe-no-fsync (fakeapi does not fsync either), kube-apiserver as envtest runs it
(fakeapi.cluster.control_plane); fakeapi with no built-in controllers (kube-apiserver runs none:
its garbage collector and namespace controller live in kube-controller-manager) and the store
compacted every 5 minutes as kube-apiserver asks etcd to.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fakeapi.testing import ServerProcess  # noqa: E402
from fakeapi.cluster.control_plane import (  # noqa: E402
    ETCD_VERSION,
    KUBE_VERSION,
    Etcd,
    KubeAPIServer,
)

LOADGEN_DIR = ROOT / "benchmarks" / "loadgen"
CLIENT_GO_VERSION = "v0.35.4"
#: What fakeapi runs with here, before any --fakeapi-arg (see the module docstring).
FAKEAPI_ARGS = ("--controllers=", "--compaction-interval", "5m")
FAKEAPI, KUBE = "fakeapi", "kube"
SERVER_TITLES = {FAKEAPI: "fakeapi", KUBE: "kube-apiserver + etcd"}

# What a row's namespace has installed (``Step.admission``).
WEBHOOKS, POLICY = "webhooks", "policy"

# How a row's primary number compares: higher is better (rates) or lower is better (times, memory).
HIGHER, LOWER = "higher", "lower"


@dataclass(frozen=True, slots=True)
class Step:
    """One row: a load generator run (``workload`` and its ``args``) or a reading taken between
    runs (``memory``). ``seeds`` marks the creates that later rows of its namespace rely on: --only
    keeps them with those rows."""

    key: str
    title: str
    workload: str
    args: tuple[str, ...] = ()
    namespace: str = "bench"
    content_type: str = "protobuf"
    watch_list: bool | None = None
    seeds: bool = False
    timeout: float = 900.0
    #: What the step's namespace has installed before it runs: ``WEBHOOKS``, a mutating and a
    #: validating admission webhook (``install_webhooks``), or ``POLICY``, a
    #: ValidatingAdmissionPolicy and its binding (``install_policy``); "" for neither.
    admission: str = ""


def plan(quick: bool, selective_sizes: tuple[int, ...] | None = None) -> list[Step]:
    """The rows in the order they run on each server; the selective LISTs last, at each of
    ``selective_sizes`` (default: 2,000 pods, and 10,000 in the full mode)."""
    steps: list[Step] = []
    created = 0

    def create(clients: int, count: int, content_type: str = "protobuf", title: str = "") -> None:
        nonlocal created
        encoding = "" if content_type == "protobuf" else f", {content_type}"
        steps.append(Step(
            f"create-{clients}-{content_type}-{created + count}",
            title or f"pod creates, {clients} client{'s' if clients > 1 else ''}{encoding}",
            "create", ("--clients", str(clients), "--count", str(count), "--first", str(created)),
            content_type=content_type, seeds=True, timeout=3600.0))
        created += count

    def lists_and_syncs(pods: str, count: int, syncs: int, json_rows: bool) -> None:
        modes = [("rv0", 'LIST RV=0'), ("consistent", 'LIST RV=""'), ("paged", 'LIST RV="" paged, limit 500'),
                 ("selector", "LIST by label selector (1/10)")]
        if json_rows:
            steps.append(Step(f"list-rv0-json-{pods}", f"LIST RV=0, {pods} pods, json", "list",
                              ("--mode", "rv0", "--count", str(count)), content_type="json"))
        for mode, title in modes:
            repeats = 1 if mode == "paged" and pods == "100k" else count
            steps.append(Step(f"list-{mode}-{pods}", f"{title}, {pods} pods", "list",
                              ("--mode", mode, "--count", str(repeats))))
        informers = [("json", False, "typed json"), ("protobuf", False, "typed protobuf"),
                     ("protobuf", True, "protobuf, WatchList on")]
        for content_type, watch_list, title in informers:
            if content_type == "json" and not json_rows:
                continue
            steps.append(Step(f"informer-{content_type}-{'watchlist' if watch_list else 'list'}-{pods}",
                              f"informer sync, {pods} pods, {title}", "informer", ("--count", str(syncs)),
                              content_type=content_type, watch_list=watch_list))
        steps.append(Step(f"memory-{pods}", f"memory with {pods} pods", "memory"))

    def varied() -> None:
        """Writes of objects whose content differs per object, in a namespace of their own: a
        server cannot answer their defaulting, validation and field tracking from caches kept by
        content, as it may for the benchmark pods above (alike but for name and shard label).
        Creates of pods, ConfigMaps, ControllerRevisions and custom resources (a CRD with a
        structural schema, defaults and CEL rules: JSON, as custom resources have no protobuf),
        then PUTs, merge and strategic merge patches and applies of those pods."""
        counts = {1: 300, 16: 900, 64: 900} if quick else {1: 1000, 16: 3000, 64: 3000}
        for kind, title, extra in (("pod", "varied pod creates (per-pod env, annotations)", ("--varied",)),
                                   ("configmap", "varied ConfigMap creates (distinct 1-4 KiB data)", ()),
                                   ("controllerrevision", "ControllerRevision creates (distinct templates)", ()),
                                   ("customresource", "custom resource creates (distinct specs, CEL rules)", ())):
            first = 0
            for clients, count in counts.items():
                steps.append(Step(f"varied-{kind}-create-{clients}", f"{title}, {clients} client{'s' if clients > 1 else ''}",
                                  "create", ("--kind", kind, *extra, "--clients", str(clients), "--count", str(count),
                                             "--first", str(first)), namespace="varied", timeout=3600.0,
                                  content_type="json" if kind == "customresource" else "protobuf"))
                first += count
        # Each varied pod written about once: its own spec comes back no sooner than a round later.
        for verb, title in (("update", "varied pod updates (PUT)"), ("merge", "varied pod merge patches"),
                            ("strategic", "varied pod strategic merge patches"),
                            ("apply", "varied pod server-side applies")):
            steps.append(Step(f"varied-mutate-{verb}", f"{title}, 16 clients", "mutate",
                              ("--verb", verb, "--clients", "16", "--pods", str(sum(counts.values())),
                               "--duration", mutate_seconds), namespace="varied"))

    # The quick mode fills half the store and shortens every run: fakeapi creates ~100-200 pods/s
    # on 2 cores, so the creates alone set how long a mode takes.
    first_round, mutate_seconds = ("5k", "3s") if quick else ("10k", "10s")
    create(1, 100 if quick else 1000)
    create(16, 900 if quick else 2000)
    if not quick:
        create(16, 2000, "json")
    create(64, (5_000 if quick else 10_000) - created)
    # Each admitted row creates pods of its own namespace; the 1-client row against the first
    # row gives what a webhook call adds to a create's latency.
    hooked, policed = (100, 300) if quick else (1000, 2000)
    steps.append(Step(f"create-1-webhooks-{hooked}", "pod creates, 1 client, a mutating and a validating webhook",
                      "create", ("--clients", "1", "--count", str(hooked)), namespace="hooked-1", admission=WEBHOOKS,
                      timeout=3600.0))
    steps.append(Step(f"create-16-webhooks-{policed}", "pod creates, 16 clients, a mutating and a validating webhook",
                      "create", ("--clients", "16", "--count", str(policed)), namespace="hooked", admission=WEBHOOKS,
                      timeout=3600.0))
    steps.append(Step(f"create-16-policy-{policed}", "pod creates, 16 clients, a ValidatingAdmissionPolicy",
                      "create", ("--clients", "16", "--count", str(policed)), namespace="policed", admission=POLICY,
                      timeout=3600.0))
    varied()
    for verb, title in (("update", "pod updates (PUT)"), ("merge", "pod merge patches"),
                        ("strategic", "pod strategic merge patches"), ("apply", "pod server-side applies")):
        steps.append(Step(f"mutate-{verb}", f"{title}, 16 clients", "mutate",
                          ("--verb", verb, "--clients", "16", "--pods", "1000", "--duration", mutate_seconds)))
    lists_and_syncs(first_round, count=3 if quick else 5, syncs=1 if quick else 3, json_rows=not quick)

    fanouts = [(100, 100), (1000, 10)] if quick else [(100, 10), (100, 100), (100, 1000), (1000, 10), (1000, 100), (5000, 10)]
    for watchers, rate in fanouts:
        steps.append(Step(f"fanout-{watchers}-{rate}", f"watch fan-out, {watchers:,} watchers x {rate:,} writes/s",
                          "fanout", ("--watchers", str(watchers), "--rate", str(rate),
                                     "--duration", "5s" if quick else "10s", "--drain", "10s" if quick else "30s"),
                          namespace="fanout"))
    nodes, period, duration = (1000, "1s", "10s") if quick else (10_000, "10s", "60s")
    steps.append(Step("leases", f"Lease renewals, {nodes:,} nodes every {period} for {duration}", "leases",
                      ("--nodes", str(nodes), "--period", period, "--duration", duration),
                      namespace="kube-node-lease"))
    if not quick:
        create(64, 90_000, title="pod creates, 64 clients, store growing 10k -> 100k")
        lists_and_syncs("100k", count=3, syncs=1, json_rows=False)
    steps.extend(selective_steps(selective_sizes or ((2000,) if quick else (2000, 10_000)), count=20 if quick else 50))
    return steps


#: The selective LISTs, per selector: key, what it selects, the fraction it matches, and whether
#: it lists cluster-wide (as kubelets do) rather than the namespace of the selective pods. The
#: labels and nodes are the load generator's (benchmarks/loadgen/selective.go).
SELECTIVE_NAMESPACE = "selective"
SELECTORS = (
    ("eq-1", ("--label-selector", "bench.fakeapi.dev/id=0"), "1 pod", False),
    ("eq-1000", ("--label-selector", "bench.fakeapi.dev/per-1000=7"), "1/1,000", False),
    ("eq-50", ("--label-selector", "bench.fakeapi.dev/per-50=7"), "1/50", False),
    ("eq-10", ("--label-selector", "bench.fakeapi.dev/shard=3"), "1/10", False),
    ("in-1000", ("--label-selector", "bench.fakeapi.dev/per-2000 in (7,8)"), "1/1,000", False),
    ("in-50", ("--label-selector", "bench.fakeapi.dev/per-100 in (7,8)"), "1/50", False),
    ("in-10", ("--label-selector", "bench.fakeapi.dev/per-20 in (7,8)"), "1/10", False),
    ("absent-50", ("--label-selector", "!bench.fakeapi.dev/in-49-of-50"), "1/50", False),
    ("absent-10", ("--label-selector", "!bench.fakeapi.dev/in-9-of-10"), "1/10", False),
    ("node", ("--field-selector", "spec.nodeName=node-7"), "1/100, cluster-wide", True),
    ("namespace", ("--field-selector", f"metadata.namespace={SELECTIVE_NAMESPACE}-side"),
     "a namespace of 1/50 as many, cluster-wide", True),
)


def selective_steps(sizes: tuple[int, ...], count: int) -> list[Step]:
    """Per size, the creates growing the selective namespace to that many pods, then each
    selector's LISTs at resourceVersion 0 and "" (``count`` LISTs a row)."""
    steps: list[Step] = []
    created = 0
    for size in sizes:
        pods = f"{size // 1000}k" if size % 1000 == 0 else f"{size:,}"
        steps.append(Step(f"select-seed-{size}", f"selective pods created, {created:,} -> {size:,}", "select-seed",
                          ("--count", str(size - created), "--first", str(created)),
                          namespace=SELECTIVE_NAMESPACE, seeds=True, timeout=3600.0))
        created = size
        for key, selector, fraction, cluster_wide in SELECTORS:
            for rv, rv_title in (("0", "RV=0"), ("", 'RV=""')):
                steps.append(Step(
                    f"select-{key}-{'rv0' if rv else 'consistent'}-{pods}",
                    f"selective LIST {rv_title}, {pods} pods, {' '.join(selector[1:])} ({fraction})", "select-list",
                    (*selector, "--rv", rv, "--count", str(count), *(("--all-namespaces",) if cluster_wide else ())),
                    namespace=SELECTIVE_NAMESPACE))
    return steps


# --- the servers ---------------------------------------------------------------------------------

def tree_pids(roots: list[int]) -> list[int]:
    """The processes of the servers' trees (roots and their descendants) now alive."""
    pids = []
    for pid in roots:
        with contextlib.suppress(psutil.NoSuchProcess):
            process = psutil.Process(pid)
            pids.extend([pid, *(child.pid for child in process.children(recursive=True))])
    return pids


def tree_cpu_seconds(roots: list[int]) -> float:
    """User + system CPU time of the process trees (children that exited and were waited for
    included)."""
    total = 0.0
    for pid in tree_pids(roots):
        with contextlib.suppress(psutil.NoSuchProcess):
            times = psutil.Process(pid).cpu_times()
            total += times.user + times.system + times.children_user + times.children_system
    return total


def machine_busy_seconds() -> float:
    """CPU time every process on the machine has used (all cores, not idle, not waiting on I/O)."""
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


def tree_memory(roots: list[int]) -> dict[str, float]:
    """RSS and PSS (shared pages divided among their sharers) of the process trees, in MB."""
    rss = pss = 0
    for pid in tree_pids(roots):
        with contextlib.suppress(psutil.NoSuchProcess):
            info = psutil.Process(pid).memory_full_info()
            rss += info.rss
            pss += info.pss
    return {"rss_mb": rss / 2**20, "pss_mb": pss / 2**20}


class _StartTimed:
    """A control-plane component remembering when it was launched and when it first answered
    healthy (kube-apiserver: /readyz), asked every 5 ms (the harness's usual 100 ms would add up
    to 0.1 s to each of etcd's and kube-apiserver's times). kube-apiserver is launched after its
    certificates are made: that is this harness's work, not the server's, and is not counted."""

    launched_at = ready_at = 0.0
    health_poll_interval = 0.005

    def _launch(self, argv: Any) -> None:
        self.launched_at = time.monotonic()
        super()._launch(argv)  # type: ignore[misc]

    def _wait_healthy(self, url: str, **kwargs: Any) -> None:
        super()._wait_healthy(url, **kwargs)  # type: ignore[misc]
        self.ready_at = time.monotonic()


class TimedEtcd(_StartTimed, Etcd):
    pass


class TimedKubeAPIServer(_StartTimed, KubeAPIServer):
    pass


class Running:
    """A started server under test: its kubeconfig, its processes, how long it took to be ready,
    and (fakeapi's) plain-HTTP URL."""

    def __init__(self, kubeconfig: Path, pids: list[int], start_seconds: float, url: str = "") -> None:
        self.kubeconfig = kubeconfig
        self.pids = pids
        self.start_seconds = start_seconds
        self.url = url


@contextlib.contextmanager
def start_fakeapi(workdir: Path, extra_args: list[str]) -> Iterator[Running]:
    workdir.mkdir(parents=True, exist_ok=True)
    with ServerProcess(workdir, *FAKEAPI_ARGS, *extra_args) as server:
        # The server prints nothing more unless something goes wrong; keep reading so that a
        # burst of warnings cannot fill the pipe and block it.
        log = (workdir / "fakeapi.log").open("w")
        threading.Thread(target=shutil.copyfileobj, args=(server.process.stdout, log), daemon=True).start()
        # Ready when it says it listens (its /readyz answers ok from its first request): timed
        # to that line, not to this harness's first request after it, which waits for the
        # harness's own client (its kubeconfig parsed, its TLS context made: 0.05-0.1 s).
        readyz = server.http.get("/readyz")
        if readyz.status_code != 200:
            raise RuntimeError(f"fakeapi listens but is not ready: {readyz.status_code} {readyz.text}")
        yield Running(server.kubeconfig, [server.process.pid], server.listening_after, server.url)


@contextlib.contextmanager
def start_kube(workdir: Path, extra_args: list[str]) -> Iterator[Running]:
    """etcd then kube-apiserver; the start time is etcd's plus kube-apiserver's (each from its
    launch to healthy), without the certificates this harness generates in between."""
    with TimedEtcd(workdir / "etcd") as etcd, \
            TimedKubeAPIServer(workdir / "apiserver", etcd.client_url, *extra_args) as api:
        seconds = (etcd.ready_at - etcd.launched_at) + (api.ready_at - api.launched_at)
        assert etcd.process is not None and api.process is not None
        yield Running(api.kubeconfig, [etcd.process.pid, api.process.pid], seconds)


# --- running the load generator ------------------------------------------------------------------

def build_loadgen() -> Path:
    go = shutil.which("go") or "/usr/local/go/bin/go"
    binary = LOADGEN_DIR / "bin" / "loadgen"
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=LOADGEN_DIR, check=True)
    return binary


def run_loadgen(binary: Path, server: Running, step: Step, log_path: Path) -> dict[str, Any]:
    """One load generator run; the server's CPU and the whole machine's are read when the
    measured part starts and ends (the load generator waits for the reading: --phase-sync).
    Returns its result with ``server_cpu_seconds`` and ``machine_cpu_seconds`` added, or
    ``{"failed": why}``."""
    env = {**os.environ}
    if step.watch_list is not None:
        env["KUBE_FEATURE_WatchListClient"] = "true" if step.watch_list else "false"
    argv = [str(binary), step.workload, "--kubeconfig", str(server.kubeconfig), "--namespace", step.namespace,
            "--content-type", step.content_type, "--phase-sync", *step.args]
    with log_path.open("a") as log:
        log.write(f"\n$ {' '.join(argv)}\n")
        log.flush()
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    timer = threading.Timer(step.timeout, process.kill)
    timer.start()
    result: dict[str, Any] = {}
    cpu: dict[str, float] = {}
    machine_cpu: dict[str, float] = {}
    try:
        assert process.stdout is not None and process.stdin is not None
        for line in process.stdout:
            message = json.loads(line)
            if "phase" in message:
                # The machine's window encloses the server's (read first at the start, last at the
                # end), so the server's share of it can never come out above the whole.
                if message["phase"] == "start":
                    machine_cpu["start"] = machine_busy_seconds()
                    cpu["start"] = tree_cpu_seconds(server.pids)
                else:
                    cpu[message["phase"]] = tree_cpu_seconds(server.pids)
                    machine_cpu[message["phase"]] = machine_busy_seconds()
                process.stdin.write("go\n")
                process.stdin.flush()
            elif "result" in message:
                result = message["result"]
        process.wait()
    finally:
        timer.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
    if not result:
        why = f"timed out after {step.timeout:.0f} s" if process.returncode == -signal.SIGKILL else \
            f"exited with {process.returncode}"
        return {"failed": f"{why}; see {log_path}"}
    # Both clocks count in ticks of 10 ms; rounding to the tick drops the float error of
    # subtracting two large sums (0.04 came out as 0.03999999999996362).
    result["server_cpu_seconds"] = round(cpu["end"] - cpu["start"], 2)
    result["machine_cpu_seconds"] = round(machine_cpu["end"] - machine_cpu["start"], 2)
    return result


class WebhookServer:
    """``loadgen webhook-server``: the webhooks of the rows with ``webhooks``, one process for both
    servers (a local Go server, as an operator's controller-runtime webhook server is)."""

    def __init__(self, binary: Path) -> None:
        self.process = subprocess.Popen([str(binary), "webhook-server"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        started = json.loads(self.process.stdout.readline())
        self.port: int = started["port"]
        self.ca_bundle: str = started["caBundle"]

    def calls(self) -> int:
        return int(httpx.get(f"https://127.0.0.1:{self.port}/calls", verify=False).text)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)


def install_webhooks(server: Running, hooks: WebhookServer, namespace: str) -> None:
    """A mutating webhook (adds a label by a JSON patch) and a validating one (allows), for pod
    creates in ``namespace`` only, failing closed; returns once the server calls both (a dry-run
    create), as kube learns of configurations through an informer."""
    def config(kind: str, path: str) -> dict[str, Any]:
        return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": f"bench-{namespace}-{path}"},
                "webhooks": [{
                    "name": f"{path}.bench.fakeapi.dev", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                    "clientConfig": {"url": f"https://127.0.0.1:{hooks.port}/{path}", "caBundle": hooks.ca_bundle},
                    "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                               "resources": ["pods"]}],
                    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}}]}

    with http_client(server.kubeconfig) as client:
        client.post("/api/v1/namespaces", json={"metadata": {"name": namespace}})
        for kind, path in (("MutatingWebhookConfiguration", "mutate"), ("ValidatingWebhookConfiguration", "validate")):
            client.post(f"/apis/admissionregistration.k8s.io/v1/{kind.lower()}s", json=config(kind, path)
                        ).raise_for_status()
        # labelled: the mutating webhook's patch adds a label to the pod's labels
        probe = {"metadata": {"name": "probe", "labels": {"probe": "yes"}},
                 "spec": {"containers": [{"name": "c", "image": "probe"}]}}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            before = hooks.calls()
            client.post(f"/api/v1/namespaces/{namespace}/pods", params={"dryRun": "All"}, json=probe)
            if hooks.calls() - before == 2:
                return
            time.sleep(0.2)
    raise RuntimeError("the server never called both benchmark webhooks")


def install_policy(server: Running, namespace: str) -> None:
    """A ValidatingAdmissionPolicy of the kind a cluster's owner writes (every container's image
    from the cluster's registry, under a size limit, and no privileged container), bound to pod
    writes in ``namespace``; returns once the server enforces it (a dry-run create it refuses),
    as kube learns of policies through an informer."""
    name = f"bench-{namespace}"
    policy = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
              "metadata": {"name": name},
              "spec": {"failurePolicy": "Fail",
                       "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                               "operations": ["CREATE", "UPDATE"],
                                                               "resources": ["pods"]}]},
                       "validations": [
                           {"expression": "object.spec.containers.all(c, c.image.startsWith('registry.example/')) && "
                                          "(!has(object.spec.initContainers) || "
                                          "object.spec.initContainers.all(c, c.image.startsWith('registry.example/')))",
                            "message": "images come from the cluster's registry"},
                           {"expression": "object.spec.containers.all(c, !has(c.securityContext) || "
                                          "!has(c.securityContext.privileged) || !c.securityContext.privileged)",
                            "reason": "Forbidden", "message": "no privileged containers"},
                           {"expression": "size(object.spec.containers) <= 8"}]}}
    binding = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
               "metadata": {"name": name},
               "spec": {"policyName": name, "validationActions": ["Deny"],
                        "matchResources": {"namespaceSelector": {
                            "matchLabels": {"kubernetes.io/metadata.name": namespace}}}}}
    refused = {"metadata": {"name": "probe"}, "spec": {"containers": [{"name": "c", "image": "elsewhere/probe"}]}}
    with http_client(server.kubeconfig) as client:
        client.post("/api/v1/namespaces", json={"metadata": {"name": namespace}})
        for resource, body in (("validatingadmissionpolicies", policy), ("validatingadmissionpolicybindings", binding)):
            client.post(f"/apis/admissionregistration.k8s.io/v1/{resource}", json=body).raise_for_status()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            answer = client.post(f"/api/v1/namespaces/{namespace}/pods", params={"dryRun": "All"}, json=refused)
            if answer.status_code == 422:
                return
            time.sleep(0.2)
    raise RuntimeError("the server never enforced the benchmark's ValidatingAdmissionPolicy")


def measure(server_name: str, server: Running, steps: list[Step], binary: Path, logs: Path,
            hooks: WebhookServer | None = None) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for step in steps:
        print(f"  {server_name}: {step.title} ...", end="", flush=True, file=sys.stderr)
        began = time.monotonic()
        if step.admission == WEBHOOKS:
            assert hooks is not None
            install_webhooks(server, hooks, step.namespace)
        elif step.admission == POLICY:
            install_policy(server, step.namespace)
        if step.workload == "memory":
            results[step.key] = tree_memory(server.pids)
        else:
            results[step.key] = run_loadgen(binary, server, step, logs / f"loadgen-{server_name}.log")
        print(f" {time.monotonic() - began:.0f} s{' FAILED' if 'failed' in results[step.key] else ''}",
              file=sys.stderr)
    return results


@contextlib.contextmanager
def http_client(kubeconfig: Path, **headers: str) -> Iterator[httpx.Client]:
    """An HTTP client for the server of a kubeconfig written by fakeapi or by this harness."""
    import yaml

    config = yaml.safe_load(kubeconfig.read_text())
    cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
    if user.get("token"):
        headers["Authorization"] = f"Bearer {user['token']}"
    verify = cluster.get("certificate-authority", True) if cluster["server"].startswith("https") else False
    with httpx.Client(base_url=cluster["server"], verify=verify, headers=headers, timeout=60) as client:
        yield client


def probe_encoding(kubeconfig: Path) -> str:
    """The content type a server answers a typed client's protobuf request with."""
    with http_client(kubeconfig, Accept="application/vnd.kubernetes.protobuf,application/json") as client:
        return client.get("/api/v1/namespaces/default").headers.get("content-type", "")


def pod_size(kubeconfig: Path) -> int:
    """Bytes of the first benchmark pod as stored, in JSON without managedFields."""
    with http_client(kubeconfig) as client:
        pod = client.get("/api/v1/namespaces/bench/pods/web-5d4f8c7b9-000000").raise_for_status().json()
    pod["metadata"].pop("managedFields", None)
    return len(json.dumps(pod, separators=(",", ":")))


def run_server(server_name: str, steps: list[Step], starts: int, extra_args: list[str], binary: Path,
               workdir: Path, logs: Path, hooks: WebhookServer | None = None) -> dict[str, Any]:
    """Starts the server ``starts`` times (the last one stays up for the workloads), runs the
    steps, stops it."""
    start = start_fakeapi if server_name == FAKEAPI else start_kube
    start_times, start_cpu = [], []
    for attempt in range(starts):
        print(f"  {server_name}: start {attempt + 1}/{starts} ...", end="", flush=True, file=sys.stderr)
        with start(workdir / f"{server_name}-{attempt}", extra_args) as server:
            start_times.append(server.start_seconds)
            # The CPU its processes used to get there (a machine busy with other work stretches
            # the time to ready, much less the CPU).
            start_cpu.append(tree_cpu_seconds(server.pids))
            print(f" {server.start_seconds:.2f} s, {start_cpu[-1]:.2f} s of CPU", file=sys.stderr)
            if attempt < starts - 1:
                continue
            results = {"start": {"seconds": statistics.median(start_times), "all": start_times,
                                 "cpu_seconds": statistics.median(start_cpu), "all_cpu": start_cpu},
                       "encoding": probe_encoding(server.kubeconfig)}
            results.update(measure(server_name, server, steps, binary, logs, hooks))
            with contextlib.suppress(httpx.HTTPError):
                results["pod_bytes"] = pod_size(server.kubeconfig)
        for log in (workdir / f"{server_name}-{attempt}").rglob("*.log"):
            shutil.copy(log, logs / f"{server_name}-{log.name}")
    return results


# --- the table -----------------------------------------------------------------------------------

@dataclass(slots=True)
class Row:
    title: str
    cells: dict[str, str] = field(default_factory=dict)
    ratio: str = ""
    cpu: dict[str, float] = field(default_factory=dict)
    loadgen_cpu: dict[str, str] = field(default_factory=dict)

    @property
    def cpu_ratio(self) -> str:
        return ratio_text(self.cpu.get(FAKEAPI), self.cpu.get(KUBE), LOWER)


def _ms(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def describe(step: Step, result: dict[str, Any]) -> tuple[str, float | None, str]:
    """A result's cell text, its primary number and whether higher or lower is better."""
    if "failed" in result:
        return f"FAILED ({result['failed']})", None, HIGHER
    if step.workload == "memory":
        return f"{result['rss_mb']:,.0f} MB", result["rss_mb"], LOWER
    latency = result.get("latency_ms", {})
    errors = f", **{result['errors']:,} errors**" if result.get("errors") else ""
    if step.workload == "select-seed":
        return f"{result.get('rate', 0):,.0f}/s{errors}", result.get("rate"), HIGHER
    if step.workload in ("create", "mutate"):
        return (f"{result.get('rate', 0):,.0f}/s, p50 {_ms(latency.get('p50', 0))} ms, p99 {_ms(latency.get('p99', 0))} ms"
                f"{errors}", result.get("rate"), HIGHER)
    if step.workload in ("list", "select-list"):
        size = f", {result['bytes'] / 2**20:,.1f} MB" + (" json" if not result.get("response_protobuf") else "")
        pages = f", {result['pages']} pages" if result.get("pages", 1) > 1 else ""
        return (f"{_ms(latency.get('p50', 0))} ms ({result.get('items', 0):,} items{size}{pages}){errors}",
                latency.get("p50"), LOWER)
    if step.workload == "informer":
        return f"{_ms(latency.get('p50', 0))} ms ({result.get('items', 0):,} items){errors}", latency.get("p50"), LOWER
    if step.workload == "fanout":
        faults = (f"lost {result['lost']:,}, dup {result['duplicates']:,}, out of order {result['out_of_order']:,}"
                  if result["lost"] or result["duplicates"] or result["out_of_order"] else "none lost")
        write_latency = result.get("write_latency_ms", {})
        return (f"{result.get('delivery_rate', 0):,.0f} deliveries/s, delivery p50 {_ms(latency.get('p50', 0))} ms, "
                f"p99 {_ms(latency.get('p99', 0))} ms; writes {result['write_rate']:,.0f}/s, p50 "
                f"{_ms(write_latency.get('p50', 0))} ms; {faults}{errors}", result.get("delivery_rate"), HIGHER)
    if step.workload == "leases":
        return (f"{result.get('rate', 0):,.0f}/s of {result['target_rate']:,.0f}, p50 {_ms(latency.get('p50', 0))} ms, "
                f"p99 {_ms(latency.get('p99', 0))} ms{errors}", result.get("rate"), HIGHER)
    raise ValueError(f"no description for {step.workload}")


def ratio_text(fakeapi: float | None, kube: float | None, better: str) -> str:
    """fakeapi against kube, oriented so that > 1 means fakeapi is better; below 1 in bold."""
    if not fakeapi or not kube:
        return ""
    ratio = fakeapi / kube if better == HIGHER else kube / fakeapi
    text = f"{ratio:.2f}x"
    return text if ratio >= 1 else f"**{text}**"


def build_rows(steps: list[Step], results: dict[str, dict[str, Any]]) -> list[Row]:
    rows = []
    start = Row("start to /readyz")
    numbers = {}
    for name, server in results.items():
        seconds = server["start"]["seconds"]
        start.cells[name] = f"{seconds:.2f} s"
        numbers[name] = seconds
        if "cpu_seconds" in server["start"]:  # results.json of earlier runs have none
            start.cpu[name] = server["start"]["cpu_seconds"] * 1000
    start.ratio = ratio_text(numbers.get(FAKEAPI), numbers.get(KUBE), LOWER)
    rows.append(start)
    for step in steps:
        row = Row(step.title)
        numbers = {}
        better = HIGHER
        for name, server in results.items():
            result = server.get(step.key)
            if result is None:
                continue
            row.cells[name], numbers[name], better = describe(step, result)
            ops = result.get("ops")
            if ops and "server_cpu_seconds" in result:
                row.cpu[name] = result["server_cpu_seconds"] * 1000 / ops
            if "client_cpu_seconds" in result:
                row.loadgen_cpu[name] = f"{result['client_cpu_seconds']:.1f}"
        if row.cells:
            row.ratio = ratio_text(numbers.get(FAKEAPI), numbers.get(KUBE), better)
            rows.append(row)
    return rows


def markdown_table(rows: list[Row], servers: list[str]) -> str:
    header = ["workload", *(SERVER_TITLES[s] for s in servers), "fakeapi / kube",
              *(f"server CPU ms/op, {s}" for s in servers), "CPU/op, kube / fakeapi",
              f"loadgen CPU s ({' / '.join(servers)})"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [row.title, *(row.cells.get(s, "") for s in servers), row.ratio,
                 *(_ms(row.cpu[s]) if s in row.cpu else "" for s in servers), row.cpu_ratio,
                 " / ".join(row.loadgen_cpu.get(s, "-") for s in servers)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    go = shutil.which("go") or "/usr/local/go/bin/go"
    go_version = subprocess.run([go, "version"], capture_output=True, text=True).stdout.split()[2]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return {"cores": os.cpu_count(), "cpu": model, "ram_gb": psutil.virtual_memory().total / 2**30,
            "kernel": platform.release(), "python": platform.python_version(), "go": go_version,
            "fakeapi_commit": commit}


def cpu_shares(steps: list[Step], results: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per server, summed over the measured parts of its workloads: seconds, and the CPU seconds of
    the server, of the load generator and of everything else running on the machine meanwhile."""
    shares = {}
    for name, server in results.items():
        total = dict.fromkeys(("seconds", "server", "loadgen", "others"), 0.0)
        for step in steps:
            result = server.get(step.key, {})
            if "client_cpu_seconds" in result:
                total["seconds"] += result["seconds"]
                total["server"] += result["server_cpu_seconds"]
                total["loadgen"] += result["client_cpu_seconds"]
                total["others"] += max(0.0, result["machine_cpu_seconds"] - result["server_cpu_seconds"]
                                       - result["client_cpu_seconds"])
        shares[name] = total
    return shares


def notes(steps: list[Step], results: dict[str, dict[str, Any]]) -> list[str]:
    """What a reader should not miss: other work on the machine, objects of different sizes,
    failures, errors, lost events, a protobuf request answered in JSON."""
    found = []
    for name, share in cpu_shares(steps, results).items():
        if share["seconds"] and share["others"] / share["seconds"] > 0.25:
            found.append(f"The machine was not idle: while {SERVER_TITLES[name]} was measured, other processes used "
                         f"{share['others'] / share['seconds']:.2f} of its {os.cpu_count()} cores on average. Rates and "
                         "latencies move with such load; CPU per operation moves much less.")
    sizes = {name: server["pod_bytes"] for name, server in results.items() if "pod_bytes" in server}
    if len(sizes) == 2 and abs(sizes[FAKEAPI] - sizes[KUBE]) > 0.05 * sizes[KUBE]:
        found.append(f"The same pod is stored as {sizes[FAKEAPI]:,} B of JSON by fakeapi and {sizes[KUBE]:,} B by "
                     "kube-apiserver (without managedFields): fakeapi does not fill in all of kube's defaults yet, "
                     "so its LIST, informer and memory rows carry smaller objects.")
    added = webhook_added_p50(steps, results)
    if added:
        found.append("A create's p50 at 1 client with both webhooks, less that of the first row (no webhook): "
                     + ", ".join(f"{SERVER_TITLES[name]} {ms:+.2f} ms" for name, ms in added.items())
                     + " (the webhooks' added latency, two loopback calls).")
    for name, server in results.items():
        title = SERVER_TITLES[name]
        if "protobuf" not in server.get("encoding", "protobuf"):
            found.append(f"{title} answers protobuf requests with `{server['encoding']}`: its protobuf rows "
                         "measure JSON responses (protobuf request bodies are decoded).")
        for step in steps:
            result = server.get(step.key, {})
            if "failed" in result:
                found.append(f"{title}, {step.title}: failed, {result['failed']}.")
                continue
            if result.get("errors"):
                samples = "; ".join(result.get("error_samples", [])[:2])
                found.append(f"{title}, {step.title}: {result['errors']:,} failed requests (e.g. {samples}).")
            for counter in ("lost", "duplicates", "out_of_order", "unexpected_events", "watches_ended_early",
                            "watch_errors"):
                if result.get(counter):
                    found.append(f"{title}, {step.title}: {counter.replace('_', ' ')} {result[counter]:,}.")
            if result.get("watch_restarts"):
                found.append(f"{title}, {step.title}: the server ended {result['watch_restarts']:,} watches (watchers "
                             "that fell behind); each resumed from its last resourceVersion, as a reflector does.")
    return found


def webhook_added_p50(steps: list[Step], results: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Per server, the 1-client webhook row's create p50 less the 1-client row's without any."""
    def one_client_creates(admission: str) -> Step | None:
        return next((step for step in steps if step.workload == "create" and step.args[:2] == ("--clients", "1")
                     and step.admission == admission), None)

    plain, hooked = one_client_creates(""), one_client_creates(WEBHOOKS)
    added = {}
    for name, server in results.items():
        if plain is None or hooked is None:
            break
        with_hooks = server.get(hooked.key, {}).get("latency_ms", {}).get("p50")
        without = server.get(plain.key, {}).get("latency_ms", {}).get("p50")
        if with_hooks is not None and without is not None:
            added[name] = with_hooks - without
    return added


#: The sections readings of other runs add to the report, kept, last, when this rewrites it: the
#: selective LISTs and start-up measured alone (`--only '^select-'`, a run of its own on a machine
#: the full run leaves no time to settle), `make bench-agree`'s (benchmarks/locust_vs_loadgen.py),
#: the varied rows before and after a change (`--only varied`, a quick run of its own), and the
#: admission rows' (`--only 'webhooks|policy'`) with a create's steps under webhooks.
KEPT_SECTIONS = ("## Selective LISTs and start-up", "## Locust and the Go load generator agree?",
                 "## Objects whose content varies", "## Admission webhooks and policies")


def kept_sections(path: Path) -> str:
    """``KEPT_SECTIONS`` of the report at ``path``, each up to the next section, or ""."""
    text = path.read_text() if path.exists() else ""
    kept = []
    for title in KEPT_SECTIONS:
        start = text.find(title)
        if start >= 0:
            end = text.find("\n## ", start)
            kept.append("\n" + text[start:end if end >= 0 else len(text)].rstrip() + "\n")
    return "".join(kept)


def write_doc(path: Path, table: str, steps: list[Step], results: dict[str, dict[str, Any]], info: dict[str, Any]) -> None:
    share_lines = []
    for name, share in cpu_shares(steps, results).items():
        if share["seconds"]:
            cores = {key: share[key] / share["seconds"] for key in ("server", "loadgen", "others")}
            share_lines.append(
                f"- against {SERVER_TITLES[name]}, over {share['seconds']:,.0f} s of measured workloads: the server "
                f"used {share['server']:,.0f} CPU s ({cores['server']:.2f} cores on average), the load generator "
                f"{share['loadgen']:,.0f} CPU s ({cores['loadgen']:.2f} cores), other processes on the machine "
                f"{share['others']:,.0f} CPU s ({cores['others']:.2f} cores).")
    sizes = ", ".join(f"{SERVER_TITLES[n]} {r['pod_bytes']:,} B" for n, r in results.items() if "pod_bytes" in r)
    found = notes(steps, results) or ["none: no failed workload, no failed request, no lost, duplicated or "
                                      "reordered watch event."]
    text = f"""# fakeapi vs kube-apiserver + etcd: the comparison benchmark

Written by `{info['command']}` (`make bench-compare`; {info['mode']} mode, {info['minutes']:.0f} min) on {info['date']}.
Do not edit by hand: run it again (`make bench-compare QUICK=1` is a ~3-minute run that only
prints; the last sections, of the selective LISTs, of `make bench-agree`, of the varied rows and of admission,
are kept). What runs, in what order and why: the docstrings of `benchmarks/compare.py` and of the
load generator `benchmarks/loadgen/` (Go, client-go {CLIENT_GO_VERSION}).

## Machine

- {info['cores']} cores, {info['cpu']}, {info['ram_gb']:.0f} GB RAM, Linux {info['kernel']}
- fakeapi at commit {info['fakeapi_commit']} (Python {info['python']}), `fakeapi serve {' '.join(FAKEAPI_ARGS + tuple(info['fakeapi_args']))}`
  (the store in memory unless those arguments say otherwise)
- kube-apiserver {KUBE_VERSION} + etcd {ETCD_VERSION} (built by `scripts/build-kube.sh` with {info['go']}); etcd on
  tmpfs with `--unsafe-no-fsync`, kube-apiserver configured as envtest does{(', args `' + ' '.join(info['kube_args']) + '`') if info['kube_args'] else ''}
- load generator: one process, client-go {CLIENT_GO_VERSION}, client-side rate limits off, one connection per client;
  the server and the load generator share the machine's cores

## Results

One run, each server in turn on the same machine; the ratio column is oriented so that > 1 means
fakeapi is better (rates: fakeapi/kube; times and memory: kube/fakeapi). Latencies are per request
as the client sees them (p50/p99); LIST and informer rows are the median time of one full LIST or
sync; fan-out delivery latency runs from the timestamp the writer puts in the object to the
watcher decoding the event. Server CPU ms/op is the server's CPU time (its whole process tree:
kube-apiserver and etcd together) during the measured part divided by the operations (requests;
LISTs; syncs; watch deliveries; renewals), i.e. CPU seconds per 1,000 operations. Memory is the
resident set of the server's processes. The benchmark pod is {sizes} of JSON as stored (without
managedFields).

{table}

## The load generator's share of the machine

{chr(10).join(share_lines)}

On {info['cores']} cores the load generator competes with the server (and so does any other work on
the machine: load average {info['loadavg_before']} before the run, {info['loadavg_after']} after): the
rates above are what the server achieves with what was left, and the CPU per operation is the
fairer comparison when a server is CPU-bound.

## Notes from this run

{chr(10).join(f'- {line}' for line in found)}
"""
    path.write_text(text + kept_sections(path))


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def only(steps: list[Step], pattern: re.Pattern[str]) -> list[Step]:
    """The rows ``--only`` runs: those whose key or title matches, and the seeding rows their
    namespaces need. A seeding row runs when its key is named (the plain 1-client creates beside
    the webhooks' row, say), not for its title: "pod creates" would pull in every seeding row."""
    kept = [s for s in steps if pattern.search(s.key) or (not s.seeds and pattern.search(s.title))]
    namespaces = {s.namespace for s in kept if not s.seeds}
    return [s for s in steps if s in kept or (s.seeds and s.namespace in namespaces)]


def report_path(args: argparse.Namespace) -> Path | None:
    """Where the Markdown report goes: ``--doc``, else docs/benchmarks.md for a full run only.
    That file is the whole table; a partial run (quick, ``--only``, other sizes of the selective
    LISTs) prints its rows, and writing them there would drop every other row."""
    partial = args.quick or args.only is not None or args.selective_pods is not None
    return args.doc or (None if partial else ROOT / "docs" / "benchmarks.md")


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="the ~3-minute subset (10k pods, short runs)")
    parser.add_argument("--only", metavar="REGEX", help="run only the rows whose key or title matches "
                        "(plus the creates that fill their namespaces; a seeding row by its key only)")
    parser.add_argument("--selective-pods", metavar="N,N,...",
                        help="the sizes the selective LISTs run at (default: 2000 quick, 2000,10000 full)")
    parser.add_argument("--servers", default=f"{FAKEAPI},{KUBE}", help="fakeapi, kube or both (default)")
    parser.add_argument("--starts", type=int, help="starts to time per server, median shown (default: 1 quick, 3 full)")
    parser.add_argument("--fakeapi-arg", action="append", default=[], metavar="ARG",
                        help="an extra argument of `fakeapi serve`, repeatable (e.g. --fakeapi-arg=--workers=2)")
    parser.add_argument("--kube-arg", action="append", default=[], metavar="ARG",
                        help="an extra argument of kube-apiserver, repeatable")
    parser.add_argument("--doc", type=Path, help="write the Markdown report there (default in the full mode: "
                        "docs/benchmarks.md; a quick or partial run, --only or --selective-pods, writes "
                        "none unless asked)")
    parser.add_argument("--results", type=Path, default=ROOT / "results",
                        help="where the JSON results and logs go (a bench-compare-<time> directory)")
    parser.add_argument("--render", type=Path, metavar="RESULTS_JSON",
                        help="run nothing: print (and with --doc write) the table of an earlier run's results.json")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = argument_parser()
    args = parser.parse_args(argv)
    if args.render:
        return render(args.render, args.doc)

    servers = [s for s in args.servers.split(",") if s]
    if not servers or set(servers) - {FAKEAPI, KUBE}:
        parser.error("--servers: fakeapi, kube or fakeapi,kube")
    steps = plan(args.quick, tuple(int(n) for n in args.selective_pods.split(",")) if args.selective_pods else None)
    if args.only:
        steps = only(steps, re.compile(args.only))
    starts = args.starts or (1 if args.quick else 3)
    doc = report_path(args)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    logs = args.results / f"bench-compare-{stamp}"
    logs.mkdir(parents=True, exist_ok=True)
    # SIGINT (even when started with it ignored, as a background job is) and SIGTERM unwind like
    # Ctrl-C: every server and load generator is stopped on the way out.
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)

    began = time.monotonic()
    loadavg_before = os.getloadavg()
    print("building the load generator and the real control plane (cached) ...", file=sys.stderr)
    binary = build_loadgen()
    if KUBE in servers:
        from fakeapi.cluster.control_plane import kube_binaries

        kube_binaries("kube-apiserver", "etcd")
    tmpfs = Path("/dev/shm")
    workdir = Path(tempfile.mkdtemp(prefix="fakeapi-bench-", dir=tmpfs if os.access(tmpfs, os.W_OK) else None))
    results: dict[str, dict[str, Any]] = {}
    hooks = WebhookServer(binary) if any(step.admission == WEBHOOKS for step in steps) else None
    try:
        for name in servers:
            extra = args.fakeapi_arg if name == FAKEAPI else args.kube_arg
            results[name] = run_server(name, steps, starts, extra, binary, workdir, logs, hooks)
    except KeyboardInterrupt:
        print("\ninterrupted: servers stopped", file=sys.stderr)
        return 130
    finally:
        if hooks is not None:
            hooks.close()
        shutil.rmtree(workdir, ignore_errors=True)

    info = {**machine(), "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "command": " ".join(["benchmarks/compare.py", *(sys.argv[1:] if argv is None else argv)]),
            "mode": "quick" if args.quick else "full", "minutes": (time.monotonic() - began) / 60,
            "servers": servers, "fakeapi_args": args.fakeapi_arg, "kube_args": args.kube_arg,
            "loadavg_before": " ".join(f"{x:.1f}" for x in loadavg_before),
            "loadavg_after": " ".join(f"{x:.1f}" for x in os.getloadavg())}
    (logs / "results.json").write_text(json.dumps({"machine": info, "results": results}, indent=1))
    report(steps, results, info, doc)
    print(f"results and logs: {logs} ({info['minutes']:.1f} min)", file=sys.stderr)
    return 0


def report(steps: list[Step], results: dict[str, dict[str, Any]], info: dict[str, Any], doc: Path | None) -> None:
    """Prints the table and the notes; writes the Markdown report when ``doc`` is given."""
    table = markdown_table(build_rows(steps, results), info["servers"])
    print(table)
    for line in notes(steps, results):
        print(f"- {line}")
    if doc is not None:
        write_doc(doc, table, steps, results, info)
        print(f"written: {doc}", file=sys.stderr)


def render(saved: Path, doc: Path | None) -> int:
    """The table and report of an earlier run from its results.json (after a change to how they
    are presented; the numbers are the run's)."""
    data = json.loads(saved.read_text())
    info = data["machine"]
    report(plan(info["mode"] == "quick"), data["results"], info, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
