"""The rbac.authorization.k8s.io group (kube's ``pkg/apis/rbac``): Roles, ClusterRoles and their
bindings."""

from __future__ import annotations

from ..decoding import decoder
from ..rules import register
from . import defaults, validation

GROUP = defaults.GROUP
register(GROUP, "v1", "Role", validate=validation.validate_role, validate_update=validation.validate_role_update)
register(GROUP, "v1", "ClusterRole", validate=validation.validate_cluster_role,
         validate_update=validation.validate_cluster_role_update)
register(GROUP, "v1", "RoleBinding", default=decoder("RoleBinding", defaults.set_defaults_binding),
         validate=validation.validate_role_binding, validate_update=validation.validate_role_binding_update)
register(GROUP, "v1", "ClusterRoleBinding", default=decoder("ClusterRoleBinding", defaults.set_defaults_binding),
         validate=validation.validate_cluster_role_binding,
         validate_update=validation.validate_cluster_role_binding_update)
