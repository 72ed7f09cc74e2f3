"""A handler that fails (a fakeapi bug) is answered as kube-apiserver's panic filter answers, and
the connection goes on serving: a client that keeps it alive is not reset on its next request."""

from __future__ import annotations

import http.client
from pathlib import Path
from typing import NoReturn

import pytest

from fakeapi.http import resources
from fakeapi.http.recovery import PANIC_MESSAGE
from fakeapi.testing.embedded import HOST, EmbeddedServer


def test_a_failed_handler_is_answered_and_its_connection_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def fail(*_args: object) -> NoReturn:
        raise RuntimeError("a bug")

    with EmbeddedServer(tmp_path) as embedded:
        embedded.start_app()
        connection = http.client.HTTPConnection(HOST, embedded.port, timeout=10)
        try:
            with monkeypatch.context() as patched:
                patched.setattr(resources, "_handle", fail)
                connection.request("GET", "/api/v1/namespaces")
                response = connection.getresponse()
                assert (response.status, response.read()) == (500, PANIC_MESSAGE)
                assert response.getheader("Content-Type") == "text/plain; charset=utf-8"
                assert response.getheader("X-Content-Type-Options") == "nosniff"
                assert response.getheader("Connection") is None
            connection.request("GET", "/api/v1/namespaces")  # on the same connection
            response = connection.getresponse()
            assert response.status == 200, response.read()
            response.read()
        finally:
            connection.close()
