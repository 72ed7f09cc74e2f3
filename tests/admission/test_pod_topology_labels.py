"""PodTopologyLabels as kube's ``plugin/pkg/admission/podtopologylabels`` (1.35, its default
configuration): the node's ``topology.kubernetes.io/zone`` and ``region`` labels, and no
other, are copied onto a ``pods/binding`` Binding to a Node (the binding storage then copies
them onto the pod) and onto a pod created with ``spec.nodeName``, overwriting what the object
had (``mergeLabels``). A node that does not exist, or has neither label, adds nothing."""

from __future__ import annotations

from admission_objects import Json, Objects, new, pod

from fakeapi.admission.pod_topology_labels import label_binding, label_pod

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"


def node(name: str, **labels: str) -> Json:
    return new("v1", "Node", name, None, metadata={"labels": labels})


def binding(target: str, kind: str = "Node", labels: dict[str, str] | None = None) -> Json:
    return new("v1", "Binding", "web", metadata={"labels": labels} if labels else {},
               target={"apiVersion": "v1", "kind": kind, "name": target})


def bound(objects: Objects, obj: Json, subresource: str | None = "binding") -> Json:
    label_binding(objects.admission, obj, None, subresource)
    return obj


def created(objects: Objects, obj: Json, old: Json | None = None, subresource: str | None = None) -> Json:
    label_pod(objects.admission, obj, old, subresource)
    return obj


def test_a_binding_gets_the_nodes_zone_and_region_only(objects: Objects) -> None:
    objects.add(node("node-1", **{ZONE: "z1", REGION: "r1", "kubernetes.io/hostname": "node-1", "team": "a"}))
    assert bound(objects, binding("node-1"))["metadata"]["labels"] == {ZONE: "z1", REGION: "r1"}


def test_the_nodes_labels_overwrite_the_bindings_and_keep_its_others(objects: Objects) -> None:
    objects.add(node("node-1", **{ZONE: "z1"}))
    labels = bound(objects, binding("node-1", labels={ZONE: "elsewhere", "app": "web"}))["metadata"]["labels"]
    assert labels == {ZONE: "z1", "app": "web"}


def test_no_labels_without_a_node_target_a_node_or_the_binding_subresource(objects: Objects) -> None:
    objects.add(node("node-1", **{ZONE: "z1"}), node("bare", team="a"))
    assert bound(objects, binding("node-1", kind="VirtualNode")) == binding("node-1", kind="VirtualNode")
    assert bound(objects, binding("missing")) == binding("missing")
    assert bound(objects, binding("bare")) == binding("bare")
    # The legacy /bindings resource is not pods/binding: kube's plugin leaves it alone.
    assert bound(objects, binding("node-1"), subresource=None) == binding("node-1")


def test_a_pod_created_on_a_node_gets_its_labels(objects: Objects) -> None:
    objects.add(node("node-1", **{ZONE: "z1", REGION: "r1"}))
    web = created(objects, pod("web", metadata={"labels": {"app": "web", REGION: "mine"}}, nodeName="node-1"))
    assert web["metadata"]["labels"] == {"app": "web", ZONE: "z1", REGION: "r1"}


def test_only_a_create_of_a_scheduled_pod_is_labelled(objects: Objects) -> None:
    objects.add(node("node-1", **{ZONE: "z1"}))
    assert created(objects, pod("web")) == pod("web")
    assert created(objects, pod("web", nodeName="node-1"), old=pod("web", nodeName="node-1")) == \
        pod("web", nodeName="node-1")
    assert created(objects, pod("web", nodeName="node-1"), subresource="status") == pod("web", nodeName="node-1")
    assert created(objects, pod("web", nodeName="missing")) == pod("web", nodeName="missing")
