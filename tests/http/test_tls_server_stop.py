"""The TLS server's stop: connections that clients still hold end quietly, and soon."""

from __future__ import annotations

import asyncio
import socket
import ssl
from pathlib import Path
from typing import Any

import uvloop

from fakeapi.http.pki import ServerCertificates
from fakeapi.http.serving import STOP_GRACE, HTTPServer
from fakeapi.http.tls import server_context


async def _ok(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def test_stopping_ends_open_connections_without_an_error_logged(tmp_path: Path) -> None:
    """A stop cancels every connection; Python 3.11's stream callback logged each cancelled one
    as an error with its traceback (the cost of a stop's first milliseconds)."""
    certificates = ServerCertificates.in_directory(tmp_path, ["127.0.0.1"], "admin", ["system:masters"])

    async def test() -> list[dict[str, Any]]:
        errors: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: errors.append(context))
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        server = HTTPServer(_ok, sock, server_context(certificates.serving_cert_file, certificates.serving_key_file, []))
        serving = asyncio.create_task(server.serve())
        held = []
        for protocols in (["h2"], ["http/1.1"]):
            client = ssl.create_default_context(cafile=certificates.ca_file)
            client.set_alpn_protocols(protocols)
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port, ssl=client)
            assert writer.get_extra_info("ssl_object").selected_alpn_protocol() == protocols[0]
            held.append(writer)
        await asyncio.sleep(0.2)  # both connections are served
        server.stop()
        await asyncio.wait_for(serving, 10)
        for writer in held:
            writer.close()
        return errors

    assert asyncio.run(test()) == []


def test_a_stop_does_not_wait_on_a_client_that_keeps_its_connection_idle(tmp_path: Path) -> None:
    """A TLS close waits for the peer's close_notify, up to 30 s: a client that keeps an idle
    keep-alive connection open and does not read it (Python's http.client between requests)
    held a stop that long. Connections still open after the grace are cut, as Go's server
    closes idle ones (on uvloop, whose SSL transport then lets the connection end)."""
    certificates = ServerCertificates.in_directory(tmp_path, ["127.0.0.1"], "admin", ["system:masters"])

    def request(port: int) -> ssl.SSLSocket:
        client = ssl.create_default_context(cafile=certificates.ca_file)
        client.set_alpn_protocols(["http/1.1"])
        conn = client.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="127.0.0.1")
        conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert conn.recv(4096).startswith(b"HTTP/1.1 200")
        return conn  # kept open, unread

    async def test() -> float:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        server = HTTPServer(_ok, sock, server_context(certificates.serving_cert_file, certificates.serving_key_file, []))
        serving = asyncio.create_task(server.serve())
        held = await asyncio.to_thread(request, server.port)
        loop = asyncio.get_running_loop()
        stopping = loop.time()
        server.stop()
        await asyncio.wait_for(serving, 20)
        held.close()
        return loop.time() - stopping

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:  # the loop fakeapi serve runs on
        assert runner.run(test()) < STOP_GRACE + 2
