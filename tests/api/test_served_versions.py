"""Resources served in several versions over one storage prefix, converted on the way in and
out: core/v1 and events.k8s.io/v1 events, autoscaling v1 and v2 HPAs, and a two-version CRD."""

from __future__ import annotations

import json
import threading

import httpx
import pytest
from kubernetes import client

CORE_EVENTS = "/api/v1/namespaces/default/events"
NEW_EVENTS = "/apis/events.k8s.io/v1/namespaces/default/events"
HPA_V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
HPA_V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
TABLE = "application/json;as=Table;g=meta.k8s.io;v=v1"
META = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"


@pytest.fixture(scope="module")
def http(server):  # type: ignore[no-untyped-def]
    with httpx.Client(base_url=server.url, timeout=10) as c:
        yield c


def core_event(name: str, **extra: object) -> dict:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name},
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web", "apiVersion": "v1"},
            "reason": "Scheduled", "message": "Assigned default/web to node-1", "type": "Normal",
            "source": {"component": "default-scheduler"}, "count": 2,
            "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:01:00Z", **extra}


def test_both_versions_are_discovered(http) -> None:
    groups = {g["name"]: [v["version"] for v in g["versions"]] for g in http.get("/apis").json()["groups"]}
    assert groups["autoscaling"] == ["v2", "v1"]
    assert groups["events.k8s.io"] == ["v1"]
    resources = {r["name"]: r for r in http.get("/apis/events.k8s.io/v1").json()["resources"]}
    assert resources["events"]["kind"] == "Event" and resources["events"]["shortNames"] == ["ev"]
    assert "horizontalpodautoscalers/status" in {r["name"] for r in http.get("/apis/autoscaling/v1").json()["resources"]}
    assert http.get("/openapi/v3/apis/events.k8s.io/v1").status_code == 200


def test_core_event_read_through_events_k8s_io(http) -> None:
    created = http.post(CORE_EVENTS, json=core_event("conv-a")).json()
    got = http.get(f"{NEW_EVENTS}/conv-a").json()
    assert got["apiVersion"] == "events.k8s.io/v1" and got["kind"] == "Event"
    assert got["metadata"]["uid"] == created["metadata"]["uid"]
    assert got["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert got["regarding"] == created["involvedObject"]
    assert got["note"] == "Assigned default/web to node-1"
    assert got["deprecatedSource"] == {"component": "default-scheduler"}
    assert (got["deprecatedCount"], got["deprecatedFirstTimestamp"], got["deprecatedLastTimestamp"]) == (
        2, "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z")
    assert (got["reason"], got["type"]) == ("Scheduled", "Normal")
    for old_name in ("involvedObject", "message", "source", "count", "firstTimestamp"):
        assert old_name not in got
    # Field selectors use each version's own labels.
    by_regarding = http.get(NEW_EVENTS, params={"fieldSelector": "regarding.name=web,reason=Scheduled"}).json()
    assert by_regarding["kind"] == "EventList" and by_regarding["apiVersion"] == "events.k8s.io/v1"
    assert "conv-a" in [e["metadata"]["name"] for e in by_regarding["items"]]
    # List items of built-in kinds carry no kind/apiVersion in kube-apiserver's lists.
    assert all("apiVersion" not in e and "kind" not in e for e in by_regarding["items"])
    assert http.get(NEW_EVENTS, params={"fieldSelector": "involvedObject.name=web"}).status_code == 400
    assert http.get(CORE_EVENTS, params={"fieldSelector": "regarding.name=web"}).status_code == 400


def test_event_written_through_events_k8s_io_is_a_core_event(http) -> None:
    body = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "conv-b"},
            "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/ctl",
            "reportingInstance": "ctl-1", "action": "Reconcile", "reason": "Synced", "type": "Normal",
            "regarding": {"kind": "Deployment", "namespace": "default", "name": "web"}, "note": "synced"}
    created = http.post(NEW_EVENTS, json=body, params={"fieldManager": "ctl"})
    assert created.status_code == 201, created.text
    assert created.json()["note"] == "synced"
    managers = created.json()["metadata"]["managedFields"]
    assert [(m["manager"], m["apiVersion"]) for m in managers] == [("ctl", "events.k8s.io/v1")]
    assert "f:note" in managers[0]["fieldsV1"]
    core = http.get(f"{CORE_EVENTS}/conv-b").json()
    assert core["apiVersion"] == "v1"
    assert (core["message"], core["reportingComponent"], core["reportingInstance"]) == ("synced", "example.com/ctl", "ctl-1")
    assert core["involvedObject"] == body["regarding"]
    assert (core["eventTime"], core["action"]) == ("2026-01-01T00:00:00.000000Z", "Reconcile")
    # The core selector names the same fields by their core names.
    items = http.get(CORE_EVENTS, params={"fieldSelector": "reportingComponent=example.com/ctl"}).json()["items"]
    assert [e["metadata"]["name"] for e in items] == ["conv-b"]
    # The wrong apiVersion for the endpoint is refused, as before.
    wrong = http.post(NEW_EVENTS, json={**body, "apiVersion": "v1", "metadata": {"name": "conv-c"}})
    assert wrong.status_code == 400


