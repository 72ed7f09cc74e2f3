"""``make conformance``: kubernetes v1.35.4's conformance e2e specs as the judge of fakeapi.

Runs ``e2e.test`` (``kube/e2e/``, built by ``scripts/build-kube.sh e2e.test``: sig-api-machinery,
sig-apps, sig-node, sig-scheduling and sig-auth) against a whole fake cluster (``fakeapi
cluster``: fakeapi, the real kube-controller-manager and kube-scheduler, kwok's nodes) and, with
``--kube``, against the same cluster on the real kube-apiserver v1.35.4 + etcd v3.6.6, then prints
one row per spec: how it ended on kube, how it ended on fakeapi. A spec that fails on kube too
fails because of the cluster (kwok's pods run nothing), not because of fakeapi.

The same focus and the same skip list (``SKIPS``) go to both servers. Each run leaves in
``--results`` (default ``results/conformance-<time>/``): ``<server>/report.json`` (ginkgo's JSON
report), ``<server>/e2e.log`` (the suite's output), ``<server>/cluster-logs/`` (every component's
log) and ``summary.md`` (the table, and the first line of each failure).

    scripts/conformance.py                                       # the default focus, fakeapi only
    scripts/conformance.py --kube --focus '\\[sig-api-machinery\\].*\\[Conformance\\]'

The exit status is 1 when a spec failed on fakeapi (with ``--kube``: one that passed on kube).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from fakeapi.cluster.cluster import Cluster, ClusterConfig
from fakeapi.cluster.control_plane import Certificates, Etcd, KubeAPIServer, kube_binaries, kubectl_binary
from fakeapi.cluster.processes import spawn, stop_all

SIGS = ("api-machinery", "apps", "node", "scheduling", "auth")
DEFAULT_FOCUS = rf"\[sig-({'|'.join(SIGS)})\].*\[Conformance\]"

#: What this cluster cannot serve, skipped on both servers alike: (ginkgo regular expression,
#: why). kwok plays the kubelets by writing pod status; no container runs, so there is no process
#: to exec into, no log, no port, no probe, no network and no DNS behind a pod. ``[Serial]`` specs
#: run: ``e2e.test`` is one ginkgo process, so every spec has the cluster to itself.
SKIPS: tuple[tuple[str, str], ...] = (
    (r"\[Disruptive\]", "restarts or breaks nodes and control-plane components"),
    (r"\[sig-api-machinery\] AdmissionWebhook",
     "the sample-webhook pod must serve HTTPS to the API server"),
    (r"\[sig-api-machinery\] (CustomResourceConversionWebhook|CustomResourceFieldSelectors)",
     "the conversion webhook pod must serve HTTPS to the API server (the field selectors' CRD has two "
     "versions converted by it)"),
    (r"\[sig-api-machinery\] Aggregator", "the sample-apiserver pod must serve the aggregated API"),
    (r"should serve a basic image on each replica", "proxies to each pod's HTTP server"),
    (r"remote command execution|retrieving logs from the container", "exec and logs over websockets"),
    (r"\[sig-node\] (ConfigMap|Secrets) should be consumable",
     "reads the container's environment from its log"),
    (r"\[sig-node\] (Downward API|Variable Expansion|Containers|Security Context|Kubelet when|KubeletManagedEtcHosts) ",
     "reads what the container printed (its log) or wrote (exec)"),
    (r"\[sig-node\] Pods should contain environment variables for services",
     "reads the container's environment from its log"),
    (r"\[sig-node\] (Container Runtime blackbox|InitContainer|Probing container|Container Lifecycle Hook|PreStop) ",
     "containers that exit, probes, hooks: the kubelet runs them"),
    (r"\[sig-node\] Ephemeral Containers .* will start", "execs into the ephemeral container"),
    (r"\[sig-node\] Ephemeral Containers .* should update the ephemeral containers",
     "waits for the ephemeral container to run; kwok starts none"),
    (r"\[sig-node\] Pods should allow activeDeadlineSeconds to be updated",
     "the kubelet fails a pod whose deadline passed; kwok does not"),
    (r"\[sig-node\] Sysctls .* should support sysctls", "reads the sysctls from inside the container"),
    (r"\[sig-node\] Pod InPlace Resize", "the kubelet actuates a resize and reports it"),
    (r"\[sig-auth\] ServiceAccounts (ServiceAccountIssuerDiscovery|should mount)",
     "a pod reads its token or calls the issuer from inside"),
    (r"\[sig-apps\] StatefulSet .*(Burst scaling|Scaling should happen in predictable order|"
     r"should perform rolling updates and roll backs)",
     "execs into a pod to break and restore its readiness (moves the file its HTTP probe reads)"),
    (r"\[sig-apps\] StatefulSet .*Should recreate evicted statefulset",
     "the kubelet rejects a pod whose host port another pod of its node holds; kwok's nodes do not"),
    (r"\[sig-apps\] Job (should allow to use the pod failure policy on exit code|with successPolicy succeeded|"
     r"should execute all indexes despite some failing|should terminate job execution when the number of failed|"
     r"should mark indexes as failed|should run a job to completion when tasks sometimes fail)",
     "its containers exit non-zero (some or every time); kwok completes every Job pod as Succeeded"),
    (r"\[sig-apps\] (Job (should allow to use a pod failure policy to ignore failure matching on DisruptionTarget|"
     r"should delete a job|should adopt matching orphans|should apply changes to a job status)|"
     r"CronJob (should schedule multiple jobs concurrently|should not schedule new jobs when ForbidConcurrent|"
     r"should replace jobs when ReplaceConcurrent))",
     "waits for a Job's pods to keep running (they sleep); kwok completes every Job pod as Succeeded at once"),
    (r"\[sig-apps\] (Deployment deployment should support proportional scaling|"
     r"Daemon set .*should rollback without unnecessary restarts)",
     "a rollout to an image that does not exist must stall (its pods never start); kwok starts any image, "
     "so the rollout ends within a second and the spec passes only if it looks before (a race)"),
)

#: How a spec ended, as the table shows it.
PASSED = "passed"
#: A spec the suite did not run: filtered out by focus and skip (no reason), or skipped at run
#: time by the spec itself (e2eskipper: "Only supported for providers [gce]", ...).
SKIPPED = "skipped"


@dataclass
class Outcome:
    state: str
    #: The first line of the failure (or of a run-time skip's reason).
    message: str = ""
    #: False for the suite's own nodes (SynchronizedBeforeSuite, ...): rows, but not counted as specs.
    spec: bool = True


@dataclass
class Run:
    """One server's run of the suite."""

    server: str
    outcomes: dict[str, Outcome]
    seconds: float
    #: Set when the suite did not complete (the cluster did not start, the binary crashed).
    error: str = ""


