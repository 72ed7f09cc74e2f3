"""Object lifecycle with real clients: finalizers, DeleteOptions, /status and /scale, garbage
collection (background, foreground, orphan) and namespace termination."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from kubernetes import client, watch
from kubernetes.client.exceptions import ApiException

from fakeapi.testing import ServerProcess, eventually

NS = "life"


@pytest.fixture(scope="module")
def core(api_client):
    api = client.CoreV1Api(api_client)
    api.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
    return api


@pytest.fixture(scope="module")
def apps(api_client):
    return client.AppsV1Api(api_client)


def message(err: pytest.ExceptionInfo[ApiException]) -> str:
    return json.loads(err.value.body)["message"]


def absent(read: Callable[[], Any]) -> bool:
    try:
        read()
    except ApiException as err:
        return err.status == 404
    return False


def configmap(name: str, finalizers: list[str] | None = None, owners: list[Any] | None = None) -> client.V1ConfigMap:
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, finalizers=finalizers, owner_references=owners))


def owner_ref(owner: Any) -> client.V1OwnerReference:
    return client.V1OwnerReference(api_version="v1", kind="ConfigMap", name=owner.metadata.name, uid=owner.metadata.uid)


def test_finalizers_hold_a_deleted_object_until_the_last_one_goes(core):
    created = core.create_namespaced_config_map(NS, configmap("held", ["example.com/hold"]))
    events = watch.Watch().stream(core.list_namespaced_config_map, NS, resource_version=created.metadata.resource_version,
                                  field_selector="metadata.name=held", timeout_seconds=5)
    core.delete_namespaced_config_map("held", NS)
    marked = core.read_namespaced_config_map("held", NS)
    assert marked.metadata.deletion_timestamp is not None and marked.metadata.deletion_grace_period_seconds == 0
    assert marked.metadata.generation is None  # config maps do not track a generation
    # A repeated DELETE changes nothing.
    core.delete_namespaced_config_map("held", NS)
    assert core.read_namespaced_config_map("held", NS).metadata.resource_version == marked.metadata.resource_version
    # No new finalizers once deleting.
    marked.metadata.finalizers = ["example.com/hold", "example.com/new"]
    with pytest.raises(ApiException) as err:
        core.replace_namespaced_config_map("held", NS, marked)
    assert err.value.status == 422 and 'found new finalizers []string{"example.com/new"}' in message(err)
    marked.metadata.finalizers = []
    core.replace_namespaced_config_map("held", NS, marked)
    assert absent(lambda: core.read_namespaced_config_map("held", NS))
    assert [e["type"] for e in events][:2] == ["MODIFIED", "DELETED"]


def test_delete_options_preconditions_dry_run_and_bad_policy(core):
    cm = core.create_namespaced_config_map(NS, configmap("opts"))
    with pytest.raises(ApiException) as err:
        core.delete_namespaced_config_map("opts", NS, body=client.V1DeleteOptions(
            preconditions=client.V1Preconditions(uid="not-the-uid")))
    assert err.value.status == 409 and "the UID in the precondition (not-the-uid) does not match" in message(err)
    core.delete_namespaced_config_map("opts", NS, dry_run="All")
    assert core.read_namespaced_config_map("opts", NS).metadata.uid == cm.metadata.uid
    with pytest.raises(ApiException) as err:
        core.delete_namespaced_config_map("opts", NS, propagation_policy="Sideways")
    assert err.value.status == 422 and 'Unsupported value: "Sideways"' in message(err)
    core.delete_namespaced_config_map("opts", NS, body=client.V1DeleteOptions(
        preconditions=client.V1Preconditions(uid=cm.metadata.uid)))
    assert absent(lambda: core.read_namespaced_config_map("opts", NS))


def deployment(name: str, replicas: int = 1) -> client.V1Deployment:
    labels = {"app": name}
    return client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1DeploymentSpec(
            replicas=replicas, selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")]))),
        status=client.V1DeploymentStatus(replicas=99))


def test_status_subresource_owns_status_and_never_moves_generation(apps):
    created = apps.create_namespaced_deployment(NS, deployment("web"))
    assert created.metadata.generation == 1 and created.status.replicas is None  # status dropped on create
    created.status = client.V1DeploymentStatus(replicas=1, ready_replicas=1)
    created.spec.replicas = 1
    status = apps.replace_namespaced_deployment_status("web", NS, created)
    assert status.status.ready_replicas == 1 and status.metadata.generation == 1
    # The main resource ignores status; a spec change moves generation.
    status.status = client.V1DeploymentStatus(replicas=7)
    status.spec.template.spec.containers[0].image = "nginx:2"
    updated = apps.replace_namespaced_deployment("web", NS, status)
    assert updated.status.ready_replicas == 1 and updated.status.replicas == 1
    assert updated.metadata.generation == 2
    # /status ignores everything but status.
    updated.spec.replicas = 5
    updated.status.replicas = 2
    after = apps.replace_namespaced_deployment_status("web", NS, updated)
    assert after.spec.replicas == 1 and after.status.replicas == 2 and after.metadata.generation == 2


def test_scale_subresource(apps, kubectl):
    apps.create_namespaced_deployment(NS, deployment("scaled", replicas=2))
    scale = apps.read_namespaced_deployment_scale("scaled", NS)
    assert (scale.kind, scale.api_version, scale.spec.replicas) == ("Scale", "autoscaling/v1", 2)
    assert scale.status.selector == "app=scaled"
    scale.spec.replicas = 4
    assert apps.replace_namespaced_deployment_scale("scaled", NS, scale).spec.replicas == 4
    assert apps.read_namespaced_deployment("scaled", NS).spec.replicas == 4
    scale.spec.replicas = 5  # the resourceVersion read with the scale is stale now
    with pytest.raises(ApiException) as err:
        apps.replace_namespaced_deployment_scale("scaled", NS, scale)
    assert err.value.status == 409
    resources = kubectl("api-resources", "--api-group=apps", "-o", "name")
    assert "deployments.apps" in resources


def test_garbage_collector_deletes_dependents_of_a_deleted_owner(core):
    owner = core.create_namespaced_config_map(NS, configmap("owner"))
    other = core.create_namespaced_config_map(NS, configmap("other-owner"))
    core.create_namespaced_config_map(NS, configmap("dep", owners=[owner_ref(owner)]))
    core.create_namespaced_config_map(NS, configmap("shared", owners=[owner_ref(owner), owner_ref(other)]))
    core.delete_namespaced_config_map("owner", NS)
    eventually(lambda: absent(lambda: core.read_namespaced_config_map("dep", NS)), "dependent deleted")
    shared = eventually(lambda: (cm := core.read_namespaced_config_map("shared", NS)).metadata.owner_references
                        and len(cm.metadata.owner_references) == 1 and cm, "dangling owner reference removed")
    assert shared.metadata.owner_references[0].uid == other.metadata.uid


def test_kubectl_cascade_foreground_and_orphan(core, kubectl):
    for mode in ("foreground", "orphan"):
        owner = core.create_namespaced_config_map(NS, configmap(f"{mode}-owner"))
        core.create_namespaced_config_map(NS, configmap(f"{mode}-dep", ["example.com/hold"], [owner_ref(owner)]))
        kubectl("delete", "configmap", f"{mode}-owner", "-n", NS, f"--cascade={mode}", "--wait=false")
        if mode == "orphan":
            eventually(lambda: absent(lambda: core.read_namespaced_config_map("orphan-owner", NS)), "owner gone")
            dep = core.read_namespaced_config_map("orphan-dep", NS)
            assert dep.metadata.owner_references is None and dep.metadata.deletion_timestamp is None
        else:
            # The owner waits, with the GC's finalizer, for its dependent (held by its own finalizer).
            marked = eventually(lambda: core.read_namespaced_config_map("foreground-dep", NS).metadata.deletion_timestamp,
                                "dependent marked for deletion")
            assert marked
            assert "foregroundDeletion" in core.read_namespaced_config_map("foreground-owner", NS).metadata.finalizers
            dep = core.read_namespaced_config_map("foreground-dep", NS)
            dep.metadata.finalizers = []
            core.replace_namespaced_config_map("foreground-dep", NS, dep)
            eventually(lambda: absent(lambda: core.read_namespaced_config_map("foreground-owner", NS)), "owner gone")


def test_namespace_termination(core, kubectl):
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="doomed")))
    ns = core.read_namespace("doomed")
    assert ns.spec.finalizers == ["kubernetes"] and ns.status.phase == "Active"
    core.create_namespaced_config_map("doomed", configmap("plain"))
    core.create_namespaced_config_map("doomed", configmap("held", ["example.com/hold"]))
    kubectl("delete", "namespace", "doomed", "--wait=false")
    assert core.read_namespace("doomed").status.phase == "Terminating"
    eventually(lambda: absent(lambda: core.read_namespaced_config_map("plain", "doomed")), "content deleted")
    with pytest.raises(ApiException) as err:
        core.create_namespaced_config_map("doomed", configmap("late"))
    assert err.value.status == 403
    assert "unable to create new content in namespace doomed because it is being terminated" in message(err)
    held = core.read_namespaced_config_map("held", "doomed")
    held.metadata.finalizers = []
    core.replace_namespaced_config_map("held", "doomed", held)
    kubectl("wait", "--for=delete", "namespace/doomed", "--timeout=10s")
    assert absent(lambda: core.read_namespace("doomed"))


def test_events_expire_after_the_event_ttl(tmp_path):
    """``--event-ttl``: events live on store leases (as in kube) and are deleted when they expire."""
    with ServerProcess(tmp_path, "--event-ttl", "2s") as server:
        body = {"metadata": {"name": "e1"}, "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
                "reason": "Test", "message": "expires", "type": "Normal"}
        assert server.http.post("/api/v1/namespaces/default/events", json=body).status_code == 201
        assert server.http.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "stays"}}).status_code == 201
        eventually(lambda: server.http.get("/api/v1/namespaces/default/events/e1").status_code == 404,
                   "the event expired", timeout=8)
        assert server.http.get("/api/v1/namespaces/default/configmaps/stays").status_code == 200


def pod(name: str, node: str | None = None) -> client.V1Pod:
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name),
                        spec=client.V1PodSpec(node_name=node, containers=[client.V1Container(name="c", image="nginx")]))


def test_an_unscheduled_pod_is_marked_then_deleted(core):
    """podStrategy.CheckGracefulDelete: no kubelet runs it, so period 0 — but the delete is
    graceful all the same: one write marks it (generation + 1), the next deletes it."""
    created = core.create_namespaced_pod(NS, pod("unscheduled"))
    events = watch.Watch().stream(core.list_namespaced_pod, NS, resource_version=created.metadata.resource_version,
                                  field_selector="metadata.name=unscheduled", timeout_seconds=5)
    deleted = core.delete_namespaced_pod("unscheduled", NS)
    assert deleted.metadata.deletion_timestamp is not None and deleted.metadata.deletion_grace_period_seconds == 0
    assert deleted.metadata.generation == 2
    assert int(deleted.metadata.resource_version) == int(created.metadata.resource_version) + 2
    seen = [(e["type"], e["object"].metadata.deletion_grace_period_seconds) for e in events][:2]
    assert seen == [("MODIFIED", 0), ("DELETED", 0)]


def test_a_scheduled_pod_waits_for_its_kubelet(tmp_path):
    """Without a kubelet (no ``pod-termination`` controller), a scheduled pod stays marked for
    its grace period; repeated deletes change nothing, a shorter period moves the timestamp
    back, and the kubelet's delete (period 0) removes it."""
    with ServerProcess(tmp_path, "--controllers", "") as server:
        pods = "/api/v1/namespaces/default/pods"
        body = {"metadata": {"name": "web"}, "spec": {"nodeName": "node-1", "terminationGracePeriodSeconds": 30,
                                                      "containers": [{"name": "c", "image": "nginx"}]}}
        assert server.http.post(pods, json=body).status_code == 201
        marked = server.http.delete(f"{pods}/web")
        assert marked.status_code == 200, marked.text
        meta = marked.json()["metadata"]
        assert meta["deletionGracePeriodSeconds"] == 30 and meta["generation"] == 2
        again = server.http.delete(f"{pods}/web").json()["metadata"]
        assert again["resourceVersion"] == meta["resourceVersion"]
        shorter = server.http.delete(f"{pods}/web", params={"gracePeriodSeconds": "10"}).json()["metadata"]
        assert shorter["deletionGracePeriodSeconds"] == 10 and shorter["deletionTimestamp"] < meta["deletionTimestamp"]
        assert shorter["generation"] == 2
        gone = server.http.delete(f"{pods}/web", params={"gracePeriodSeconds": "0"})
        assert gone.status_code == 200 and server.http.get(f"{pods}/web").status_code == 404


def test_pod_termination_plays_the_kubelet(core):
    created = core.create_namespaced_pod(NS, pod("scheduled", node="node-1"))
    events = watch.Watch().stream(core.list_namespaced_pod, NS, resource_version=created.metadata.resource_version,
                                  field_selector="metadata.name=scheduled", timeout_seconds=5)
    marked = core.delete_namespaced_pod("scheduled", NS)
    assert marked.metadata.deletion_grace_period_seconds == 30  # the pod's default period
    eventually(lambda: absent(lambda: core.read_namespaced_pod("scheduled", NS)), "the kubelet's delete", timeout=5)
    seen = [(e["type"], e["object"].metadata.deletion_grace_period_seconds) for e in events][:3]
    assert seen == [("MODIFIED", 30), ("MODIFIED", 0), ("DELETED", 0)]
