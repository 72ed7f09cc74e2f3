"""The rbac.authorization.k8s.io group (kube's ``pkg/apis/rbac``): Roles, ClusterRoles and their
bindings."""

from __future__ import annotations

from ..rules import register
from . import defaults

GROUP = defaults.GROUP
register(GROUP, "v1", "RoleBinding", default=defaults.set_defaults_binding)
register(GROUP, "v1", "ClusterRoleBinding", default=defaults.set_defaults_binding)
