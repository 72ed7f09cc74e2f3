"""Real client-go informers (typed, dynamic, metadata; client-go 1.35) against a real fakeapi
process, with and without the WatchList (streaming list) client, in client-go's default encoding
(the typed informers in protobuf, the metadata informer in protobuf, the dynamic one in JSON) and
with the typed informers in JSON: they sync with exactly the requests kube-apiserver would see (a WatchList stream per
informer and no LIST falling back after it; or a LIST and a WATCH each), see a scripted sequence
of changes exactly once and in order, and when their watch resumes after the events it missed
have left a deliberately small event buffer, they get 410, relist and converge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from fakeapi.testing import ServerProcess

#: Event buffer per resource, tiny so that a paused watch falls out of it.
BUFFER_EVENTS = 20
NS = "/api/v1/namespaces/default"
CONFIGMAP_INFORMERS = ("configmaps", "dyn-configmaps")
POD_INFORMERS = ("pods", "meta-pods")


class Cluster:
    """Writes through the HTTP API, returning the resourceVersion each write produced."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    def _check(self, resp: httpx.Response) -> dict[str, Any]:
        assert resp.status_code < 300, resp.text
        return resp.json()

    def create(self, resource: str, name: str, **fields: Any) -> str:
        body = {"metadata": {"name": name}, **fields}
        return self._check(self.http.post(f"{NS}/{resource}", json=body))["metadata"]["resourceVersion"]

    def label(self, resource: str, name: str, value: str) -> str:
        obj = self._check(self.http.get(f"{NS}/{resource}/{name}"))
        obj["metadata"].setdefault("labels", {})["step"] = value
        return self._check(self.http.put(f"{NS}/{resource}/{name}", json=obj))["metadata"]["resourceVersion"]

    def delete(self, resource: str, name: str) -> str:
        self._check(self.http.delete(f"{NS}/{resource}/{name}"))
        return self.revision(resource)

    def delete_pod(self, name: str) -> list[tuple[str, str, str]]:
        """An unscheduled pod's delete is graceful with period 0 (kube's BeforeDelete): an
        update marks it, the next revision deletes it."""
        deleted = self.delete("pods", name)
        return [("update", name, str(int(deleted) - 1)), ("delete", name, deleted)]

    def revision(self, resource: str) -> str:
        """The store's revision: the list resourceVersion (nothing else writes meanwhile)."""
        return self._check(self.http.get(f"{NS}/{resource}"))["metadata"]["resourceVersion"]

    def state(self, resource: str) -> dict[str, str]:
        items = self._check(self.http.get(f"{NS}/{resource}"))["items"]
        return {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in items}


def pod(image: str = "nginx") -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "c", "image": image}]}}


PROTOBUF = "application/vnd.kubernetes.protobuf"
#: By encoding and informer: the start of its requests' Accept header and of its responses' Content-Type.
WIRE = {
    "protobuf": {"pods": (PROTOBUF + ",application/json", PROTOBUF),
                 "configmaps": (PROTOBUF + ",application/json", PROTOBUF),
                 "dyn-configmaps": ("application/json", "application/json"),
                 "meta-pods": (PROTOBUF + ";as=PartialObjectMetadata", PROTOBUF)},
    # The metadata client sets its own Accept header: protobuf first whatever the config says.
    "json": {"pods": ("application/json", "application/json"), "configmaps": ("application/json", "application/json"),
             "dyn-configmaps": ("application/json", "application/json"),
             "meta-pods": (PROTOBUF + ";as=PartialObjectMetadata", PROTOBUF)},
}
CLIENTS = {"pods": "typed", "configmaps": "typed", "dyn-configmaps": "dynamic", "meta-pods": "metadata"}


def informer_of(request: dict[str, Any]) -> str:
    resource = request["path"].rsplit("/", 1)[1]
    return next(name for name, client in CLIENTS.items() if client == request["client"] and name.endswith(resource))


def check_sync_requests(requests: list[dict[str, Any]], watch_list: bool, encoding: str) -> None:
    """Every informer synced with kube's requests and nothing more: one WatchList stream (no LIST
    after it, which client-go falls back to when the stream does not end as kube ends it), or a
    LIST then a WATCH; each in the encoding its client asked for."""
    made: dict[str, list[str]] = {}
    for request in requests:
        informer = informer_of(request)
        query = request["query"]
        made.setdefault(informer, []).append(
            "watchlist" if "sendInitialEvents=true" in query else "watch" if "watch=true" in query else "list")
        accept, content_type = WIRE[encoding][informer]
        assert request["status"] == 200, request
        assert request["accept"].startswith(accept), request
        assert request["contentType"].startswith(content_type), request
    assert made == dict.fromkeys(CLIENTS, ["watchlist"] if watch_list else ["list", "watch"])


