"""The Python runtime under a server: background tasks on the event loop that owns it (one way
to stop them), synchronous code that waits on the event loop without blocking it (a write's
admission calling a webhook: ``run_awaiting``, ``wait_for``), and the cyclic garbage collector
during bulk loads (a snapshot loaded, caches filled from it: a few hundred thousand long-lived
objects built at once), and its settings once a server has started."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, TypeVar

from greenlet import getcurrent, greenlet

T = TypeVar("T")


async def cancel_and_wait(tasks: Iterable[asyncio.Task[None] | None]) -> None:
    """Cancel every task, then wait until each has finished unwinding."""
    pending = [t for t in tasks if t is not None]
    for task in pending:
        task.cancel()
    for task in pending:
        with contextlib.suppress(asyncio.CancelledError):
            await task


class _AwaitingGreenlet(greenlet):  # type: ignore[misc]
    """The greenlet a synchronous call runs in under ``run_awaiting``; it shares the context of
    the task that started it, so the request's context variables (warnings, its cost) are the
    ones it reads and sets."""

    def __init__(self, fn: Callable[..., Any], driver: greenlet) -> None:
        super().__init__(fn, driver)
        self.gr_context = driver.gr_context


async def run_awaiting(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run the synchronous ``fn`` on the event loop, letting it wait on awaitables (``wait_for``)
    without blocking the loop: at each wait it switches back here, this task awaits, and the
    result (or the exception) is switched back in. Between two waits ``fn`` runs as any
    synchronous code does, in one loop step; across a wait other tasks run (so ``fn`` must not
    rely on what it read before the wait staying current: a write's compare-and-swap does not).
    This is how SQLAlchemy runs its synchronous core over asyncio drivers."""
    child = _AwaitingGreenlet(fn, getcurrent())
    step = child.switch(*args, **kwargs)
    while not child.dead:
        try:
            value = await step
        except BaseException as err:  # noqa: BLE001 - handed to fn, which may handle it
            step = child.throw(err)
        else:
            step = child.switch(value)
    return step  # type: ignore[no-any-return]


def can_wait() -> bool:
    """Whether the running code may call ``wait_for`` (it runs under ``run_awaiting``)."""
    return isinstance(getcurrent(), _AwaitingGreenlet)


def wait_for(awaitable: Awaitable[T]) -> T:
    """The result of ``awaitable``, awaited by the task that runs this code under
    ``run_awaiting``; the event loop serves other requests meanwhile."""
    current = getcurrent()
    if not isinstance(current, _AwaitingGreenlet):
        raise RuntimeError("wait_for outside run_awaiting")
    return current.parent.switch(awaitable)  # type: ignore[no-any-return]


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
    of the collector's generations, no full collection walks it again (the few cycles start-up
    left unreachable, a tenth of its objects, are frozen with it: collecting them would cost a
    full collection now). Young collections wait for ``YOUNG_COLLECTION_THRESHOLD`` objects, and
    the collector runs from now on: a server's start runs under ``collector_paused`` (well over a
    hundred thousand containers that live as long as the server, modules and catalogue and
    schemas, little garbage: collections while they are made, which walk them again and again,
    were a quarter of ``fakeapi serve``'s CPU to its first request)."""
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])
    gc.enable()
