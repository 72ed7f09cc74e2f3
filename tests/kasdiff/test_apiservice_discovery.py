"""The availability controllers' discovery check against the real kube-apiserver: APIServices
behind an ExternalName Service naming 127.0.0.1, so that both servers call the same backend on
the host (``discovery_backend``; kube resolves a ClusterIP Service to its cluster IP, which
leads nowhere on the host, fakeapi to its endpoints). Each APIService's ``Available`` condition,
once both servers have set it, must be kube's: ``Passed``, or ``FailedDiscoveryCheck`` with Go's
error text (a bad status, a refused connection, a backend slower than the check's timeout), and
``Passed`` once a backend that was down comes up (the failed check tried again)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from differ import NAMESPACE, Pair
from discovery_backend import DiscoveryBackend

from fakeapi.cluster.control_plane import free_port

_API_SERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
_SERVICE = "discovery-backend"
#: Longer than the check's timeout and kube's first retries.
_CONDITION_TIMEOUT = 20.0
#: Go's http.Client words its timeout as its timer or the transport's cancellation reports it
#: first: kube-apiserver answers any of these for the same backend.
_GO_TIMEOUT = re.compile(r"(net/http: request canceled|context deadline exceeded)"
                         r"( \(Client\.Timeout exceeded while awaiting headers\))?$")


def _one_timeout_phrasing(answer: Any, is_fake: bool) -> Any:
    for condition in (answer.get("status") or {}).get("conditions") or ():
        condition["message"] = _GO_TIMEOUT.sub("<the client's timeout>", condition.get("message", ""))
    return answer


@pytest.fixture(scope="module")
def backend(pair: Pair) -> Iterator[DiscoveryBackend]:
    service = {"metadata": {"name": _SERVICE}, "spec": {"type": "ExternalName", "externalName": "127.0.0.1"}}
    for client in (pair.fake, pair.real):
        response = client.post(f"/api/v1/namespaces/{NAMESPACE}/services", json=service)
        assert response.status_code in (201, 409), response.text
    time.sleep(1)  # kube's availability controller reads Services from an informer
    with DiscoveryBackend() as server:
        yield server
    for client in (pair.fake, pair.real):
        client.delete(f"/api/v1/namespaces/{NAMESPACE}/services/{_SERVICE}")


def _available(pair: Pair, name: str, reason: str | None = None) -> None:
    """Wait until both servers' APIService has an Available condition (of ``reason``), then
    compare the APIServices."""
    deadline = time.monotonic() + _CONDITION_TIMEOUT
    for client in (pair.fake, pair.real):
        while time.monotonic() < deadline:
            status = client.get(f"{_API_SERVICES}/{name}").json().get("status") or {}
            if any(c["type"] == "Available" and reason in (None, c.get("reason")) for c in status.get("conditions") or ()):
                break
            time.sleep(0.1)
    outcome = pair.send(name, "APIService", "get-available", "GET", f"{_API_SERVICES}/{name}",
                        rewrite=_one_timeout_phrasing)
    assert not outcome.differences, "\n".join(outcome.differences)


def _create(pair: Pair, group: str, port: int) -> str:
    name = f"v1.{group}"
    outcome = pair.send(name, "APIService", "create", "POST", _API_SERVICES, body=(
        b'{"metadata":{"name":"%s"},"spec":{"group":"%s","version":"v1","groupPriorityMinimum":100,'
        b'"versionPriority":10,"insecureSkipTLSVerify":true,"service":{"namespace":"%s","name":"%s","port":%d}}}'
        % (name.encode(), group.encode(), NAMESPACE.encode(), _SERVICE.encode(), port)))
    assert not outcome.differences, "\n".join(outcome.differences)
    return name


@pytest.fixture
def api_services(pair: Pair) -> Iterator[list[str]]:
    """The names a test creates, deleted after it on both servers."""
    names: list[str] = []
    yield names
    for name in names:
        for client in (pair.fake, pair.real):
            client.delete(f"{_API_SERVICES}/{name}")


@pytest.mark.parametrize("group", ["passed.discovery.kasdiff.example.com", "missing.discovery.kasdiff.example.com",
                                   "slow.discovery.kasdiff.example.com"])
def test_the_backend_answers(pair: Pair, backend: DiscoveryBackend, api_services: list[str], group: str) -> None:
    api_services.append(_create(pair, group, backend.port))
    _available(pair, api_services[-1])


def test_a_backend_that_comes_up_is_found(pair: Pair, backend: DiscoveryBackend, api_services: list[str]) -> None:
    port = free_port()
    api_services.append(_create(pair, "passed.later.kasdiff.example.com", port))
    _available(pair, api_services[-1])  # connection refused
    with DiscoveryBackend(port):
        _available(pair, api_services[-1], "Passed")
