"""A real etcd for differential tests: process management and a small client for its JSON gateway.

``EtcdProcess`` starts ``etcd`` (Debian's ``etcd-server``; ``make test`` installs it through
``scripts/ensure-test-deps.sh``) as a one-member cluster on free loopback ports, with its data dir
on tmpfs when there is one and ``--unsafe-no-fsync``, and waits until ``/health`` answers. A missing
binary is a test *failure* with a clear message, never a skip. Start-up takes about 0.7 s, so a
fresh etcd per test is affordable (every differential test needs one: both sides must start at
revision 1).

``EtcdClient`` speaks the grpc-gateway that etcd serves next to gRPC on the client port
(``POST /v3/<service>/<method>``): bytes are base64, int64s are JSON strings, zero values are
omitted, fields are snake_case except the lease service's ``ID``/``TTL``/``grantedTTL``. Errors come
back as ``{"error", "code", "message"}`` and are raised as ``GatewayError`` carrying etcd's message.

``WatchConnection`` is one ``/v3/watch`` stream. Over plain HTTP the gateway reads the request
body as a stream of JSON ``WatchRequest`` objects and answers newline-delimited
``{"result": WatchResponse}`` objects; but Go's HTTP/1.1 server discards the unread rest of a
request body once the response starts, so a second create request in the same body is lost at
random. etcd also serves the gateway's streams over websocket (grpc-websocket-proxy: one JSON
request or response per message), which carries requests at any time: that is what is used, with
``websockets`` (installed with uvicorn[standard]) and a reader thread.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets.sync.client

ETCD_START_TIMEOUT = 30.0


class GatewayError(Exception):
    """An error answer of etcd's gateway; ``str()`` is etcd's message (the gRPC status message)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


# ----------------------------------------------------------------- JSON codec helpers


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str | None) -> bytes:
    return base64.b64decode(text) if text else b""


def as_int(value: Any) -> int:
    """int64 fields arrive as JSON strings, and are absent when zero."""
    return int(value) if value is not None else 0


# ----------------------------------------------------------------- the process


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def etcd_binary() -> str:
    path = shutil.which("etcd")
    if path is None:
        pytest.fail(
            "etcd is not installed: the differential tests need a real etcd-server process. "
            "Run `make test` (scripts/ensure-test-deps.sh installs Debian's etcd-server) or "
            "`apt-get install etcd-server`.",
            pytrace=False,
        )
    return path


class EtcdProcess:
    def __init__(self, binary: str | None = None, *, fsync: bool = False,
                 data_parent: str | None = None) -> None:
        """``fsync`` and a ``data_parent`` on disk run it as in production (benchmarks)."""
        self.binary = binary or etcd_binary()
        self.fsync = fsync
        self.data_parent = data_parent
        self.proc: subprocess.Popen[bytes] | None = None
        self.data_root: str | None = None
        self.client_url = ""
        self.log_path: Path | None = None

    def start(self) -> None:
        shm = "/dev/shm"
        tmp_parent = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
        tmp_parent = self.data_parent or tmp_parent
        last_error = ""
        for _attempt in range(3):  # a free port can be taken between probing and binding it
            self.data_root = tempfile.mkdtemp(prefix="fakeapi-etcd-", dir=tmp_parent)
            client_port, peer_port = _free_port(), _free_port()
            while peer_port == client_port:
                peer_port = _free_port()
            self.client_url = f"http://127.0.0.1:{client_port}"
            peer_url = f"http://127.0.0.1:{peer_port}"
            self.log_path = Path(self.data_root) / "etcd.log"
            args = [
                self.binary,
                "--name", "default",
                "--data-dir", str(Path(self.data_root) / "data"),
                "--listen-client-urls", self.client_url,
                "--advertise-client-urls", self.client_url,
                "--listen-peer-urls", peer_url,
                "--initial-advertise-peer-urls", peer_url,
                "--initial-cluster", f"default={peer_url}",
                "--initial-cluster-state", "new",
                *([] if self.fsync else ["--unsafe-no-fsync"]),
            ]
            with open(self.log_path, "wb") as log:
                self.proc = subprocess.Popen(
                    args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
                )
            if self._wait_ready():
                return
            last_error = self._log_tail()
            self.stop()
        pytest.fail(f"etcd did not become healthy; last log lines:\n{last_error}", pytrace=False)

    def _wait_ready(self) -> bool:
        assert self.proc is not None
        deadline = time.monotonic() + ETCD_START_TIMEOUT
        with httpx.Client(timeout=1.0) as http:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    return False
                with contextlib.suppress(httpx.HTTPError, ValueError):
                    r = http.get(self.client_url + "/health")
                    if r.status_code == 200 and r.json().get("health") == "true":
                        return True
                time.sleep(0.05)
        return False

    def _log_tail(self, lines: int = 30) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if self.data_root is not None:
            shutil.rmtree(self.data_root, ignore_errors=True)
            self.data_root = None

    def client(self) -> EtcdClient:
        return EtcdClient(self.client_url)