@pytest.mark.parametrize("encoding", ["protobuf", "json"])
@pytest.mark.parametrize("watch_list", [False, True], ids=["WatchListClient=false", "WatchListClient=true"])
def test_informers_sync_see_every_change_once_in_order_and_relist_after_410(
    watch_list: bool, encoding: str, start_harness: Any, tmp_path: Path
) -> None:
    with ServerProcess(tmp_path, "--watch-cache-min-events", str(BUFFER_EVENTS),
                       "--watch-cache-max-events", str(BUFFER_EVENTS)) as server:
        cluster = Cluster(server.http)
        initial = {"configmaps": {}, "pods": {}}
        for i in range(3):
            initial["configmaps"][f"before-{i}"] = cluster.create("configmaps", f"before-{i}", data={"i": str(i)})
            initial["pods"][f"before-{i}"] = cluster.create("pods", f"before-{i}", **pod())
        pause_file = tmp_path / "pause-pods-watch"
        harness = start_harness(server.kubeconfig, watch_list, pause_file, "--trace-http", "-v=4",
                                *(["--content-type=json"] if encoding == "json" else []))

        # 1. Sync: one initial add per existing object in every informer.
        harness.wait_for(lambda ms: any(m["kind"] == "synced" for m in ms), "synced")
        synced_at = len(harness.snapshot())
        for informer in CONFIGMAP_INFORMERS + POD_INFORMERS:
            resource = "configmaps" if informer in CONFIGMAP_INFORMERS else "pods"
            adds = sorted(harness.events(informer, 0, synced_at))
            assert adds == sorted(("add", n, rv) for n, rv in initial[resource].items()), informer
        expected_call = "watchlist" if watch_list else "list"
        first_calls = {}
        for m in harness.snapshot()[:synced_at]:
            if m["kind"] == "call":
                first_calls.setdefault(m["informer"], m["call"])
        assert first_calls == dict.fromkeys(CONFIGMAP_INFORMERS + POD_INFORMERS, expected_call)
        # The sync's requests (a watch is traced when its stream opens, before "synced").
        check_sync_requests([m for m in harness.snapshot()[:synced_at] if m["kind"] == "http"], watch_list, encoding)

        # 2. A scripted sequence: every informer sees each change once, in order, at its rv.
        script_start = len(harness.snapshot())
        expected: dict[str, list[tuple[str, str, str]]] = {"configmaps": [], "pods": []}
        expected["configmaps"].append(("add", "c1", cluster.create("configmaps", "c1", data={"v": "0"})))
        expected["pods"].append(("add", "p1", cluster.create("pods", "p1", **pod())))
        for step in range(3):
            expected["configmaps"].append(("update", "c1", cluster.label("configmaps", "c1", str(step))))
            expected["pods"].append(("update", "p1", cluster.label("pods", "p1", str(step))))
        expected["configmaps"].append(("update", "before-0", cluster.label("configmaps", "before-0", "x")))
        expected["configmaps"].append(("delete", "c1", cluster.delete("configmaps", "c1")))
        expected["pods"] += cluster.delete_pod("p1")
        expected["pods"] += cluster.delete_pod("before-2")
        for informer in CONFIGMAP_INFORMERS + POD_INFORMERS:
            want = expected["configmaps" if informer in CONFIGMAP_INFORMERS else "pods"]
            harness.wait_for(lambda ms, i=informer, n=len(want): len(harness.events(i, script_start)) >= n,
                             f"{len(want)} events in {informer}")
        # Let any duplicate arrive before comparing (a second copy would come right behind).
        harness.dump()
        for informer in CONFIGMAP_INFORMERS + POD_INFORMERS:
            want = expected["configmaps" if informer in CONFIGMAP_INFORMERS else "pods"]
            assert harness.events(informer, script_start) == want, informer

        # 3. The pods watch ends and stays away while more pod events happen than the buffer
        # holds: on its return it must get 410 Expired, relist, and converge.
        pause_file.touch()
        outage_start = len(harness.snapshot())
        assert server.close_watches(group="", resource="pods") == 2  # pods and meta-pods
        harness.wait_for(lambda ms: any(m["kind"] == "watch-paused" for m in ms[outage_start:]), "paused pods watch")
        for i in range(BUFFER_EVENTS // 2 + 1):
            cluster.create("pods", f"during-{i}", **pod())
            cluster.label("pods", f"during-{i}", "x")
        cluster.delete("pods", "during-0")
        cluster.delete("pods", "before-1")
        cluster.label("pods", "before-0", "y")
        pause_file.unlink()
        expired = harness.wait_for(
            lambda ms: [m for m in ms[outage_start:] if m["kind"] == "watch-error" and m["informer"] == "pods"],
            "410 on the resumed pods watch")
        assert expired[0]["code"] == 410 and expired[0]["reason"] == "Expired"
        assert expired[0]["message"].startswith("too old resource version: ")
        relist_from = harness.snapshot().index(expired[0])
        harness.wait_for(
            lambda ms: any(m["kind"] == "call" and m["informer"] == "pods" and m["call"] == expected_call
                           for m in ms[relist_from:]), "relist after 410")

        # 4. Every informer converges to the server's state.
        want = {"pods": cluster.state("pods"), "meta-pods": cluster.state("pods"),
                "configmaps": cluster.state("configmaps"), "dyn-configmaps": cluster.state("configmaps")}
        harness.wait_for(lambda ms: harness.dump() == want, "informer stores equal to the server's state")
        # The metadata informer was not paused: it resumed inside the buffer, without a relist.
        assert not [m for m in harness.snapshot()[outage_start:] if m["kind"] == "watch-error" and m["informer"] == "meta-pods"]
        assert harness.quit() == 0
        # Nor did any WatchList fall back to a LIST (client-go logs it at -v=4).
        assert "Falling back to regular list" not in harness.stderr_path.read_text()
