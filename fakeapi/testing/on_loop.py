"""Calling into the live ``Server`` from a test thread, safely."""

from __future__ import annotations

import functools
from typing import Any

from .embedded import EmbeddedServer


class OnLoop:
    """Stands for an attribute path on the embedded server's current ``Server`` (``faults``,
    ``registry``...); calling it runs the call on the server's loop and returns its result, so
    ``fakeapi.faults.some_method(...)`` is the server's Python API made thread-safe.

    The path is resolved at call time: a proxy kept across a ``start_app`` reaches the new app.
    """

    def __init__(self, server: EmbeddedServer, *path: str) -> None:
        self._server = server
        self._path = path

    def __getattr__(self, name: str) -> OnLoop:
        if name.startswith("__"):
            raise AttributeError(name)  # keep copy/pickle/introspection protocols off the server
        return OnLoop(self._server, *self._path, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        def call() -> Any:
            target = functools.reduce(getattr, self._path, self._server.server)
            return target(*args, **kwargs)

        return self._server.run_on_loop(call)

    def __repr__(self) -> str:
        return f"<fakeapi server.{'.'.join(self._path)} on {self._server.url}>"
