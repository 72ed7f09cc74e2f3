"""Clients for the client-report tests: the Python ``kubernetes`` client under a User-Agent of
the test's choosing (each its own ApiClient, so its own connections)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kubernetes import client, config
from report_helpers import Clients

from fakeapi.testing import FakeAPI


@pytest.fixture
def python_client(fakeapi: FakeAPI) -> Iterator[Clients]:
    """``python_client("my-controller/1.0")``: a CoreV1Api sending that User-Agent."""
    opened: list[client.ApiClient] = []

    def make(user_agent: str) -> client.CoreV1Api:
        configuration = client.Configuration()
        config.load_kube_config(config_file=str(fakeapi.kubeconfig), client_configuration=configuration)
        api = client.ApiClient(configuration)
        api.user_agent = user_agent
        opened.append(api)
        return client.CoreV1Api(api)

    yield make
    for api in opened:
        api.close()
