"""etcd's KV, Lease and Watch calls framed on a Unix socket: how the API workers of ``fakeapi
serve --workers N`` reach their store process on the same machine, beside its gRPC API.

Python's gRPC costs far more than the store's work: in a store process under two workers' writes,
85 % of the samples were gRPC's own (its poller thread and the C core under the event loop),
9 % the store's transactions; a worker's blocking unary call cost more CPU than the rest of a
ConfigMap's create. Here a call is one frame each way on a stream socket, read and written by
asyncio protocols, its messages etcd's own protobufs (the same handlers answer them as over gRPC:
faults, size limits, errors and headers are etcd's), and so are Watch streams (the same
``WatchSession`` serves them).

A frame is a header (``_HEADER``: the payload's length, the call's id, the method's number on the
way in, the status on the way out) then the payload: the request's bytes; the response's, or for
a status other than OK (a gRPC status code's number) the error's details in UTF-8. A connection
carries any number of calls at once, answered in any order. A stream is a call whose id its
first request frame opens: every request frame of that id is its next request, every OK frame
of that id its next response; a status frame ends it (``_END``: ended without an error), and
the client's ``_CANCEL`` frame ends it from the other side.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

#: length of the payload, call id, method (requests) or status (responses)
_HEADER = struct.Struct("!IIB")
#: The calls framed here, numbered by their place: the store's unary calls a worker makes, and
#: its Watch streams.
METHODS = ("Range", "Txn", "Compact", "LeaseGrant", "Watch")
_CODES = {name: code for code, name in enumerate(METHODS)}
_OK = 0
#: A stream's end without an error (a status no gRPC code has), and the client's cancel.
_END = 255
_CANCEL = 255
_STATUS_CODES = {code.value[0]: code for code in grpc.StatusCode}
#: Queued frames past this many payload bytes are written at once rather than at the turn's end.
_FLUSH_BYTES = 64 * 1024
#: A request frame larger than the store's receive limit is refused as gRPC refuses it
#: (``RESOURCE_EXHAUSTED``), which the client reports as etcd's request too large; its payload
#: is skipped as it arrives, never held.
_TOO_LARGE_DETAILS = "grpc: received message larger than max ({} vs. {})"

#: A method's handler: the request's bytes -> the response's bytes (raising ``Aborted``).
Handler = Callable[[bytes], Awaitable[bytes]]
#: A stream's handler: runs the stream over its context until it ends (raising ``Aborted``).
StreamHandler = Callable[["StreamContext"], Awaitable[None]]


class Aborted(Exception):
    """A call ended with a status other than OK (``ServicerContext.abort`` on gRPC)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code, self.details = code, details


class AbortingContext:
    """What a gRPC handler uses of its ``ServicerContext`` (``abort``), for the framed calls."""

    async def abort(self, code: grpc.StatusCode, details: str) -> Any:
        raise Aborted(code, details)


class StreamContext(AbortingContext):
    """What a streaming gRPC handler uses of its ``ServicerContext`` (``read``, ``write``,
    ``abort``), for one framed stream. A write waits while the connection's peer reads too
    slowly (``writable``: the transport's buffer past its high-water mark), as gRPC's flow
    control holds a stream's writer: a slow worker's events stay in the store's watch stream,
    which bounds them, not in this process's socket buffer."""

    def __init__(self, request_class: Any, send: Callable[[bytes], None], serialize: Callable[[Any], bytes],
                 writable: asyncio.Event) -> None:
        self._requests: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._request_class, self._send, self._serialize = request_class, send, serialize
        self._writable = writable

    def feed(self, payload: bytes | None) -> None:
        """The stream's next request (None: the client will send no more)."""
        self._requests.put_nowait(payload)

    async def read(self) -> Any:
        payload = await self._requests.get()
        return grpc.aio.EOF if payload is None else self._request_class.FromString(payload)

    async def write(self, message: Any) -> None:
        if not self._writable.is_set():
            await self._writable.wait()
        self._send(self._serialize(message))