def test_patches_apply_to_the_served_version(http) -> None:
    """Patches apply to the object in the served version (its field names), and the write is
    validated as that version validates it: events.k8s.io/v1 keeps an Event's note immutable."""
    http.post(CORE_EVENTS, json=core_event("conv-p"))
    series = {"count": 2, "lastObservedTime": "2026-01-01T00:02:00.000000Z"}
    merged = http.patch(f"{NEW_EVENTS}/conv-p", content=json.dumps({"series": series}),
                        headers={"Content-Type": "application/merge-patch+json"})
    assert merged.status_code == 200, merged.text
    assert merged.json()["series"] == series and merged.json()["apiVersion"] == "events.k8s.io/v1"
    json_patched = http.patch(f"{NEW_EVENTS}/conv-p", content=json.dumps(
        [{"op": "test", "path": "/note", "value": "Assigned default/web to node-1"},
         {"op": "replace", "path": "/series/count", "value": 3}]),
        headers={"Content-Type": "application/json-patch+json"})
    assert json_patched.status_code == 200, json_patched.text
    core = http.get(f"{CORE_EVENTS}/conv-p").json()
    assert (core["message"], core["series"]["count"]) == ("Assigned default/web to node-1", 3)
    refused = http.patch(f"{NEW_EVENTS}/conv-p", content=json.dumps({"note": "changed"}),
                         headers={"Content-Type": "application/merge-patch+json"})
    assert refused.status_code == 422
    assert [c["field"] for c in refused.json()["details"]["causes"]] == ["message"]
    applied = http.patch(f"{NEW_EVENTS}/conv-p", params={"fieldManager": "applier", "force": "true"}, content=(
        "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: conv-p}\nseries: {count: 4}\n"),
        headers={"Content-Type": "application/apply-patch+yaml"})
    assert applied.status_code == 200, applied.text
    entry = next(m for m in applied.json()["metadata"]["managedFields"] if m["manager"] == "applier")
    assert entry["apiVersion"] == "events.k8s.io/v1" and "f:series" in entry["fieldsV1"]
    assert http.get(f"{CORE_EVENTS}/conv-p").json()["series"]["count"] == 4
    put = http.get(f"{NEW_EVENTS}/conv-p").json()
    put["series"]["count"] = 5
    assert http.put(f"{NEW_EVENTS}/conv-p", json=put).json()["series"]["count"] == 5
    deleted = http.delete(f"{NEW_EVENTS}/conv-p")
    assert deleted.status_code == 200 and http.get(f"{CORE_EVENTS}/conv-p").status_code == 404


def test_metadata_and_table_views_of_converted_objects(http) -> None:
    http.post(CORE_EVENTS, json=core_event("conv-v"))
    meta = http.get(f"{NEW_EVENTS}/conv-v", headers={"Accept": META}).json()
    assert meta["kind"] == "PartialObjectMetadata" and meta["metadata"]["name"] == "conv-v"
    table = http.get(NEW_EVENTS, headers={"Accept": TABLE}, params={"fieldSelector": "metadata.name=conv-v"}).json()
    assert table["kind"] == "Table"
    assert [c["name"] for c in table["columnDefinitions"]][:4] == ["Last Seen", "Type", "Reason", "Object"]
    assert table["rows"][0]["cells"][1:4] == ["Normal", "Scheduled", "pod/web"]


def test_watch_on_events_k8s_io_sees_core_writes_in_its_shape(http, server) -> None:
    rv = http.get(NEW_EVENTS).json()["metadata"]["resourceVersion"]
    lines: list[dict] = []

    def read() -> None:
        with httpx.stream("GET", f"{server.url}{NEW_EVENTS}", timeout=10, params={
                "watch": "true", "resourceVersion": rv, "allowWatchBookmarks": "true", "timeoutSeconds": "5"}) as resp:
            for line in resp.iter_lines():
                lines.append(json.loads(line))
                if len(lines) == 2:
                    return

    reader = threading.Thread(target=read)
    reader.start()
    http.post(CORE_EVENTS, json=core_event("conv-w"))
    http.delete(f"{CORE_EVENTS}/conv-w")
    reader.join(10)
    assert [line["type"] for line in lines] == ["ADDED", "DELETED"]
    for line in lines:
        obj = line["object"]
        assert obj["apiVersion"] == "events.k8s.io/v1" and obj["note"] == "Assigned default/web to node-1"
        assert "message" not in obj


