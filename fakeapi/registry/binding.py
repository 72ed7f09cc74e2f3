"""``pods/binding`` and the deprecated ``bindings`` (kube's ``BindingREST`` and
``LegacyBindingREST``, ``pkg/registry/core/pod/storage/storage.go``): a scheduler assigns a pod
to a node.

The pod is changed in place, as ``GuaranteedUpdate`` changes it: no strategy, no validation, no
managedFields entry, generation unchanged; ``spec.nodeName`` set, ``status.nominatedNodeName``
cleared (``ClearingNominatedNodeNameAfterBinding``, on in 1.35), the binding's annotations and
labels merged in (labels: ``PodTopologyLabelsAdmission``, on in 1.35; the ``PodTopologyLabels``
admission plugin has put the node's topology labels on the binding), and the ``PodScheduled``
condition made true. A uid or resourceVersion in the binding's metadata are preconditions.
"""

from __future__ import annotations

from typing import Any

from ..machinery import metadata
from ..machinery.status import (
    StatusError,
    bad_request,
    conflict,
    not_supported_error,
    required_error,
    unclassified_error,
)
from .pod_conditions import update_pod_condition
from .rest import ResourceStore
from .writes import precondition_failed
from .create_only import SUCCESS, BodyType, CreateOnly, CreateRequest

Json = dict[str, Any]


def validate_pod_binding(binding: Json) -> list[tuple[str, str, str]]:
    """``validation.ValidatePodBinding``."""
    target = binding.get("target") or {}
    errors = []
    if target.get("kind") and target["kind"] != "Node":
        errors.append(not_supported_error("target.kind", target["kind"], ["Node", "<empty>"]))
    if not target.get("name"):
        errors.append(required_error("target.name"))
    return errors


class PodBindings(CreateOnly):
    """``pods/binding``."""

    body_type = BodyType("", ("v1",), "Binding")
    keeps_system_fields = True

    def __init__(self, pods: ResourceStore) -> None:
        self._pods = pods

    def create(self, request: CreateRequest) -> Json:
        binding = request.body
        name = request.named()
        errors = validate_pod_binding(binding)
        if errors:
            # kube returns the field errors' aggregate, not a StatusError: a 500 without a reason.
            messages = [f"{field}: {body}" for field, _type, body in errors]
            raise unclassified_error(messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]")
        self._assign(request.namespace, name, binding, request.dry_run)
        return SUCCESS

    def _assign(self, namespace: str | None, name: str, binding: Json, dry_run: bool) -> None:
        """``assignPod``/``setPodNodeAndMetadata``."""
        pods = self._pods
        meta = binding["metadata"]
        node = (binding.get("target") or {}).get("name", "")
        key = pods.key(namespace, name)

        def bind(pod: Json) -> Json:
            pod_meta = pod["metadata"]
            if meta.get("uid") and meta["uid"] != pod_meta.get("uid"):
                raise conflict("", "pods", name, precondition_failed(key, "UID", meta["uid"], pod_meta.get("uid")))
            if meta.get("resourceVersion") and meta["resourceVersion"] != pod_meta.get("resourceVersion"):
                raise conflict("", "pods", name, precondition_failed(
                    key, "ResourceVersion", meta["resourceVersion"], pod_meta.get("resourceVersion")))
            spec = pod.setdefault("spec", {})
            if pod_meta.get("deletionTimestamp"):
                raise _binding_conflict(name, f"pod {name} is being deleted, cannot be assigned to a host")
            if spec.get("nodeName"):
                raise _binding_conflict(name, f'pod {name} is already assigned to node "{spec["nodeName"]}"')
            if spec.get("schedulingGates"):
                raise _binding_conflict(name, f"pod {name} has non-empty .spec.schedulingGates")
            spec["nodeName"] = node
            status = pod.setdefault("status", {})
            status.pop("nominatedNodeName", None)
            if meta.get("annotations"):
                pod_meta["annotations"] = {**(pod_meta.get("annotations") or {}), **meta["annotations"]}
            if meta.get("labels"):
                pod_meta["labels"] = {**(pod_meta.get("labels") or {}), **meta["labels"]}
            update_pod_condition(status, {"type": "PodScheduled", "status": "True"}, metadata.now_rfc3339())
            return pod

        pods.guaranteed_update(namespace, name, bind, dry_run=dry_run)


def _binding_conflict(name: str, message: str) -> StatusError:
    """A refusal of the update function, which kube turns into a Conflict on ``pods/binding``."""
    return conflict("", "pods/binding", name, message)


class LegacyBindings(CreateOnly):
    """``bindings``: a ``pods/binding`` of the pod the binding names."""

    body_type = PodBindings.body_type

    def __init__(self, bindings: PodBindings) -> None:
        self._bindings = bindings

    def create(self, request: CreateRequest) -> Json:
        request.name = request.body["metadata"].get("name", "")
        if not request.name:
            raise bad_request("Name parameter required.")
        return self._bindings.create(request)
