"""controller-runtime's envtest on ``fakeapi envtest``'s executables and on the real kube-apiserver
v1.35.4, etcd and kubectl: the same Go program (cmd/envtest-check: a CRD, controller-runtime's
client creating, getting, listing and watching, a manager with its controller and a validating
webhook envtest installs, RBAC for a second user, a service-account token checked with envtest's
signing key, extension-apiserver-authentication naming envtest's client CA alone, a namespace
deleted, the stop) sees the same outcomes from both, whether envtest finds the executables through
KUBEBUILDER_ASSETS or TEST_ASSET_*; with USE_EXISTING_CLUSTER=true it runs on a ``fakeapi serve``;
a test binary killed outright leaves no fakeapi process behind; and the kube-apiserver's command
line is kube's (its flags, its errors)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fakeapi.cli.envtest_etcd import ORPHAN_GRACE, PARENT_POLL
from fakeapi.cli.kube_apiserver_flags import KUBE_APISERVER_FLAGS
from fakeapi.cluster.control_plane import kube_binaries
from fakeapi.testing import ServerProcess

MODULE = Path(__file__).resolve().parent
CRDS = MODULE / "testdata"
ASSETS = ("kube-apiserver", "etcd", "kubectl")
#: The steps that need envtest's own control plane (its users are its client CA's certificates; its
#: directories are its to remove).
OWN_CONTROL_PLANE_STEPS = ("forbidden", "grant", "granted", "granted-other-namespace", "service-account-token",
                           "extension-apiserver-authentication", "dirs-left")


@pytest.fixture(scope="module")
def real_assets() -> Path:
    return kube_binaries(*ASSETS)


@pytest.fixture(scope="module")
def fakeapi_assets(tmp_path_factory: pytest.TempPathFactory, real_assets: Path) -> Path:
    """``fakeapi envtest DIR``, run as a user runs it."""
    directory = tmp_path_factory.mktemp("assets")
    result = subprocess.run([sys.executable, "-m", "fakeapi.cli", "envtest", str(directory),
                             "--kubectl", str(real_assets / "kubectl")], capture_output=True, text=True, check=True)
    assert result.stdout == f"export KUBEBUILDER_ASSETS={directory}\n"
    assert sorted(path.name for path in directory.iterdir()) == sorted(ASSETS)
    return directory


@pytest.fixture(scope="module")
def envtest_check(go_build: Callable[[Path, str], Path]) -> Path:
    return go_build(MODULE, "./cmd/envtest-check")


def run_check(program: Path, **env: str) -> tuple[dict[str, Any], dict[str, float]]:
    """envtest-check's steps ({name: result}) and timings, run with ``env`` only (and PATH, HOME)."""
    result = subprocess.run([str(program), "-crds", str(CRDS)], capture_output=True, text=True, timeout=300,
                            env={"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], **env})
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    steps = {line["step"]: line["result"] for line in lines if "step" in line}
    assert result.returncode == 0, f"{steps}\n{result.stderr[-4000:]}"
    return steps, {line["timing"]: line["seconds"] for line in lines if "timing" in line}


@pytest.fixture(scope="module")
def real_outcome(envtest_check: Path, real_assets: Path) -> tuple[dict[str, Any], dict[str, float]]:
    return run_check(envtest_check, KUBEBUILDER_ASSETS=str(real_assets))


def test_kubebuilder_assets_match_the_real_binaries(envtest_check: Path, fakeapi_assets: Path,
                                                    real_outcome: tuple[dict[str, Any], dict[str, float]]) -> None:
    real_steps, real_timings = real_outcome
    steps, timings = run_check(envtest_check, KUBEBUILDER_ASSETS=str(fakeapi_assets))
    print(f"envtest start/stop: fakeapi {timings}, kube-apiserver + etcd {real_timings}")
    assert steps == real_steps
    # What the comparison rests on: the program got as far as the stop, envtest's directories went.
    assert steps["dirs-left"] == 0 and steps["stop"] is None
    assert steps["namespace-after-delete"]["phase"] == "Terminating"  # no namespace controller, as under envtest
    # envtest's service-account key (an EC P-256 key, its certificate the key file) signs the tokens.
    assert steps["service-account-token"] == {"alg": "ES256", "kid-is-envtests-key": True, "verified": True,
                                              "issuer-is-envtests": True}


def test_test_asset_variables(envtest_check: Path, fakeapi_assets: Path,
                              real_outcome: tuple[dict[str, Any], dict[str, float]]) -> None:
    steps, _ = run_check(envtest_check, **{f"TEST_ASSET_{name.upper().replace('-', '_')}": str(fakeapi_assets / name)
                                           for name in ASSETS})
    assert steps == real_outcome[0]


def test_existing_cluster(envtest_check: Path, tmp_path: Path,
                          real_outcome: tuple[dict[str, Any], dict[str, float]]) -> None:
    """USE_EXISTING_CLUSTER=true with a ``fakeapi serve``'s kubeconfig: the same outcomes up to the
    namespace's deletion, which fakeapi's namespace controller (a kube-controller-manager's in a
    real cluster) carries out."""
    with ServerProcess(tmp_path, "--tls", "--authorization-mode", "RBAC") as server:
        steps, _ = run_check(envtest_check, USE_EXISTING_CLUSTER="true", KUBECONFIG=str(server.kubeconfig))
    expected = {step: result for step, result in real_outcome[0].items()
                if step not in OWN_CONTROL_PLANE_STEPS and step != "namespace-after-delete"}
    assert {step: result for step, result in steps.items() if step != "namespace-after-delete"} == expected


def _children(pid: int) -> list[int]:
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_no_orphans_when_the_test_binary_is_killed(envtest_check: Path, fakeapi_assets: Path, tmp_path: Path) -> None:
    """SIGKILL to the test binary, which then stops nothing: its kube-apiserver and etcd see their
    parent gone and exit by themselves. (envtest's directories stay, as they would with the real
    binaries: TMPDIR puts them in the test's.)"""
    program = subprocess.Popen([str(envtest_check), "-crds", str(CRDS), "-hold"], stdout=subprocess.PIPE, text=True,
                               env={"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "TMPDIR": str(tmp_path),
                                    "KUBEBUILDER_ASSETS": str(fakeapi_assets)})
    try:
        assert program.stdout is not None
        for line in program.stdout:
            if json.loads(line).get("step") == "held":
                break
        children = _children(program.pid)
        assert len(children) == 2, children  # etcd and kube-apiserver
    finally:
        program.send_signal(signal.SIGKILL)
        program.wait()
    deadline = time.monotonic() + ORPHAN_GRACE + 10 * PARENT_POLL
    while any(map(_alive, children)) and time.monotonic() < deadline:
        time.sleep(PARENT_POLL)
    assert not any(map(_alive, children))


def _kube_help_flags(help_text: str) -> dict[str, str]:
    """Each flag of a pflag ``--help`` with the type it prints (``bool`` where it prints none)."""
    flags = {}
    for line in help_text.splitlines():
        match = re.match(r"^\s+(?:-\w, )?--([\w-]+)(?: (\S+))?(?:\s{2,}|$)", line)
        if match:
            flags[match.group(1)] = match.group(2) or "bool"
    return flags


def test_the_flag_table_is_kube_apiservers(real_assets: Path, fakeapi_assets: Path) -> None:
    real = subprocess.run([str(real_assets / "kube-apiserver"), "--help"], capture_output=True, text=True)
    assert _kube_help_flags(real.stdout + real.stderr) == KUBE_APISERVER_FLAGS
    fake = subprocess.run([str(fakeapi_assets / "kube-apiserver"), "--help"], capture_output=True, text=True)
    assert fake.returncode == 0
    assert set(_kube_help_flags(fake.stdout)) == set(KUBE_APISERVER_FLAGS)


@pytest.mark.parametrize("argv", [
    ["--nope=1"], ["--secure-port"], ["--secure-port=abc"], ["-x"], ["-v"], ["foo"], ["--", "foo"],
    ["--anonymous-auth=maybe"],
    ["--version"], ["--version=false", "--nope"],
], ids=repr)
def test_command_line_errors_are_kubes(argv: list[str], real_assets: Path, fakeapi_assets: Path) -> None:
    """What kube-apiserver says of a command line it refuses (or of --version), first line and
    exit code, without starting a server."""
    def first_line(binary: Path) -> tuple[int, str]:
        result = subprocess.run([str(binary), *argv], capture_output=True, text=True, timeout=60)
        return result.returncode, (result.stdout + result.stderr).splitlines()[0]

    assert first_line(fakeapi_assets / "kube-apiserver") == first_line(real_assets / "kube-apiserver")
