"""The pod's spec subresources (kube's ``EphemeralContainersStrategy`` and ``ResizeStrategy``,
``pkg/registry/core/pod/strategy.go``): ``pods/ephemeralcontainers`` (what ``kubectl debug``
patches) and ``pods/resize`` (in-place resize, GA in 1.35). Each reads and writes the whole Pod,
but an update keeps only its part of the request — the ephemeral containers, or the containers'
``resources`` and ``resizePolicy`` — and the stored pod's status and metadata
(``ResetObjectMetaForStatus``: labels, annotations, finalizers, owners); the generation moves
when the spec did.

The validation here is the subresources' own rules (``ValidatePodEphemeralContainersUpdate``'s
"may not be removed or changed", ``ValidatePodResize``'s container order, removed requirements
and non-CPU/memory changes); the whole-pod validation kube runs first, and the QoS class check,
are the pod's validation's (``fakeapi.apis.core``).
"""

from __future__ import annotations

import copy
from typing import Any

from ..apis.rules import SubresourceStrategy
from ..machinery.status import FieldError, forbidden_error

Json = dict[str, Any]

#: ``metav1.ResetObjectMetaForStatus``: what an update through these subresources may not change.
_KEPT_METADATA = ("deletionTimestamp", "generation", "selfLink", "labels", "annotations", "finalizers",
                  "ownerReferences")
_RESIZABLE = ("cpu", "memory")


def _keep_stored(new: Json, old: Json, spec: Json) -> Json:
    """``new`` with ``spec``, the stored status and the stored metadata the reset keeps; the
    generation moves if the spec did (``updatePodGeneration``)."""
    result = dict(new)
    meta = dict(new.get("metadata") or {})
    old_meta = old.get("metadata") or {}
    for key in _KEPT_METADATA:
        if key in old_meta:
            meta[key] = old_meta[key]
        else:
            meta.pop(key, None)
    if spec != old.get("spec") and "generation" in old_meta:
        meta["generation"] = old_meta["generation"] + 1
    result["metadata"] = meta
    result["spec"] = spec
    if "status" in old:
        result["status"] = old["status"]
    else:
        result.pop("status", None)
    return result


def prepare_ephemeral_containers(new: Json, old: Json) -> Json:
    """``dropNonEphemeralContainerUpdates``."""
    spec = copy.deepcopy(old.get("spec") or {})
    containers = (new.get("spec") or {}).get("ephemeralContainers")
    if containers:
        spec["ephemeralContainers"] = containers
    else:
        spec.pop("ephemeralContainers", None)
    return _keep_stored(new, old, spec)


def prepare_resize(new: Json, old: Json) -> Json:
    """``dropNonResizeUpdates``: containers added, removed or renamed are kept as sent, for the
    validation to refuse."""
    new_spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    spec = copy.deepcopy(old_spec)
    for field in ("containers", "initContainers"):
        sent, stored = new_spec.get(field) or [], old_spec.get(field) or []
        if len(sent) != len(stored) or any(a.get("name") != b.get("name") for a, b in zip(sent, stored, strict=True)):
            spec[field] = sent
            continue
        merged = []
        for sent_container, stored_container in zip(sent, stored, strict=True):
            container = copy.deepcopy(stored_container)
            for key in ("resources", "resizePolicy"):
                if key in sent_container:
                    container[key] = sent_container[key]
                else:
                    container.pop(key, None)
            merged.append(container)
        if merged:
            spec[field] = merged
    return _keep_stored(new, old, spec)


#: The annotation of a mirror pod (the kubelet's copy of a static pod).
_MIRROR_POD = "kubernetes.io/config.mirror"


def validate_ephemeral_containers(new: Json, old: Json) -> list[FieldError]:
    """Existing ephemeral containers may be neither removed nor changed (kube appends a Go
    diff of the change to the second message; this one names the container only); a mirror
    pod gets none, which is then the only error (kube #113935; its path is ``NewPath("")``,
    printed ``[]``)."""
    if _MIRROR_POD in ((old.get("metadata") or {}).get("annotations") or {}):
        return [forbidden_error("[]", "static pods do not support ephemeral containers")]
    sent = {c.get("name"): c for c in (new.get("spec") or {}).get("ephemeralContainers") or ()}
    errors = []
    for container in (old.get("spec") or {}).get("ephemeralContainers") or ():
        name = container.get("name", "")
        if name not in sent:
            errors.append(forbidden_error("spec.ephemeralContainers", f'existing ephemeral containers "{name}" may not be removed\n'))
        elif sent[name] != container:
            errors.append(forbidden_error("spec.ephemeralContainers", f'existing ephemeral containers "{name}" may not be changed\n'))
    return errors


def validate_resize(new: Json, old: Json) -> list[FieldError]:
    """``ValidatePodResize``'s own rules (see the module doc)."""
    new_spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    errors = []
    for field, label in (("containers", "containers"), ("initContainers", "initContainers")):
        sent, stored = new_spec.get(field) or [], old_spec.get(field) or []
        if len(sent) != len(stored):
            errors.append(forbidden_error(f"spec.{field}", f"{label} may not be added or removed on resize"))
            continue
        errors += [forbidden_error(f"spec.{field}[{i}].name", f"{label} may not be renamed or reordered on resize")
                   for i, (a, b) in enumerate(zip(sent, stored, strict=True)) if a.get("name") != b.get("name")]
    if errors:
        return errors
    for index, (sent, stored) in enumerate(zip(new_spec.get("containers") or [], old_spec.get("containers") or [],
                                               strict=True)):
        for kind in ("requests", "limits"):
            wanted, had = (sent.get("resources") or {}).get(kind) or {}, (stored.get("resources") or {}).get(kind) or {}
            if any(name not in wanted for name in had):
                errors.append(forbidden_error(f"spec.containers[{index}].resources.{kind}",
                                              f"resource {kind} cannot be removed"))
    for sent, stored in zip(new_spec.get("containers") or [], old_spec.get("containers") or [], strict=True):
        if _without_cpu_memory(sent, stored) != stored:
            errors.append(forbidden_error("spec", "only cpu and memory resources are mutable"))
    return errors


def _without_cpu_memory(container: Json, stored: Json) -> Json:
    """``dropCPUMemoryResourcesFromContainer``: the container with its CPU and memory
    requirements as stored, so that any other difference shows."""
    result = copy.deepcopy(container)
    resources: Json = {}
    for kind in ("limits", "requests"):
        wanted = {k: v for k, v in ((container.get("resources") or {}).get(kind) or {}).items() if k not in _RESIZABLE}
        wanted.update({k: v for k, v in ((stored.get("resources") or {}).get(kind) or {}).items() if k in _RESIZABLE})
        if wanted:
            resources[kind] = wanted
    claims = (container.get("resources") or {}).get("claims")
    if claims:
        resources["claims"] = claims
    if resources or "resources" in stored:
        result["resources"] = resources
    else:
        result.pop("resources", None)
    if "resizePolicy" in stored:
        result["resizePolicy"] = stored["resizePolicy"]
    else:
        result.pop("resizePolicy", None)
    return result


#: By subresource: how an update through it is prepared and validated.
POD_SUBRESOURCE_STRATEGIES: dict[str, SubresourceStrategy] = {
    "ephemeralcontainers": SubresourceStrategy(prepare_ephemeral_containers, validate_ephemeral_containers),
    "resize": SubresourceStrategy(prepare_resize, validate_resize),
}
