"""The plugin's in-process server frees every app it stops (a fresh app per test must not pile
up stores, caches and controllers)."""

from __future__ import annotations

import gc
from pathlib import Path

import httpx

from fakeapi.http.app import Server
from fakeapi.testing.embedded import EmbeddedServer


def test_stopped_apps_are_freed(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path) as embedded:
        for _ in range(5):
            embedded.start_app()
            for path in ("/version", "/api/v1/namespaces", "/openapi/v3", "/metrics", "/fakeapi/v1/faults"):
                assert httpx.get(embedded.url + path).status_code == 200, path
            embedded.stop_app()
        gc.collect()
        assert sum(isinstance(obj, Server) for obj in gc.get_objects()) == 0
