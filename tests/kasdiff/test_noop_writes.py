"""Writes that change nothing, on fakeapi and on the real kube-apiserver: kube's GuaranteedUpdate
stores nothing when the new object equals the stored one (same resourceVersion, no watch event),
and a write whose only change is managedFields timestamps gets the old timestamps back first
(``IgnoreManagedFieldsTimestampsTransformer``). Each write is checked by whether it moved the
resourceVersion and by the watch events it made; fakeapi's client report counts the others as
no-op writes."""

from __future__ import annotations

import copy
import threading

import httpx
import orjson
from differ import Pair

from fakeapi.testing import ServerProcess

CMS = "/api/v1/namespaces/default/configmaps"
AGENT = {"user-agent": "noop-writer/1.0"}
APPLY = {"content-type": "application/apply-patch+yaml", **AGENT}
MERGE = {"content-type": "application/merge-patch+json", **AGENT}
STRATEGIC = {"content-type": "application/strategic-merge-patch+json", **AGENT}


def rv(response: httpx.Response) -> str:
    assert response.status_code < 300, response.text
    return response.json()["metadata"]["resourceVersion"]  # type: ignore[no-any-return]


def writes(http: httpx.Client) -> tuple[list[tuple[str, bool]], list[str], list[str]]:
    """The scenario: each step's name and whether it moved the resourceVersion, the
    resourceVersions the watch delivered, and those the writes answered with."""
    created = http.post(CMS, json={"metadata": {"name": "steady"}, "data": {"k": "v"}}, headers=AGENT)
    start = rv(created)
    delivered: list[str] = []
    watching = threading.Event()

    def watch() -> None:
        with http.stream("GET", CMS, params={"watch": "1", "resourceVersion": start, "timeoutSeconds": "20",
                                              "fieldSelector": "metadata.name=steady"}) as stream:
            watching.set()
            for line in stream.iter_lines():
                event = orjson.loads(line)
                delivered.append(event["object"]["metadata"]["resourceVersion"])
                if event["object"].get("data") == {"k": "changed"}:
                    return

    thread = threading.Thread(target=watch)
    thread.start()
    assert watching.wait(10)
    stored = created.json()
    steps: list[tuple[str, httpx.Response]] = [("PUT of the stored object", http.put(f"{CMS}/steady", json=stored,
                                                                                      headers=AGENT))]
    stale_times = copy.deepcopy(stored)
    for entry in stale_times["metadata"]["managedFields"]:
        entry["time"] = "2020-01-01T00:00:00Z"
    steps.append(("PUT changing only managedFields times", http.put(f"{CMS}/steady", json=stale_times, headers=AGENT)))
    applied = orjson.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "steady"},
                            "data": {"k": "v"}})
    steps.append(("first apply by a new manager", http.patch(f"{CMS}/steady", params={"fieldManager": "applier"},
                                                             content=applied, headers=APPLY)))
    steps.append(("the same apply again", http.patch(f"{CMS}/steady", params={"fieldManager": "applier"},
                                                     content=applied, headers=APPLY)))
    steps.append(("merge patch to the same value", http.patch(f"{CMS}/steady", content=b'{"data":{"k":"v"}}',
                                                              headers=MERGE)))
    steps.append(("strategic merge patch to the same value",
                  http.patch(f"{CMS}/steady", content=b'{"data":{"k":"v"}}', headers=STRATEGIC)))
    steps.append(("merge patch by another manager, same value",
                  http.patch(f"{CMS}/steady", params={"fieldManager": "other"}, content=b'{"data":{"k":"v"}}',
                             headers=MERGE)))
    steps.append(("a real change", http.patch(f"{CMS}/steady", content=b'{"data":{"k":"changed"}}', headers=MERGE)))
    thread.join(20)
    outcome, before, answered = [], start, []
    for name, response in steps:
        after = rv(response)
        outcome.append((name, after != before))
        answered.append(after)
        before = after
    assert stale_times["metadata"]["managedFields"] != steps[1][1].json()["metadata"]["managedFields"]
    return outcome, delivered, answered


EXPECTED = [
    ("PUT of the stored object", False),
    ("PUT changing only managedFields times", False),
    ("first apply by a new manager", True),  # its managedFields entry is a change
    ("the same apply again", False),
    ("merge patch to the same value", False),
    ("strategic merge patch to the same value", False),
    ("merge patch by another manager, same value", False),
    ("a real change", True),
]


def test_no_op_writes_match_the_real_kube_apiserver(pair: Pair, fake_server: ServerProcess) -> None:
    kube_outcome, kube_delivered, kube_answered = writes(pair.real)
    fake_outcome, fake_delivered, fake_answered = writes(pair.fake)
    assert kube_outcome == EXPECTED
    assert fake_outcome == kube_outcome
    # One watch event per resourceVersion a write made, none for the rest.
    for delivered, answered in ((kube_delivered, kube_answered), (fake_delivered, fake_answered)):
        assert delivered == [version for version, (_, moved) in zip(answered, EXPECTED) if moved]
    noop = fake_server.report().client("noop-writer")["totals"]
    assert noop["noopWrites"] == sum(not moved for _, moved in EXPECTED)
