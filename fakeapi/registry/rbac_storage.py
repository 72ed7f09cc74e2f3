"""The RBAC kinds' storage under ``--authorization-mode=RBAC``: kube's escalation prevention
(``pkg/registry/rbac/*/policybased``). A user may write a Role or ClusterRole only with rules it
holds itself (or with verb ``escalate`` on it), and a RoleBinding or ClusterRoleBinding only to
a role whose rules it holds (or with verb ``bind`` on that role); ``system:masters`` may do
anything, and so may fakeapi's own writers (the aggregation controller). An aggregated
ClusterRole needs cluster-admin's authority. A refusal is kube's 403 naming what the user lacks;
a binding to a role that does not exist is a 404 (naming, as kube's does, the binding's resource).

The check runs after the strategy and before validation (kube: before both), on the object as it
will be stored; an update that changes only what the garbage collector changes (owner
references, finalizers) is not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ..machinery import requester
from ..machinery.status import forbidden, not_found
from ..auth.authentication import UserInfo
from ..auth.authorization import SYSTEM_MASTERS, Attributes, Authorizer
from ..auth.rbac import FULL_AUTHORITY, GROUP, PolicyRule, RBACAuthorizer, escalation_error
from .rest import Json, ResourceStore

#: What an update may change without being checked (``IsOnlyMutatingGCFields``), besides what
#: the server sets.
_GC_FIELDS = ("ownerReferences", "finalizers", "managedFields", "resourceVersion", "generation", "selfLink")


class EscalationCheck:
    def __init__(self, roles: Mapping[str, ResourceStore], authorizer: Authorizer, rbac: RBACAuthorizer) -> None:
        #: The stores of the roles a binding may refer to, by plural: roles, clusterroles.
        self._roles = roles
        self._authorizer = authorizer
        self._rbac = rbac

    def _allowed(self, user: UserInfo, verb: str, resource: str, name: str, namespace: str) -> bool:
        return self._authorizer.authorize(Attributes(user, verb, True, api_group=GROUP, api_version="*",
                                                     resource=resource, name=name, namespace=namespace)).allowed

    def check(self, plural: str, obj: Json) -> None:
        found = requester.current_user()
        if found is None:
            return  # fakeapi's own write
        user = UserInfo.from_json(found)
        if SYSTEM_MASTERS in user.groups:
            return
        meta = obj.get("metadata") or {}
        name, namespace = meta.get("name", ""), meta.get("namespace", "")
        if plural in ("roles", "clusterroles"):
            if self._allowed(user, "escalate", plural, name, namespace):
                return
            error = escalation_error(self._rbac, user, namespace, [PolicyRule.from_json(r) for r in obj.get("rules") or ()])
            if error:
                raise forbidden(GROUP, plural, name, error)
            if obj.get("aggregationRule") is not None and escalation_error(self._rbac, user, namespace, FULL_AUTHORITY):
                raise forbidden(GROUP, plural, name, "must have cluster-admin privileges to use the aggregationRule")
            return
        ref = obj.get("roleRef") or {}
        role_plural = {"ClusterRole": "clusterroles", "Role": "roles"}.get(ref.get("kind", ""))
        if role_plural is None or self._allowed(user, "bind", role_plural, ref.get("name", ""), namespace):
            return
        roles = self._roles[role_plural]
        role_namespace = namespace if role_plural == "roles" else None
        if not roles.exists(role_namespace, ref.get("name", "")):
            # kube reads the role through storage that names the request's resource
            raise not_found(GROUP, plural, ref.get("name", ""))
        role = orjson.loads(roles.get(role_namespace, ref.get("name", "")))
        error = escalation_error(self._rbac, user, namespace, [PolicyRule.from_json(r) for r in role.get("rules") or ()])
        if error:
            raise forbidden(GROUP, plural, name, error)


class RBACStore(ResourceStore):
    """Roles, ClusterRoles and their bindings; ``escalation`` is set in RBAC mode."""

    escalation: EscalationCheck | None = None

    def _admit_create(self, obj: Json) -> None:
        if self.escalation is not None:
            self.escalation.check(self.resource_type.plural, obj)

    def _admit_update(self, new: Json, old: Json, subresource: str | None) -> None:
        if self.escalation is not None and not _only_gc_fields(new, old):
            self.escalation.check(self.resource_type.plural, new)


def _only_gc_fields(new: Json, old: Json) -> bool:
    def without(obj: Json) -> Any:
        meta = {key: value for key, value in (obj.get("metadata") or {}).items() if key not in _GC_FIELDS}
        return {**obj, "metadata": meta}
    return without(new) == without(old)
