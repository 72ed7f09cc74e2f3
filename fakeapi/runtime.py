"""The Python runtime under a server: background tasks on the event loop that owns it (one way
to stop them), and the cyclic garbage collector during bulk loads (a snapshot loaded, caches
filled from it: a few hundred thousand long-lived objects built at once), and its settings once a
server has started."""

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


#: The collector's first threshold in a server process: more than the tracked objects one
#: request holds at its peak (a decoded pod and its field sets: one to two thousand). At
#: Python's 700 every write ran one or two young collections over what it held and promoted
#: it, and the old generation's full collections then paused the server 80-100 ms every few
#: hundred writes (benchmarks/writes_bench.py: 15-35 % of a write's CPU).
YOUNG_COLLECTION_THRESHOLD = 20_000


def settle_heap() -> None:
    """The collector's settings for a server that has started. What start-up made (the
    catalogue, schemas, bootstrap and seeded objects) lives as long as the server: frozen out
    of the collector's generations, no full collection walks it again. Young collections wait
    for ``YOUNG_COLLECTION_THRESHOLD`` objects."""
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])
