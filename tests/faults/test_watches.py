"""Watch faults with real clients: stalls deliver late but complete and in order (and never
overflow a watcher's bounded queue), watches close per namespace, and after a restart the
Python client's watch gets the in-stream 410 and its SharedInformer relists and recovers."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException
from kubernetes.informer import SharedInformer

from fakeapi.cacher import CacheEvent, CachedObject, CacheWatcher
from fakeapi.testing import ServerProcess

NS = "/api/v1/namespaces/default"


class WatchReader:
    """A raw watch stream read on a thread: each line with the time it arrived."""

    def __init__(self, base_url: str, path: str, params: dict[str, str]) -> None:
        self.lines: list[tuple[float, dict[str, Any]]] = []
        self.ended = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(base_url, path, params), daemon=True)
        self._thread.start()

    def _read(self, base_url: str, path: str, params: dict[str, str]) -> None:
        try:
            with httpx.Client(base_url=base_url, timeout=None) as http, \
                    http.stream("GET", path, params={"watch": "true", **params}) as resp:
                for line in resp.iter_lines():
                    self.lines.append((time.monotonic(), json.loads(line)))
        except httpx.RemoteProtocolError:
            pass  # the server stopped with the stream open (end of the module)
        finally:
            self.ended.set()

    def wait_for(self, count: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.lines) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.lines) >= count, self.lines


def _create(http: httpx.Client, namespace: str, name: str) -> str:
    resp = http.post(f"/api/v1/namespaces/{namespace}/configmaps", json={"metadata": {"name": name}})
    resp.raise_for_status()
    return resp.json()["metadata"]["resourceVersion"]


def test_stalled_watches_deliver_late_but_complete_and_in_order(server: ServerProcess, http: httpx.Client) -> None:
    rv = http.get(f"{NS}/configmaps").json()["metadata"]["resourceVersion"]
    reader = WatchReader(server.url, f"{NS}/configmaps", {"resourceVersion": rv})
    _create(http, "default", "stall-warmup")
    reader.wait_for(1)
    stall = server.stall_watches(1.5, resource="configmaps", namespace="default")
    assert stall["fired"] == 1
    stalled_at = time.monotonic()
    written = [_create(http, "default", f"stalled-{i}") for i in range(10)]
    reader.wait_for(11)
    late = reader.lines[1:]
    assert late[0][0] - stalled_at >= 1.0  # held for the stall (a lower bound only)
    assert [e["object"]["metadata"]["resourceVersion"] for _, e in late] == written  # all, in order, once
    assert all(e["type"] == "ADDED" for _, e in late)
    assert not reader.ended.is_set()


def test_a_stall_holds_events_upstream_of_the_bounded_queue() -> None:
    async def scenario() -> None:
        watcher = CacheWatcher(kind="ConfigMap", api_version="v1", matches=None, allow_bookmarks=False,
                               deadline=time.monotonic() + 60, bookmark_interval=60, capacity=3)
        watcher.stall()
        for rv in range(1, 11):
            obj = CachedObject(f"/k/{rv}", "default", f"o{rv}", rv, b'{"rv":%d}' % rv, {}, {})
            watcher.add(CacheEvent("ADDED", rv, obj, None, 0.0))
        assert not watcher.closed and len(watcher.held) == 10  # ten events, capacity three
        watcher.resume()
        watcher.close()
        lines = b"".join([chunk async for chunk in watcher.lines()]).splitlines()
        assert [json.loads(line)["object"]["rv"] for line in lines] == list(range(1, 11))

    asyncio.run(scenario())


def test_close_watches_by_namespace(server: ServerProcess, http: httpx.Client) -> None:
    server.close_watches(resource="configmaps")  # those of earlier tests
    in_default = WatchReader(server.url, f"{NS}/configmaps", {})
    in_public = WatchReader(server.url, "/api/v1/namespaces/kube-public/configmaps", {})
    time.sleep(0.3)  # both registered
    assert server.close_watches(resource="configmaps", namespace="default") == 1
    assert in_default.ended.wait(5)
    assert not in_public.ended.is_set()
    server.close_watches(resource="configmaps")
    assert in_public.ended.wait(5)


@pytest.fixture(scope="module")
def core(server: ServerProcess) -> Iterator[client.CoreV1Api]:
    cfg = client.Configuration()
    config.load_kube_config(config_file=str(server.kubeconfig), client_configuration=cfg)
    with client.ApiClient(cfg) as api:
        yield client.CoreV1Api(api)


def _bump_revision(http: httpx.Client) -> None:
    """A write elsewhere, so the watch caches restart at a revision after every client's."""
    http.post(f"{NS}/secrets", json={"metadata": {"generateName": "bump-"}}).raise_for_status()


def test_python_watch_gets_the_in_stream_410_after_restart(
    server: ServerProcess, http: httpx.Client, core: client.CoreV1Api
) -> None:
    rv = http.get(f"{NS}/configmaps").json()["metadata"]["resourceVersion"]
    _create(http, "default", "before-restart")
    _bump_revision(http)
    seen: list[str] = []
    with pytest.raises(ApiException) as expired:
        for event in watch.Watch().stream(core.list_namespaced_config_map, "default", resource_version=rv):
            seen.append(event["object"].metadata.name)
            server.restart()  # the stream ends; the client resumes from before the restart
    assert seen == ["before-restart"]
    assert expired.value.status == 410
    assert "Expired: too old resource version" in str(expired.value.reason)


def test_python_shared_informer_relists_after_restart(
    server: ServerProcess, http: httpx.Client, core: client.CoreV1Api
) -> None:
    _create(http, "kube-node-lease", "known")
    informer = SharedInformer(core.list_namespaced_config_map, namespace="kube-node-lease")
    errors: list[Any] = []
    informer.add_event_handler("ERROR", errors.append)
    informer.start()
    try:
        _wait(lambda: informer.cache.get_by_key("kube-node-lease/known") is not None, "initial list")
        time.sleep(0.3)  # its watch is open
        _bump_revision(http)
        assert server.restart() >= 1
        _create(http, "kube-node-lease", "after-restart")
        _wait(lambda: informer.cache.get_by_key("kube-node-lease/after-restart") is not None, "convergence")
        assert any(isinstance(e, ApiException) and e.status == 410 for e in errors)
    finally:
        informer.stop()


def _wait(condition: Any, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout}s"
        time.sleep(0.02)
