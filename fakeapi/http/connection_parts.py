"""What fakeapi's own HTTP connections (``http1``, ``http2``) share: the connection's app,
streams, addresses and the scope it makes of a request; a request's body as the connection reads
it ahead of the app, with ASGI's ``receive`` over it; and the idle timeout."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote

from .access import CERTIFICATE_USER

#: What one read takes from the socket.
READ_SIZE = 2**16

ASGIApp = Callable[[dict[str, Any], Callable[[], Awaitable[dict[str, Any]]],
                    Callable[[dict[str, Any]], Awaitable[None]]], Awaitable[None]]


class Connection:
    """A connection served over its streams: the app, the user its client certificate names,
    both ends' addresses."""

    def __init__(self, app: ASGIApp, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 certificate_user: Any) -> None:
        self.app = app
        self.reader = reader
        self.writer = writer
        self.certificate_user = certificate_user
        self.loop = asyncio.get_running_loop()
        sock = writer.get_extra_info("socket")
        self.client = tuple(sock.getpeername()[:2])
        self.server = tuple(sock.getsockname()[:2])
        self.scheme = "https" if writer.get_extra_info("sslcontext") is not None else "http"

    async def read(self) -> bytes:
        """What the client sent next; empty at the connection's end (closed, reset)."""
        try:
            return await self.reader.read(READ_SIZE)
        except (ConnectionError, OSError):
            return b""

    def scope(self, http_version: str, method: str, raw_path: bytes, query_string: bytes,
              headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
        """A request's ASGI scope (Hypercorn's, which served these once), with the connection's
        certificate user (``CERTIFICATE_USER``)."""
        return {
            "type": "http", "http_version": http_version, "asgi": {"spec_version": "2.1", "version": "3.0"},
            "method": method, "scheme": self.scheme, "path": unquote(raw_path.decode("latin-1")), "raw_path": raw_path,
            "query_string": query_string, "root_path": "", "headers": headers, "client": self.client,
            "server": self.server, "state": {}, "extensions": {}, CERTIFICATE_USER: self.certificate_user,
        }


class ReceivedBody:
    """A request's body as its connection reads it, ahead of the app, and ASGI's ``receive`` over
    it. Each chunk carries the length the connection takes back when the app has read it
    (``taken``: HTTP/2's flow-control windows, HTTP/1.1's read-ahead)."""

    __slots__ = ("chunks", "body_ended", "body_read", "disconnected", "receiver")

    def __init__(self) -> None:
        self.chunks: deque[tuple[bytes, int]] = deque()
        self.body_ended = False  # the whole body has been read from the connection
        self.body_read = False  # ... and handed to the app
        self.disconnected = False  # the client has gone
        self.receiver: asyncio.Future[None] | None = None

    def taken(self, length: int) -> None:
        """The app has read a chunk of ``length``."""

    def waiting(self) -> None:
        """The app waits for more of the body (or for the client to go)."""

    def wake_receiver(self) -> None:
        if self.receiver is not None and not self.receiver.done():
            self.receiver.set_result(None)

    async def receive(self) -> dict[str, Any]:
        """ASGI's receive: the body's chunks, then (after the last, ``more_body`` false) the
        disconnect once the client has gone."""
        while True:
            if self.chunks:
                data, length = self.chunks.popleft()
                self.taken(length)
                last = self.body_ended and not self.chunks
                self.body_read = last
                return {"type": "http.request", "body": data, "more_body": not last}
            if self.body_ended and not self.body_read:
                self.body_read = True
                return {"type": "http.request", "body": b"", "more_body": False}
            if self.disconnected:
                return {"type": "http.disconnect"}
            self.waiting()
            self.receiver = asyncio.get_running_loop().create_future()
            try:
                await self.receiver
            finally:
                self.receiver = None


class IdleTimeout:
    """Ends a connection once no request has been in flight for ``timeout`` seconds, with one
    timer a connection rather than one a request: ``busy`` tells whether a request is in flight,
    ``idle()`` marks the end of the last one, ``close`` ends the connection."""

    __slots__ = ("loop", "timeout", "busy", "close", "since", "timer")

    def __init__(self, timeout: float, busy: Callable[[], bool], close: Callable[[], None]) -> None:
        self.loop = asyncio.get_running_loop()
        self.timeout = timeout
        self.busy = busy
        self.close = close
        self.since = self.loop.time()
        self.timer = self.loop.call_later(timeout, self._check)

    def idle(self) -> None:
        self.since = self.loop.time()

    def cancel(self) -> None:
        self.timer.cancel()

    def _check(self) -> None:
        """Closes the connection, or looks again when it could be idle for long enough."""
        if self.busy():
            self.timer = self.loop.call_later(self.timeout, self._check)
            return
        idle_for = self.loop.time() - self.since
        if idle_for < self.timeout:
            self.timer = self.loop.call_later(self.timeout - idle_for, self._check)
            return
        self.close()
