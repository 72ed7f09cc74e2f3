"""rbac.authorization.k8s.io/v1 defaulting (``pkg/apis/rbac/v1/defaults.go``)."""

from __future__ import annotations

from ..fields import Json, default_empty, items, struct

GROUP = "rbac.authorization.k8s.io"


def set_defaults_binding(obj: Json) -> None:
    """RoleBindings and ClusterRoleBindings: the role's group, and each subject's."""
    default_empty(struct(obj, "roleRef"), "apiGroup", GROUP)
    for subject in items(obj, "subjects"):
        if not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
            subject["apiGroup"] = GROUP
