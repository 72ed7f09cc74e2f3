"""fakeapi's HTTP/2 connection (``fakeapi.http.http2``) against h2's client: a response in one
write, bodies beyond the flow-control windows both ways, HEAD, 204 and 304, a reset stream's
disconnect, a failed app's 500 or reset, the scope the app sees, the idle timeout, unread bodies'
windows, streams over the limit, a PING flood, and a client that does not read."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import h2.config
import h2.connection
import h2.errors
import h2.events

from fakeapi.http.access import CERTIFICATE_USER
from fakeapi.http import http2
from fakeapi.http.http2 import HTTP2Connection

App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


class _CountingWriter:
    """The server's writer, counting its writes and the most its buffer held."""

    def __init__(self, writer: asyncio.StreamWriter, writes: list[int], buffered: list[int]) -> None:
        self._writer = writer
        self._writes = writes
        self._buffered = buffered

    def write(self, data: bytes) -> None:
        self._writes.append(len(data))
        self._writer.write(data)
        self._buffered[0] = max(self._buffered[0], self._writer.transport.get_write_buffer_size())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._writer, name)


class Client:
    """An h2 client connection to a server running ``HTTP2Connection`` around ``app``."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.writes: list[int] = []  # the sizes of the server's writes
        self.buffered = [0]  # the most the server's write buffer held
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding=None))
        self.events: dict[int, list[h2.events.Event]] = {}

    async def __aenter__(self) -> Client:
        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await HTTP2Connection(self.app, reader, _CountingWriter(writer, self.writes, self.buffered), "a user").serve()  # type: ignore[arg-type]

        self.server = await asyncio.start_server(connection, "127.0.0.1", 0)
        self.reader, self.writer = await asyncio.open_connection(*self.server.sockets[0].getsockname()[:2])
        self.h2.initiate_connection()
        self.flush()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self.writer.close()
        self.server.close()
        await self.server.wait_closed()

    def flush(self) -> None:
        self.writer.write(self.h2.data_to_send())

    async def read(self) -> None:
        """One read's events, each kept by stream; received data handed back at once."""
        data = await asyncio.wait_for(self.reader.read(65536), 10)
        assert data, "the server closed the connection"
        for event in self.h2.receive_data(data):
            stream_id = getattr(event, "stream_id", 0) or 0
            self.events.setdefault(stream_id, []).append(event)
            if isinstance(event, h2.events.DataReceived):
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        self.flush()

    async def request(self, method: bytes, path: bytes, body: bytes = b"") -> int:
        """Sends a request (its body as the windows let it) and returns its stream id."""
        stream_id = self.h2.get_next_available_stream_id()
        self.h2.send_headers(stream_id, [(b":method", method), (b":path", path), (b":scheme", b"https"),
                                         (b":authority", b"example:6443"), (b"x-one", b"1")], end_stream=not body)
        self.flush()
        while body:
            window = min(self.h2.local_flow_control_window(stream_id), self.h2.max_outbound_frame_size)
            if window <= 0:
                await self.read()
                continue
            chunk, body = body[:window], body[window:]
            self.h2.send_data(stream_id, chunk, end_stream=not body)
            self.flush()
        return stream_id

    async def response(self, stream_id: int) -> tuple[dict[bytes, bytes], bytes, list[h2.events.Event]]:
        while not any(isinstance(e, (h2.events.StreamEnded, h2.events.StreamReset)) for e in self.events.get(stream_id, ())):
            await self.read()
        events = self.events[stream_id]
        headers = next(dict(e.headers) for e in events if isinstance(e, h2.events.ResponseReceived))
        body = b"".join(e.data for e in events if isinstance(e, h2.events.DataReceived))
        return headers, body, events


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), 30))


