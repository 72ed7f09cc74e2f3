"""Warnings of a request (``Warning: 299 - "..."`` response headers), collected the way kube's
``warning.AddWarning(ctx, ...)`` collects them: code deep in a write adds to the request's
recorder without every layer passing a list along. The HTTP layer opens a recorder per request
(``recording``) and writes what was added; outside a recorder, ``add`` drops the warning."""

from __future__ import annotations

import contextvars

from .context_binding import Binding

_recorder: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("warnings", default=None)


def add(text: str) -> None:
    """Record a warning for the current request; repeats are kept once (kube dedups them)."""
    add_header(header(text))


def add_header(value: str) -> None:
    """Record a ``Warning`` header value already formatted (``299 - "..."``)."""
    recorded = _recorder.get()
    if recorded is not None and value not in recorded:
        recorded.append(value)


def header(text: str) -> str:
    """A ``Warning`` header value as kube-apiserver writes it (``net.NewWarningHeader(299, "-",
    text)``): ``299 - "unknown field \\"spec.foo\\""``."""
    return '299 - "' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def recording() -> Binding[list[str]]:
    """The ``Warning`` header values recorded while the block runs, in order
    (``with recording() as warnings``)."""
    return Binding(_recorder, [])
