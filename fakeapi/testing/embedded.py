"""A fakeapi server inside the test process: uvicorn on a background thread with its own event
loop, serving one fakeapi app at a time behind a fixed loopback port.

The port (and so the URL and the kubeconfig) lives as long as the ``EmbeddedServer``; the app
behind it — a whole ``fakeapi.server.Server`` with its store, registry, caches, controllers and
faults — is created by ``start_app`` and destroyed by ``stop_app``. A fresh app per test is a few
milliseconds and shares nothing with the previous one, which is what makes per-test isolation
leak-proof without a reset path in the server itself.

Threading invariant: the store is single-threaded on the server's loop. Everything that touches
an app (creating, stopping, calling into ``Server``) runs on that loop through ``run_on_loop``;
the test thread only waits for results.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import inspect
import logging
import socket
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import orjson
import uvicorn
from starlette.applications import Starlette

from ..kubeconfig import write_kubeconfig
from ..server import Server, ServerConfig, create_app
from ..http.limits import IDLE_TIMEOUT
from ..http.upgrades import not_uvicorns_upgrade_warning

T = TypeVar("T")

HOST = "127.0.0.1"
#: How long the test thread waits for work on the server's loop before giving up.
CALL_TIMEOUT = 30.0
#: How long a stopping app waits for its last requests to end before it is left to the
#: collector rather than released (``_release``).
RELEASE_WAIT = 0.5

_NO_APP_STATUS = orjson.dumps({
    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 503,
    "reason": "ServiceUnavailable",
    "message": "fakeapi: no test is using this server right now (its state ended with the previous test)",
})


class _AppSlot:
    """The ASGI app uvicorn serves: forwards each connection to the current fakeapi app, or
    answers 503 between tests (a client leaked from an earlier test must not see new state)."""

    def __init__(self) -> None:
        self.running: _RunningApp | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        running = self.running
        if running is not None:
            running.begin()
            try:
                await running.app(scope, receive, send)
            finally:
                running.end()
            return
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 503,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": _NO_APP_STATUS})


def _listening_socket() -> socket.socket:
    """A loopback TCP socket on a free port. The explicit IPPROTO_TCP matters: asyncio sets
    TCP_NODELAY only on connections whose socket says TCP, and without it every response waits
    40 ms for a delayed ACK (``socket.create_server`` leaves the protocol 0)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind((HOST, 0))
    sock.listen(socket.SOMAXCONN)
    return sock


@dataclasses.dataclass(slots=True)
class _RunningApp:
    app: Starlette
    #: Holds the app's lifespan: closing it stops the Server (watches end, timers and
    #: controllers are cancelled).
    lifespan: contextlib.AsyncExitStack
    #: How many of its requests are being answered; ``idle`` is set while none is.
    requests: int = 0
    idle: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.idle.set()

    def begin(self) -> None:
        self.requests += 1
        self.idle.clear()

    def end(self) -> None:
        self.requests -= 1
        if not self.requests:
            self.idle.set()

    @property
    def server(self) -> Server:
        return self.app.state.server  # type: ignore[no-any-return]


def _release(running: _RunningApp) -> None:
    """Break the reference cycles of an app stopped for good, none of its requests running any
    more, so that reference counting frees it. Its parts refer to one another (each cache to its
    store's bound decoder, controllers to the registry whose caches call them back, tasks to
    their owners): left to the collector, a dead server is ~4,000 objects in cycles, which each
    full collection walks along with every server dead since the previous one (~16 ms every ~20
    tests, a tenth of what a test costs). Emptying the instance dictionaries of its parts leaves
    a few hundred."""
    server = running.server
    parts: list[object] = [running.app, server, server.registry, server.store, *server.controllers]
    for resource_store in server.registry.stores():
        parts += (resource_store, resource_store.cacher, resource_store.cacher.cache)
    for part in parts:
        vars(part).clear()


