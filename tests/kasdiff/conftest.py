"""The differential suite's two servers: one ``fakeapi serve`` process and one real
kube-apiserver v1.35.4 over a real etcd v3.6.6 (``fakeapi.cluster.control_plane``; the binaries
are built by ``scripts/build-kube.sh``, a warm Go build cache makes that seconds). Both live for
the whole session; every case works in namespaces of its own, created on both.

fakeapi runs without its built-in controllers: the oracle runs no controller-manager either, so
neither server has a garbage collector or a namespace controller. ``KASDIFF_FAKEAPI_ARGS`` adds
arguments of ``fakeapi serve`` (e.g. ``--workers 2``: the suite against fakeapi as two API
workers over a store process)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from differ import FAKEAPI_ARGS, NAMESPACE, Outcome, Pair, table

from fakeapi.testing import ServerProcess
from fakeapi.cluster.control_plane import KubeAPIServer, real_apiserver

#: The report of a run against the default fakeapi (a run with other arguments writes none).
_REPORT = Path(__file__).parent / "last-report.txt"


@pytest.fixture(scope="session")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeAPIServer]:
    with real_apiserver(tmp_path_factory.mktemp("oracle")) as server:
        yield server


@pytest.fixture(scope="session")
def fake_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("fakeapi"), "--controllers", "", *FAKEAPI_ARGS) as server:
        yield server


@pytest.fixture(scope="session")
def outcomes() -> Iterator[list[Outcome]]:
    """Every compared step of the session; the table is printed and written at the end."""
    recorded: list[Outcome] = []
    yield recorded
    if recorded:
        report = table(recorded)
        if not FAKEAPI_ARGS:
            _REPORT.write_text(report + "\n")
        print("\n" + report)


@pytest.fixture(scope="session")
def pair(real_server: KubeAPIServer, fake_server: ServerProcess, outcomes: list[Outcome]) -> Iterator[Pair]:
    # Both as their administrator (fakeapi's kubeconfig token; kube's static token).
    both = Pair(fake_server.http, real_server.http)
    both.outcomes = outcomes
    for client in (fake_server.http, real_server.http):
        response = client.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}})
        assert response.status_code in (201, 409), response.text
    yield both
