"""``fakeapi cluster``: one line once the cluster is ready, kubectl works with the kubeconfig it
wrote, each component logs to its own file in ``--logs``, and Ctrl-C (SIGINT) or SIGTERM stops
every process it started — and only those; bad flags fail before anything starts."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from fakeapi.cluster.control_plane import STOP_GRACE, kube_binaries, kubectl_binary

#: What the command may need to exit beyond the stop of its components, on a busy machine: the
#: stop signals them all at once and kills those still running after STOP_GRACE, so it takes at
#: most that (the slowest one's own time, not the sum of theirs); the rest is its own exit.
EXIT_SLACK = 30.0


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture(scope="module", autouse=True)
def _binaries() -> None:
    kube_binaries("kube-controller-manager", "kube-scheduler", "kwok", "kubectl")


def test_cluster_command_runs_until_ctrl_c(tmp_path: Path) -> None:
    kubeconfig, logs = tmp_path / "kubeconfig", tmp_path / "logs"
    bystander = subprocess.Popen(["sleep", "300"])  # not the cluster's: it must outlive the cluster
    command = subprocess.Popen(
        [sys.executable, "-m", "fakeapi.cli", "cluster", "--nodes", "2", "--port", "0",
         "--kubeconfig", str(kubeconfig), "--logs", str(logs)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert command.stdout is not None and command.stderr is not None
        line = command.stdout.readline()
        assert line.startswith("fakeapi cluster: ready in "), line + command.stderr.read()
        assert "2 nodes Ready, kube-controller-manager, kube-scheduler, kwok" in line
        nodes = json.loads(subprocess.run([str(kubectl_binary()), "--kubeconfig", str(kubeconfig), "get", "nodes",
                                           "-o", "json"], check=True, capture_output=True, text=True).stdout)
        assert sorted(node["metadata"]["name"] for node in nodes["items"]) == ["kwok-node-0", "kwok-node-1"]
        assert {path.name for path in logs.glob("*.log")} == {
            "fakeapi.log", "kube-controller-manager.log", "kube-scheduler.log", "kwok.log"}
        started = _children(command.pid)
        assert len(started) == 4
        command.send_signal(signal.SIGINT)
        assert command.wait(STOP_GRACE + EXIT_SLACK) == 0
        stopped = command.stderr.read().splitlines()[-1]
        # What each component took, from the SIGTERM they all got at once to its end.
        took = dict(part.split(" in ") for part in stopped.removeprefix("fakeapi cluster: stopped: ").split(", "))
        assert set(took) == {"fakeapi", "kube-controller-manager", "kube-scheduler", "kwok"}, stopped
        assert not [pid for pid in started if _alive(pid)]
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()
        if command.poll() is None:
            command.kill()
            command.wait()


def test_unknown_stages_fail_before_anything_starts(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fakeapi.cli", "cluster", "--stages", "fast,pod/nope", "--port", "0",
         "--kubeconfig", str(tmp_path / "kubeconfig"), "--logs", str(tmp_path / "logs")],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "unknown kwok stages 'pod/nope'" in result.stderr and "pod/general" in result.stderr, result.stderr
    assert not (tmp_path / "logs").exists()


def test_unknown_components_are_refused(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "fakeapi.cli", "cluster", "--with", "kcm,kubelet"],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 1
    assert "unknown components ['kubelet']; known: kcm, scheduler, kwok" in result.stderr


def test_kwok_alone_runs_with_fakeapis_own_controllers_until_sigterm(tmp_path: Path) -> None:
    command = subprocess.Popen(
        [sys.executable, "-m", "fakeapi.cli", "cluster", "--with", "kwok", "--nodes", "1", "--port", "0",
         "--kubeconfig", str(tmp_path / "kubeconfig"), "--logs", str(tmp_path / "logs")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert command.stdout is not None and command.stderr is not None
        line = command.stdout.readline()
        assert line.startswith("fakeapi cluster: ready in ") and "1 nodes Ready, kwok (" in line, \
            line + command.stderr.read()
        started = _children(command.pid)
        assert len(started) == 2  # fakeapi and kwok
        fakeapi_args = Path(f"/proc/{started[0]}/cmdline").read_text().split("\0")
        assert "--controllers" not in fakeapi_args  # no controller manager: fakeapi's GC and namespace controller run
        command.send_signal(signal.SIGTERM)
        assert command.wait(STOP_GRACE + EXIT_SLACK) == 0
        assert not [pid for pid in started if _alive(pid)]
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()


def test_a_port_in_use_is_refused(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "fakeapi.cli", "cluster", "--port", str(port),
                                 "--kubeconfig", str(tmp_path / "kubeconfig"), "--logs", str(tmp_path / "logs")],
                                capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert f"127.0.0.1:{port} is in use" in result.stderr, result.stderr
