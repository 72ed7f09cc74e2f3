"""The plugin's in-process server frees every app it stops (a fresh app per test must not pile
up stores, caches and controllers)."""

from __future__ import annotations

import gc
import logging
import weakref
from pathlib import Path

import httpx
import pytest

from fakeapi.server import Server
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


def test_stopped_apps_leave_little_to_the_collector(tmp_path: Path) -> None:
    """A stopped app is freed by reference counting, its cycles broken: the collector's full
    passes would otherwise walk ~4,000 objects of every app stopped since the previous one."""
    with EmbeddedServer(tmp_path) as embedded:
        for _ in range(2):
            embedded.start_app()
            embedded.stop_app()
        gc.collect()
        gc.disable()
        try:
            for _ in range(5):
                embedded.start_app()
                assert httpx.get(embedded.url + "/api/v1/namespaces").status_code == 200
                embedded.stop_app()
            unreachable = gc.collect()
        finally:
            gc.enable()
    assert unreachable < 5 * 1000, unreachable


def test_an_app_stopped_under_a_watch_is_released_once_the_watch_ends(tmp_path: Path,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    """The release waits for the app's requests: a watch still open when the app stops ends
    first (its handler unregisters from its cache), then the app's parts go, with no error
    logged. (Its ``Server`` object itself may wait for the next app: the loop thread holds it
    a while.)"""
    with EmbeddedServer(tmp_path) as embedded:
        embedded.start_app()  # the first app's stop freezes what the process holds then (gc.freeze)
        embedded.stop_app()
        embedded.start_app()
        registry = weakref.ref(embedded.server.registry)
        lines: list[str] = []
        with httpx.stream("GET", embedded.url + "/api/v1/namespaces?watch=1") as response:
            stream = response.iter_lines()
            lines.append(next(stream))  # ADDED of a namespace: the watch is open
            with caplog.at_level(logging.ERROR):
                embedded.stop_app()
            lines.extend(stream)  # the server ended it
        gc.collect()
        assert registry() is None
    assert '"type":"ADDED"' in lines[0]
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []
