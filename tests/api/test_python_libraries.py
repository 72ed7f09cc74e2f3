"""lightkube, kr8s and the official client round trips: create, patch (merge, strategic, apply),
status, delete — each library through its own kubeconfig loading."""

from __future__ import annotations

import pytest


@pytest.fixture
def kubeconfig_env(server, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig))
    return server.kubeconfig


def test_lightkube_round_trip(kubeconfig_env):
    from lightkube import Client, KubeConfig
    from lightkube.models.apps_v1 import DeploymentSpec, DeploymentStatus
    from lightkube.models.core_v1 import Container, PodSpec, PodTemplateSpec
    from lightkube.models.meta_v1 import LabelSelector, ObjectMeta
    from lightkube.resources.apps_v1 import Deployment
    from lightkube.resources.core_v1 import ConfigMap
    from lightkube.types import PatchType

    client = Client(KubeConfig.from_file(kubeconfig_env), field_manager="lightkube-test")
    cm = client.create(ConfigMap(metadata=ObjectMeta(name="lk", namespace="default"), data={"a": "1"}))
    assert cm.metadata.uid and cm.data == {"a": "1"}
    patched = client.patch(ConfigMap, "lk", {"data": {"b": "2"}}, namespace="default", patch_type=PatchType.MERGE)
    assert patched.data == {"a": "1", "b": "2"}
    applied = client.apply(ConfigMap(metadata=ObjectMeta(name="lk-applied", namespace="default"), data={"x": "y"}))
    assert applied.metadata.managedFields[0].manager == "lightkube-test"
    labels = {"app": "lk"}
    client.create(Deployment(metadata=ObjectMeta(name="lk", namespace="default"), spec=DeploymentSpec(
        selector=LabelSelector(matchLabels=labels),
        template=PodTemplateSpec(metadata=ObjectMeta(labels=labels),
                                 spec=PodSpec(containers=[Container(name="c", image="nginx")])))))
    client.patch(Deployment, "lk", {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}}},
                 namespace="default", patch_type=PatchType.STRATEGIC)
    client.patch(Deployment.Status, "lk", {"status": {"replicas": 1, "readyReplicas": 1}}, namespace="default",
                 patch_type=PatchType.MERGE)
    deployment = client.get(Deployment, "lk", namespace="default")
    assert deployment.spec.template.spec.containers[0].image == "nginx:2"
    assert deployment.status.readyReplicas == 1 and deployment.metadata.generation == 2
    assert isinstance(deployment.status, DeploymentStatus)
    assert [c.metadata.name for c in client.list(ConfigMap, namespace="default") if c.metadata.name.startswith("lk")] \
        == ["lk", "lk-applied"]
    client.delete(ConfigMap, "lk", namespace="default")
    client.delete(Deployment, "lk", namespace="default")
    assert "lk" not in {c.metadata.name for c in client.list(ConfigMap, namespace="default")}


def test_kr8s_round_trip(kubeconfig_env):
    import kr8s
    from kr8s.objects import ConfigMap, Pod

    api = kr8s.api(kubeconfig=str(kubeconfig_env))
    cm = ConfigMap({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kr", "namespace": "default"},
                    "data": {"a": "1"}}, api=api)
    cm.create()
    cm.patch({"data": {"b": "2"}})
    assert ConfigMap.get("kr", namespace="default", api=api).raw["data"] == {"a": "1", "b": "2"}
    cm.label({"team": "x"})
    assert ConfigMap.get("kr", namespace="default", api=api).labels == {"team": "x"}
    pod = Pod({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "kr", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "nginx"}]}}, api=api)
    pod.create()
    pod.patch({"status": {"phase": "Running"}}, subresource="status")
    assert Pod.get("kr", namespace="default", api=api).raw["status"]["phase"] == "Running"
    assert {p.name for p in api.get("pods", namespace="default")} >= {"kr"}
    pod.delete()
    cm.delete()
    assert "kr" not in {c.name for c in api.get("configmaps", namespace="default")}