def test_python_client_events_v1_api(api_client) -> None:
    events = client.EventsV1Api(api_client)
    core = client.CoreV1Api(api_client)
    created = events.create_namespaced_event("default", client.EventsV1Event(
        # The client prints a datetime with isoformat(), which drops zero microseconds; kube-apiserver
        # (MicroTime wants exactly six fractional digits) refuses that, so the time has some.
        metadata=client.V1ObjectMeta(name="conv-py"), event_time="2026-01-01T00:00:00.000001Z",
        reporting_controller="example.com/py", reporting_instance="py-1", action="Create", reason="Created",
        type="Normal", note="from python", regarding=client.V1ObjectReference(kind="Pod", name="web", namespace="default")))
    assert created.note == "from python" and created.regarding.name == "web"
    listed = events.list_namespaced_event("default", field_selector="reportingController=example.com/py")
    assert [e.metadata.name for e in listed.items] == ["conv-py"]
    as_core = core.read_namespaced_event("conv-py", "default")
    assert (as_core.message, as_core.reporting_component, as_core.involved_object.name) == (
        "from python", "example.com/py", "web")


def test_kubectl_get_events_still_works(kubectl, http) -> None:
    http.post(CORE_EVENTS, json=core_event("conv-k"))
    out = kubectl("get", "events", "-n", "default", "--field-selector", "metadata.name=conv-k")
    assert "Scheduled" in out and "pod/web" in out
    out = kubectl("get", "events.v1.events.k8s.io", "-n", "default", "conv-k", "-o", "json")
    assert json.loads(out)["note"] == "Assigned default/web to node-1"


def test_hpa_through_autoscaling_v1_and_v2(kubectl, http) -> None:
    kubectl("create", "deployment", "hpa-web", "--image=nginx", "-n", "default")
    kubectl("autoscale", "deployment", "hpa-web", "--cpu-percent=50", "--min=1", "--max=4", "-n", "default")
    v2 = http.get(f"{HPA_V2}/hpa-web").json()
    assert v2["apiVersion"] == "autoscaling/v2"
    assert v2["spec"]["metrics"] == [{"type": "Resource", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 50}}}]
    v1 = http.get(f"{HPA_V1}/hpa-web").json()
    assert v1["apiVersion"] == "autoscaling/v1"
    assert (v1["spec"]["targetCPUUtilizationPercentage"], v1["spec"]["maxReplicas"]) == (50, 4)
    assert "metrics" not in v1["spec"]
    assert "50%" in kubectl("get", "hpa", "hpa-web", "-n", "default")
    # A v2-only metric, written through v2, survives a v1 read-modify-write.
    v2["spec"]["metrics"].append({"type": "Resource", "resource": {"name": "memory", "target": {
        "type": "AverageValue", "averageValue": "1Gi"}}})
    assert http.put(f"{HPA_V2}/hpa-web", json=v2).status_code == 200
    v1 = http.get(f"{HPA_V1}/hpa-web").json()
    assert "autoscaling.alpha.kubernetes.io/metrics" in v1["metadata"]["annotations"]
    v1["spec"]["maxReplicas"] = 6
    updated = http.put(f"{HPA_V1}/hpa-web", json=v1)
    assert updated.status_code == 200, updated.text
    v2 = http.get(f"{HPA_V2}/hpa-web").json()
    assert v2["spec"]["maxReplicas"] == 6
    assert [m["resource"]["name"] for m in v2["spec"]["metrics"]] == ["memory", "cpu"]
    assert "annotations" not in v2["metadata"]
    listed = http.get(HPA_V1).json()
    assert (listed["kind"], listed["apiVersion"]) == ("HorizontalPodAutoscalerList", "autoscaling/v1")


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gizmos.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
             "versions": [
                 {"name": "v1beta1", "served": True, "storage": False,
                  "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}],
                  "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                      "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}}},
                 {"name": "v1", "served": True, "storage": True,
                  "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                      "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}}}]},
}
GIZMOS = "/apis/example.com/{version}/namespaces/default/gizmos"


def test_two_version_crd_read_and_written_through_both(http) -> None:
    assert http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
    beta, ga = GIZMOS.format(version="v1beta1"), GIZMOS.format(version="v1")
    created = http.post(beta, json={"apiVersion": "example.com/v1beta1", "kind": "Gizmo",
                                    "metadata": {"name": "g1"}, "spec": {"size": 1}}, params={"fieldManager": "beta"})
    assert created.status_code == 201, created.text
    assert created.json()["apiVersion"] == "example.com/v1beta1"
    assert created.json()["metadata"]["managedFields"][0]["apiVersion"] == "example.com/v1beta1"
    assert http.get(f"{ga}/g1").json()["apiVersion"] == "example.com/v1"
    assert http.post(ga, json={"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "g2"},
                               "spec": {"size": 2}}).status_code == 201
    listed = http.get(beta).json()
    assert listed["apiVersion"] == "example.com/v1beta1" and listed["kind"] == "GizmoList"
    assert {i["apiVersion"] for i in listed["items"]} == {"example.com/v1beta1"}
    g2 = http.get(f"{beta}/g2").json()
    g2["spec"]["size"] = 3
    assert http.put(f"{beta}/g2", json=g2).status_code == 200
    assert http.get(f"{ga}/g2").json()["spec"]["size"] == 3
    wrong = http.post(beta, json={"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "g3"}})
    assert wrong.status_code == 400
    table = http.get(beta, headers={"Accept": TABLE}).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Size"]  # the v1beta1 columns
