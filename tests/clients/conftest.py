"""Clients for the client-report tests: the Python ``kubernetes`` client under a User-Agent of
the test's choosing (each its own ApiClient, so its own connections)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from kubernetes import client, config

from fakeapi.testing import FakeAPI

Clients = Callable[[str], client.CoreV1Api]


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


def row(report: dict, client_name: str, verb: str, resource: str, scope: str | None = None) -> dict:
    """One client's counters for a verb and resource (summed over scopes unless one is named)."""
    client_data = next(c for c in report["clients"] if c["client"] == client_name)
    rows = [r for r in client_data["requests"] if r["verb"] == verb and r["resource"] == resource
            and (scope is None or r["scope"] == scope)]
    assert rows, f"no {verb} {resource} rows for {client_name}: {client_data['requests']}"
    total = dict.fromkeys(rows[0], 0)
    for r in rows:
        for key, value in r.items():
            total[key] = value if isinstance(value, str) else total[key] + value
    return total