def skip_pattern(extra: Sequence[str] = ()) -> str:
    """One regular expression: every ``SKIPS`` pattern and ``extra`` ones, any of which skips a spec."""
    return "|".join(f"({pattern})" for pattern in (*(pattern for pattern, _ in SKIPS), *extra))


def read_report(path: Path) -> dict[str, Outcome]:
    """The specs of ginkgo's JSON report by full text (containers and leaf, as ``--ginkgo.focus``
    matches them), without the ones the focus and skip filtered out (skipped with no message)."""
    outcomes: dict[str, Outcome] = {}
    for suite in json.loads(path.read_text()):
        for spec in suite.get("SpecReports") or []:
            message = ((spec.get("Failure") or {}).get("Message") or "").strip()
            if spec["State"] == SKIPPED and not message:
                continue
            texts = [*(spec.get("ContainerHierarchyTexts") or ()), spec["LeafNodeText"]]
            name = " ".join(text for text in texts if text)
            # Suite-level nodes (SynchronizedBeforeSuite, ReportAfterSuite) have no text: their type names them.
            outcomes[name or spec["LeafNodeType"]] = Outcome(spec["State"], message.splitlines()[0] if message else "",
                                                             spec=spec["LeafNodeType"] == "It")
    return outcomes


@contextlib.contextmanager
def start_cluster(server: str, config: ClusterConfig, workdir: Path) -> Iterator[Cluster]:
    """The fake cluster of ``config`` on fakeapi, or on etcd + kube-apiserver (``server == "kube"``)
    with kube's default admission plugins (ServiceAccount included, as ``fakeapi cluster`` turns it
    on beside the controller manager).

    The controller manager publishes the cluster's root CA to every namespace (``kube-root-ca.crt``,
    which a conformance spec deletes and empties and waits to see restored): its
    ``--root-ca-file`` is the CA kube-apiserver serves with; fakeapi serves plain HTTP, so a CA
    made for the run stands for its (no pod calls the API server, none reads it). Without the
    flag the controller manager publishes its kubeconfig's CA data, which neither kubeconfig has."""
    if server == "fakeapi":
        root_ca = Certificates(workdir / "pki").ca
        with Cluster(replace(config, kcm_args=(*config.kcm_args, f"--root-ca-file={root_ca}"))) as cluster:
            yield cluster
        return
    with Etcd(workdir / "etcd") as etcd, \
            KubeAPIServer(config.logs, etcd.client_url, disabled_admission_plugins="") as api, \
            Cluster(replace(config, kcm_args=(*config.kcm_args, f"--root-ca-file={api.certificates.ca}")),
                    apiserver=api) as cluster:
        yield cluster