# ----------------------------------------------------------------- the gateway client


class EtcdClient:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.http = httpx.Client(base_url=base_url, timeout=10.0)
        self._watches: list[WatchConnection] = []

    def close(self) -> None:
        for w in self._watches:
            w.close()
        self._watches.clear()
        self.http.close()

    def call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        r = self.http.post(path, content=json.dumps(body))
        data = r.json()
        if "error" in data:
            raise GatewayError(data.get("message") or data["error"], int(data.get("code", 0)))
        return data

    # KV service
    def range(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.call("/v3/kv/range", body)

    def put(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.call("/v3/kv/put", body)

    def delete_range(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.call("/v3/kv/deleterange", body)

    def txn(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.call("/v3/kv/txn", body)

    def compact(self, revision: int, physical: bool = True) -> dict[str, Any]:
        return self.call("/v3/kv/compaction", {"revision": str(revision), "physical": physical})

    # Lease service
    def lease_grant(self, ttl: int, lease_id: int = 0) -> dict[str, Any]:
        body: dict[str, Any] = {"TTL": str(ttl)}
        if lease_id:
            body["ID"] = str(lease_id)
        return self.call("/v3/lease/grant", body)

    def lease_revoke(self, lease_id: int) -> dict[str, Any]:
        return self.call("/v3/lease/revoke", {"ID": str(lease_id)})

    def lease_time_to_live(self, lease_id: int, keys: bool = False) -> dict[str, Any]:
        return self.call("/v3/lease/timetolive", {"ID": str(lease_id), "keys": keys})

    # Watch service
    def watch(self) -> WatchConnection:
        conn = WatchConnection(self.base_url)
        self._watches.append(conn)
        return conn


class WatchConnection:
    """One watch stream over the gateway's websocket proxy. Every ``WatchResponse`` received so
    far is in ``responses``, in order; ``send`` adds requests (create, cancel) at any time."""

    def __init__(self, base_url: str) -> None:
        self.responses: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self._cond = threading.Condition()
        self._closed = False
        url = "ws://" + base_url.removeprefix("http://") + "/v3/watch"
        self._connect = websockets.sync.client.connect(url, open_timeout=10, max_size=None)
        self._ws = self._connect.__enter__()
        self._thread = threading.Thread(target=self._read, name="etcd-watch-reader", daemon=True)
        self._thread.start()

    def send(self, request: dict[str, Any]) -> None:
        self._ws.send(json.dumps(request))

    def _read(self) -> None:
        try:
            for message in self._ws:
                data = json.loads(message)
                if "result" not in data:
                    raise RuntimeError(f"watch stream error: {data}")
                with self._cond:
                    self.responses.append(data["result"])
                    self._cond.notify_all()
        except BaseException as exc:  # noqa: BLE001 - reported to the waiting test
            if not self._closed:
                self.error = exc
        finally:
            with self._cond:
                self._cond.notify_all()

    def wait_for(
        self, predicate: Callable[[list[dict[str, Any]]], bool], timeout: float = 10.0
    ) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self.responses):
                if self.error is not None:
                    raise RuntimeError(f"watch stream failed: {self.error!r}") from self.error
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            self._connect.__exit__(None, None, None)
        self._thread.join(timeout=5)
