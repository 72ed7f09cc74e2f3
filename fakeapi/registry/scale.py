"""The ``/scale`` subresource: an object seen as ``autoscaling/v1`` ``Scale`` and back.

Built-ins (``pkg/registry/apps/*/storage/storage.go`` ``ScaleREST``, and replication
controllers'): spec.replicas and status.replicas of the object; the status selector is the
object's label selector as a string (``metav1.LabelSelectorAsSelector(...).String()``: terms
sorted by key). Custom resources name their paths in the CRD (``specReplicasPath``, ...); the
registry gives them as a ``ScalePaths``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..apiextensions.crd import ScaleSubresource
from ..machinery import gostruct
from ..machinery.scale_handler import ReplicasPaths, replicas_path
from ..machinery.status import bad_request, invalid

Json = dict[str, Any]

#: The group of every ``/scale`` body, whatever its parent's: kube's autoscaling/v1 ``Scale``.
GROUP = "autoscaling"
API_VERSION = "autoscaling/v1"


@dataclass(frozen=True, slots=True)
class ScalePaths:
    """JSON paths (``.spec.replicas``) of a custom resource's scale fields."""

    spec_replicas: str
    status_replicas: str
    label_selector: str | None = None


BUILT_IN = ScalePaths(".spec.replicas", ".status.replicas")

#: The Scales a ``/scale`` write's validating admission sees of (the object to store, the
#: stored one).
Scales = Callable[[Json, Json], tuple[Json, Json]]


def custom_scale_paths(subresource: ScaleSubresource) -> ScalePaths:
    """A CRD version's ``subresources.scale`` as the paths of its objects' scale fields."""
    return ScalePaths(subresource.spec_replicas_path, subresource.status_replicas_path,
                      subresource.label_selector_path)

#: The group versions whose managedFields kube's storage of a built-in kind maps to its replicas
#: (each storage package's ``ReplicasPathMappings``): a write of the Scale drops the entries of
#: any other version.
_BUILT_IN_VERSIONS = {
    ("apps", "Deployment"): ("apps/v1beta1", "apps/v1beta2", "apps/v1"),
    ("apps", "StatefulSet"): ("apps/v1beta1", "apps/v1beta2", "apps/v1"),
    ("apps", "ReplicaSet"): ("apps/v1beta2", "apps/v1"),
    ("", "ReplicationController"): ("v1",),
}


def built_in_replicas_paths(group: str, kind: str) -> ReplicasPaths:
    """Where a built-in kind's replicas are, by the group versions of its managedFields (none
    for a kind without ``/scale``)."""
    return dict.fromkeys(_BUILT_IN_VERSIONS.get((group, kind), ()), replicas_path(BUILT_IN.spec_replicas))


def _get(obj: Json, path: str) -> Any:
    value: Any = obj
    for part in path.lstrip(".").split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _set(obj: Json, path: str, value: Any) -> None:
    *parents, last = path.lstrip(".").split(".")
    target = obj
    for part in parents:
        target = target.setdefault(part, {})
    target[last] = value


def _label_selector_string(selector: Any) -> str:
    """A ``LabelSelector`` (or a replication controller's plain map) as selector text."""
    if not isinstance(selector, dict):
        return ""
    if "matchLabels" not in selector and "matchExpressions" not in selector:
        selector = {"matchLabels": selector}  # v1 ReplicationController: map[string]string
    terms: list[tuple[str, str]] = [(k, f"{k}={v}") for k, v in (selector.get("matchLabels") or {}).items()]
    for expr in selector.get("matchExpressions") or ():
        key, op, values = expr.get("key", ""), expr.get("operator", ""), sorted(expr.get("values") or ())
        text = {"In": f"{key} in ({','.join(values)})", "NotIn": f"{key} notin ({','.join(values)})",
                "Exists": key, "DoesNotExist": f"!{key}"}.get(op, "")
        terms.append((key, text))
    return ",".join(text for _, text in sorted(terms))


def to_scale(obj: Json, paths: ScalePaths = BUILT_IN) -> Json:
    meta = obj.get("metadata", {})
    scale_meta = {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if k in meta}
    if paths is BUILT_IN:
        selector = _label_selector_string((obj.get("spec") or {}).get("selector"))
    else:
        selector = _get(obj, paths.label_selector) if paths.label_selector else None
    status: Json = {"replicas": _get(obj, paths.status_replicas) or 0}
    if selector:
        status["selector"] = selector
    return {"kind": "Scale", "apiVersion": API_VERSION, "metadata": scale_meta,
            "spec": {"replicas": _get(obj, paths.spec_replicas) or 0}, "status": status}


def apply_scale(obj: Json, scale: Any, paths: ScalePaths = BUILT_IN) -> Json:
    """``obj`` with the replicas of ``scale`` (a Scale the client sent); a resourceVersion in
    it is the object's, so a stale one conflicts."""
    if not isinstance(scale, dict) or not isinstance(scale.get("metadata", {}), dict):
        raise bad_request("the body of the request must be an autoscaling/v1 Scale object")
    replicas = (scale.get("spec") or {}).get("replicas", 0)
    name = obj["metadata"]["name"]
    if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
        raise invalid("autoscaling", "Scale", name, [(
            "spec.replicas", "FieldValueInvalid",
            f"Invalid value: {replicas}: must be greater than or equal to 0",
        )])
    _set(obj, paths.spec_replicas, replicas)
    rv = scale.get("metadata", {}).get("resourceVersion")
    if rv:
        obj["metadata"]["resourceVersion"] = rv
    return obj


def decode(body: Json) -> Json:
    """A Scale a webhook patched, decoded into its Go type as kube decodes it."""
    return gostruct.decode_body(body, API_VERSION, "Scale")
