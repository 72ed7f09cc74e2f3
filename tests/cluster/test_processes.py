"""The children of fakeapi's commands and test helpers (``fakeapi.cluster.processes``): they die
with their parent, even one killed by SIGKILL (``fakeapi cluster``'s components, the
control-plane helpers, ``ServerProcess``, ``FakeEtcdProcess``, the workers of ``--workers``),
also when a thread that has ended since spawned them; a stop signals them all at once and takes
the slowest one's time, not the sum of theirs; one deaf to SIGTERM is killed after the grace, and
an interrupt during the stop (a second Ctrl-C) kills them at once."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import psutil
import pytest

from fakeapi.cluster.cluster import Cluster, ClusterConfig
from fakeapi.cluster.control_plane import Component, kube_binaries
from fakeapi.cluster.processes import spawn, stop_all
from fakeapi.testing.server_process import ServerProcess

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")

#: How long the kernel gets to end the orphans: their SIGKILL is sent as their parent dies, so
#: only a machine too busy to schedule anything makes this matter.
DEATH_TIMEOUT = 30.0

#: A child that takes ``argv[1]`` seconds to stop on SIGTERM (or ignores it when that is
#: "deaf"), says "ready" once its handler is in place, and writes the seconds its stop took, from
#: the SIGTERM to its exit, to ``argv[2]``: its own stop time, whatever the machine's load.
SLOW_TO_STOP = """
import os, signal, sys, time
delay, report = sys.argv[1], sys.argv[2]

def stop(*_):
    started = time.monotonic()
    time.sleep(float(delay))
    with open(report, "w") as out:
        out.write(repr(time.monotonic() - started))
    os._exit(0)

signal.signal(signal.SIGTERM, signal.SIG_IGN if delay == "deaf" else stop)
print("ready", flush=True)
while True:
    time.sleep(60)
