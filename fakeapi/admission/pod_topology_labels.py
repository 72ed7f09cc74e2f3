"""``PodTopologyLabels`` (``plugin/pkg/admission/podtopologylabels``, on with its feature gate
``PodTopologyLabelsAdmission`` in 1.35): a pod gets the topology labels (zone, region) of the node
it is bound to — on a binding (which ``pods/binding`` then copies onto the pod) or on the create
of a pod that names its node. A node that does not exist has none."""

from __future__ import annotations

from . import Admission, Json, mutating

_TOPOLOGY_LABELS = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region")


def _topology_labels(admission: Admission, node_name: str) -> dict[str, str]:
    node = admission.lookup("", "Node", None, node_name)
    labels = ((node or {}).get("metadata") or {}).get("labels") or {}
    return {key: labels[key] for key in _TOPOLOGY_LABELS if key in labels}


def _merge(meta: Json, labels: dict[str, str]) -> None:
    if labels:
        meta["labels"] = {**(meta.get("labels") or {}), **labels}


@mutating("", "Binding")
def label_binding(admission: Admission, binding: Json, old: Json | None, subresource: str | None) -> None:
    target = binding.get("target") or {}
    if subresource == "binding" and target.get("kind") == "Node":
        _merge(binding["metadata"], _topology_labels(admission, target.get("name", "")))


@mutating("", "Pod")
def label_pod(admission: Admission, pod: Json, old: Json | None, subresource: str | None) -> None:
    node_name = (pod.get("spec") or {}).get("nodeName")
    if old is None and subresource is None and node_name:
        _merge(pod["metadata"], _topology_labels(admission, node_name))
