"""``make envtest-suites``: controller-runtime's own envtest suites as the judge of ``fakeapi envtest``.

Builds the ginkgo test binaries of controller-runtime v0.23.3's packages that start envtest
(``go test -c`` of a copy of the module, fetched by ``go mod download`` from the Go module proxy),
runs each package's binary with ``KUBEBUILDER_ASSETS`` at the real kube-apiserver v1.35.4, etcd
v3.6.6 and kubectl (``scripts/build-kube.sh``) and at the files ``fakeapi envtest`` writes, one
package and one server at a time, and prints a table: the specs that passed and failed on each,
and the wall time of each run. A spec that passes on the real binaries and fails on fakeapi is
fakeapi's bug; the table names each.

The module copy and the binaries are kept in ``$FAKEAPI_KUBE_BIN/controller-runtime-v0.23.3/``
(default ``~/.cache/fakeapi/kube-v1.35.4/``, next to the kube binaries, shared by every clone on a
machine); a binary is rebuilt only when this script changed, which the Go build cache makes a
matter of seconds (the first build of the six took 2-3 minutes on 2 cores, kube's modules being
in the cache already from scripts/build-kube.sh). Each run leaves in ``--results`` (default ``results/envtest-suites-<time>/``)
``<package>-<server>.json`` (ginkgo's JSON report), ``<package>-<server>.log`` (the suite's
output) and ``summary.md`` (the table).

    scripts/envtest_suites.py                                  # the six packages, both servers
    scripts/envtest_suites.py --packages client --focus scale --server fakeapi

The exit status is 1 when a spec failed on fakeapi that passed on the real binaries (or, with
``--server fakeapi``, any spec failed), or a run ended without a report.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from fakeapi.cli.envtest import write_assets
from fakeapi.cluster.control_plane import kube_binaries

MODULE = "sigs.k8s.io/controller-runtime"
VERSION = "v0.23.3"
#: The packages run by default: controller-runtime's own suites of envtest itself and of what a
#: controller uses.
PACKAGES = ("envtest", "client", "cache", "manager", "builder", "controller", "webhook")
#: The asset directories, in the order each package runs on them.
SERVERS = ("kube", "fakeapi")
#: Longer than any suite takes on a loaded machine; a hung suite ends as a failed run.
SUITE_TIMEOUT = "30m"
GO = shutil.which("go") or "/usr/local/go/bin/go"
#: ginkgo's states of a spec that did not pass (nor was skipped or pending).
FAILED_STATES = frozenset({"failed", "panicked", "timedout", "interrupted", "aborted"})


@dataclass(frozen=True)
class Spec:
    """How one spec of a suite ended."""

    #: Its containers' texts and its own, as ``-ginkgo.focus`` matches them; two specs of a
    #: suite may have the same (controller-runtime's pkg/client has such a pair).
    name: str
    state: str
    #: ginkgo's failure message, whole.
    failure: str = ""
    #: How long it ran (ginkgo's RunTime, its BeforeEach and AfterEach included).
    seconds: float = 0.0

    @property
    def message(self) -> str:
        """The first line of the failure."""
        return self.failure.splitlines()[0] if self.failure else ""


@dataclass
class Run:
    """One package's suite on one asset directory."""

    package: str
    server: str
    specs: list[Spec]
    seconds: float
    #: Set when the suite wrote no report (the binary crashed or timed out before the end).
    error: str = ""
    #: Seconds of the suite's own nodes by type (``BeforeSuite``: envtest's start; ``AfterSuite``:
    #: its stop) and of its specs (``specs``), from the report.
    phases: dict[str, float] = field(default_factory=dict)

    def count(self, states: frozenset[str]) -> int:
        return sum(1 for spec in self.specs if spec.state in states)

    @property
    def passed(self) -> int:
        return self.count(frozenset({"passed"}))

    @property
    def failed(self) -> int:
        return self.count(FAILED_STATES)