class FramedError(grpc.RpcError):
    """A framed call's status other than OK, as gRPC's client raises it (``code``, ``details``)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


class _Frames(asyncio.Protocol):
    """Splits a stream into frames for ``on_frame(call id, method or status, payload)``; a frame
    whose payload passes ``max_payload`` goes to ``on_too_large`` and its bytes are skipped.
    Frames ``send`` queues in one turn of the event loop go out in one write at its end: a
    worker's requests call in bursts and the store answers a burst as it reads it, and each
    write is a system call."""

    max_payload: int | None = None

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._skipping = 0  # bytes still to drop of a frame too large
        self.transport: asyncio.Transport | None = None
        self._outgoing: list[bytes] = []
        self._queued = 0  # payload bytes in _outgoing

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def send(self, call: int, code: int, payload: bytes) -> None:
        """Queue a frame (call id, method or status, payload) for this turn's write, or write
        what is queued now once it is ``_FLUSH_BYTES`` (the transport's flow control, which a
        watch stream's writer waits on, sees large writes as they come)."""
        outgoing = self._outgoing
        if not outgoing:
            asyncio.get_running_loop().call_soon(self._flush)
        outgoing.append(_HEADER.pack(len(payload), call, code))
        outgoing.append(payload)
        self._queued += len(payload)
        if self._queued >= _FLUSH_BYTES:
            self._flush()

    def _flush(self) -> None:
        if not self._outgoing:
            return  # written when it grew past _FLUSH_BYTES
        outgoing, self._outgoing, self._queued = self._outgoing, [], 0
        transport = self.transport
        if transport is not None and not transport.is_closing():
            transport.write(b"".join(outgoing))

    def data_received(self, data: bytes) -> None:
        if self._skipping:
            dropped = min(self._skipping, len(data))
            self._skipping -= dropped
            data = data[dropped:]
        buffer = self._buffer
        buffer += data
        size = _HEADER.size
        start = 0
        while len(buffer) - start >= size:
            length, call, code = _HEADER.unpack_from(buffer, start)
            if self.max_payload is not None and length > self.max_payload:
                self.on_too_large(call, length)
                start += size
                dropped = min(length, len(buffer) - start)
                start += dropped
                self._skipping = length - dropped
                if self._skipping:
                    break
                continue
            end = start + size + length
            if len(buffer) < end:
                break
            self.on_frame(call, code, bytes(buffer[start + size:end]))
            start = end
        if start:
            del buffer[:start]

    def on_frame(self, call: int, code: int, payload: bytes) -> None:
        raise NotImplementedError

    def on_too_large(self, call: int, length: int) -> None:
        raise NotImplementedError


# --- the store's side --------------------------------------------------------------------------

def _failure(err: Exception) -> tuple[int, bytes]:
    """The status and details a handler's exception answers, as gRPC's server answers it: an
    abort's own, UNKNOWN with the exception for any other (a bad request's bytes, a bug)."""
    if isinstance(err, Aborted):
        return err.code.value[0], err.details.encode()
    return grpc.StatusCode.UNKNOWN.value[0], f"Unexpected {type(err)}: {err}".encode()


class _ServerConnection(_Frames):
    def __init__(self, handlers: dict[int, Handler], streams: dict[int, tuple[StreamHandler, Any]],
                 serialize: Callable[[Any], bytes], max_bytes: int, inline: Callable[[], bool],
                 connections: set[_ServerConnection]) -> None:
        super().__init__()
        self._connections = connections
        self._handlers, self._stream_handlers, self._serialize = handlers, streams, serialize
        self.max_payload, self._inline = max_bytes, inline
        self._tasks: set[asyncio.Task[None]] = set()
        #: The open streams by call id: their contexts and tasks.
        self._streams: dict[int, tuple[StreamContext, asyncio.Task[None]]] = {}
        #: Set while the transport takes writes without buffering past its high-water mark.
        self._writable = asyncio.Event()
        self._writable.set()

    def on_frame(self, call: int, code: int, payload: bytes) -> None:
        stream = self._streams.get(call)
        if stream is not None:
            if code == _CANCEL:
                del self._streams[call]
                stream[1].cancel()
            else:
                stream[0].feed(payload)
            return
        if code in self._stream_handlers:
            self._open(call, *self._stream_handlers[code]).feed(payload)
            return
        if code == _CANCEL:
            return  # a stream that had sent nothing yet, or had ended
        answer = self._answer(call, code, payload)
        if self._inline():
            # Without faults no handler suspends (a fault's delay is their only wait): the call
            # runs to its end here, in the order sent, without a task.
            try:
                answer.send(None)
            except StopIteration:
                return
            answer.close()
            self.send(call, grpc.StatusCode.INTERNAL.value[0], b"a framed etcd call waited with no fault active")
            return
        task = asyncio.get_running_loop().create_task(answer)  # a fault's delay: the others go on
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def on_too_large(self, call: int, length: int) -> None:
        assert self.max_payload is not None
        self.send(call, grpc.StatusCode.RESOURCE_EXHAUSTED.value[0],
                  _TOO_LARGE_DETAILS.format(length, self.max_payload).encode())
        stream = self._streams.pop(call, None)
        if stream is not None:  # a stream's request too large ends the stream, as on gRPC
            stream[1].cancel()

    async def _answer(self, call: int, method: int, payload: bytes) -> None:
        handler = self._handlers.get(method)
        if handler is None:
            self.send(call, grpc.StatusCode.UNIMPLEMENTED.value[0], b"unknown method")
            return
        try:
            response = await handler(payload)
        except Exception as err:  # noqa: BLE001 - an abort, a bad request's bytes, a bug
            self.send(call, *_failure(err))
        else:
            self.send(call, _OK, response)

    def _open(self, call: int, handler: StreamHandler, request_class: Any) -> StreamContext:
        context = StreamContext(request_class, lambda payload: self.send(call, _OK, payload), self._serialize,
                                self._writable)
        task = asyncio.get_running_loop().create_task(self._run_stream(call, handler, context))
        self._streams[call] = (context, task)
        return context

    async def _run_stream(self, call: int, handler: StreamHandler, context: StreamContext) -> None:
        try:
            await handler(context)
        except asyncio.CancelledError:
            return  # the client canceled it, or went
        except Exception as err:  # noqa: BLE001 - an abort, a bug
            self.send(call, *_failure(err))
        else:
            self.send(call, _END, b"")
        finally:
            self._streams.pop(call, None)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._connections.add(self)

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self._connections.discard(self)
        for task in self._tasks:
            task.cancel()
        for _context, task in self._streams.values():
            task.cancel()


class FramedServer:
    """The socket's listener and its connections, closed together (a stopped store answers no
    call a connection made before still sends)."""

    def __init__(self, listener: asyncio.AbstractServer, connections: set[_ServerConnection]) -> None:
        self._listener, self._connections = listener, connections

    def unsent_bytes(self) -> int:
        """What the connections' transports hold written and not yet sent: kept near their
        high-water marks by the streams' flow control (``StreamContext``)."""
        return sum(c.transport.get_write_buffer_size() for c in self._connections if c.transport is not None)

    def close(self) -> None:
        self._listener.close()
        for connection in list(self._connections):
            if connection.transport is not None:
                connection.transport.close()


async def serve(path: str, handlers: dict[str, Handler], streams: dict[str, tuple[StreamHandler, Any]],
                serialize: Callable[[Any], bytes], max_bytes: int, inline: Callable[[], bool]) -> FramedServer:
    """Serve ``handlers`` and ``streams`` (by name in ``METHODS``; a stream's with its request
    message class, its responses written through ``serialize``) on the Unix socket ``path``;
    ``inline()`` says whether a unary call may run to its end as it arrives (none will suspend)."""
    numbered = {_CODES[name]: handler for name, handler in handlers.items()}
    numbered_streams = {_CODES[name]: stream for name, stream in streams.items()}
    connections: set[_ServerConnection] = set()
    listener = await asyncio.get_running_loop().create_unix_server(
        lambda: _ServerConnection(numbered, numbered_streams, serialize, max_bytes, inline, connections), path)
    return FramedServer(listener, connections)


# --- the workers' side -------------------------------------------------------------------------

class _ClientConnection(_Frames):
    def __init__(self, on_lost: Callable[[_ClientConnection], None]) -> None:
        super().__init__()
        self.pending: dict[int, asyncio.Future[bytes]] = {}
        #: The open streams' queues of (status, payload), by call id.
        self.streams: dict[int, asyncio.Queue[tuple[int, bytes]]] = {}
        self._on_lost = on_lost

    def on_frame(self, call: int, code: int, payload: bytes) -> None:
        stream = self.streams.get(call)
        if stream is not None:
            if code != _OK:
                del self.streams[call]
            stream.put_nowait((code, payload))
            return
        future = self.pending.pop(call, None)
        if future is None or future.done():
            return  # its caller timed out
        if code == _OK:
            future.set_result(payload)
        else:
            status = _STATUS_CODES.get(code, grpc.StatusCode.UNKNOWN)
            future.set_exception(FramedError(status, payload.decode(errors="replace")))

    def connection_lost(self, exc: Exception | None) -> None:
        self._on_lost(self)
        for future in self.pending.values():
            if not future.done():
                future.set_exception(FramedError(grpc.StatusCode.UNAVAILABLE, f"store connection lost: {exc}"))
        self.pending.clear()
        for stream in self.streams.values():
            stream.put_nowait((grpc.StatusCode.UNAVAILABLE.value[0], f"store connection lost: {exc}".encode()))
        self.streams.clear()


class FramedChannel:
    """The worker's connection to its store's socket, made on the first call (on the event loop)
    and again after it is lost; calls from any number of tasks share it."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._connection: _ClientConnection | None = None
        self._connecting = asyncio.Lock()
        self._next_call = 0

    def _call_id(self) -> int:
        self._next_call = (self._next_call + 1) & 0xFFFFFFFF
        return self._next_call

    async def call(self, method: str, request: bytes, timeout: float) -> bytes:
        """The response's bytes to ``request`` of ``method`` (in ``METHODS``); a status other than OK
        (or the connection lost, or ``timeout`` seconds passed) raises ``FramedError``."""
        connection = self._connection or await self._connect()
        call = self._call_id()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bytes] = loop.create_future()
        connection.pending[call] = future
        assert connection.transport is not None
        connection.send(call, _CODES[method], request)
        timer = loop.call_later(timeout, _expire, future)
        try:
            return await future
        finally:
            timer.cancel()
            connection.pending.pop(call, None)

    async def _connect(self) -> _ClientConnection:
        async with self._connecting:  # one connection for the calls that found none
            if self._connection is None:
                try:
                    _transport, self._connection = await asyncio.get_running_loop().create_unix_connection(
                        lambda: _ClientConnection(self._lost), self.path)
                except OSError as err:
                    raise FramedError(grpc.StatusCode.UNAVAILABLE, f"store socket {self.path}: {err}") from None
            return self._connection

    def stream(self, method: str, requests: AsyncIterator[Any], response_class: Any) -> FramedStream:
        """A stream of ``method`` (in ``METHODS``): ``requests`` sent as they come, the responses (of
        ``response_class``) iterated, as a gRPC stream-stream call."""
        return FramedStream(self, method, requests, response_class)

    def _lost(self, connection: _ClientConnection) -> None:
        if self._connection is connection:
            self._connection = None

    def close(self) -> None:
        if self._connection is not None and self._connection.transport is not None:
            self._connection.transport.close()
        self._connection = None


class FramedStream:
    """One stream of a ``FramedChannel``, as gRPC's asyncio stream-stream call is used: iterated
    for its responses (a status other than OK raises ``FramedError``), ``cancel``ed to end it."""

    def __init__(self, channel: FramedChannel, method: str, requests: AsyncIterator[Any], response_class: Any) -> None:
        self._channel, self._method, self._response_class = channel, _CODES[method], response_class
        self._responses: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()
        self._call = channel._call_id()
        self._connection: _ClientConnection | None = None
        self._sender = asyncio.get_running_loop().create_task(self._send(requests))

    async def _send(self, requests: AsyncIterator[Any]) -> None:
        try:
            connection = self._channel._connection or await self._channel._connect()
        except FramedError as err:
            self._responses.put_nowait((err.code().value[0], err.details().encode()))
            return
        self._connection = connection
        connection.streams[self._call] = self._responses
        async for request in requests:
            if connection.transport is None or connection.transport.is_closing():
                return
            connection.send(self._call, self._method, request.SerializeToString())

    def __aiter__(self) -> FramedStream:
        return self

    async def __anext__(self) -> Any:
        code, payload = await self._responses.get()
        if code == _OK:
            return self._response_class.FromString(payload)
        if code == _END:
            raise StopAsyncIteration
        raise FramedError(_STATUS_CODES.get(code, grpc.StatusCode.UNKNOWN), payload.decode(errors="replace"))

    def cancel(self) -> None:
        self._sender.cancel()
        connection = self._connection
        if connection is not None and connection.streams.pop(self._call, None) is not None:
            connection.send(self._call, _CANCEL, b"")


def _expire(future: asyncio.Future[bytes]) -> None:
    if not future.done():
        future.set_exception(FramedError(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"))
