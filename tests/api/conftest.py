"""A real ``fakeapi serve`` process per module, on a free loopback port, and clients for it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator

import pytest

from fakeapi.testing import ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("fakeapi")) as srv:
        yield srv


@pytest.fixture(scope="module")
def kubectl_env(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    if shutil.which("kubectl") is None:
        pytest.fail("kubectl is required (make test installs it)")
    env = dict(os.environ)
    env["KUBECONFIG"] = str(server.kubeconfig)
    env["KUBECACHEDIR"] = str(tmp_path_factory.mktemp("kubecache"))
    return env


@pytest.fixture(scope="module")
def kubectl(kubectl_env: dict[str, str]) -> Callable[..., str]:
    """Runs kubectl against the server: ``kubectl("get", "pods")`` -> stdout. A failure raises,
    unless ``check=False``, which returns stdout and stderr together."""

    def run(*args: str, input: str | None = None, check: bool = True) -> str:
        proc = subprocess.run(["kubectl", *args], env=kubectl_env, input=input, capture_output=True, text=True,
                              timeout=60)
        if check and proc.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed: {proc.stderr}")
        return proc.stdout + (proc.stderr if not check else "")

    return run


@pytest.fixture(scope="module")
def api_client(server: ServerProcess):  # type: ignore[no-untyped-def]
    from kubernetes import client, config

    cfg = client.Configuration()
    config.load_kube_config(config_file=str(server.kubeconfig), client_configuration=cfg)
    with client.ApiClient(cfg) as api:
        yield api
