"""Run-time knobs: changed while watches are open, listed, and restored when cleared."""

from __future__ import annotations

import httpx
from test_watches import WatchReader

from fakeapi.testing import ServerProcess


def test_knobs_apply_to_open_watches_and_clear_restores_them(server: ServerProcess, http: httpx.Client) -> None:
    startup = server.faults()["settings"]
    reader = WatchReader(server.url, "/api/v1/namespaces/default/services",
                         {"allowWatchBookmarks": "true", "timeoutSeconds": "600"})
    created = server.set(max_watch_timeout=2.5, bookmark_interval=0.5, watch_cache_max_events=200)
    assert reader.ended.wait(15)  # the cap ended a watch that asked for ten minutes
    assert any(event["type"] == "BOOKMARK" for _, event in reader.lines)  # bookmarks came every 0.5 s
    settings = server.faults()["settings"]
    assert (settings["maxWatchTimeout"], settings["bookmarkInterval"], settings["watchCacheMaxEvents"]) == (2.5, 0.5, 200)
    assert server.clear_faults(created["id"]) == 1
    assert server.faults()["settings"] == startup
