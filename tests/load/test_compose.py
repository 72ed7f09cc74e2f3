"""docker-compose.yml parses, has the services the load tests need, and every file it or the
Dockerfile refers to exists (no Docker engine here to run it)."""

from __future__ import annotations

from pathlib import Path

import yaml

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
