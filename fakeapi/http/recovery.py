"""A request whose handler fails (a fakeapi bug, a panic in kube-apiserver) is answered with what
kube's ``WithPanicRecovery`` filter writes: a plain-text 500 (``http.Error``), after which the
connection serves the client's next request. (kube's filter then panics again, ``HandleCrash``
with ``ReallyCrash``, and Go's server drops the connection, likely before the answer leaves its
buffer: a client there sees a reset. Here the answer is whole and the connection kept.)

Starlette's ``ServerErrorMiddleware`` answers such a request too, but raises the error again for
the server to log, and uvicorn then closes the connection, although the answer was complete and
did not say ``Connection: close``: a client that keeps connections alive has its next request
on that one reset. Here the error is logged and ends with the answer (``answer_panic``), and the
app runs without that middleware. Only an error after the answer started still goes up, so that
the server cuts the connection: that is all that tells a client its answer is incomplete (as
kube's ``http.ErrAbortHandler`` does)."""

from __future__ import annotations

import logging

from starlette.types import Message, Scope, Send

log = logging.getLogger("fakeapi")

#: What ``WithPanicRecovery`` writes with ``http.Error`` (which adds the newline).
PANIC_MESSAGE = b"This request caused apiserver to panic. Look in the logs for details.\n"
_PANIC_START: Message = {
    "type": "http.response.start",
    "status": 500,
    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"x-content-type-options", b"nosniff"),
                (b"content-length", str(len(PANIC_MESSAGE)).encode())],
}


async def answer_panic(scope: Scope, send: Send) -> None:
    """Answers the request ``scope`` whose handler failed before its answer started, as the
    module doc tells (the app's first step, ``app._App``, calls it from its ``except``)."""
    log.exception("%s %s: the handler failed", scope["method"], scope["path"])
    await send(_PANIC_START)
    await send({"type": "http.response.body", "body": PANIC_MESSAGE})
