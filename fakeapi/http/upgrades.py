"""Connection upgrades (``Connection: Upgrade``: SPDY, WebSocket), which ASGI has no message for:
the HTTP/1.1 connection hands the app its raw streams, as Go's ``http.Hijacker`` hands a handler
the ``net.Conn``.

A server that can (fakeapi's own HTTP/1.1 connection over TLS, uvicorn's httptools protocol over
plain HTTP) puts ``UPGRADE`` in the scope of each request asking for an upgrade:
``await scope[UPGRADE](head)`` writes ``head`` (the raw answer: a ``101 Switching Protocols``, or
a refusal the server must not frame itself) and returns the connection as a ``Tunnel``. The
server then sends nothing more for that request and serves no other on that connection; the
connection ends when the app returns (or closes the tunnel's writer). A request without
``UPGRADE`` (HTTP/2, which has no upgrades) is answered as the plain request it also is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .connection_parts import READ_SIZE

#: The scope key of a request asking for an upgrade: an ``async (head: bytes) -> Tunnel``.
UPGRADE = "fakeapi.upgrade"

Hijack = Callable[[bytes], Awaitable["Tunnel"]]


@dataclass(slots=True)
class Tunnel:
    """A client's connection after its upgrade request: what it sent after that request
    (``initial``), then what ``reader`` reads; ``writer`` writes to it."""

    initial: bytes
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter


def is_upgrade_request(headers: list[tuple[bytes, bytes]]) -> bool:
    """apimachinery's ``httpstream.IsUpgradeRequest``: a ``Connection`` header naming ``upgrade``
    (anywhere in its value, in any case)."""
    return any(name == b"connection" and b"upgrade" in value.lower() for name, value in headers)


async def splice(tunnel: Tunnel, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copies bytes both ways between ``tunnel`` and another connection until either side ends
    (its end of stream, or an error), then closes both, as apimachinery's
    ``UpgradeAwareHandler`` ends a proxied upgrade."""
    if tunnel.initial:
        writer.write(tunnel.initial)
    copies = [asyncio.ensure_future(_copy(tunnel.reader, writer)), asyncio.ensure_future(_copy(reader, tunnel.writer))]
    try:
        await asyncio.wait(copies, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for copy in copies:
            copy.cancel()
        await asyncio.gather(*copies, return_exceptions=True)
        for end in (writer, tunnel.writer):
            end.close()


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(READ_SIZE):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass  # either side gone: the splice ends


class _HijackedProtocol(asyncio.StreamReaderProtocol):
    """The protocol of a transport taken from uvicorn: a stream's, which tells uvicorn's protocol
    of the connection's end (it keeps its connections, to close them at shutdown)."""

    def __init__(self, reader: asyncio.StreamReader, previous: asyncio.BaseProtocol) -> None:
        super().__init__(reader)
        self._previous = previous

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._previous.connection_lost(exc)


def uvicorn_hijack(cycle: Any) -> Hijack:
    """``UPGRADE`` of a request uvicorn's httptools protocol serves (its ``RequestResponseCycle``):
    the transport is given a stream protocol of its own, and the cycle is marked as answered, so
    that uvicorn writes nothing more to the connection. uvicorn hands over no bytes read after
    the request (a client waits for the 101 before it speaks the new protocol).

    uvicorn's parser stopped at the upgrade request (llhttp pauses there), and would drop
    whatever the connection brings next; once the request has been read whole it is given a new
    parser, so that an upgrade the app answers as a plain request leaves the connection serving
    the next, as Go's server does."""
    protocol = cycle.transport.get_protocol()
    if not cycle.more_body and any(name == b"upgrade" for name, _ in cycle.scope["headers"]):
        import httptools  # uvicorn's parser, loaded with it

        protocol.parser = httptools.HttpRequestParser(protocol)

    async def hijack(head: bytes) -> Tunnel:
        transport: asyncio.Transport = cycle.transport
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(loop=loop)
        protocol = _HijackedProtocol(reader, transport.get_protocol())
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        cycle.response_started = cycle.response_complete = True
        cycle.keep_alive = False
        transport.write(head)
        transport.resume_reading()  # uvicorn may have paused it while the request's body was read
        return Tunnel(b"", reader, asyncio.StreamWriter(transport, protocol, reader, loop))

    return hijack


def not_uvicorns_upgrade_warning(record: logging.LogRecord) -> bool:
    """A filter of uvicorn's log: it warns of each upgrade request it has no protocol for (and
    that no WebSocket library is installed), which the app upgrades itself."""
    return not (record.levelno == logging.WARNING and record.getMessage().startswith(
        ("Unsupported upgrade request.", "No supported WebSocket library detected.")))
