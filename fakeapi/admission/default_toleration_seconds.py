"""DefaultTolerationSeconds (kube's ``plugin/pkg/admission/defaulttolerationseconds``): a pod
that does not tolerate the ``not-ready`` and ``unreachable`` NoExecute taints gets tolerations
of them for 300 s (kube-apiserver's ``--default-not-ready-toleration-seconds`` and
``--default-unreachable-toleration-seconds``), on create and update of the pod itself."""

from __future__ import annotations

from . import Admission, Json, mutating

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_SECONDS = 300


@mutating("", "Pod")
def default_toleration_seconds(admission: Admission, pod: Json, old: Json | None, subresource: str | None) -> None:
    if subresource is not None:
        return
    spec = pod.setdefault("spec", {})
    tolerations = spec.get("tolerations") or []
    not_ready = unreachable = False
    for toleration in tolerations:
        key = toleration.get("key") or ""
        no_execute = toleration.get("effect") in ("NoExecute", "", None)
        not_ready = not_ready or (key in (NOT_READY, "") and no_execute)
        unreachable = unreachable or (key in (UNREACHABLE, "") and no_execute)
    if not_ready and unreachable:
        return
    tolerations = list(tolerations)
    for tolerated, key in ((not_ready, NOT_READY), (unreachable, UNREACHABLE)):
        if not tolerated:
            tolerations.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                                "tolerationSeconds": DEFAULT_SECONDS})
    spec["tolerations"] = tolerations
