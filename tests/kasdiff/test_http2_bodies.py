"""HTTP/2 on fakeapi over TLS (``fakeapi.http.http2``) and on the real kube-apiserver: the
settings and connection window each advertises; bodies beyond the flow-control windows through
one httpx HTTP/2 connection (a 1 MiB ConfigMap created, listed, read, every request on that one
connection); and a 4 MiB create, sent with h2 as Go's client sends it (httpx fails on either
server once the body is refused mid-way: a read timeout on kube, a closed stream on fakeapi),
answered with kube's 413 Status and then RST_STREAM NO_ERROR, the body's rest refused; a header
list over the limit."""

from __future__ import annotations

from collections.abc import Iterator
import socket
import ssl
from typing import Any
from urllib.parse import urlsplit

import h2.config
import h2.connection
import h2.events
import httpx
import orjson
import pytest

from differ import Outcome, Pair, check
from fakeapi.cluster.control_plane import KubeAPIServer
from fakeapi.kubeconfig import client_settings
from fakeapi.testing import ServerProcess

NS = "http2-bodies"
CONFIGMAPS = f"/api/v1/namespaces/{NS}/configmaps"


@pytest.fixture(scope="module")
def http2_pair(real_server: KubeAPIServer, outcomes: list[Outcome], tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[Pair]:
    with ServerProcess(tmp_path_factory.mktemp("fakeapi-tls"), "--tls", "--controllers", "") as fake:
        _, credentials = client_settings(fake.kubeconfig)
        with httpx.Client(base_url=fake.url, http2=True, timeout=30, **credentials) as fake_http, httpx.Client(
                base_url=real_server.url, http2=True, timeout=30, verify=real_server.ssl_context,
                headers={"Authorization": f"Bearer {real_server.token}"}) as real_http:
            fake_http.h2_context = credentials["verify"]  # type: ignore[attr-defined]
            real_http.h2_context = real_server.ssl_context  # type: ignore[attr-defined]
            pair = Pair(fake_http, real_http)
            pair.outcomes = outcomes
            for client in (fake_http, real_http):
                response = client.post("/api/v1/namespaces", json={"metadata": {"name": NS}})
                assert response.status_code in (201, 409), response.text
            yield pair


def _configmap(name: str, size: int) -> bytes:
    return orjson.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                         "data": {"big": "x" * size}})


def _connections(client: httpx.Client) -> int:
    """The connections the client's pool holds (one: every request went over it)."""
    return len(client._transport._pool.connections)  # type: ignore[attr-defined]


def test_bodies_beyond_the_windows_on_one_connection(http2_pair: Pair) -> None:
    pair = http2_pair
    start = len(pair.outcomes)
    try:
        created = pair.send("http2-bodies", "ConfigMap", "create 1 MiB", "POST", CONFIGMAPS,
                            body=_configmap("big", 2**20))
        assert created.fake.status == 201, created.fake.body
        listed = pair.send("http2-bodies", "ConfigMap", "list 1 MiB", "GET", CONFIGMAPS)
        assert len(listed.fake.raw["items"][0]["data"]["big"]) == 2**20
        read = pair.send("http2-bodies", "ConfigMap", "get 1 MiB", "GET", f"{CONFIGMAPS}/big")
        assert read.fake.status == 200
        for client in (pair.fake, pair.real):
            assert client.get("/version").http_version == "HTTP/2"
            assert _connections(client) == 1
    finally:
        for client in (pair.fake, pair.real):
            client.delete(f"{CONFIGMAPS}/big")
    check(pair, start)


