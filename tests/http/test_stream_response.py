"""``StreamResponse``, a watch's response: it ends with its body or with its client, the body's
cleanup done before it returns, an error raised, and without anyio's asyncio backend."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from fakeapi.http.responses import StreamResponse


def _exchange(response: StreamResponse, disconnect: asyncio.Event) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        await disconnect.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def run() -> None:
        await asyncio.wait_for(response({"type": "http", "asgi": {"spec_version": "2.3"}}, receive, send), 10)

    asyncio.run(run())
    return sent


def test_the_body_ends_the_response() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b"one"
        yield b"two"

    sent = _exchange(StreamResponse(body(), media_type="text/plain"), asyncio.Event())
    assert [m.get("body") for m in sent] == [None, b"one", b"two", b""]
    assert sent[-1]["more_body"] is False


def test_the_clients_disconnect_ends_the_body_before_the_response_returns() -> None:
    cleaned = []

    async def body() -> AsyncIterator[bytes]:
        try:
            yield b"event"
            disconnect.set()
            await asyncio.sleep(3600)
            yield b"never"
        finally:
            cleaned.append(True)

    disconnect = asyncio.Event()
    sent = _exchange(StreamResponse(body(), media_type="text/plain"), disconnect)
    assert [m.get("body") for m in sent] == [None, b"event"]
    assert cleaned == [True]


def test_an_error_of_the_body_is_raised() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b"event"
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        _exchange(StreamResponse(body(), media_type="text/plain"), asyncio.Event())


def test_a_stream_loads_no_anyio_backend() -> None:
    """Starlette's StreamingResponse loads anyio's asyncio backend on its first call (0.1-0.3 s
    of a server's first watch)."""
    program = (
        "import asyncio, sys\n"
        "from fakeapi.http.responses import StreamResponse\n"
        "async def body():\n"
        "    yield b'x'\n"
        "async def receive():\n"
        "    await asyncio.sleep(3600)\n"
        "async def send(message):\n"
        "    pass\n"
        "asyncio.run(StreamResponse(body())({'type': 'http'}, receive, send))\n"
        "print('anyio._backends._asyncio' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
