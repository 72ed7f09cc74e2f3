"""The store's clock-driven work, as tasks on the event loop that owns the store.

Nothing in the store sleeps or spawns; time enters only here: periodic progress notifications
(etcd's ``--watch-progress-notify-interval``; kubeadm runs etcd with 5 s), lease expiry, and the
upkeep of a persisted store's journal (its lease clock, its snapshots).
"""

from __future__ import annotations

import asyncio

from ..runtime import cancel_and_wait
from .interface import StoreInterface

#: How often leases are checked for expiry; etcd's lessor checks every 500 ms.
LEASE_CHECK_INTERVAL = 0.5


class StoreTimers:
    def __init__(self, store: StoreInterface, progress_interval: float = 5.0) -> None:
        self.store = store
        self.progress_interval = progress_interval
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._every(self.progress_interval, self.store.notify_progress)),
            asyncio.create_task(self._every(LEASE_CHECK_INTERVAL, self.store.expire_leases)),
        ]
        if self.store.journal is not None:
            self._tasks.append(asyncio.create_task(self._every(LEASE_CHECK_INTERVAL, self.store.journal.tick)))

    def set_progress_interval(self, interval: float) -> None:
        """Change the progress-notify interval at run time: the next notification comes one new
        interval from now (the progress task, always ``_tasks[0]``, is replaced)."""
        self.progress_interval = interval
        if self._tasks:
            self._tasks[0].cancel()
            self._tasks[0] = asyncio.create_task(self._every(interval, self.store.notify_progress))

    async def stop(self) -> None:
        await cancel_and_wait(self._tasks)
        self._tasks = []

    @staticmethod
    async def _every(interval: float, tick: object) -> None:
        while True:
            await asyncio.sleep(interval)
            tick()  # type: ignore[operator]
