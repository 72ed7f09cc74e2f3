"""``WorkQueue``: keys are processed one per loop step in the order first queued, a key queued
again while it waits is processed once (with the state at processing time), one queued again
while it is processed is processed again, nothing is processed before the initial sync has
run, a StatusError (the object changed or went) does not stop the queue, and a stopped queue
processes nothing more."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable

from controller_harness import until

from fakeapi.controllers.workqueue import WorkQueue
from fakeapi.machinery.status import StatusError


def test_keys_queued_again_while_waiting_are_processed_once_in_first_order() -> None:
    async def scenario() -> None:
        processed: list[Hashable] = []
        queue = WorkQueue("test", processed.append)
        for key in ("a", "b", "a", ("ns", "c"), "b"):
            queue.add(key)
        queue.start()
        await until(lambda: len(processed) == 3, "three keys processed")
        await asyncio.sleep(0.05)
        await queue.stop()
        assert processed == ["a", "b", ("ns", "c")]

    asyncio.run(scenario())


def test_a_key_queued_again_while_processed_is_processed_again() -> None:
    async def scenario() -> None:
        processed: list[Hashable] = []
        queue: WorkQueue

        def process(key: Hashable) -> None:
            processed.append(key)
            if processed.count(key) == 1:
                queue.add(key)  # what an event dispatched by this key's own write does

        queue = WorkQueue("test", process)
        queue.add("a")
        queue.start()
        await until(lambda: processed == ["a", "a"], "the key processed twice")
        await queue.stop()

    asyncio.run(scenario())


def test_the_other_tasks_run_between_two_keys() -> None:
    async def scenario() -> None:
        steps: list[str] = []
        queue = WorkQueue("test", lambda key: steps.append(f"key {key}"))

        async def other() -> None:
            for _ in range(3):
                steps.append("other")
                await asyncio.sleep(0)

        for key in "abc":
            queue.add(key)
        queue.start()
        await asyncio.gather(other(), until(lambda: len(steps) == 6, "every step"))
        await queue.stop()
        keys = [i for i, step in enumerate(steps) if step.startswith("key")]
        assert all(later - earlier > 1 for earlier, later in zip(keys, keys[1:])), steps

    asyncio.run(scenario())


def test_keys_wait_for_the_initial_sync() -> None:
    async def scenario() -> None:
        steps: list[str] = []
        synced = asyncio.Event()

        async def initial_sync() -> None:
            await synced.wait()
            steps.append("synced")

        queue = WorkQueue("test", lambda key: steps.append(f"key {key}"))
        queue.add("early")
        queue.start(initial_sync)
        await asyncio.sleep(0.05)
        assert steps == []
        synced.set()
        await until(lambda: steps == ["synced", "key early"], "the sync, then the key")
        await queue.stop()

    asyncio.run(scenario())


def test_a_status_error_is_the_keys_alone() -> None:
    async def scenario() -> None:
        processed: list[Hashable] = []

        def process(key: Hashable) -> None:
            processed.append(key)
            if key == "gone":
                raise StatusError(404, "NotFound", 'configmaps "gone" not found')

        queue = WorkQueue("test", process)
        queue.add("gone")
        queue.add("next")
        queue.start()
        await until(lambda: processed == ["gone", "next"], "the key after the failed one")
        queue.add("later")
        await until(lambda: processed[-1] == "later", "a key queued after the failure")
        await queue.stop()

    asyncio.run(scenario())


def test_a_stopped_queue_processes_nothing_more() -> None:
    async def scenario() -> None:
        processed: list[Hashable] = []
        queue = WorkQueue("test", processed.append)
        queue.start()
        await queue.stop()
        queue.add("late")
        await asyncio.sleep(0.05)
        assert processed == []
        await queue.stop()  # a second stop is harmless

    asyncio.run(scenario())
