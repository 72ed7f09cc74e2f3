"""The plugin's in-process server frees every app it stops (a fresh app per test must not pile
up stores, caches and controllers)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import httpx

from fakeapi.http.app import Server
from fakeapi.testing.embedded import EmbeddedServer


def test_stopped_apps_are_freed(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path) as embedded:
        started: list[weakref.ref[Server]] = []
        for _ in range(5):
            embedded.start_app()
            started.append(weakref.ref(embedded.server))
            for path in ("/version", "/api/v1/namespaces", "/openapi/v3", "/metrics", "/fakeapi/v1/faults"):
                assert httpx.get(embedded.url + path).status_code == 200, path
            embedded.stop_app()
        gc.collect()
        # this test's servers only: other tests of the session may hold theirs
        assert [ref for ref in started if ref() is not None] == []
