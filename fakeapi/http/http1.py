"""HTTP/1.1 over TLS (ALPN ``http/1.1``, or none offered): httptools' C parser (llhttp, uvicorn's)
serving the ASGI app, one request at a time per connection, as Go's server serves HTTP/1.1.

Why not Hypercorn's HTTP/1.1, which served it until now: importing Hypercorn, h11 and wsproto
cost a TLS server's start about 40 ms (a tenth of envtest's start of fakeapi, whose health probe
speaks HTTP/1.1), and h11 parses in Python. Plain HTTP is uvicorn's (``fakeapi.cli.serve``), whose
import costs more than this module's and would bring its command line along.

What Go's server does and this does too: keep-alive unless the client or HTTP/1.0 asks otherwise;
pipelined requests answered in order; a request's end of stream (the client gone) seen while its
handler runs, as the disconnect ASGI reports; ``Expect: 100-continue`` answered when the app first
reads the body; a response without a length sent chunked (to HTTP/1.0: until the close); a broken
request line or header answered 400, headers over ``MAX_HEADER_BYTES`` 431, both closing the
connection; a handler that sends no response answered 500, one that stops within a response ends
the connection; an upgrade request (``Connection: Upgrade``) may take the connection
(``fakeapi.http.upgrades``), else it is answered as a plain request and the connection goes on.
What the app sees is the HTTP/2 connection's scope (``http_version`` "1.1" or
"1.0"), with the connection's certificate user (``CERTIFICATE_USER``).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import deque
from http import HTTPStatus
from typing import Any

import httptools

from .connection_parts import ASGIApp, Connection, IdleTimeout, ReceivedBody
from .date_header import DATE_HEADER
from .limits import IDLE_TIMEOUT
from .upgrades import UPGRADE, Tunnel

#: A request's line and headers at most: Go's ``DefaultMaxHeaderBytes`` (kube-apiserver keeps
#: it) and the 4 KiB its server reads beyond.
MAX_HEADER_BYTES = 2**20 + 4096
#: A request body read ahead of the app up to this; beyond, reading waits until the app takes it.
MAX_BUFFERED_BODY = 2**18
#: Requests pipelined behind the one being answered up to this; beyond, reading waits.
MAX_PIPELINED = 16
#: How long a connection closed with a request's body unread goes on reading (and dropping) what
#: the client sends before it closes: a close with unread data resets the connection, and the
#: client's system then drops the answer it has not read yet (Go's ``rstAvoidanceDelay``).
LINGER = 0.5
_LOG = logging.getLogger(__name__)


def _status_line(status: int) -> bytes:
    """Go's: the status text its ``http.StatusText`` gives, ``status code N`` for one it lacks."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = f"status code {status}"
    return b"HTTP/1.1 %d %s\r\n" % (status, reason.encode("ascii"))


_STATUS_LINES = {status.value: _status_line(status.value) for status in HTTPStatus}
#: The methods llhttp is left to parse; another (any token: Go's server hands it to the handler,
#: and kube answers 405) is parsed as a GET and handed to the app by its own name. llhttp's table
#: of methods is fixed, and it refuses a method outside it as a malformed request.
_PARSED_METHODS = frozenset((b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"PATCH", b"OPTIONS", b"TRACE", b"CONNECT"))
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_BAD_REQUEST = b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n\r\n400 Bad Request"
_HEADERS_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
                      b"connection: close\r\n\r\n431 Request Header Fields Too Large")


