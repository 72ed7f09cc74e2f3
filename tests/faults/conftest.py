"""A real ``fakeapi serve`` process per module for the fault tests, and a faults reset per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from fakeapi.testing import ServerProcess

@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("fakeapi")) as srv:
        yield srv


@pytest.fixture
def http(server: ServerProcess) -> Iterator[httpx.Client]:
    """The server's client, with every fault cleared after the test."""
    yield server.http
    server.clear_faults()


@pytest.fixture
def listed(server: ServerProcess) -> Callable[[str], dict[str, Any]]:
    """One fault as ``GET /fakeapi/v1/faults`` lists it, by id."""
    return lambda fault_id: next(f for f in server.faults()["faults"] if f["id"] == fault_id)
