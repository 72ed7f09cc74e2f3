"""HTTP/2 over TLS (ALPN ``h2``): h2's protocol state machine serving the ASGI app directly, one
task per request, and what a turn of the event loop made of frames written at once.

Why not Hypercorn's HTTP/2 (whose HTTP/1.1 ``fakeapi.http.http1`` replaced too): a response
went through its stream buffer, priority tree and sending task, and reached the socket in three
TLS writes (headers, data, end of stream), each awaited under a lock: about 1 ms of the server's
CPU for a GET of one ConfigMap, of which the app is 0.15 ms. Here the app's messages go to h2 as
they come, the last body message's data carries END_STREAM, and a response that the app sends in
one go (every response but a watch's) is written in one write.

What the app sees is Hypercorn's scope (``http_version`` "2", the ``host`` header first, made
of ``:authority``), with the connection's certificate user (``CERTIFICATE_USER``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

from .connection_parts import ASGIApp, Connection, IdleTimeout, ReceivedBody
from .date_header import DATE_HEADER
from .limits import IDLE_TIMEOUT

# What kube-apiserver v1.35.4's HTTP/2 server advertises (its SETTINGS and first WINDOW_UPDATE,
# as an h2 client reads them): Go's defaults under kube's ``MaxUploadBufferPerStream`` of 256 KiB.
#: Streams a client may have open on one connection (``--http2-max-streams-per-connection`` 0:
#: Go's default); client-go opens another connection beyond it.
MAX_STREAMS_PER_CONNECTION = 100
#: A request's header list (Go's ``MaxHeaderBytes``, 1 MiB, and its 320 bytes of slack).
MAX_HEADER_LIST_SIZE = 2**20 + 320
#: The window of each stream's request body, and the largest frame the client may send.
STREAM_WINDOW = MAX_FRAME_SIZE = 2**18
#: The window of the connection's request bodies together (``MaxUploadBufferPerConnection``: a
#: stream's window for each stream allowed).
CONNECTION_WINDOW = STREAM_WINDOW * MAX_STREAMS_PER_CONNECTION
#: Answers to the client's control frames (PING, SETTINGS) written but not yet taken by the
#: socket past which the connection ends (Go's ``maxQueuedControlFrames``): a client sending them
#: without reading the answers would make the write buffer grow without bound.
MAX_QUEUED_CONTROL_FRAMES = 10000
_LOG = logging.getLogger(__name__)


def _settings(max_concurrent_streams: int) -> h2.settings.Settings:
    """The server's settings, with a limit on the client's streams."""
    return h2.settings.Settings(client=False, initial_values={
        h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: max_concurrent_streams,
        h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: MAX_HEADER_LIST_SIZE,
        h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: STREAM_WINDOW,
        h2.settings.SettingCodes.MAX_FRAME_SIZE: MAX_FRAME_SIZE,
    })


class _Stream(ReceivedBody):
    """One request: its body as received (each chunk with the flow-controlled length the
    connection hands back to the client once the app has read it), and its response's state."""

    __slots__ = ("connection", "id", "sender", "started", "headers", "ended", "no_body")

    def __init__(self, connection: HTTP2Connection, stream_id: int, no_body: bool) -> None:
        super().__init__()  # ``disconnected``: reset by the client, or the connection is gone
        self.connection = connection
        self.id = stream_id
        # The app's receive and send wait apart (Starlette listens for the disconnect while it
        # streams a response): each on its own future, both woken by what concerns the stream.
        self.sender: asyncio.Future[None] | None = None
        self.started = False
        # The response's HEADERS, from its start until the first body message or the end of the
        # turn (``HTTP2Connection.flush``): a response without a body ends with them.
        self.headers: list[tuple[bytes, bytes]] | None = None
        self.ended = False
        self.no_body = no_body  # HEAD: headers alone, as Hypercorn and Go answer it

    def wake(self) -> None:
        self.wake_receiver()
        if self.sender is not None and not self.sender.done():
            self.sender.set_result(None)

    def taken(self, length: int) -> None:
        self.connection.acknowledge(self.id, length)

    async def send(self, message: dict[str, Any]) -> None:
        """ASGI's send: the response's HEADERS at its start, DATA as the app sends it (within the
        client's flow-control windows), END_STREAM on the last. Once the client has gone, the
        messages are dropped."""
        if self.disconnected or self.ended:
            return
        connection = self.connection
        kind = message["type"]
        try:
            if kind == "http.response.start":
                status = int(message["status"])
                self.no_body = self.no_body or status in (204, 304) or status < 200
                headers = [(b":status", b"%d" % status)]
                headers += [(bytes(name).strip().lower(), bytes(value).strip()) for name, value in message.get("headers", ())]
                headers.append(DATE_HEADER())
                self.headers = headers
                self.started = True
                connection.headers_due.append(self)
                connection.flush_soon()
            elif kind == "http.response.body" and self.started:
                body = b"" if self.no_body else message.get("body", b"")
                last = not message.get("more_body", False)
                if self.headers is not None:
                    self.send_headers(end_stream=last and not body)
                if body:
                    await self._send_data(memoryview(body), last)
                elif last and not self.ended:
                    connection.h2.end_stream(self.id)
                self.ended = self.ended or last
                connection.flush_soon()
                await connection.drain()
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError, ConnectionError):
            self.disconnected = True

    def send_headers(self, end_stream: bool) -> None:
        """The response's HEADERS, ending the stream when there is no body (HEAD, 204)."""
        headers, self.headers = self.headers, None
        if headers is None or self.disconnected:
            return
        try:
            self.connection.h2.send_headers(self.id, headers, end_stream=end_stream)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            self.disconnected = True
        self.ended = end_stream

    async def _send_data(self, data: memoryview, last: bool) -> None:
        h2_connection = self.connection.h2
        while data:
            size = min(h2_connection.local_flow_control_window(self.id), h2_connection.max_outbound_frame_size)
            if size <= 0:
                self.connection.flush()
                self.sender = asyncio.get_running_loop().create_future()
                try:
                    await self.sender  # a WINDOW_UPDATE, a SETTINGS, a reset or the connection's end
                finally:
                    self.sender = None
                if self.disconnected:
                    return
                continue
            chunk, data = data[:size], data[size:]
            h2_connection.send_data(self.id, bytes(chunk), end_stream=last and not data)

    def finish(self) -> None:
        """After the app returned: a 500 when it sent no response (Hypercorn's), a reset when it
        stopped in the middle of one (Go's server after a handler's panic); what it left of the
        request's body is handed back to the connection's window (else a 403 or 413 that never
        read it would shrink that window for good, until no body could be sent on the
        connection), and a body still coming is refused with a reset (NO_ERROR, as Go's server
        ends a stream whose handler returned before the request's end: RFC 9113 8.1)."""
        self.headers = None
        for _, length in self.chunks:
            self.connection.acknowledge(self.id, length)
        self.chunks.clear()
        if self.disconnected:
            return
        try:
            if self.ended:
                if not self.body_ended:
                    self.connection.h2.reset_stream(self.id, h2.errors.ErrorCodes.NO_ERROR)
                return
            if not self.started:
                self.connection.h2.send_headers(self.id, [(b":status", b"500"), (b"content-length", b"0"), DATE_HEADER()],
                                                end_stream=True)
            else:
                self.connection.h2.reset_stream(self.id, h2.errors.ErrorCodes.INTERNAL_ERROR)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            pass