class EmbeddedServer:
    """One loopback port served from a background thread; ``start_app``/``stop_app`` put a
    fresh fakeapi behind it. ``kubeconfig`` is written once and stays valid for its life."""

    def __init__(self, workdir: Path) -> None:
        self._socket = _listening_socket()
        self.port: int = self._socket.getsockname()[1]
        self.url = f"http://{HOST}:{self.port}"
        self.workdir = workdir
        self.kubeconfig = workdir / "kubeconfig"
        write_kubeconfig(self.kubeconfig, self.url)
        #: Counts apps started; names per-app scratch space such as kubectl's discovery cache.
        self.generation = 0
        self._slot = _AppSlot()
        self._running: _RunningApp | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"fakeapi:{self.port}", daemon=True)
        self._thread.start()
        # lifespan="off": the slot has no lifespan of its own; each app's runs in start_app. A
        # request's address is its connection's (``fakeapi serve``'s reason, ``_serve_plain``).
        self._uvicorn = uvicorn.Server(uvicorn.Config(
            self._slot, lifespan="off", log_level="warning", access_log=False, timeout_graceful_shutdown=1,
            timeout_keep_alive=IDLE_TIMEOUT, proxy_headers=False, server_header=False,
        ))
        logging.getLogger("uvicorn.error").addFilter(not_uvicorns_upgrade_warning)
        self._serving = asyncio.run_coroutine_threadsafe(self._uvicorn.serve(sockets=[self._socket]), self._loop)
        self.run_on_loop(self._until_started)

    async def _until_started(self) -> None:
        while not self._uvicorn.started:
            if self._serving.done():
                raise RuntimeError("fakeapi: uvicorn did not start") from self._serving.exception()
            await asyncio.sleep(0.001)

    # ------------------------------------------------------------------ the app behind the port

    def start_app(self, config: ServerConfig | None = None) -> None:
        """Serve a brand-new fakeapi app (stopping the current one first, if any). ``config``'s
        host and port are replaced by this server's."""
        base = config or ServerConfig()
        self.run_on_loop(lambda: self._start_app(dataclasses.replace(base, host=HOST, port=self.port)))

    def stop_app(self) -> None:
        """Stop the current app: its watches end, its state is gone; requests get 503 until the
        next ``start_app``."""
        self.run_on_loop(self._stop_app)
        if self.generation == 1:
            # What the first app loaded for the whole process (schemas, the catalogue, the
            # bootstrap templates, the routes) leaves the collector's generations, once that
            # app is collected: a full collection, which walked it all (~110 ms), runs every
            # few dozen tests.
            gc.collect()
            gc.freeze()

    @property
    def server(self) -> Server:
        """The current app's ``Server``. Only touch it on the loop (``run_on_loop``)."""
        if self._running is None:
            raise RuntimeError("fakeapi: no app is running")
        return self._running.server

    async def _start_app(self, config: ServerConfig) -> None:
        await self._stop_app()
        app = create_app(config)
        lifespan = contextlib.AsyncExitStack()
        await lifespan.enter_async_context(app.router.lifespan_context(app))
        self._running = self._slot.running = _RunningApp(app, lifespan)
        self.generation += 1

    async def _stop_app(self) -> None:
        running, self._running, self._slot.running = self._running, None, None
        if running is None:
            return
        await running.lifespan.aclose()
        # Its requests end now (watches were told to): wait for them, then release it. One
        # that does not end (a client that stopped reading) leaves it to the collector.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(running.idle.wait(), RELEASE_WAIT)
        if not running.requests:
            _release(running)

    # ------------------------------------------------------------------ the loop thread

    def run_on_loop(self, fn: Callable[[], T | Awaitable[T]], timeout: float = CALL_TIMEOUT) -> T:
        """Run ``fn()`` on the server's loop (awaiting it when it returns an awaitable) and
        return its result to the calling thread."""
        if threading.current_thread() is self._thread:
            raise RuntimeError("fakeapi: run_on_loop called from the server's own loop would deadlock")

        async def call() -> T:
            result = fn()
            if inspect.isawaitable(result):
                return await result  # type: ignore[no-any-return]
            return result

        return asyncio.run_coroutine_threadsafe(call(), self._loop).result(timeout)

    def close(self) -> None:
        """Stop the app, then uvicorn, then the loop thread."""
        if not self._thread.is_alive():
            return
        self.stop_app()

        def shut_down() -> None:
            self._uvicorn.should_exit = True

        self._loop.call_soon_threadsafe(shut_down)
        self._serving.result(CALL_TIMEOUT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CALL_TIMEOUT)
        self._loop.close()
        self._socket.close()

    def __enter__(self) -> EmbeddedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
