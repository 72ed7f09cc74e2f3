"""Watches over fakeapi's HTTP/2 (``fakeapi.http.http2``) served by the whole app over TLS: a
watch the client cancels (RST_STREAM) ends and releases its cacher watcher, over many watches
without a task left behind; a connection dropped with watches open releases every one; and the
server's stop ends a connection that still has watches open, with a GOAWAY."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import h2.config
import h2.connection
import h2.errors
import h2.events

from fakeapi.auth.authentication import ADMIN_TOKEN
from fakeapi.http.pki import ServerCertificates
from fakeapi.http.serving import HTTPServer
from fakeapi.http.tls import server_context
from fakeapi.server.config import ServerConfig
from fakeapi.server.server import create_app

WATCH = "/api/v1/namespaces/default/configmaps?watch=1"
AUTHORIZATION = f"Bearer {ADMIN_TOKEN}"


class Served:
    """The app over TLS on a port of its own; ``watchers`` are the ConfigMap cacher's."""

    def __init__(self, tmp_path: Path) -> None:
        self.certificates = ServerCertificates.in_directory(tmp_path, ["127.0.0.1"], "admin", ["system:masters"])
        self.app = create_app(ServerConfig(controllers=frozenset()))
        self.watchers = self.app.state.server.registry.resources[("", "v1", "configmaps")].storage.cacher.watchers

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[HTTPServer]:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        certificates = self.certificates
        async with self.app.router.lifespan_context(self.app):
            server = HTTPServer(self.app, sock, server_context(certificates.serving_cert_file,
                                                              certificates.serving_key_file, []))
            serve = asyncio.create_task(server.serve())
            try:
                yield server
            finally:
                server.stop()
                await asyncio.wait_for(serve, 10)

    async def connect(self, port: int) -> RawClient:
        context = ssl.create_default_context(cafile=self.certificates.ca_file)
        context.set_alpn_protocols(["h2"])
        reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
        return RawClient(reader, writer)


class RawClient:
    """An h2 connection as Go's client uses one: a watch's context cancelled is its RST_STREAM
    (CANCEL); httpx sends none when a response is closed early."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding=None))
        self.h2.initiate_connection()
        self.writer.write(self.h2.data_to_send())

    async def watches(self, count: int) -> list[int]:
        """``count`` watches opened, each answered with its headers."""
        streams = []
        for _ in range(count):
            stream_id = self.h2.get_next_available_stream_id()
            self.h2.send_headers(stream_id, [(b":method", b"GET"), (b":path", WATCH.encode()), (b":scheme", b"https"),
                                             (b":authority", b"127.0.0.1"),
                                             (b"authorization", AUTHORIZATION.encode())], end_stream=True)
            streams.append(stream_id)
        self.writer.write(self.h2.data_to_send())
        answered: set[int] = set()
        while len(answered) < count:
            data = await asyncio.wait_for(self.reader.read(2**16), 10)
            assert data
            events = self.h2.receive_data(data)
            answered |= {e.stream_id for e in events if isinstance(e, h2.events.ResponseReceived)}
            assert not [e for e in events if isinstance(e, h2.events.StreamReset)]
            self.writer.write(self.h2.data_to_send())
        return streams

    def cancel(self, stream_id: int) -> None:
        self.h2.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)
        self.writer.write(self.h2.data_to_send())


async def _until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.025)
    raise AssertionError(what)


def _run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), 60))


def test_cancelled_watches_release_their_watchers_and_tasks(tmp_path: Path) -> None:
    served = Served(tmp_path)

    async def test() -> None:
        async with served.serving() as server:
            client = await served.connect(server.port)
            await client.watches(1)
            tasks = len(asyncio.all_tasks())
            for _ in range(20):  # 400 watches opened and cancelled, 20 at a time
                for stream_id in await client.watches(20):
                    client.cancel(stream_id)
            await _until(lambda: len(served.watchers) == 1, "the cancelled watches' watchers are released, the one left goes on")
            await _until(lambda: len(asyncio.all_tasks()) <= tasks, "no stream's task is left")
            client.writer.close()
    _run(test)


def test_a_dropped_connection_releases_every_watch(tmp_path: Path) -> None:
    served = Served(tmp_path)

    async def test() -> None:
        async with served.serving() as server:
            tasks = len(asyncio.all_tasks())
            client = await served.connect(server.port)
            await client.watches(50)
            assert len(served.watchers) == 50
            client.writer.transport.abort()  # no GOAWAY, no resets: the TCP connection is gone
            await _until(lambda: not served.watchers, "the dropped connection's watchers are released")
            await _until(lambda: len(asyncio.all_tasks()) <= tasks, "no stream's task is left")
    _run(test)


def test_the_servers_stop_ends_a_connection_with_watches_open(tmp_path: Path) -> None:
    served = Served(tmp_path)

    async def test() -> None:
        async with served.serving() as server:
            client = await served.connect(server.port)
            streams = await client.watches(10)
            loop = asyncio.get_running_loop()
            stopped_at = loop.time()
            server.stop()
        assert loop.time() - stopped_at < 2
        assert not served.watchers
        events = []
        while data := await asyncio.wait_for(client.reader.read(2**16), 10):
            events += client.h2.receive_data(data)
        goaway = [e for e in events if isinstance(e, h2.events.ConnectionTerminated)]
        assert goaway and goaway[0].error_code == h2.errors.ErrorCodes.NO_ERROR
        assert goaway[0].last_stream_id == streams[-1]
        client.writer.close()
    _run(test)
