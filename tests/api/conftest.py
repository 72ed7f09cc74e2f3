"""A real ``fakeapi serve`` process per module, on a free loopback port, and clients for it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

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
def api_client(server: ServerProcess):  # type: ignore[no-untyped-def]
    from kubernetes import client, config

    cfg = client.Configuration()
    config.load_kube_config(config_file=str(server.kubeconfig), client_configuration=cfg)
    with client.ApiClient(cfg) as api:
        yield api