class _RawClient:
    """One h2 connection over TLS to a server, as Go's client uses one: bodies sent as the
    windows allow, every frame's events kept."""

    def __init__(self, http: httpx.Client) -> None:
        url = urlsplit(str(http.base_url))
        context: ssl.SSLContext = http.h2_context  # type: ignore[attr-defined]
        context.set_alpn_protocols(["h2"])
        self.sock = context.wrap_socket(socket.create_connection((url.hostname, url.port), timeout=30),
                                        server_hostname=url.hostname)
        self.authorization = http.headers.get("authorization", "")
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding=None))
        self.h2.initiate_connection()
        self.events: list[h2.events.Event] = []
        self.sock.sendall(self.h2.data_to_send())

    def read(self) -> None:
        data = self.sock.recv(2**16)
        assert data, "the server closed the connection"
        self.events += self.h2.receive_data(data)
        self.sock.sendall(self.h2.data_to_send())

    def post(self, path: str, body: bytes) -> tuple[int, Any, list[type]]:
        """The answer's status and JSON body, and the stream's events after its end."""
        stream_id = self.h2.get_next_available_stream_id()
        headers = [(b":method", b"POST"), (b":path", path.encode()), (b":scheme", b"https"),
                   (b":authority", b"kube"), (b"content-type", b"application/json")]
        if self.authorization:
            headers.append((b"authorization", self.authorization.encode()))
        self.h2.send_headers(stream_id, headers)
        sent = 0
        ended = [h2.events.StreamEnded, h2.events.StreamReset]
        while not any(type(e) in ended and e.stream_id == stream_id for e in self.events):
            while sent < len(body) and not any(type(e) in ended and e.stream_id == stream_id for e in self.events):
                size = min(self.h2.local_flow_control_window(stream_id), self.h2.max_outbound_frame_size, len(body) - sent)
                if size <= 0:
                    break
                self.h2.send_data(stream_id, body[sent:sent + size], end_stream=sent + size == len(body))
                sent += size
                self.sock.sendall(self.h2.data_to_send())
            self.read()
        while not any(type(e) is h2.events.StreamReset and e.stream_id == stream_id for e in self.events):
            self.read()  # the reset that refuses the body's rest
        mine = [e for e in self.events if getattr(e, "stream_id", None) == stream_id]
        status = int(next(dict(e.headers) for e in mine if isinstance(e, h2.events.ResponseReceived))[b":status"])
        answer = orjson.loads(b"".join(e.data for e in mine if isinstance(e, h2.events.DataReceived)))
        reset = next(e for e in mine if isinstance(e, h2.events.StreamReset))
        assert sent < len(body)  # refused before the body's end
        # The WINDOW_UPDATEs between (how the body was paced) depend on each read.
        kinds = [type(e) for e in mine if not isinstance(e, (h2.events.DataReceived, h2.events.WindowUpdated))]
        return status, answer, kinds + [reset.error_code]

    def get_with_headers(self, path: str, size: int) -> int | None:
        """The status of a GET with ``size`` bytes of ``x-big-<n>`` headers of 50,000 bytes
        each (hpack's huffman coding of one long value takes minutes); None if the server ended
        the connection instead."""
        headers = [(b"x-big-%d" % n, b"a" * 50_000) for n in range(size // 50_000)]
        stream_id = self.h2.get_next_available_stream_id()
        self.h2.send_headers(stream_id, [(b":method", b"GET"), (b":path", path.encode()), (b":scheme", b"https"),
                                         (b":authority", b"kube"), (b"authorization", self.authorization.encode()),
                                         *headers], end_stream=True)
        try:
            self.sock.sendall(self.h2.data_to_send())
            while not any(type(e) is h2.events.StreamEnded and e.stream_id == stream_id for e in self.events):
                data = self.sock.recv(2**16)
                events = self.h2.receive_data(data) if data else []
                if not data or any(isinstance(e, h2.events.ConnectionTerminated) for e in events):
                    return None
                self.events += events
                self.sock.sendall(self.h2.data_to_send())
        except (ssl.SSLError, ConnectionError):
            return None
        return int(next(dict(e.headers) for e in self.events
                        if isinstance(e, h2.events.ResponseReceived) and e.stream_id == stream_id)[b":status"])

    def close(self) -> None:
        self.sock.close()


def test_settings_and_an_oversized_body_refused_mid_way(http2_pair: Pair) -> None:
    answers = []
    for http in (http2_pair.fake, http2_pair.real):
        client = _RawClient(http)
        try:
            while not (any(isinstance(e, h2.events.RemoteSettingsChanged) for e in client.events)
                       and any(isinstance(e, h2.events.WindowUpdated) and not e.stream_id for e in client.events)):
                client.read()
            # In force, as a Go client reads them (fakeapi also sends two at their defaults).
            remote = client.h2.remote_settings
            settings = (remote.header_table_size, remote.initial_window_size, remote.max_frame_size,
                        remote.max_concurrent_streams, remote.max_header_list_size)
            window = client.h2.outbound_flow_control_window
            answers.append((settings, window, client.post(CONFIGMAPS, _configmap("huge", 4 * 2**20))))
        finally:
            client.close()
    fake, real = answers
    assert fake[0] == real[0]
    assert fake[1] == real[1]
    assert fake[2] == real[2]
    assert fake[2][0] == 413 and fake[2][1]["message"] == "Request entity too large: limit is 3145728"


def test_a_header_list_over_the_limit_ends_the_connection(http2_pair: Pair) -> None:
    """Half a megabyte of header is served; two megabytes end the connection on both (kube's
    Go server cuts it a little under its advertised 1 MiB + 320, h2 over it: not compared)."""
    answers = []
    for http in (http2_pair.fake, http2_pair.real):
        statuses = []
        for size in (500_000, 2 * 2**20):
            client = _RawClient(http)
            try:
                statuses.append(client.get_with_headers("/version", size))
            finally:
                client.close()
        answers.append(statuses)
    assert answers == [[200, None], [200, None]]
