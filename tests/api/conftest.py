"""A real ``fakeapi serve`` process per module, on a free loopback port, and clients for it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest


@dataclass
class RunningServer:
    url: str
    kubeconfig: Path
    process: subprocess.Popen[str]

    def compact(self, revision: int | None = None) -> dict:
        body = {} if revision is None else {"revision": revision}
        resp = httpx.post(f"{self.url}/fakeapi/v1/compact", json=body)
        resp.raise_for_status()
        return resp.json()


def start_server(tmp: Path, *extra: str) -> RunningServer:
    kubeconfig = tmp / "kubeconfig"
    proc = subprocess.Popen(
        [sys.executable, "-m", "fakeapi.cli", "serve", "--port", "0", "--kubeconfig", str(kubeconfig),
         "--compaction-interval", "0", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "listening on" not in line:
        proc.kill()
        raise RuntimeError(f"fakeapi did not start: {line}{proc.stdout.read()}")
    url = line.split("listening on ")[1].split()[0]
    return RunningServer(url, kubeconfig, proc)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    srv = start_server(tmp_path_factory.mktemp("fakeapi"))
    yield srv
    srv.process.terminate()
    srv.process.wait(10)


@pytest.fixture(scope="module")
def kubectl_env(server: RunningServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    if shutil.which("kubectl") is None:
        pytest.fail("kubectl is required (make test installs it)")
    env = dict(os.environ)
    env["KUBECONFIG"] = str(server.kubeconfig)
    env["KUBECACHEDIR"] = str(tmp_path_factory.mktemp("kubecache"))
    return env


@pytest.fixture(scope="module")
def api_client(server: RunningServer):  # type: ignore[no-untyped-def]
    from kubernetes import client, config

    cfg = client.Configuration()
    config.load_kube_config(config_file=str(server.kubeconfig), client_configuration=cfg)
    with client.ApiClient(cfg) as api:
        yield api
