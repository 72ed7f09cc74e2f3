"""The watch cache per resource: current objects at the cache revision plus a cyclic buffer of
recent events, list-from-cache, bookmarks, and fan-out to client watchers with bounded queues.

Knows keys, revisions and the decoded metadata selectors need (``CachedObject``); nothing of
HTTP. Modelled on kube-apiserver's ``pkg/storage/cacher``: watch_cache.py (``watchCache``),
cache_watcher.py (``cacheWatcher``), cacher.py (``Cacher``).
"""

from .cache_watcher import INITIAL_EVENTS_END_ANNOTATION, CacheWatcher
from .cacher import Cacher, CacherConfig
from .watch_cache import (
    ADDED,
    DELETED,
    MODIFIED,
    CachedObject,
    CacheEvent,
    ObjectView,
    TooOldResourceVersion,
    WatchCache,
    json_event,
    with_resource_version,
)

__all__ = [
    "ADDED", "DELETED", "INITIAL_EVENTS_END_ANNOTATION", "MODIFIED", "CacheEvent",
    "CacheWatcher", "CachedObject", "Cacher", "CacherConfig", "ObjectView", "TooOldResourceVersion",
    "WatchCache", "json_event", "with_resource_version",
]
