"""client-go informers (the harness in tests/clientgo: typed, dynamic and metadata informers of
one process, client ``fakeapi-informer-harness``) under the detectors: quiet while they do what
informers do, a relist storm when apiserver restarts keep sending them back to LIST."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from fakeapi.clients import DETECTORS
from fakeapi.testing import FakeAPI

INFORMERS = ("pods", "configmaps", "dyn-configmaps", "meta-pods")
CLIENT = "fakeapi-informer-harness"


def watching(harness: Any, after: int = 0) -> None:
    harness.wait_for(lambda ms: {m["informer"] for m in ms[after:] if m["kind"] == "call" and m["call"] == "watch"}
                     >= set(INFORMERS), "every informer watching")


def restart_and_relist(fakeapi: FakeAPI, harness: Any) -> None:
    """An apiserver restart after a write, so the informers resume behind it: 410, relist."""
    # client-go relists at once after a watch shorter than a second with no events ("very short
    # watch") instead of resuming; let the watches age so that they resume and meet the 410.
    time.sleep(1.2)
    fakeapi.http.post("/api/v1/namespaces/default/secrets", json={"metadata": {"generateName": "bump-"}})
    restart_at = len(harness.snapshot())
    assert fakeapi.restart() >= len(INFORMERS)
    for informer in INFORMERS:
        harness.wait_for(lambda ms, i=informer: any(m["kind"] == "call" and m["informer"] == i and m["call"] == "list"
                                                    for m in ms[restart_at:]), f"{informer} relisting")
    watching(harness, restart_at)


@pytest.mark.fakeapi(forbid=list(DETECTORS))
def test_informers_that_sync_follow_changes_and_survive_a_restart_fire_nothing(
        fakeapi: FakeAPI, kubeconfig: Path, start_harness: Any, tmp_path: Path) -> None:
    for i in range(3):
        fakeapi.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}"}})
    harness = start_harness(kubeconfig, False, tmp_path / "no-pause")
    harness.wait_for(lambda ms: any(m["kind"] == "synced" for m in ms), "synced")
    watching(harness)
    for i in range(20):
        fakeapi.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i % 3}"},
                       "data": {"i": str(i)}})
    restart_and_relist(fakeapi, harness)
    fakeapi.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "after"}})
    harness.wait_for(lambda ms: any(m["kind"] == "event" and m["name"] == "after" for m in ms), "the last change")
    report = fakeapi.report()
    assert report.client(CLIENT)["openWatches"] == len(INFORMERS)
    assert harness.quit() == 0
    # The marker checks every detector once the test body is over; the report says what was seen.
    lists = [r for r in report.client(CLIENT)["requests"] if r["verb"] == "list"]
    assert sum(r["requests"] for r in lists) == 2 * len(INFORMERS)  # the first list, one relist


def test_relist_storm_informers_sent_back_to_list_by_restarts(
        fakeapi: FakeAPI, kubeconfig: Path, start_harness: Any, tmp_path: Path) -> None:
    harness = start_harness(kubeconfig, False, tmp_path / "no-pause")
    harness.wait_for(lambda ms: any(m["kind"] == "synced" for m in ms), "synced")
    watching(harness)
    for _ in range(2):  # two informers of one client per resource: four relists of each
        restart_and_relist(fakeapi, harness)
    findings = {f["resource"]: f for f in fakeapi.report().findings("relist-storm", client=CLIENT)}
    assert set(findings) == {"pods", "configmaps"}
    for finding in findings.values():
        assert finding["clients"] == [CLIENT] and finding["evidence"]["relists"] == 3
        assert finding["evidence"]["last"] == "list" and finding["evidence"]["namespace"] == "default"
    assert harness.quit() == 0
