"""fakeapi's HTTP/1.1 connection (``fakeapi.http.http1``) spoken to byte by byte: keep-alive and
its end, pipelining, request bodies (chunked, read ahead within a limit, ``Expect: 100-continue``,
left unread), response framing (length, chunked, HTTP/1.0's close, HEAD and 204), the scope the
app sees, a failed app's 500 or cut, bad requests' 400 and 431, a disconnect seen by a streaming
app, and the idle timeout."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from fakeapi.http import http1
from fakeapi.http.access import CERTIFICATE_USER
from fakeapi.http.http1 import MAX_HEADER_BYTES, HTTP1Connection

App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


async def _body(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def echo(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers with the request's method, path and body, its length named."""
    body = await _body(receive)
    answer = b"%s %s %s" % (scope["method"].encode(), scope["raw_path"], body)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", b"%d" % len(answer)), (b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": answer})


@contextlib.asynccontextmanager
async def connected(app: App) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter, list[asyncio.Task[None]]]]:
    """A client connection to ``app`` served by ``HTTP1Connection``; the server's connection
    tasks are listed (each must end by itself)."""
    served: list[asyncio.Task[None]] = []

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        served.append(task)
        await HTTP1Connection(app, reader, writer, "a user").serve()

    server = await asyncio.start_server(connection, "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection(*server.sockets[0].getsockname()[:2])
    try:
        yield reader, writer, served
    finally:
        writer.close()
        server.close()
        await asyncio.wait_for(asyncio.gather(*served, return_exceptions=True), 5)


async def response(reader: asyncio.StreamReader) -> tuple[bytes, dict[bytes, bytes], bytes]:
    """One response: its status line, its headers, its body as framed (length or chunks)."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    status, *lines = head[:-4].split(b"\r\n")
    headers = {name.lower(): value for name, _, value in (line.partition(b": ") for line in lines)}
    if b"content-length" in headers:
        return status, headers, await reader.readexactly(int(headers[b"content-length"]))
    body = b""
    while headers.get(b"transfer-encoding") == b"chunked":
        size = int((await reader.readuntil(b"\r\n"))[:-2], 16)
        chunk = await reader.readexactly(size + 2)
        if not size:
            break
        body += chunk[:-2]
    return status, headers, body


def test_keep_alive_and_pipelined_requests_are_answered_in_order() -> None:
    async def test() -> None:
        async with connected(echo) as (reader, writer, _):
            writer.write(b"GET /a%20b?x=1 HTTP/1.1\r\nHost: h\r\n\r\n")
            status, headers, body = await response(reader)
            assert (status, body) == (b"HTTP/1.1 200 OK", b"GET /a%20b ")
            assert b"date" in headers and b"connection" not in headers
            writer.write(b"POST /1 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabcGET /2 HTTP/1.1\r\nHost: h\r\n\r\n"
                         b"PUT /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n1\r\nz\r\n0\r\n\r\n")
            assert [(await response(reader))[2] for _ in range(3)] == [b"POST /1 abc", b"GET /2 ", b"PUT /3 xyz"]

    asyncio.run(test())


def test_the_scope_is_the_http2_connections() -> None:
    seen: list[dict[str, Any]] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope)
        await echo(scope, receive, send)

    async def test() -> None:
        async with connected(app) as (reader, writer, _):
            writer.write(b"GET /api/v1/name%2Fspaces?watch=1&x=%20 HTTP/1.1\r\nHost: example\r\nX-Thing: A b\r\n\r\n")
            await response(reader)

    asyncio.run(test())
    scope = seen[0]  # of a plain connection: its scheme is http
    assert {k: scope[k] for k in ("type", "http_version", "method", "scheme", "path", "raw_path", "query_string",
                                   "root_path", CERTIFICATE_USER)} == {
        "type": "http", "http_version": "1.1", "method": "GET", "scheme": "http", "path": "/api/v1/name/spaces",
        "raw_path": b"/api/v1/name%2Fspaces", "query_string": b"watch=1&x=%20", "root_path": "",
        CERTIFICATE_USER: "a user"}
    assert scope["headers"] == [(b"host", b"example"), (b"x-thing", b"A b")]
    assert scope["client"][0] == scope["server"][0] == "127.0.0.1"


def test_responses_without_a_length_are_chunked_or_end_with_the_connection() -> None:
    async def stream(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for part in (b"one", b"two"):
            await send({"type": "http.response.body", "body": part, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    async def test() -> None:
        async with connected(stream) as (reader, writer, _):
            writer.write(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            _, headers, body = await response(reader)
            assert (headers[b"transfer-encoding"], body) == (b"chunked", b"onetwo")
            writer.write(b"GET / HTTP/1.0\r\n\r\n")  # HTTP/1.0 knows no chunks: the body ends with the connection
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.0 200 OK\r\n")
            assert b"connection" not in head and b"transfer-encoding" not in head  # the close is implicit, as in Go
            assert await asyncio.wait_for(reader.read(), 5) == b"onetwo"

    asyncio.run(test())


def test_head_and_204_have_no_body_and_connection_close_ends_the_connection() -> None:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        status = 204 if scope["path"] == "/empty" else 200
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-length", b"4")] if status == 200 else []})
        await send({"type": "http.response.body", "body": b"body" if status == 200 else b""})

    async def test() -> None:
        async with connected(app) as (reader, writer, served):
            writer.write(b"HEAD / HTTP/1.1\r\nHost: h\r\n\r\nGET /empty HTTP/1.1\r\nHost: h\r\n\r\n"
                         b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n")
            empty = await reader.readuntil(b"\r\n\r\n")
            assert empty.startswith(b"HTTP/1.1 204 No Content\r\n") and b"transfer-encoding" not in empty
            last = await asyncio.wait_for(reader.read(), 5)  # then the server closes
            assert last.startswith(b"HTTP/1.1 200 OK\r\n") and b"connection: close\r\n" in last
            assert last.endswith(b"\r\n\r\nbody")
            await asyncio.wait_for(served[0], 5)

    asyncio.run(test())


def test_expect_continue_is_answered_when_the_app_reads_the_body() -> None:
    async def test() -> None:
        async with connected(echo) as (reader, writer, _):
            writer.write(b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            assert await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5) == b"HTTP/1.1 100 Continue\r\n\r\n"
            writer.write(b"body")
            assert (await response(reader))[2] == b"POST /x body"

    asyncio.run(test())


def test_a_large_body_is_read_ahead_within_the_limit_and_one_left_unread_ends_the_connection() -> None:
    """The app reads a body bigger than the read-ahead limit slowly: reading pauses (the client's
    writes wait) and resumes as it goes. A 413 that never reads the body closes the connection,
    and the connection's task ends rather than waiting for a body nobody reads."""
    size = 8 * http1.MAX_BUFFERED_BODY

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["path"] == "/refuse":
            await send({"type": "http.response.start", "status": 413, "headers": [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        body = b""
        while True:
            message = await receive()
            body += message["body"]
            await asyncio.sleep(0)
            if not message["more_body"]:
                break
        answer = b"%d" % len(body)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(answer))]})
        await send({"type": "http.response.body", "body": answer})

    async def test() -> None:
        async with connected(app) as (reader, writer, served):
            writer.write(b"POST /read HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n" % size + b"x" * size)
            assert (await response(reader))[2] == b"%d" % size
            writer.write(b"POST /refuse HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n" % size + b"x" * size)
            status, _, _ = await response(reader)
            assert status == b"HTTP/1.1 413 Request Entity Too Large"
            await asyncio.wait_for(served[0], 5)

    asyncio.run(test())