async def _echo(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers the request's body and what the scope says of it."""
    body = b""
    while True:
        message = await receive()
        body += message["body"]
        if not message["more_body"]:
            break
    described = repr((scope["http_version"], scope["method"], scope["path"], scope["query_string"], scope["headers"],
                      scope[CERTIFICATE_USER])).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"), (b"x-length", b"%d" % len(body))]})
    await send({"type": "http.response.body", "body": described if len(body) < 100 else body})


def _echo_after(path: str, answer: asyncio.Event) -> App:
    """``_echo``, a request for ``path`` answered once ``answer`` is set."""
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["path"] == path:
            await answer.wait()
        await _echo(scope, receive, send)
    return app


def test_a_response_is_one_write_of_headers_and_data_ending_the_stream() -> None:
    async def test() -> None:
        async with Client(_echo) as client:
            await client.read()  # the server's SETTINGS
            await client.read()
            client.writes.clear()
            stream_id = await client.request(b"GET", b"/api/v1/namespaces/a%2Fb?watch=1")
            headers, body, events = await client.response(stream_id)
            assert headers[b":status"] == b"200" and headers[b"content-type"] == b"text/plain"
            assert headers[b"date"].endswith(b" GMT") and b"server" not in headers
            assert body == repr(("2", "GET", "/api/v1/namespaces/a/b", b"watch=1",
                                 [(b"host", b"example:6443"), (b"x-one", b"1")], "a user")).encode()
            data = [e for e in events if isinstance(e, h2.events.DataReceived)]
            assert len(data) == 1 and data[0].stream_ended is not None
            assert len(client.writes) == 1, client.writes
    run(test)


def test_bodies_beyond_the_flow_control_windows_both_ways() -> None:
    async def test() -> None:
        async with Client(_echo) as client:
            sent = bytes(range(256)) * 1200  # 300 KiB: over the 64 KiB windows of either side
            stream_id = await client.request(b"POST", b"/", sent)
            headers, body, _ = await client.response(stream_id)
            assert headers[b"x-length"] == b"%d" % len(sent)
            assert body == sent
    run(test)


def test_head_answers_headers_alone() -> None:
    async def test() -> None:
        async with Client(_echo) as client:
            headers, body, events = await client.response(await client.request(b"HEAD", b"/"))
            assert headers[b":status"] == b"200" and body == b""
            assert not any(isinstance(e, h2.events.DataReceived) for e in events)
    run(test)


def test_a_reset_stream_is_the_apps_disconnect_and_the_connection_goes_on() -> None:
    disconnected = asyncio.Event()

    async def watch(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["path"] != "/watch":
            return await _echo(scope, receive, send)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"event 1\n", "more_body": True})
        assert (await receive())["more_body"] is False
        assert await receive() == {"type": "http.disconnect"}
        disconnected.set()

    async def test() -> None:
        async with Client(watch) as client:
            stream_id = await client.request(b"GET", b"/watch")
            while not any(isinstance(e, h2.events.DataReceived) for e in client.events.get(stream_id, ())):
                await client.read()
            client.h2.reset_stream(stream_id)
            client.flush()
            await asyncio.wait_for(disconnected.wait(), 10)
            headers, _, _ = await client.response(await client.request(b"GET", b"/next"))
            assert headers[b":status"] == b"200"
    run(test)


def test_an_app_that_fails_is_a_500_or_a_reset_and_the_connection_goes_on() -> None:
    async def fail(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["path"] == "/midway":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"part", "more_body": True})
        if scope["path"] != "/":
            raise RuntimeError("a bug")
        await _echo(scope, receive, send)

    async def test() -> None:
        async with Client(fail) as client:
            headers, body, _ = await client.response(await client.request(b"GET", b"/fail"))
            assert (headers[b":status"], headers[b"content-length"], body) == (b"500", b"0", b"")
            _, _, events = await client.response(await client.request(b"GET", b"/midway"))
            reset = [e for e in events if isinstance(e, h2.events.StreamReset)]
            assert reset and reset[0].error_code == h2.errors.ErrorCodes.INTERNAL_ERROR
            headers, _, _ = await client.response(await client.request(b"GET", b"/"))
            assert headers[b":status"] == b"200"
    run(test)


def test_204_and_304_answer_headers_alone_and_a_get_may_have_a_body() -> None:
    """A body the app sends with a 204 or 304 is dropped (they have none, as Go's server answers
    them); a GET's body reaches the app."""
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["path"] == "/":
            return await _echo(scope, receive, send)
        await send({"type": "http.response.start", "status": int(scope["path"][1:]), "headers": []})
        await send({"type": "http.response.body", "body": b"not sent"})

    async def test() -> None:
        async with Client(app) as client:
            for status in (b"204", b"304"):
                headers, body, events = await client.response(await client.request(b"GET", b"/" + status))
                assert headers[b":status"] == status and body == b""
                assert not any(isinstance(e, h2.events.DataReceived) for e in events)
            sent = b"z" * 200
            headers, body, _ = await client.response(await client.request(b"GET", b"/", sent))
            assert (headers[b"x-length"], body) == (b"200", sent)
    run(test)


def test_the_connection_ends_after_the_idle_timeout_without_requests_in_flight(monkeypatch: Any) -> None:
    monkeypatch.setattr(http2, "IDLE_TIMEOUT", 0.3)
    answer = asyncio.Event()

    async def test() -> None:
        async with Client(_echo_after("/slow", answer)) as client:
            stream_id = await client.request(b"GET", b"/slow")
            await asyncio.sleep(0.6)  # twice the timeout, a request in flight: still open
            answer.set()
            headers, _, _ = await client.response(stream_id)
            assert headers[b":status"] == b"200"
            ended = False
            while not ended:
                data = await asyncio.wait_for(client.reader.read(65536), 5)
                if not data:
                    break
                ended = any(isinstance(e, h2.events.ConnectionTerminated) for e in client.h2.receive_data(data))
            assert ended or client.reader.at_eof()
    run(test)