class _Request(ReceivedBody):
    """One request: its body as read (ahead of the app, up to ``MAX_BUFFERED_BODY``) and its
    response's state."""

    __slots__ = ("connection", "scope", "buffered", "keep_alive", "http11", "expect_continue", "head", "no_body",
                 "started", "head_bytes", "chunked", "ended", "hijacked", "upgrade_decided")

    def __init__(self, connection: HTTP1Connection, scope: dict[str, Any], keep_alive: bool, http11: bool,
                 expect_continue: bool) -> None:
        super().__init__()
        self.connection = connection
        self.scope = scope
        self.buffered = 0  # what the chunks hold
        self.keep_alive = keep_alive
        self.http11 = http11
        self.expect_continue = expect_continue
        self.head = self.no_body = scope["method"] == "HEAD"
        self.started = False
        self.head_bytes: bytes | None = None  # the status line and headers, until the first body message
        self.chunked = False
        self.ended = False
        self.hijacked = False  # the app took the connection (``UPGRADE``)
        #: Of an upgrade request: whether the app took the connection, once it has or has answered.
        self.upgrade_decided: asyncio.Future[bool] | None = None

    @property
    def transport(self) -> asyncio.Transport:
        """The connection's (``TRANSPORT``: a watch that falls behind is cut through it)."""
        return self.connection.writer.transport  # type: ignore[return-value]

    @property
    def direct_chunks(self) -> bool:
        """Whether chunks may be written to ``transport`` between ASGI messages
        (``CHUNKED_TRANSPORT``): an HTTP/1.1 response without a length, whose status line and
        headers are written at its start."""
        return self.http11

    def taken(self, length: int) -> None:
        self.buffered -= length
        self.connection.resume_reading()

    def waiting(self) -> None:
        """The client waits for ``100 Continue`` before it sends the body: the app asks for it."""
        if self.expect_continue:
            self.expect_continue = False
            if not self.started:
                self.connection.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    async def send(self, message: dict[str, Any]) -> None:
        """ASGI's send: the status line and headers with the first body message (one write for a
        response sent in one go), the body as the app sends it, chunked when it named no length.
        Once the connection has closed, the messages are dropped (a client that only ended its
        side of it may still read the answer)."""
        writer = self.connection.writer
        if self.ended or writer.is_closing():
            return
        kind = message["type"]
        if kind == "http.response.start" and not self.started:
            self._start(int(message["status"]), message.get("headers", ()))
        elif kind == "http.response.body" and self.started:
            body = message.get("body", b"")
            last = not message.get("more_body", False)
            parts = []
            if self.head_bytes is not None:
                parts.append(self.head_bytes)
                self.head_bytes = None
            if body and not self.no_body:
                parts += (b"%x\r\n" % len(body), body, b"\r\n") if self.chunked else (body,)
            if last:
                self.ended = True
                if self.chunked:
                    parts.append(b"0\r\n\r\n")
            if parts:
                writer.writelines(parts)
            try:
                await writer.drain()  # a client not reading: the app waits, as Go's handler blocks
            except (ConnectionError, OSError):
                self.disconnected = True

    def _start(self, status: int, headers: Any) -> None:
        self.no_body = self.head or status in (204, 304) or status < 200
        if not self.body_ended:
            # Answered before its body was read (a refusal): the rest of the body would be read
            # as the next request, so the connection ends with this answer, as Go's does.
            self.keep_alive = False
        line = _STATUS_LINES.get(status) or _status_line(status)
        lines = [line if self.http11 else b"HTTP/1.0" + line[8:]]  # Go answers in the request's version
        has_length = False
        for name, value in headers:
            name, value = bytes(name).strip(), bytes(value).strip()
            lowered = name.lower()
            if lowered == b"content-length":
                has_length = True
            elif lowered == b"transfer-encoding":
                continue  # the framing is this connection's
            elif lowered == b"connection":
                self.keep_alive = self.keep_alive and value.lower() != b"close"
                continue
            lines.append(b"%s: %s\r\n" % (name, value))
        lines.append(b"date: %s\r\n" % DATE_HEADER()[1])
        if not (self.no_body or has_length):
            if self.http11:
                self.chunked = True
                lines.append(b"transfer-encoding: chunked\r\n")
            else:
                self.keep_alive = False  # HTTP/1.0: the body ends with the connection
        if not self.keep_alive:
            if self.http11:  # an HTTP/1.0 client expects the close (Go tells HTTP/1.1 clients only)
                lines.append(b"connection: close\r\n")
        elif not self.http11:
            lines.append(b"connection: keep-alive\r\n")  # asked for by the HTTP/1.0 client
        lines.append(b"\r\n")
        self.head_bytes = b"".join(lines)
        self.started = True
        if self.chunked:
            # A stream (a watch): its head at once, before chunks written directly may follow it.
            self.connection.writer.write(self.head_bytes)
            self.head_bytes = None

    def finish(self) -> bool:
        """After the app returned: a 500 when it sent no response, as Go's server answers a
        handler that wrote nothing but failed. Whether the connection may serve another request:
        not after a response cut short, a body the app left unread on the wire, or a close."""
        writer = self.connection.writer
        if self.disconnected or self.hijacked or writer.is_closing():
            return False
        if not self.started:
            self._start(500, ((b"content-length", b"0"),))
            self.ended = True
            writer.write(self.head_bytes or b"")
        elif self.head_bytes is not None:  # started, never sent a body message
            return False
        return self.ended and self.body_ended and self.keep_alive