class HTTP2Connection(Connection):
    """One HTTP/2 connection: reads frames, runs the app for each request, writes what h2 has to
    send (once per turn of the loop, or at once when a sender waits for the client). Closes after
    ``IDLE_TIMEOUT`` without a request in flight, as Hypercorn's keep-alive timeout did."""

    def __init__(self, app: ASGIApp, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 certificate_user: Any) -> None:
        super().__init__(app, reader, writer, certificate_user)
        # A response's headers are the app's, names lowercased and both sides stripped here
        # (``_Stream.send``), hop-by-hop ones never set (the proxy drops its backend's): h2's
        # checks of them, a third of its work for a response, would find nothing.
        self.h2 = h2.connection.H2Connection(config=h2.config.H2Configuration(
            client_side=False, header_encoding=None, validate_outbound_headers=False, normalize_outbound_headers=False))
        self.h2.local_settings = _settings(MAX_STREAMS_PER_CONNECTION)
        # In force from the first frame (the client may send as the SETTINGS allow before it
        # acknowledged them): what h2 set from its defaults.
        self.h2.max_inbound_frame_size = self.h2.incoming_buffer.max_frame_size = MAX_FRAME_SIZE
        self.h2.decoder.max_header_list_size = MAX_HEADER_LIST_SIZE
        self.streams: dict[int, _Stream] = {}
        self.headers_due: list[_Stream] = []  # started responses whose HEADERS wait for the flush
        self.tasks: set[asyncio.Task[None]] = set()
        self.flush_scheduled = False
        # The client's control frames h2 answered since the write buffer was last empty.
        self.control_frames = 0
        self.idle_timeout: IdleTimeout | None = None

    async def serve(self) -> None:
        self.h2.initiate_connection()
        if CONNECTION_WINDOW > self.h2.inbound_flow_control_window:  # a WINDOW_UPDATE of 0 is an error
            self.h2.increment_flow_control_window(CONNECTION_WINDOW - self.h2.inbound_flow_control_window)
        # The limit on streams is advertised, and enforced here (``_request``): h2 answers a
        # stream over it with a GOAWAY, which would end every watch on the connection.
        self.h2.local_settings = _settings(2**31 - 1)
        self.flush()
        self.idle_timeout = IdleTimeout(IDLE_TIMEOUT, lambda: bool(self.streams), self._close_idle)
        try:
            while True:
                data = await self.read()
                if not data:
                    break
                try:
                    events = self.h2.receive_data(data)
                except h2.exceptions.ProtocolError:
                    self.flush()  # h2's GOAWAY
                    break
                for event in events:
                    self._event(event)
                self.flush()
                if self.control_frames > MAX_QUEUED_CONTROL_FRAMES:
                    if self.writer.transport.get_write_buffer_size():
                        _LOG.warning("HTTP/2 connection from %s ended: too many control frames queued", self.client)
                        self.writer.transport.abort()  # a close would wait for the buffer to drain
                        break
                    self.control_frames = 0
        except asyncio.CancelledError:  # the server stops: so do the requests
            # GOAWAY first, as Go's server's shutdown: the client learns that the connection ends
            # and that no request after its last stream was taken (safe to retry elsewhere).
            self.h2.close_connection()
            self.flush()
            for task in self.tasks:
                task.cancel()
            raise
        finally:
            if self.idle_timeout is not None:
                self.idle_timeout.cancel()
            for stream in self.streams.values():
                stream.disconnected = True
                stream.wake()
            await asyncio.gather(*self.tasks, return_exceptions=True)
            self.writer.close()

    def _event(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.RequestReceived):
            self._request(event)
        elif isinstance(event, h2.events.DataReceived):
            stream = self.streams.get(event.stream_id)
            if stream is None or stream.body_ended:
                self.acknowledge(event.stream_id, event.flow_controlled_length)
            else:
                stream.chunks.append((event.data, event.flow_controlled_length))
                stream.wake()
        elif isinstance(event, h2.events.StreamEnded):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream.body_ended = True
                stream.wake()
        elif isinstance(event, h2.events.StreamReset):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream.disconnected = True
                stream.wake()
        elif isinstance(event, (h2.events.WindowUpdated, h2.events.RemoteSettingsChanged)):
            # More room to send in: every stream waits on its own window and the connection's.
            for stream in self.streams.values():
                stream.wake()
            if event.__class__ is h2.events.RemoteSettingsChanged:
                self.control_frames += 1  # h2 acknowledged it
        elif isinstance(event, h2.events.PingReceived):
            self.control_frames += 1  # h2 answered it

    def _request(self, event: h2.events.RequestReceived) -> None:
        method = raw_path = b""
        authority = host = None
        headers: list[tuple[bytes, bytes]] = [(b"host", b"")]
        for name, value in event.headers:
            if name[:1] == b":":
                if name == b":method":
                    method = value
                elif name == b":path":
                    raw_path = value
                elif name == b":authority":
                    authority = value
            elif name == b"host":
                host = value
            else:
                headers.append((name, value))
        headers[0] = (b"host", authority if authority is not None else host or b"")
        path, _, query_string = raw_path.partition(b"?")
        method_text = method.decode("ascii").upper()
        if len(self.streams) >= MAX_STREAMS_PER_CONNECTION:
            # Go's server refuses it so (until the client acknowledged the limit; a protocol
            # error after): the client may retry it, the connection goes on.
            self.h2.reset_stream(event.stream_id, h2.errors.ErrorCodes.REFUSED_STREAM)
            return
        stream = _Stream(self, event.stream_id, no_body=method_text == "HEAD")
        self.streams[event.stream_id] = stream
        scope = self.scope("2", method_text, path, query_string, headers)
        task = self.loop.create_task(self._run(stream, scope))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _run(self, stream: _Stream, scope: dict[str, Any]) -> None:
        try:
            await self.app(scope, stream.receive, stream.send)
        except Exception:
            _LOG.exception("HTTP/2 request %s %s failed", scope["method"], scope["path"])
        finally:
            stream.finish()
            del self.streams[stream.id]
            self.flush_soon()
            if not self.streams and self.idle_timeout is not None:
                self.idle_timeout.idle()

    def _close_idle(self) -> None:
        """No request in flight for ``IDLE_TIMEOUT``: GOAWAY, and the connection ends."""
        self.h2.close_connection()
        self.flush()
        self.writer.close()

    def acknowledge(self, stream_id: int, length: int) -> None:
        """Hands ``length`` bytes of the client's flow-control windows back once read."""
        if length:
            self.h2.acknowledge_received_data(length, stream_id)
            self.flush_soon()

    def flush(self) -> None:
        """Writes what h2 has to send, HEADERS of started responses included (a watch's, before
        its first event)."""
        for stream in self.headers_due:
            stream.send_headers(end_stream=False)
        self.headers_due.clear()
        data = self.h2.data_to_send()
        if data and not self.writer.is_closing():
            self.writer.write(data)

    def flush_soon(self) -> None:
        """Writes at the end of this turn of the loop: a response's HEADERS and DATA go out in one
        write (and TLS record), as Go's server writes them."""
        if not self.flush_scheduled:
            self.flush_scheduled = True
            self.loop.call_soon(self._scheduled_flush)

    def _scheduled_flush(self) -> None:
        self.flush_scheduled = False
        self.flush()

    async def drain(self) -> None:
        """Waits while the socket's buffer is over its high-water mark (a client not reading);
        while the socket takes all, what is to send waits for the end of the turn."""
        if self.writer.transport.get_write_buffer_size():
            self.flush()
            await self.writer.drain()