def _go(args: Sequence[str], cwd: Path) -> str:
    result = subprocess.run([GO, *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"go {' '.join(args)} failed in {cwd}:\n{result.stderr[-4000:]}")
    return result.stdout


def _binary(home: Path, package: str) -> Path:
    """Where ``package``'s (``controller/controllerutil``: a package under pkg/) test binary is."""
    return home / "bin" / f"{package.replace('/', '-')}.test"


def build(packages: Sequence[str]) -> Path:
    """The module copy holding ``bin/<package>.test`` for each of ``packages``; each built unless
    built by this script as it is. One build at a time per directory (sessions share it)."""
    home = kube_binaries("kubectl") / f"controller-runtime-{VERSION}"
    home.mkdir(exist_ok=True)
    with open(home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        source = home / "src"
        if not (source / "go.mod").exists():
            # the module cache's copy is read-only; go test -c wants to write next to go.mod
            downloaded = json.loads(_go(["mod", "download", "-json", f"{MODULE}@{VERSION}"], cwd=home))["Dir"]
            shutil.copytree(downloaded, source.with_suffix(".new"))
            for directory, _dirs, files in os.walk(source.with_suffix(".new")):
                os.chmod(directory, 0o755)
                for name in files:
                    os.chmod(os.path.join(directory, name), 0o644)
            source.with_suffix(".new").rename(source)
        stamp = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
        (home / "bin").mkdir(exist_ok=True)
        for package in packages:
            binary = _binary(home, package)
            stamp_file = binary.with_suffix(".stamp")
            if binary.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
                continue
            print(f"envtest-suites: building pkg/{package}", file=sys.stderr)
            start = time.monotonic()
            # No vet: it analyses every package the binary imports, for a binary that only runs.
            _go(["test", "-c", "-vet=off", "-o", str(binary), f"./pkg/{package}"], cwd=source)
            stamp_file.write_text(stamp)
            print(f"envtest-suites: pkg/{package} built in {time.monotonic() - start:.0f} s", file=sys.stderr)
    return home


def read_specs(report: Path) -> list[Spec]:
    """The specs (``It`` nodes) of ginkgo's JSON report, without the ones ``--focus`` left out
    (skipped, with no message)."""
    specs = []
    for suite in json.loads(report.read_text()):
        for spec in suite.get("SpecReports") or []:
            message = ((spec.get("Failure") or {}).get("Message") or "").strip()
            if spec["LeafNodeType"] != "It" or spec["State"] == "skipped" and not message:
                continue
            name = " ".join(text for text in (*(spec.get("ContainerHierarchyTexts") or ()), spec["LeafNodeText"]) if text)
            specs.append(Spec(name, spec["State"], message, (spec.get("RunTime") or 0) / 1e9))
    return specs


def read_phases(report: Path) -> dict[str, float]:
    """Seconds of the report's suite nodes by type (``BeforeSuite``, ``AfterSuite``, ...) and of
    its specs together (``specs``)."""
    phases: dict[str, float] = {}
    for suite in json.loads(report.read_text()):
        for spec in suite.get("SpecReports") or []:
            phase = "specs" if spec["LeafNodeType"] == "It" else spec["LeafNodeType"]
            phases[phase] = phases.get(phase, 0.0) + (spec.get("RunTime") or 0) / 1e9
    return phases


def run_suite(home: Path, package: str, server: str, assets: Path, out: Path, focus: str,
              seed: int | None = None) -> Run:
    """``package``'s suite with ``KUBEBUILDER_ASSETS=assets``, run in its package directory (its
    specs read their testdata relative to it), its specs in ginkgo's order for ``seed`` (main
    gives both servers the same: a suite's first specs pay the test binary's first uses, so a
    spec compares with itself only at the same place; ``None``: ginkgo draws one)."""
    stem = f"{package.replace('/', '-')}-{server}"
    report = out / f"{stem}.json"
    report.unlink(missing_ok=True)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("TEST_ASSET_") and key not in ("USE_EXISTING_CLUSTER", "KUBECONFIG")}
    env["KUBEBUILDER_ASSETS"] = str(assets)
    argv = [str(_binary(home, package)), f"-test.timeout={SUITE_TIMEOUT}", "-ginkgo.no-color",
            f"-ginkgo.json-report={report}", *([f"-ginkgo.seed={seed}"] if seed is not None else []),
            *([f"-ginkgo.focus={focus}"] if focus else [])]
    start = time.monotonic()
    with open(out / f"{stem}.log", "w") as log:
        subprocess.run(argv, cwd=home / "src" / "pkg" / package, env=env, stdout=log, stderr=subprocess.STDOUT)
    seconds = time.monotonic() - start
    if not report.exists():
        return Run(package, server, [], seconds, error=f"no report: see {out / f'{stem}.log'}")
    return Run(package, server, read_specs(report), seconds, phases=read_phases(report))


def blamed(runs: Sequence[Run]) -> list[tuple[str, str, str]]:
    """(package, spec, fakeapi's failure) of every spec that failed on fakeapi and passed on the
    real binaries (any that failed on fakeapi, when the real binaries did not run)."""
    by_key = {(run.package, run.server): run for run in runs}
    found = []
    for run in runs:
        if run.server != "fakeapi":
            continue
        kube = by_key.get((run.package, "kube"))
        passed_on_kube = {spec.name for spec in kube.specs if spec.state == "passed"} if kube else set()
        for spec in run.specs:
            if spec.state in FAILED_STATES and (kube is None or spec.name in passed_on_kube):
                found.append((run.package, spec.name, spec.message))
    return found


def summarize(runs: Sequence[Run]) -> str:
    """The table: per package, specs passed / failed and wall time on each server; then the
    specs fakeapi is blamed for and the runs that wrote no report."""
    servers = [server for server in SERVERS if any(run.server == server for run in runs)]
    header = "| package | " + " | ".join(f"{server} passed | {server} failed | {server} wall" for server in servers) + " |"
    lines = [header, "|---" * (1 + 3 * len(servers)) + "|"]
    by_key = {(run.package, run.server): run for run in runs}
    for package in dict.fromkeys(run.package for run in runs):
        cells = []
        for server in servers:
            run = by_key.get((package, server))
            if run is None:
                cells += ["", "", ""]
            else:
                cells += [str(run.passed), str(run.failed), f"{run.seconds:.0f} s"]
        lines.append(f"| pkg/{package} | " + " | ".join(cells) + " |")
    lines += _phases(runs, servers)
    failures = blamed(runs)
    if failures:
        lines += ["", "Failed on fakeapi, passed on the real binaries:" if "kube" in servers else "Failed:"]
        lines += [f"- pkg/{package}: {name}: {message}" for package, name, message in failures]
    lines += [f"- pkg/{run.package} on {run.server}: {run.error}" for run in runs if run.error]
    return "\n".join(lines)


#: The suite nodes shown beside the specs: envtest's start and stop.
PHASES = ("BeforeSuite", "specs", "AfterSuite")
#: ``_phases`` names at most this many of a package's specs that fakeapi ran in more than half
#: the real binaries' time.
SLOW_SPECS = 10


def _phases(runs: Sequence[Run], servers: Sequence[str]) -> list[str]:
    """Where each run's time went (envtest's start, the specs, its stop); with both servers, the
    real binaries' time over fakeapi's per phase, and the specs fakeapi did not run in half the
    real binaries' time, by how much they missed it."""
    with_phases = [run for run in runs if run.phases]
    if not with_phases:
        return []
    lines = ["", "| package | server | " + " | ".join(PHASES) + " |", "|---|---" + "|---" * len(PHASES) + "|"]
    for run in with_phases:
        lines.append(f"| pkg/{run.package} | {run.server} | "
                     + " | ".join(f"{run.phases.get(phase, 0.0):.2f} s" for phase in PHASES) + " |")
    by_key = {(run.package, run.server): run for run in with_phases}
    for package in dict.fromkeys(run.package for run in with_phases):
        kube, fakeapi = by_key.get((package, "kube")), by_key.get((package, "fakeapi"))
        if kube is None or fakeapi is None or "kube" not in servers:
            continue
        ratios = ", ".join(f"{phase} {kube.phases.get(phase, 0.0) / fakeapi.phases[phase]:.2f}x"
                           for phase in PHASES if fakeapi.phases.get(phase))
        lines += ["", f"pkg/{package}, the real binaries' time over fakeapi's: {ratios}"]
        slow = sorted(((spec.seconds - kube_spec.seconds / 2, kube_spec.seconds, spec.seconds, spec.name)
                       for spec, kube_spec in _paired(fakeapi.specs, kube.specs)
                       if spec.seconds > kube_spec.seconds / 2), reverse=True)[:SLOW_SPECS]
        if slow:
            lines.append(f"pkg/{package}, the specs furthest from half the real binaries' time (kube, fakeapi):")
            lines += [f"- {name}: {kube_seconds:.3f} s, {seconds:.3f} s" for _, kube_seconds, seconds, name in slow]
    return lines


def _paired(specs: Sequence[Spec], others: Sequence[Spec]) -> list[tuple[Spec, Spec]]:
    """Each spec of ``specs`` with the one of ``others`` of its name (the n-th of a name with the
    n-th: two specs of a suite may share one), both passed."""
    by_name: dict[str, list[Spec]] = {}
    for other in others:
        by_name.setdefault(other.name, []).append(other)
    seen: dict[str, int] = {}
    pairs = []
    for spec in specs:
        index = seen[spec.name] = seen.get(spec.name, -1) + 1
        namesakes = by_name.get(spec.name, [])
        if index < len(namesakes) and spec.state == namesakes[index].state == "passed":
            pairs.append((spec, namesakes[index]))
    return pairs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", default=",".join(PACKAGES),
                        help="comma-separated packages under pkg/ (default: %(default)s)")
    parser.add_argument("--server", choices=SERVERS, action="append",
                        help="run on this asset directory only (repeatable; default: both)")
    parser.add_argument("--focus", default="", help="ginkgo's --focus, for every package (a failure alone)")
    parser.add_argument("--seed", type=int, default=random.randrange(1, 2**31),
                        help="ginkgo's random seed, for every run (default: one drawn for this invocation)")
    parser.add_argument("--results", type=Path,
                        help="where the reports, logs and summary go (default: results/envtest-suites-<time>/)")
    args = parser.parse_args(argv)
    packages = [package.strip() for package in args.packages.split(",") if package.strip()]
    servers = [server for server in SERVERS if server in (args.server or SERVERS)]
    out = (args.results or Path("results") / f"envtest-suites-{datetime.now(UTC):%Y%m%dT%H%M%SZ}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    home = build(packages)
    runs = []
    with tempfile.TemporaryDirectory(prefix="fakeapi-envtest-") as fakeapi_assets:
        kube_assets = kube_binaries("kube-apiserver", "etcd", "kubectl")
        write_assets(Path(fakeapi_assets), str(kube_assets / "kubectl"))
        assets = {"kube": kube_assets, "fakeapi": Path(fakeapi_assets)}
        for package in packages:
            for server in servers:
                run = run_suite(home, package, server, assets[server], out, args.focus, args.seed)
                print(f"envtest-suites: pkg/{package} on {server}: {run.passed} passed, {run.failed} failed "
                      f"in {run.seconds:.0f} s {run.error}", file=sys.stderr)
                runs.append(run)
    summary = f"ginkgo's seed: {args.seed}\n\n" + summarize(runs)
    (out / "summary.md").write_text(summary + "\n")
    print(summary)
    return 1 if blamed(runs) or any(run.error for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