class HTTP1Connection(Connection):
    """One HTTP/1.1 connection: reads and parses requests (ahead of the app, within limits),
    answers them in order, closes after ``IDLE_TIMEOUT`` without a request, as HTTP/2's does."""

    def __init__(self, app: ASGIApp, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 certificate_user: Any) -> None:
        super().__init__(app, reader, writer, certificate_user)
        self.parser = httptools.HttpRequestParser(self)
        self.requests: deque[_Request] = deque()  # parsed; the first is being answered
        self.parsing: _Request | None = None  # the request whose body is being read
        self.url = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.in_headers = False
        self.header_bytes = 0
        self.method: str | None = None  # a method llhttp does not know, parsed as a GET
        self.upgraded = False
        self.after_upgrade = b""  # what the client sent after its upgrade request
        self.closed = False
        self.lingering = False
        self.runner: asyncio.Task[None] | None = None
        self.resumed: asyncio.Future[None] | None = None
        self.idle_timeout: IdleTimeout | None = None

    async def serve(self) -> None:
        self.idle_timeout = IdleTimeout(IDLE_TIMEOUT, lambda: bool(self.requests), self._end)
        try:
            while not (self.upgraded or self.closed):
                if self._reading_paused():
                    self.resumed = self.loop.create_future()
                    await self.resumed
                    continue
                data = await self.read()
                if not data:
                    break
                if self.lingering:
                    continue
                while data:
                    data = await self._parse(data)
                if data is None:
                    break
        except asyncio.CancelledError:  # the server stops: so do the requests
            if self.runner is not None:
                self.runner.cancel()
            raise
        finally:
            if self.idle_timeout is not None:
                self.idle_timeout.cancel()
            for request in self.requests:
                if not (self.upgraded and request.body_ended):
                    request.disconnected = True
                    request.wake_receiver()
            if self.runner is not None:
                await asyncio.gather(self.runner, return_exceptions=True)
            self.writer.close()

    async def _parse(self, data: bytes) -> bytes | None:
        """Feeds ``data`` to the parser. None: the connection ends (a request refused); else what
        is left to parse: after an upgrade request the app answered without taking the
        connection, what followed it, which Go's server reads as the next request (empty
        otherwise)."""
        if self.in_headers or not self.parsing:
            # Headers being read (or to come): their size is checked before they are parsed, to
            # within a read.
            self.header_bytes += len(data)
            if self.header_bytes > MAX_HEADER_BYTES:
                self._refuse(_HEADERS_TOO_LARGE)
                return None
        if not self.in_headers and self.parsing is None:  # a request line starts the data
            data = self._unknown_method_as_get(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade as upgrade:
            # What follows is another protocol (SPDY, a WebSocket) if the app takes the
            # connection (``UPGRADE``), with what the client sent after the request; reading
            # waits until it has, or has answered the request as the plain one it also is.
            self.after_upgrade = data[upgrade.args[0]:]
            if self.parsing is not None:
                self.on_message_complete()
            decided = self.requests[-1].upgrade_decided = self.loop.create_future()
            if await decided:
                self.upgraded = True
                return b""
            self.parser = httptools.HttpRequestParser(self)
            return b"" if self.closed else self.after_upgrade
        except httptools.HttpParserError:
            self._refuse(_BAD_REQUEST)
            return None
        return b""

    def _unknown_method_as_get(self, data: bytes) -> bytes:
        """``data`` with the method of the request it starts replaced by GET when llhttp would
        refuse it (kept for the scope). A request pipelined behind another in one read is parsed
        as it is."""
        method, space, _ = data[:64].partition(b" ")
        if not space or method in _PARSED_METHODS or not _TOKEN.fullmatch(method):
            return data
        self.method = method.decode("ascii")
        return b"GET" + data[len(method):]

    def _reading_paused(self) -> bool:
        """Whether reading waits for the app: a body read ahead beyond ``MAX_BUFFERED_BODY``,
        or requests pipelined beyond ``MAX_PIPELINED``."""
        if self.lingering:
            return False
        parsing = self.parsing
        return (parsing is not None and parsing.buffered > MAX_BUFFERED_BODY) or len(self.requests) > MAX_PIPELINED

    def resume_reading(self) -> None:
        if self.resumed is not None and not self.resumed.done() and not self._reading_paused():
            self.resumed.set_result(None)

    def _refuse(self, answer: bytes) -> None:
        """A request that cannot be parsed: answered (after those before it, if none is being
        answered) and the connection ends, as Go's server does."""
        if not self.requests:
            self.writer.write(answer)
        for request in self.requests:
            request.keep_alive = False

    def _end(self, linger: bool = False) -> None:
        """The connection ends: the reading loop sees its end at once, waiting or reading; with
        ``linger``, after reading and dropping what the client sends for ``LINGER`` seconds (or
        until it closes)."""
        if linger:
            self.lingering = True
            self.loop.call_later(LINGER, self._end)
            self.resume_reading()
            return
        self.closed = True
        self.writer.close()
        self.reader.feed_eof()
        if self.resumed is not None and not self.resumed.done():
            self.resumed.set_result(None)

    # httptools' callbacks, from ``feed_data``

    def on_message_begin(self) -> None:
        self.url = b""
        self.headers = []
        self.in_headers = True

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name.lower(), value))

    def on_headers_complete(self) -> None:
        self.in_headers = False
        self.header_bytes = 0
        parser = self.parser
        url = self.url
        if url[:1] == b"/" or url == b"*":
            path, _, query_string = url.partition(b"?")
        else:  # absolute-form
            parsed = httptools.parse_url(url)
            path, query_string = parsed.path or b"/", parsed.query or b""
        http_version = parser.get_http_version()
        scope = self.scope(http_version, self.method or parser.get_method().decode("ascii"), path, query_string,
                           self.headers)
        expect_continue = any(name == b"expect" and value.lower() == b"100-continue" for name, value in self.headers)
        self.method = None
        request = _Request(self, scope, parser.should_keep_alive(), http_version == "1.1", expect_continue)
        if parser.should_upgrade():
            scope[UPGRADE] = lambda head: self._hijack(request, head)
        self.parsing = request
        self.requests.append(request)
        if self.runner is None:
            self.runner = self.loop.create_task(self._answer())

    def on_body(self, body: bytes) -> None:
        request = self.parsing
        if request is not None:
            request.chunks.append((body, len(body)))
            request.buffered += len(body)
            request.wake_receiver()

    def on_message_complete(self) -> None:
        request = self.parsing
        if request is not None:
            request.body_ended = True
            request.wake_receiver()
            self.parsing = None

    async def _hijack(self, request: _Request, head: bytes) -> Tunnel:
        """``UPGRADE``: ``request`` (the last this connection parses: the parser stopped at its
        upgrade) writes ``head`` and takes the connection's streams; the connection ends when
        its app returns."""
        request.hijacked = True
        self.writer.write(head)
        if request.upgrade_decided is not None and not request.upgrade_decided.done():
            request.upgrade_decided.set_result(True)
        return Tunnel(self.after_upgrade, self.reader, self.writer)

    async def _answer(self) -> None:
        """Answers the parsed requests in order, then ends; the connection ends after a
        response that leaves it unusable."""
        try:
            while self.requests:
                request = self.requests[0]
                try:
                    await self.app(request.scope, request.receive, request.send)
                except Exception:
                    _LOG.exception("HTTP/1.1 request %s %s failed", request.scope["method"], request.scope["path"])
                go_on = request.finish()
                self.requests.popleft()
                if request.upgrade_decided is not None and not request.upgrade_decided.done():
                    request.upgrade_decided.set_result(False)
                self.resume_reading()
                if not go_on:
                    self._end(linger=not request.body_ended)
                    return
            if self.idle_timeout is not None:
                self.idle_timeout.idle()
        finally:
            self.runner = None