def suite_command(e2e_test: Path, kubeconfig: Path, report: Path, *, focus: str, skip: str, procs: int,
                  e2e_args: Sequence[str]) -> list[str]:
    """The command running ``e2e.test`` on the cluster of ``kubeconfig``: the binary itself, or with
    ``procs`` above 1 ginkgo's CLI running it on that many processes, as kubernetes'
    hack/ginkgo-e2e.sh does (the conformance specs not marked [Serial] are written to run side by
    side; most of their time is waiting for the cluster, so a few processes divide the wall time)."""
    # ginkgo's default is 1 h for the whole suite; the default focus takes longer.
    ginkgo_flags = [f"focus={focus}", f"skip={skip}", f"json-report={report}", "no-color", "timeout=12h"]
    e2e_flags = [f"--kubeconfig={kubeconfig}", "--provider=skeleton", f"--kubectl-path={kubectl_binary()}",
                 *e2e_args]
    if procs <= 1:
        return [str(e2e_test), *(f"--ginkgo.{flag}" for flag in ginkgo_flags), *e2e_flags]
    ginkgo = kube_binaries("ginkgo") / "ginkgo"
    # ginkgo forks the processes: each runs e2e.test through fakeapi's exec that dies with its
    # parent, so that a runner killed outright (its ginkgo dies with it) leaves no spec running.
    # ginkgo runs a precompiled suite by a path ending in ".test".
    wrapper = report.parent / "e2e.test"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m fakeapi.cluster.processes {e2e_test} "$@"\n')
    wrapper.chmod(0o755)
    return [str(ginkgo), f"--procs={procs}", *(f"--{flag}" for flag in ginkgo_flags), str(wrapper), "--",
            *e2e_flags]


