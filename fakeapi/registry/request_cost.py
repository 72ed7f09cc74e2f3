"""What one API request made the registry do, for the per-client report (``fakeapi.clients``).

The HTTP layer puts a fresh ``RequestCost`` in ``current`` for the length of each resource
request (a ContextVar: kube carries per-request facts down the same way, in the request's
``context.Context``); the registry adds to it where the facts are known: how many objects a
read went through and returned, whether it was served from the store instead of the watch
cache, whether a write changed nothing, the watcher a watch opened. Outside a request
(built-in controllers, seeding, tests calling the registry) ``current`` is None and nothing is
recorded. Each fact costs one ContextVar read per request, never anything per object.
"""

from __future__ import annotations

from contextvars import ContextVar

from ..cacher import CacheWatcher


class RequestCost:
    __slots__ = ("returned", "examined", "from_store", "noop_write", "expired", "watcher", "response_bytes")

    def __init__(self) -> None:
        #: Objects a GET or LIST answered with, and those it went through to find them (a
        #: selector makes ``examined`` larger than ``returned``).
        self.returned = 0
        self.examined = 0
        #: The read was served from the store (etcd, in kube) rather than the watch cache.
        self.from_store = False
        #: A write answered with the stored object unchanged: no store write, no new
        #: resourceVersion, no watch event (kube's GuaranteedUpdate skips such writes).
        self.noop_write = False
        #: A watch answered with an in-stream 410 Expired ERROR (its HTTP status is 200).
        self.expired = False
        #: The watcher a watch request opened; its written-event count is read as it streams.
        self.watcher: CacheWatcher | None = None
        #: Bytes of the response body sent so far (kept up by the HTTP layer).
        self.response_bytes = 0


#: The cost record of the request being served, or None.
current: ContextVar[RequestCost | None] = ContextVar("fakeapi_request_cost", default=None)