async def _refuse_unread(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers 403 without reading the body, as authorization refuses a write."""
    await send({"type": "http.response.start", "status": 403, "headers": []})
    await send({"type": "http.response.body", "body": b"forbidden"})


def test_bodies_the_app_never_read_give_their_window_back(monkeypatch: Any) -> None:
    """A body the app answered without reading (a 403, a 404) was queued and never handed back
    to the connection's window: after a window of them no request body could be sent at all.
    The connection's window is HTTP/2's default here, so that a few bodies would exhaust it."""
    monkeypatch.setattr(http2, "CONNECTION_WINDOW", 65535)
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await (_refuse_unread if scope["path"] == "/refused" else _echo)(scope, receive, send)

    async def test() -> None:
        async with Client(app) as client:
            for _ in range(4):
                headers, _, _ = await client.response(await client.request(b"POST", b"/refused", b"x" * 30000))
                assert headers[b":status"] == b"403"
            sent = b"y" * 200000
            headers, body, _ = await client.response(await client.request(b"POST", b"/", sent))
            assert (headers[b":status"], body) == (b"200", sent)
    run(test)


def test_streams_over_the_limit_are_refused_and_the_connection_goes_on(monkeypatch: Any) -> None:
    """A stream over MAX_CONCURRENT_STREAMS is reset with REFUSED_STREAM, as Go's server refuses
    it before the client acknowledged the limit; h2 alone ended the connection (and every watch
    on it) with a GOAWAY."""
    monkeypatch.setattr(http2, "MAX_STREAMS_PER_CONNECTION", 2)
    answer = asyncio.Event()

    async def test() -> None:
        async with Client(_echo_after("/held", answer)) as client:
            # Sent before the server's SETTINGS arrive: the client does not know the limit yet.
            streams = [await client.request(b"GET", b"/held") for _ in range(3)]
            while not client.events.get(streams[2]):
                await client.read()
            refused = client.events[streams[2]]
            assert [type(e) for e in refused] == [h2.events.StreamReset]
            assert refused[0].error_code == h2.errors.ErrorCodes.REFUSED_STREAM
            answer.set()
            for stream_id in streams[:2]:
                headers, _, _ = await client.response(stream_id)
                assert headers[b":status"] == b"200"
            headers, _, _ = await client.response(await client.request(b"GET", b"/next"))
            assert headers[b":status"] == b"200"
    run(test)


def test_a_flood_of_pings_from_a_client_that_does_not_read_ends_its_connection() -> None:
    """Each PING is answered (h2 queues the ACK): a client sending them without reading made
    the server's write buffer grow without bound. Go's server ends such a connection past
    10,000 control frames queued; so does this one."""
    async def test() -> None:
        async with Client(_echo) as client:
            ping = client.h2
            ping.ping(b"12345678")
            frame = ping.data_to_send()
            with contextlib.suppress(ConnectionError):
                for _ in range(200):  # 10,000 PINGs a write, 2,000,000 in all (34 MB)
                    client.writer.write(frame * 10000)
                    await asyncio.wait_for(client.writer.drain(), 10)
            assert client.buffered[0] < 2**20, client.buffered
            # The server ended the connection: its reset, or the end once what it had sent is
            # read (a connection still open would time the read out).
            with contextlib.suppress(ConnectionError):
                while await asyncio.wait_for(client.reader.read(2**20), 10):
                    pass
    run(test)


def test_a_response_waits_for_a_client_that_does_not_read() -> None:
    """A 10 MiB response to a client that reads nothing for a while: the server holds back what
    the client's windows do not allow (h2's windows, 64 KiB here) instead of buffering it, and
    sends the rest once the client reads; another stream's answer then comes as well."""
    big = bytes(range(256)) * (40 * 1024)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["path"] != "/big":
            return await _echo(scope, receive, send)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": big})

    async def test() -> None:
        async with Client(app) as client:
            stream_id = await client.request(b"GET", b"/big")
            await asyncio.sleep(0.5)  # not reading
            assert client.buffered[0] < 2**17, client.buffered
            _, body, _ = await client.response(stream_id)
            assert body == big
            headers, _, _ = await client.response(await client.request(b"GET", b"/next"))
            assert headers[b":status"] == b"200"
    run(test)