def run_suite(server: str, e2e_test: Path, out: Path, *, focus: str, skip: str, nodes: int, procs: int,
              e2e_args: Sequence[str]) -> Run:
    """Start the cluster on ``server``, run ``e2e.test`` on it with its output in ``out``, stop it."""
    out.mkdir(parents=True, exist_ok=True)
    report = out / "report.json"
    started = time.monotonic()
    # etcd's data in memory (/dev/shm) when there is one: the servers are judged, not the disk.
    scratch = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="fakeapi-conformance-", dir=scratch) as tmp:
        config = ClusterConfig(nodes=nodes, logs=out / "cluster-logs", kubeconfig=out / "kubeconfig")
        try:
            with start_cluster(server, config, Path(tmp)) as cluster, (out / "e2e.log").open("wb") as log:
                print(f"conformance: {server}: {cluster.summary()}", flush=True)
                # A child that dies with this process (a Ctrl-C reaches it too: same process group).
                command = suite_command(e2e_test, cluster.kubeconfig, report, focus=focus, skip=skip,
                                        procs=procs, e2e_args=e2e_args)
                suite = spawn(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                try:
                    suite.wait()
                finally:
                    stop_all([suite])
        except Exception as err:  # the cluster did not start or stop: the run's result, not a crash
            return Run(server, {}, time.monotonic() - started, error=f"{type(err).__name__}: {err}")
    seconds = time.monotonic() - started
    if not report.exists():
        return Run(server, {}, seconds, error=f"e2e.test wrote no report: see {out / 'e2e.log'}")
    return Run(server, read_report(report), seconds)


def summarize(runs: Sequence[Run]) -> str:
    """A Markdown table, one row per spec that ran (or skipped itself) on any server and per suite
    node, then the wall time and spec counts per server and the first line of every failure."""
    names = sorted({name for run in runs for name in run.outcomes})
    lines = [f"| spec | {' | '.join(run.server for run in runs)} |", f"|---|{'---|' * len(runs)}"]
    for name in names:
        cells = [run.outcomes[name].state if name in run.outcomes else "-" for run in runs]
        lines.append(f"| {name} | {' | '.join(cells)} |")
    lines.append("")
    for run in runs:
        states = [outcome.state for outcome in run.outcomes.values() if outcome.spec]
        counts = ", ".join(f"{states.count(state)} {state}" for state in sorted(set(states)))
        lines.append(f"- {run.server}: {counts or 'no specs'} in {run.seconds / 60:.1f} min"
                     + (f" — {run.error}" if run.error else ""))
    for run in runs:
        failed = [(name, outcome) for name, outcome in sorted(run.outcomes.items())
                  if outcome.state not in (PASSED, SKIPPED)]
        if failed:
            lines += ["", f"Failures on {run.server}:", ""]
            lines += [f"- {name}: {outcome.message}" for name, outcome in failed]
    return "\n".join(lines) + "\n"


def fakeapi_failures(runs: Sequence[Run]) -> list[str]:
    """The specs that failed on fakeapi (and passed on kube, when kube ran)."""
    by_server = {run.server: run for run in runs}
    fakeapi, kube = by_server["fakeapi"], by_server.get("kube")
    if fakeapi.error:
        return [fakeapi.error]
    return [name for name, outcome in fakeapi.outcomes.items()
            if outcome.state not in (PASSED, SKIPPED)
            and (kube is None or (name in kube.outcomes and kube.outcomes[name].state == PASSED))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--focus", default=DEFAULT_FOCUS, help=f"ginkgo's focus (default: {DEFAULT_FOCUS})")
    parser.add_argument("--skip", action="append", default=[], metavar="REGEX",
                        help="skip these specs too, on both servers (repeatable)")
    parser.add_argument("--kube", action="store_true",
                        help="run on the real kube-apiserver + etcd first, the same cluster around it")
    parser.add_argument("--parallel", action="store_true",
                        help="with --kube, both clusters at once: half the wall time, but the two "
                             "compete for the CPU (a spec with a short deadline may time out on either)")
    parser.add_argument("--nodes", type=int, default=3, help="kwok's nodes (default 3)")
    parser.add_argument("--procs", type=int, default=1,
                        help="run the specs on this many processes (ginkgo's CLI, built with e2e.test; "
                             "default 1: e2e.test alone, one spec at a time)")
    parser.add_argument("--results", type=Path,
                        default=Path("results") / f"conformance-{datetime.now(UTC):%Y%m%d-%H%M%S}",
                        help="where the reports, logs and summary go (default: results/conformance-<time>/)")
    parser.add_argument("--e2e-arg", action="append", default=[], metavar="FLAG",
                        help="a flag for e2e.test (repeatable), e.g. --e2e-arg=--ginkgo.v")
    args = parser.parse_args(argv)
    # Absolute: kube-apiserver's kubeconfig names its CA by path, read from other directories.
    args.results = args.results.resolve()
    re.compile(args.focus)  # a bad expression fails here, not after a cluster started

    started = time.monotonic()
    e2e_test = kube_binaries("e2e.test", *(("ginkgo",) if args.procs > 1 else ())) / "e2e.test"
    print(f"conformance: {e2e_test} ready in {time.monotonic() - started:.0f} s; results in {args.results}",
          flush=True)
    skip = skip_pattern(args.skip)

    def run_on(server: str) -> Run:
        run = run_suite(server, e2e_test, args.results / server, focus=args.focus, skip=skip,
                        nodes=args.nodes, procs=args.procs, e2e_args=args.e2e_arg)
        print(f"conformance: {server}: {len(run.outcomes)} specs in {run.seconds / 60:.1f} min"
              + (f" — {run.error}" if run.error else ""), flush=True)
        return run

    servers = ("kube", "fakeapi") if args.kube else ("fakeapi",)
    if args.parallel:
        with concurrent.futures.ThreadPoolExecutor(len(servers)) as pool:
            runs = list(pool.map(run_on, servers))
    else:
        runs = [run_on(server) for server in servers]
    summary = summarize(runs)
    (args.results / "summary.md").write_text(summary)
    print(summary)
    return 1 if fakeapi_failures(runs) else 0


if __name__ == "__main__":
    sys.exit(main())
