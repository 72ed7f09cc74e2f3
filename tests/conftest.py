"""Fixtures shared by every test directory, the client-go informer harness
(``clientgo/cmd/informer-harness``) driven from pytest (tests/clientgo, tests/faults), and the
rule that a skipped test fails a CI run (``SkipsFailInCI``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

#: tests/plugin runs whole pytest sessions of user test files (pytest_plugins may only be set here).
pytest_plugins = ["pytester"]

GO_FALLBACK_DIR = "/usr/local/go/bin"
CLIENTGO_DIR = Path(__file__).parent / "clientgo"
INFORMERS = ("pods", "configmaps", "dyn-configmaps", "meta-pods")

Message = dict[str, Any]

# How fast Hypothesis draws inputs depends on the machine's load (a CI machine runs kube-apiserver,
# etcd and the xdist workers beside a test): a slow draw says nothing of the property under test.
settings.register_profile("fakeapi", suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("fakeapi")


def _go() -> str:
    go = shutil.which("go") or shutil.which("go", path=GO_FALLBACK_DIR)
    if go is None:
        pytest.fail("Go is required to build the Go test programs (make test installs it)")
    return go


@pytest.fixture(scope="session")
def go_build() -> Callable[[Path, str], Path]:
    """Builds a Go test program: ``go_build(module_dir, "./cmd/x")`` -> ``module_dir/bin/x``.
    Go's build cache makes a rebuild of an unchanged program a fraction of a second."""
    built: dict[tuple[Path, str], Path] = {}

    def build(module_dir: Path, package: str) -> Path:
        key = (module_dir, package)
        if key not in built:
            output = module_dir / "bin" / Path(package).name
            result = subprocess.run(
                [_go(), "build", "-o", str(output), package], cwd=module_dir,
                capture_output=True, text=True,
            )
            if result.returncode != 0:
                pytest.fail(f"go build {package} in {module_dir} failed:\n{result.stderr}")
            built[key] = output
        return built[key]

    return build



class Harness:
    """One harness process: its stdout messages are collected by a reader thread into
    ``messages`` (in order); ``wait_for`` polls them."""

    def __init__(self, binary: Path, kubeconfig: Path, watch_list: bool, pause_file: Path, stderr: Path,
                 extra_args: tuple[str, ...] = ()) -> None:
        self._stderr = stderr.open("w")
        self.process = subprocess.Popen(
            [str(binary), "--kubeconfig", str(kubeconfig), "--timeout", "120s", "--pause-watch-file", str(pause_file),
             *extra_args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True,
            env={"KUBE_FEATURE_WatchListClient": "true" if watch_list else "false", "PATH": "/usr/bin:/bin"},
        )
        self.stderr_path = stderr
        self.messages: list[Message] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._lock:
                self.messages.append(json.loads(line))

    def snapshot(self) -> list[Message]:
        with self._lock:
            return list(self.messages)

    def wait_for(self, predicate: Callable[[list[Message]], Any], what: str, timeout: float = 30.0) -> Any:
        """Poll until ``predicate(messages)`` is truthy and return it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = predicate(self.snapshot())
            if result:
                return result
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"harness: no {what} within {timeout}s\nstdout: {self.snapshot()[-30:]}\n"
                             f"stderr: {self.stderr_path.read_text()[-3000:]}")

    def events(self, informer: str, after: int = 0, until: int | None = None) -> list[tuple[str, str, str]]:
        """(type, name, rv) of the informer's handler events in messages ``[after:until]``."""
        return [(m["type"], m["name"], m["rv"]) for m in self.snapshot()[after:until]
                if m["kind"] == "event" and m["informer"] == informer]

    def dump(self) -> dict[str, dict[str, str]]:
        """Each informer's store as {name: resourceVersion}."""
        start = len(self.snapshot())
        self._send("dump")
        dumps = self.wait_for(
            lambda ms: [m for m in ms[start:] if m["kind"] == "dump"] if
            sum(m["kind"] == "dump" for m in ms[start:]) == len(INFORMERS) else None, "dump")
        return {m["informer"]: m["objects"] for m in dumps}

    def _send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def quit(self) -> int:
        self._send("quit")
        code = self.process.wait(15)
        self._reader.join(5)
        self._stderr.close()
        return code


@pytest.fixture(scope="session")
def harness_binary(go_build: Callable[[Path, str], Path]) -> Path:
    return go_build(CLIENTGO_DIR, "./cmd/informer-harness")


@pytest.fixture
def start_harness(harness_binary: Path, tmp_path: Path) -> Iterator[Callable[..., Harness]]:
    started: list[Harness] = []

    def start(kubeconfig: Path, watch_list: bool, pause_file: Path, *extra_args: str) -> Harness:
        """``extra_args``: the harness's flags (``--content-type=json``, ``--trace-http``, klog's ``-v=4``)."""
        harness = Harness(harness_binary, kubeconfig, watch_list, pause_file, tmp_path / f"harness-{len(started)}.err",
                          extra_args)
        started.append(harness)
        return harness

    yield start
    for harness in started:
        if harness.process.poll() is None:
            harness.process.kill()
            harness.process.wait()


class SkipsFailInCI:
    """In CI (``CI=true``, as ``.ci/run`` exports) every dependency of every test is installed,
    so a skip can only be a test that did not run and passed unnoticed: each skipped test (a
    skip marker, ``pytest.skip``, ``importorskip``, a skipped module) fails the run, listed with
    its reason. An expected failure (``xfail``) is a result, not a skip, and is left alone."""

    def __init__(self) -> None:
        self.skipped: list[pytest.TestReport | pytest.CollectReport] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):  # an xfail is reported as skipped
            self.skipped.append(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.skipped:
            self.skipped.append(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.skipped and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.skipped:
            return
        terminalreporter.write_sep("=", f"{len(self.skipped)} skipped in CI, which fails the run", red=True)
        terminalreporter.write_line("CI=true: every dependency is installed, so no test may be skipped.")
        for report in self.skipped:
            terminalreporter.write_line(f"SKIPPED {report.nodeid}: {_skip_reason(report, terminalreporter.startpath)}")


def _skip_reason(report: pytest.TestReport | pytest.CollectReport, start: Path) -> str:
    """Where the skip happened and why, as pytest's short summary shows it."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # (path, line, "Skipped: reason")
        path, line, reason = longrepr
        return f"{os.path.relpath(path, start)}:{line}: {reason.removeprefix('Skipped: ')}"
    return str(longrepr)


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("CI") == "true":
        config.pluginmanager.register(SkipsFailInCI(), "skips-fail-in-ci")
