"""A deduplicating work queue drained by one task (client-go's ``workqueue`` idea: a key queued
again while waiting is processed once, with the state current at processing time)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable

from ..machinery.status import StatusError
from ..runtime import cancel_and_wait

log = logging.getLogger("fakeapi.controllers")


class WorkQueue:
    def __init__(self, name: str, process: Callable[[Hashable], None]) -> None:
        self.name = name
        self._process = process
        self._pending: dict[Hashable, None] = {}  # insertion-ordered set
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def add(self, key: Hashable) -> None:
        self._pending[key] = None
        self._wakeup.set()

    def start(self, initial_sync: Callable[[], Awaitable[None]] | None = None) -> None:
        """Start draining; after ``initial_sync`` if given (keys queued meanwhile wait for it)."""
        self._task = asyncio.create_task(self._run(initial_sync), name=self.name)

    async def stop(self) -> None:
        await cancel_and_wait([self._task])
        self._task = None

    async def _run(self, initial_sync: Callable[[], Awaitable[None]] | None) -> None:
        if initial_sync is not None:
            await initial_sync()
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            while self._pending:
                key = next(iter(self._pending))
                del self._pending[key]
                try:
                    self._process(key)
                except StatusError as err:  # the object changed or went meanwhile: its event requeues it
                    log.debug("%s: %r: %s", self.name, key, err.message)
                await asyncio.sleep(0)  # one key per loop step: clients are served in between
