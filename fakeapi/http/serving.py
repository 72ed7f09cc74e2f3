"""Serving the API on connections this module accepts itself: over TLS (``--tls``), HTTP/2 by
``fakeapi.http.http2`` on ALPN h2 and HTTP/1.1 by ``fakeapi.http.http1`` (httptools' parser)
otherwise; over plain HTTP, HTTP/1.1.

Why not uvicorn: it speaks HTTP/1.1 only, and client-go multiplexes its watches over one HTTP/2
connection to a real kube-apiserver; HTTP/1.1 would open a connection per watch. Why accept the
connections here: kube authenticates by the client's certificate, and each connection puts the
user its verified certificate names into every request's scope
(``fakeapi.http.access.CERTIFICATE_USER``), worked out once per connection. And plain HTTP/1.1
the same way: one HTTP/1.1 of Go's server's behaviour (an upgrade taken or answered, a method
llhttp does not know answered 405 by kube's rules), as fast as uvicorn's on its requests (within
a few per cent, faster for one client), and a start that does not import uvicorn's package (its
command line and reloaders, ~20 ms).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from dataclasses import dataclass, field
from typing import Any

from starlette.types import ASGIApp

from ..auth.authentication import UserInfo, certificate_user
from .http1 import HTTP1Connection
from .http2 import HTTP2Connection

#: How long a stop waits for its connections to close before it cuts them (``HTTPServer.serve``).
STOP_GRACE = 1.0
#: How long a client may take over its TLS handshake.
HANDSHAKE_TIMEOUT = 60.0


@dataclass
class HTTPServer:
    """An ASGI app served on ``sock`` (already bound and listening), over TLS with ``context``;
    ``serve`` runs until ``stop()``, then closes every connection (watches end)."""

    app: ASGIApp
    sock: socket.socket
    context: ssl.SSLContext | None  # None: plain HTTP
    _connections: dict[asyncio.Task[None], asyncio.StreamWriter] = field(default_factory=dict)
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        # The users of certificates seen, by their DER: a client reconnecting costs no parsing.
        self._users: dict[bytes, UserInfo | None] = {}

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    def stop(self) -> None:
        self._stopped.set()

    async def serve(self) -> None:
        tls = {"ssl": self.context, "ssl_handshake_timeout": HANDSHAKE_TIMEOUT} if self.context else {}
        server = await asyncio.start_server(self._connection, sock=self.sock, **tls)
        try:
            await self._stopped.wait()
        finally:
            server.close()
            for task in list(self._connections):
                task.cancel()
            # A TLS close waits for the peer's close_notify, up to 30 s (spinning uvloop's loop
            # meanwhile): a client that keeps an idle connection open without reading would hold
            # the stop that long. Connections still closing after a grace are cut, as Go's server
            # closes idle connections without waiting for the peer.
            if self._connections:
                await asyncio.wait(list(self._connections), timeout=STOP_GRACE)
            for writer in list(self._connections.values()):
                writer.transport.abort()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await server.wait_closed()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            ssl_object = writer.get_extra_info("ssl_object")
            user = self._certificate_user(ssl_object)
            if ssl_object is not None and ssl_object.selected_alpn_protocol() == "h2":
                await HTTP2Connection(self.app, reader, writer, user).serve()
            else:
                await HTTP1Connection(self.app, reader, writer, user).serve()
        except asyncio.CancelledError:
            # The server stops (``serve`` cancels every connection): the connection's end, not
            # an error. Python 3.11's stream callback asks a cancelled task for its exception and
            # logs the CancelledError with its traceback, 15 ms of a stop for the first alone.
            pass
        finally:
            self._connections.pop(task, None)

    def _certificate_user(self, ssl_object: Any) -> UserInfo | None:
        """The user the verified client certificate names (None: no certificate)."""
        der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
        if not der:
            return None
        if der not in self._users:
            if len(self._users) >= 1024:
                self._users.clear()
            self._users[der] = certificate_user(der)
        return self._users[der]
