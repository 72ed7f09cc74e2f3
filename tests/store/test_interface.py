"""The store's declared interfaces (``typing.Protocol``s, which nothing checks at run time) against
the classes that implement them: every member is there, and every method takes the protocol's
parameters by the same names and kinds, with a default wherever the protocol has one. A type
checker says as much (``StoreInterface[WatchStream] = Store()``); this says it without one."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

from fakeapi.etcd.client import RemoteStore, RemoteWatchStream
from fakeapi.etcd.server import EtcdServer
from fakeapi.etcd.watch import WatchServer
from fakeapi.metrics.remote_store_timing import TimedRemoteStore
from fakeapi.metrics.storage_timing import TimedStore
from fakeapi.store import Store, StoreInterface, WatchStream, WatchStreamInterface
from fakeapi.store.interface import ChangeLog
from fakeapi.store.journal import Journal
from fakeapi.store.watchable_store import WatchableStore
from fakeapi.store.watcher import Watchable

#: An address nothing listens on: a remote store connects at its first call, which none makes.
NOWHERE = "http://127.0.0.1:9"


def _members(protocol: type) -> set[str]:
    return {name for name in vars(protocol) if not name.startswith("_")} | set(vars(protocol).get("__annotations__", {}))


def _mismatches(protocol: type, implementation: object) -> list[str]:
    """What ``implementation`` (a class, or an instance for attributes set in ``__init__``) lacks
    of ``protocol``; read statically, so no property runs (a remote store's ``revision`` would
    ask the server)."""
    cls = implementation if isinstance(implementation, type) else type(implementation)
    found = []
    for name in sorted(_members(protocol)):
        try:
            ours = inspect.getattr_static(implementation, name)
        except AttributeError:
            found.append(f"{cls.__name__} has no {name}")
            continue
        declared = vars(protocol).get(name)
        if not inspect.isfunction(declared):
            continue  # an attribute or a property: being there is what can be checked
        if not callable(ours):
            found.append(f"{cls.__name__}.{name} is not a method")
            continue
        wanted = inspect.signature(declared).parameters
        given = inspect.signature(getattr(cls, name)).parameters
        for param in wanted.values():
            have = given.get(param.name)
            if have is None or have.kind != param.kind:
                found.append(f"{cls.__name__}.{name} does not take {param.name} ({param.kind.description})")
            elif param.default is not param.empty and have.default is have.empty:
                found.append(f"{cls.__name__}.{name}'s {param.name} has no default")
        for param in given.values():
            if param.name not in wanted and param.default is param.empty and param.kind not in (
                    param.VAR_POSITIONAL, param.VAR_KEYWORD):
                found.append(f"{cls.__name__}.{name} requires {param.name}, which callers do not pass")
    return found


@pytest.mark.parametrize("make", [Store, TimedStore, lambda: RemoteStore([NOWHERE]),
                                  lambda: TimedRemoteStore([NOWHERE])],
                         ids=["Store", "TimedStore", "RemoteStore", "TimedRemoteStore"])
def test_every_store_is_a_store_interface(make: Any) -> None:
    store = make()
    try:
        assert _mismatches(StoreInterface, store) == []
    finally:
        if isinstance(store, RemoteStore):
            asyncio.run(store.aclose())


@pytest.mark.parametrize("stream", [WatchStream, RemoteWatchStream])
def test_every_watch_stream_is_a_watch_stream_interface(stream: type) -> None:
    assert _mismatches(WatchStreamInterface, stream) == []


def test_the_journal_is_a_change_log() -> None:
    assert _mismatches(ChangeLog, Journal) == []


def test_the_watchable_store_is_what_its_streams_call() -> None:
    assert _mismatches(Watchable, WatchableStore) == []


def test_the_etcd_server_is_what_its_watch_sessions_use() -> None:
    assert _mismatches(WatchServer, EtcdServer(Store())) == []


def test_a_missing_member_or_parameter_is_found() -> None:
    class Partial:
        revision = 1

        def get(self, key: bytes) -> None:
            return None

        def range(self, req: Any, extra: int) -> None:
            return None

    found = _mismatches(StoreInterface, Partial())
    assert "Partial has no txn" in found
    assert "Partial.get does not take rev (positional or keyword)" in found
    assert "Partial.range requires extra, which callers do not pass" in found
    assert "Partial has no revision" not in found