"""


def _slow_to_stop(delay: str, report: Path) -> subprocess.Popen[str]:
    process = spawn([sys.executable, "-c", SLOW_TO_STOP, delay, str(report)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


def _alive(process: psutil.Process) -> bool:
    """Running, and the process it was (a pid is reused once its process is reaped)."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _survivors_of_sigkill(parent: subprocess.Popen[str], descendants: Sequence[psutil.Process]) -> list[psutil.Process]:
    """Kill ``parent`` with SIGKILL; the ``descendants`` still running ``DEATH_TIMEOUT`` later."""
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + DEATH_TIMEOUT
    while (alive := [process for process in descendants if _alive(process)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


@contextlib.contextmanager
def _parent(argv: Sequence[str]) -> Iterator[subprocess.Popen[str]]:
    """``argv`` as a child of the test, its output piped; killed on the way out if still running."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield process
    finally:
        stop_all([process], grace=0)


def test_a_child_spawned_by_a_thread_outlives_the_thread() -> None:
    """PR_SET_PDEATHSIG's parent is the thread that forked: spawn forks from a thread that lives
    as long as the process, so a child does not die with the pool thread that asked for it."""
    spawned: list[subprocess.Popen[bytes]] = []
    thread = threading.Thread(target=lambda: spawned.append(spawn(["sleep", "300"])))
    thread.start()
    thread.join()
    try:
        time.sleep(0.5)  # the kernel sends the signal as the thread ends: it has had its chance
        assert spawned[0].poll() is None
    finally:
        stop_all(spawned)


def test_a_clusters_components_die_with_fakeapi_cluster_killed_by_sigkill(tmp_path: Path) -> None:
    kube_binaries("kube-controller-manager", "kube-scheduler", "kwok")
    with _parent([sys.executable, "-m", "fakeapi.cli", "cluster", "--nodes", "1", "--port", "0",
                  "--kubeconfig", str(tmp_path / "kubeconfig"), "--logs", str(tmp_path / "logs")]) as command:
        assert command.stdout is not None and command.stderr is not None
        line = command.stdout.readline()
        assert line.startswith("fakeapi cluster: ready in "), line + command.stderr.read()
        components = psutil.Process(command.pid).children(recursive=True)
        assert sorted(Path(component.cmdline()[0]).name for component in components) == [
            "kube-controller-manager", "kube-scheduler", "kwok", Path(sys.executable).name]
        assert not _survivors_of_sigkill(command, components)


#: Starts the helpers of tests and commands, one of them from a thread that ends at once, prints
#: "ready" and sleeps until the test kills it.
PARENT = """
import sys, threading, time
from pathlib import Path
from fakeapi.cluster.control_plane import Etcd
from fakeapi.testing.etcd import FakeEtcdProcess
from fakeapi.testing.server_process import ServerProcess

workdir = Path(sys.argv[1])
helpers = [Etcd(workdir / "etcd"), ServerProcess(workdir), FakeEtcdProcess()]
starter = threading.Thread(target=helpers[-1].start)
starter.start()
starter.join()
print("ready", flush=True)
time.sleep(600)
"""


def test_helpers_die_with_a_parent_killed_by_sigkill(tmp_path: Path) -> None:
    kube_binaries("etcd")
    with _parent([sys.executable, "-c", PARENT, str(tmp_path)]) as parent:
        assert parent.stdout is not None and parent.stderr is not None
        assert parent.stdout.readline() == "ready\n", parent.stderr.read()
        children = psutil.Process(parent.pid).children(recursive=True)
        assert sorted(" ".join(child.cmdline()[:4]) for child in children) == sorted([
            f"{kube_binaries('etcd') / 'etcd'} --name fakeapi-oracle --data-dir",
            f"{sys.executable} -m fakeapi.cli serve", f"{sys.executable} -m fakeapi.cli etcd"])
        assert not _survivors_of_sigkill(parent, children)


def test_workers_and_their_store_die_with_the_supervisor_killed_by_sigkill(tmp_path: Path) -> None:
    with ServerProcess(tmp_path, "--workers", "2") as server:
        children = psutil.Process(server.process.pid).children(recursive=True)
        assert sorted(child.cmdline()[3] for child in children) == ["etcd", "serve", "serve"]
        assert not _survivors_of_sigkill(server.process, children)


def test_a_cluster_stops_its_components_at_once(tmp_path: Path) -> None:
    """The stop takes about the slowest component's own stop time, not the sum of theirs."""
    delays = {"fast": "1", "slower": "2", "slowest": "3"}
    cluster = Cluster(ClusterConfig(nodes=0))
    for name, delay in delays.items():
        component = Component(tmp_path)
        component.name = name
        component.process = _slow_to_stop(delay, tmp_path / name)
        cluster.components[name] = component
    started = time.monotonic()
    cluster.stop()
    took = time.monotonic() - started
    own = {name: float((tmp_path / name).read_text()) for name in delays}
    assert not cluster.components
    assert list(cluster.stop_seconds) == list(delays)
    # Each stop seen no sooner than it ended (the SIGTERM reached it after the stop began).
    assert all(cluster.stop_seconds[name] >= own[name] for name in delays), (cluster.stop_seconds, own)
    slowest, total = max(own.values()), sum(own.values())
    assert slowest <= took < (slowest + total) / 2, f"the stop took {took:.1f} s; the components' own: {own}"
    assert cluster.stopped_summary().startswith("fakeapi cluster: stopped: fast in ")


def test_a_process_deaf_to_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    deaf, polite = _slow_to_stop("deaf", tmp_path / "deaf"), _slow_to_stop("0", tmp_path / "polite")
    took = stop_all([deaf, polite], grace=1.0)
    assert deaf.returncode == -signal.SIGKILL and polite.returncode == 0
    assert took[0] >= 1.0 > took[1]


def test_an_interrupt_during_the_stop_kills_at_once(tmp_path: Path) -> None:
    """A second Ctrl-C: the processes still stopping are killed, and the interrupt goes on."""
    processes = [_slow_to_stop("deaf", tmp_path / "one"), _slow_to_stop("60", tmp_path / "two")]
    # Python's own Ctrl-C, whatever this process inherited: started in the background by a
    # shell without job control (CI scripts, nohup), it ignores SIGINT.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupt = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    interrupt.start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            stop_all(processes, grace=600)
    finally:
        interrupt.cancel()
        signal.signal(signal.SIGINT, inherited)
        stop_all(processes)
    assert time.monotonic() - started < 60  # it did not wait out the slower one's own stop
    assert [process.returncode for process in processes] == [-signal.SIGKILL, -signal.SIGKILL]


#: A program that forks (as ginkgo's CLI forks e2e.test's processes) without fakeapi's spawn: its
#: child runs ``sleep`` through ``python -m fakeapi.cluster.processes``, or directly.
FORKING_PARENT = """
import subprocess, sys
child = subprocess.Popen(sys.argv[1:])
print(child.pid, flush=True)
child.wait()
"""


@pytest.mark.parametrize("through_fakeapi", [True, False])
def test_a_grandchild_run_through_fakeapis_exec_dies_with_the_binary_that_forked_it(through_fakeapi: bool) -> None:
    program = [sys.executable, "-m", "fakeapi.cluster.processes"] * through_fakeapi + ["/bin/sleep", "300"]
    with _parent([sys.executable, "-c", FORKING_PARENT, *program]) as parent:
        assert parent.stdout is not None
        grandchild = psutil.Process(int(parent.stdout.readline()))
        # exec'd: the process fakeapi's exec ran as is sleep itself
        deadline = time.monotonic() + DEATH_TIMEOUT
        while grandchild.name() != "sleep" and time.monotonic() < deadline:
            time.sleep(0.02)
        try:
            survivors = _survivors_of_sigkill(parent, [grandchild])
            # Without it, the kernel gives the orphan to init, and it sleeps on: what the test tells apart.
            assert survivors == ([] if through_fakeapi else [grandchild])
        finally:
            if _alive(grandchild):
                grandchild.kill()
