"""Fixtures of the registry's in-process tests: a started ``Registry`` over a fresh ``Store`` on an
event loop of the test's own (``runner``), which runs only while the test hands it a coroutine:
the watch caches take in the store's events then, and not while the test writes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from fakeapi.cacher.cacher import CacherConfig
from fakeapi.registry.registry import Registry
from fakeapi.registry.rest import ResourceStore
from fakeapi.store import Store

#: How long a read waits for the cache to reach a revision (kube's 3 s would only slow the tests).
FRESH_TIMEOUT = 0.2


@pytest.fixture
def runner() -> Iterator[asyncio.Runner]:
    with asyncio.Runner() as loop:
        yield loop


@pytest.fixture
def registry(runner: asyncio.Runner) -> Iterator[Registry]:
    served = Registry(Store(), cacher_config=CacherConfig(fresh_timeout=FRESH_TIMEOUT))

    async def start() -> None:  # the caches' tasks need the running loop
        served.start()

    runner.run(start())
    yield served
    runner.run(served.stop())


@pytest.fixture
def configmaps(registry: Registry) -> ResourceStore:
    return registry.resources[("", "v1", "configmaps")]
