"""Watch clients that misbehave, against a ``fakeapi serve`` process: a client that stops reading
is terminated and counted (``apiserver_terminated_watchers_total``), its connection cut, while
the clients that keep reading get every event, in order; the server's memory does not grow with
what the stuck clients failed to read; a client that leaves is noticed at once, with no event
written to it (uvicorn reports the disconnect to the streaming response)."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fakeapi.testing import ServerProcess

NS = "slow"
CONFIGMAPS = f"/api/v1/namespaces/{NS}/configmaps"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("slow"), "--controllers", "") as srv:
        assert srv.http.post("/api/v1/namespaces", json={"metadata": {"name": NS}}).status_code == 201
        yield srv


def metric(server: ServerProcess, name: str) -> float:
    """The sum of a metric's samples."""
    text = server.http.get("/metrics").text
    return sum(float(value) for value in re.findall(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.MULTILINE))


def rss_bytes(server: ServerProcess) -> int:
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) * 1024  # type: ignore[union-attr]


def stuck_watch(server: ServerProcess, resource_version: str) -> socket.socket:
    """A watch whose client sends its request and never reads (a tiny receive buffer, so the
    server's writes back up at once)."""
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    sock.sendall(f"GET {CONFIGMAPS}?watch=1&resourceVersion={resource_version} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    return sock


class Reader(threading.Thread):
    """A watch client that reads everything, keeping the resourceVersions it saw."""

    def __init__(self, server: ServerProcess, resource_version: str) -> None:
        super().__init__(daemon=True)
        self.url = f"{server.url}{CONFIGMAPS}?watch=1&resourceVersion={resource_version}&timeoutSeconds=120"
        self.versions: list[int] = []
        self.started = threading.Event()

    def run(self) -> None:
        try:
            with httpx.stream("GET", self.url, timeout=180) as response:
                self.started.set()
                for line in response.iter_lines():
                    if line:
                        event = json.loads(line)
                        self.versions.append(int(event["object"]["metadata"]["resourceVersion"]))
        except httpx.HTTPError:
            pass  # the server stopping at the module's end cuts this watch


def test_stuck_clients_are_cut_off_without_hurting_the_others(server: ServerProcess) -> None:
    http = server.http
    start_rv = http.get(CONFIGMAPS).json()["metadata"]["resourceVersion"]
    readers = [Reader(server, start_rv) for _ in range(3)]
    for reader in readers:
        reader.start()
        assert reader.started.wait(10)
    stuck = [stuck_watch(server, start_rv) for _ in range(20)]
    terminated_before = metric(server, "apiserver_terminated_watchers_total")
    rss_before = rss_bytes(server)
    payload = "x" * 20_000
    written = []
    for index in range(1500):  # 30 MB written; 20 stuck clients buffering it all would be 600 MB
        name = f"cm-{index % 50}"
        body = {"metadata": {"name": name}, "data": {"payload": payload, "i": str(index)}}
        response = http.put(f"{CONFIGMAPS}/{name}", json=body) if index >= 50 else http.post(CONFIGMAPS, json=body)
        assert response.status_code in (200, 201), response.text
        written.append(int(response.json()["metadata"]["resourceVersion"]))
    server.compact()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(r.versions[-1:] != written[-1:] for r in readers):
        time.sleep(0.1)
    for reader in readers:
        assert reader.versions == written, "a reading client missed, repeated or reordered events"
    assert metric(server, "apiserver_terminated_watchers_total") - terminated_before == len(stuck)
    for sock in stuck:  # the server cut the connection: the client reads what was sent, then EOF
        sock.settimeout(10)
        try:
            while sock.recv(1 << 20):
                pass
        except ConnectionResetError:
            pass
        sock.close()
    growth = rss_bytes(server) - rss_before
    print(f"server RSS grew {growth / 2**20:.0f} MiB while 20 stuck clients were sent 30 MiB each")
    assert growth < 200 * 2**20, f"memory grew with what the stuck clients did not read: {growth / 2**20:.0f} MiB"


def test_a_client_that_leaves_is_noticed_without_a_write(server: ServerProcess) -> None:
    gauge = "fakeapi_client_open_watches"
    before = metric(server, gauge)
    clients = []
    for _ in range(10):
        client = httpx.Client(base_url=server.url, timeout=30)
        stream = client.stream("GET", CONFIGMAPS, params={"watch": "1", "resourceVersion": "0"})
        stream.__enter__()
        clients.append((client, stream))
    deadline = time.monotonic() + 10
    while metric(server, gauge) < before + 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert metric(server, gauge) == before + 10
    for client, stream in clients:
        stream.__exit__(None, None, None)
        client.close()
    deadline = time.monotonic() + 5
    while metric(server, gauge) > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert metric(server, gauge) == before, "watches whose clients left are still counted open"