def test_a_failed_app_gets_a_500_before_its_response_and_a_cut_after() -> None:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["path"] == "/midway":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"part", "more_body": True})
        raise RuntimeError("the app failed")

    async def test() -> None:
        async with connected(app) as (reader, writer, served):
            writer.write(b"GET /early HTTP/1.1\r\nHost: h\r\n\r\n")
            status, headers, body = await response(reader)
            assert (status, headers[b"content-length"], body) == (b"HTTP/1.1 500 Internal Server Error", b"0", b"")
            writer.write(b"GET /midway HTTP/1.1\r\nHost: h\r\n\r\n")
            rest = await asyncio.wait_for(reader.read(), 5)  # the connection ends inside the chunks
            assert rest.endswith(b"4\r\npart\r\n")
            await asyncio.wait_for(served[0], 5)

    asyncio.run(test())


@pytest.mark.parametrize(("request_bytes", "answer"), [
    (b"GET / HTTP/1.1\r\nHost: h\r\nBad Header\r\n\r\n", b"HTTP/1.1 400 Bad Request"),
    (b"GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + b"a" * (MAX_HEADER_BYTES + 1) + b"\r\n\r\n",
     b"HTTP/1.1 431 Request Header Fields Too Large"),
], ids=["malformed", "headers-too-large"])
def test_bad_requests_are_refused_and_end_the_connection(request_bytes: bytes, answer: bytes) -> None:
    async def test() -> None:
        async with connected(echo) as (reader, writer, served):
            writer.write(request_bytes)
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            assert (await asyncio.wait_for(reader.read(), 5)).startswith(answer + b"\r\n")
            await asyncio.wait_for(served[0], 5)

    asyncio.run(test())


def test_a_streaming_app_sees_the_client_go() -> None:
    gone = asyncio.Event

    async def test() -> None:
        disconnected: asyncio.Event = gone()

        async def watch(scope: dict[str, Any], receive: Any, send: Any) -> None:
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"event", "more_body": True})
            assert (await receive())["type"] == "http.request"
            assert (await receive())["type"] == "http.disconnect"
            disconnected.set()

        async with connected(watch) as (reader, writer, _):
            writer.write(b"GET /watch HTTP/1.1\r\nHost: h\r\n\r\n")
            await reader.readuntil(b"event\r\n")
            writer.close()
            await asyncio.wait_for(disconnected.wait(), 5)

    asyncio.run(test())


def test_an_idle_connection_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http1, "IDLE_TIMEOUT", 0.2)

    async def test() -> None:
        async with connected(echo) as (reader, writer, served):
            writer.write(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            await response(reader)
            assert await asyncio.wait_for(reader.read(), 5) == b""
            await asyncio.wait_for(served[0], 5)

    asyncio.run(test())


def test_a_method_llhttp_does_not_know_reaches_the_app() -> None:
    """Go's server hands any method to its handler (kube answers 405); llhttp's table of methods
    is fixed, and it would refuse one outside it as malformed."""
    async def test() -> None:
        async with connected(echo) as (reader, writer, _):
            writer.write(b"FROBNICATE /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nab")
            assert (await response(reader))[2] == b"FROBNICATE /x ab"
            writer.write(b"PROPFIND /y HTTP/1.1\r\nHost: h\r\n\r\n")
            assert (await response(reader))[2] == b"PROPFIND /y "
            writer.write(b"GET /z HTTP/1.1\r\nHost: h\r\n\r\n")
            assert (await response(reader))[2] == b"GET /z "

    asyncio.run(test())
