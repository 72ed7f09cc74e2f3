"""Connection upgrades (``fakeapi.http.upgrades``): an app takes the client's connection from
fakeapi's HTTP/1.1 connection and from uvicorn's httptools protocol, answers the upgrade itself
and speaks another protocol over it (here: echoing bytes back), with what the client sent right
after its request kept; a request the app does not take is answered as a plain one, and the
connection serves the requests after it."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import uvicorn

from fakeapi.http.upgrades import UPGRADE, is_upgrade_request, uvicorn_hijack
from test_http1 import connected, echo, response

_SWITCHED = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n"
_UPGRADE_REQUEST = b"GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n"


async def tunnel_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Takes an upgrade request's connection and echoes what the client sends until it ends."""
    hijack = scope.get(UPGRADE)
    if hijack is None:
        await echo(scope, receive, send)
        return
    tunnel = await hijack(_SWITCHED)
    tunnel.writer.write(tunnel.initial)
    while data := await tunnel.reader.read(1024):
        tunnel.writer.write(data)
        await tunnel.writer.drain()
    tunnel.writer.close()


async def _speak(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, early: bytes) -> bytes:
    """Sends the upgrade request with ``early`` bytes after it in one write, reads the 101, sends
    more and returns what came back."""
    writer.write(_UPGRADE_REQUEST + early)
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head == _SWITCHED
    writer.write(b"after")
    expected = len(early) + len(b"after")
    echoed = b""
    while len(echoed) < expected:
        echoed += await asyncio.wait_for(reader.read(1024), 5)
    return echoed


def test_an_app_takes_the_http1_connection_with_the_bytes_after_the_request() -> None:
    async def test() -> None:
        async with connected(tunnel_app) as (reader, writer, served):
            assert await _speak(reader, writer, b"early") == b"earlyafter"
            writer.write_eof()
            assert await asyncio.wait_for(reader.read(), 5) == b""  # the app ended: so did the connection
            await asyncio.wait_for(asyncio.gather(*served), 5)

    asyncio.run(test())


def test_an_upgrade_the_app_does_not_take_is_a_plain_request_and_the_connection_goes_on() -> None:
    """As Go's server: what follows is read as the next request, the one sent with the upgrade
    request too."""
    async def test() -> None:
        async with connected(echo) as (reader, writer, _):
            writer.write(_UPGRADE_REQUEST + b"GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
            for path in (b"/tunnel", b"/next"):
                status, headers, body = await response(reader)
                assert (status, body) == (b"HTTP/1.1 200 OK", b"GET %s " % path)
                assert b"connection" not in headers
            writer.write(b"GET /last HTTP/1.1\r\nHost: x\r\n\r\n")
            assert (await response(reader))[2] == b"GET /last "

    asyncio.run(test())


def test_an_app_takes_uvicorns_connection() -> None:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if is_upgrade_request(scope["headers"]):
            scope[UPGRADE] = uvicorn_hijack(send.__self__)
        if (b"x-untaken", b"yes") in scope["headers"]:
            await echo(scope, receive, send)
        else:
            await tunnel_app(scope, receive, send)

    async def test() -> None:
        listener = socket.create_server(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(app, ws="none", lifespan="off", log_level="error"))
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        while not server.started:
            await asyncio.sleep(0.01)
        try:
            reader, writer = await asyncio.open_connection(*listener.getsockname()[:2])
            writer.write(b"GET /plain HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n"
                         b"X-Untaken: yes\r\n\r\n")
            assert (await response(reader))[2] == b"GET /plain "  # not taken: the connection goes on
            assert await _speak(reader, writer, b"") == b"after"
            writer.close()
            # uvicorn hears of the connection's end (it would wait for it at shutdown).
            for _ in range(100):
                if not server.server_state.connections:
                    break
                await asyncio.sleep(0.02)
            assert not server.server_state.connections
        finally:
            server.should_exit = True
            await asyncio.wait_for(serving, 5)

    asyncio.run(test())
