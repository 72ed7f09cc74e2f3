"""docker-compose.yml parses, has the services the load tests need, and every file it or the
Dockerfile refers to exists (no Docker engine here to run it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml
from cpu import locust_processes_for

ROOT = Path(__file__).resolve().parents[2]


def test_compose_file_is_complete() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"fakeapi", "master", "worker", "prometheus"}
    for name in ("fakeapi", "master", "worker"):
        assert services[name]["build"] == "."
    assert (ROOT / "Dockerfile").is_file()
    for service in services.values():
        for volume in service.get("volumes", ()):
            host = volume.split(":", 1)[0]
            if host.startswith("./") and host != "./results":  # results/ is made by the run
                assert (ROOT / host).exists(), volume
    # The Locust services run a profile from loadtests/ (the default and what PROFILE names).
    default_profile = services["master"]["command"][2].split(":-")[1].rstrip("}")
    assert (ROOT / "loadtests" / default_profile).is_file()
    prometheus = yaml.safe_load((ROOT / "deploy" / "prometheus.yml").read_text())
    targets = prometheus["scrape_configs"][0]["static_configs"][0]["targets"]
    assert targets == ["fakeapi:6443"]


def test_dockerfile_copies_what_exists() -> None:
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), line


def _worker_command(environment: dict[str, str]) -> list[str]:
    """The worker's shell command as its container would run it (compose's ``$$`` is ``$``),
    with ``echo`` for ``exec``: the Locust command line it starts."""
    script = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["worker"]["command"]
    assert script[:2] == ["sh", "-c"]
    env = {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "PROFILE": "watch_fanout.py", **environment}
    return subprocess.run(["sh", "-c", script[2].replace("$$", "$").replace("exec ", "echo ", 1)], env=env,
                          cwd=ROOT / "loadtests", capture_output=True, text=True, check=True).stdout.split()


def test_worker_runs_a_process_per_core_left_after_the_server() -> None:
    command = _worker_command({"WORKER_PROCESSES": ""})  # compose passes it empty when unset
    assert command[:3] == ["locust", "-f", "watch_fanout.py"] and "--worker" in command
    assert command[command.index("--processes") + 1] == str(locust_processes_for())
    chosen = _worker_command({"WORKER_PROCESSES": "3"})
    assert chosen[chosen.index("--processes") + 1] == "3"
