"""The Python runtime under a server: background tasks on the event loop that owns it (one way
to stop them), and the cyclic garbage collector during bulk loads (a snapshot loaded, caches
filled from it: a few hundred thousand long-lived objects built at once)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Iterable, Iterator


async def cancel_and_wait(tasks: Iterable[asyncio.Task[None] | None]) -> None:
    """Cancel every task, then wait until each has finished unwinding."""
    pending = [t for t in tasks if t is not None]
    for task in pending:
        task.cancel()
    for task in pending:
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector: a bulk load allocates many containers and frees
    none, and every collection it triggers would walk all of them again (the cost then grows
    with the square of the load). Reference counting goes on; the collector resumes after."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
