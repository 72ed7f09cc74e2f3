"""What an envtest-based suite pays around its specs, on ``fakeapi envtest``'s executables and on the
real kube-apiserver v1.35.4 + etcd v3.6.6: envtest's start of the control plane (to ready), the
installation of a CRD (envtest waits until it is served), the stop, and the control plane's memory
(the resident size of the processes envtest started, summed) and CPU once the CRD is installed.
The same Go program (``tests/envtest/cmd/envtest-bench``, controller-runtime v0.23.3) runs on each,
the rounds alternating between them so that a machine busy with other work weighs on both alike;
the table shows the medians, the ratio beside each. Prints numbers; not part of ``make test``.

    .venv/bin/python benchmarks/envtest_bench.py [--rounds 5] [--baseline DIR]

``--baseline DIR``: the files ``fakeapi envtest DIR`` wrote from another checkout (main's, say:
``PYTHONPATH=CHECKOUT python -m fakeapi.cli envtest DIR``), a third contestant in the same rounds,
so that a change is measured against what it changes under the same load.

controller-runtime's own suites' wall times on each are `make envtest-suites`' table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

from fakeapi.cli.envtest import write_assets
from fakeapi.cluster.control_plane import kube_binaries

MODULE = Path(__file__).resolve().parents[1] / "tests" / "envtest"
CRDS = MODULE / "testdata"
PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


def build() -> Path:
    env = dict(os.environ, PATH=os.pathsep.join((os.environ.get("PATH", ""), "/usr/local/go/bin")))
    subprocess.run(["go", "build", "-o", "bin/envtest-bench", "./cmd/envtest-bench"], cwd=MODULE, env=env, check=True)
    return MODULE / "bin" / "envtest-bench"


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children, theirs, ...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def resident_and_cpu(pids: list[int]) -> tuple[float, float]:
    """The summed resident size (MiB) and CPU time (s: user + system) of ``pids``."""
    rss = cpu = 0.0
    for pid in pids:
        try:
            rss += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        cpu += (int(fields[11]) + int(fields[12])) / TICKS
    return rss / 2**20, cpu


def one_round(program: Path, assets: Path) -> dict[str, float]:
    env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "KUBEBUILDER_ASSETS": str(assets)}
    proc = subprocess.Popen([str(program), "-crds", str(CRDS)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    result: dict[str, float] = {}
    for line in proc.stdout:
        message = json.loads(line)
        if "timing" in message:
            result[message["timing"]] = message["seconds"]
        elif message.get("step") == "installed":
            result["memory"], result["cpu"] = resident_and_cpu(descendants(proc.pid))
            proc.stdin.write("\n")
            proc.stdin.flush()
    if proc.wait() != 0:
        raise SystemExit(f"envtest-bench failed on {assets}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="another fakeapi envtest's files, run alongside")
    args = parser.parse_args()
    program = build()
    real = kube_binaries("kube-apiserver", "etcd", "kubectl")
    with tempfile.TemporaryDirectory(prefix="fakeapi-envtest-bench-") as directory:
        write_assets(Path(directory), str(real / "kubectl"))
        servers = {"fakeapi": Path(directory), **({"baseline": args.baseline} if args.baseline else {}), "kube": real}
        rounds: dict[str, list[dict[str, float]]] = {name: [] for name in servers}
        for _ in range(args.rounds):
            for name, assets in servers.items():
                rounds[name].append(one_round(program, assets))
    rows = [("start to ready (s)", "start"), ("CRD install (s)", "crd-install"), ("stop (s)", "stop"),
            ("memory at rest (MiB)", "memory"), ("CPU to installed (s)", "cpu")]
    print(f"envtest, median of {args.rounds} rounds each (load average {os.getloadavg()[0]:.1f})\n")
    baseline = " | baseline" if args.baseline else ""
    print(f"| phase | fakeapi{baseline} | kube-apiserver + etcd | kube / fakeapi |")
    print("|---|---|---|---|" + ("---|" if args.baseline else ""))
    for label, key in rows:
        medians = {name: statistics.median(r[key] for r in results) for name, results in rounds.items()}
        shown = " | ".join(f"{medians[name]:.2f}" for name in servers)
        print(f"| {label} | {shown} | {medians['kube'] / medians['fakeapi']:.1f}x |")


if __name__ == "__main__":
    main()
