"""client-go informers (typed, dynamic, metadata; the harness in tests/clientgo) after an
"apiserver restart": their watches end, resuming gets 410 Expired, they relist and converge."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fakeapi.testing import ServerProcess

NS = "/api/v1/namespaces/default"
INFORMERS = ("pods", "configmaps", "dyn-configmaps", "meta-pods")


def test_clientgo_informers_relist_after_restart(start_harness: Any, tmp_path: Path) -> None:
    with ServerProcess(tmp_path) as server:
        http = server.http
        http.post(f"{NS}/configmaps", json={"metadata": {"name": "before"}}).raise_for_status()
        harness = start_harness(server.kubeconfig, False, tmp_path / "no-pause")
        harness.wait_for(lambda ms: any(m["kind"] == "synced" for m in ms), "synced")
        harness.wait_for(lambda ms: sum(m["kind"] == "call" and m["call"] == "watch" for m in ms) >= len(INFORMERS),
                         "every informer watching")
        # Watches under a second with no events count as failed in client-go ("very short
        # watch") and relist without resuming; let them age so they resume and meet the 410.
        time.sleep(1.2)
        # A write after every informer's last resourceVersion: the caches restart past it.
        http.post(f"{NS}/secrets", json={"metadata": {"name": "bump"}}).raise_for_status()
        restart_at = len(harness.snapshot())
        assert server.restart() >= len(INFORMERS)

        for informer in INFORMERS:
            expired = harness.wait_for(
                lambda ms, i=informer: [m for m in ms[restart_at:] if m["kind"] == "watch-error" and m["informer"] == i],
                f"410 on {informer}'s resumed watch")
            assert (expired[0]["code"], expired[0]["reason"]) == (410, "Expired")
            harness.wait_for(
                lambda ms, i=informer: any(m["kind"] == "call" and m["informer"] == i and m["call"] == "list"
                                           for m in ms[restart_at:]), f"{informer} relisting")

        http.post(f"{NS}/configmaps", json={"metadata": {"name": "after"}}).raise_for_status()
        http.post(f"{NS}/pods", json={"metadata": {"name": "p"},
                                      "spec": {"containers": [{"name": "c", "image": "x"}]}}).raise_for_status()
        state = {r: {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in http.get(f"{NS}/{r}").json()["items"]}
                 for r in ("configmaps", "pods")}
        want = {"configmaps": state["configmaps"], "dyn-configmaps": state["configmaps"],
                "pods": state["pods"], "meta-pods": state["pods"]}
        harness.wait_for(lambda ms: harness.dump() == want, "informer stores equal to the server's state")
        assert harness.quit() == 0
