"""The authorizer as CEL's ``authorizer`` variable asks it (kube's ``authorizer.Attributes`` and
``Decision``): what a check asks (``AccessCheck``), what an authorizer answers
(``AccessDecision``), and the authorizer's signature (``Authorize``). Apart from the engine
(``admission``) because the server's authorizer and the admission chain are built with these on
every start, and the engine and its libraries load only when a policy or webhook needs them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

Json = dict[str, Any]

#: ``authorizer.Decision``'s values, as an authorizer answers.
ALLOW, DENY, NO_OPINION = "Allow", "Deny", "NoOpinion"


@dataclass(frozen=True, slots=True)
class AccessCheck:
    """``authorizer.AttributesRecord`` as the library builds it: a resource request (group,
    resource, subresource, namespace, name, in any version) or a non-resource one (``path``).
    The selectors a resource check may carry are not part of it: the authorizers fakeapi serves
    (RBAC, AlwaysAllow) decide without them, as kube's do."""

    verb: str
    resource_request: bool
    path: str = ""
    group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""


@dataclass(frozen=True, slots=True)
class AccessDecision:
    """An authorizer's answer: ``ALLOW``, ``DENY`` or ``NO_OPINION``, its reason, its error."""

    decision: str
    reason: str = ""
    error: str = ""


class Authorize(Protocol):
    """The server's authorizer: its decision on whether ``user`` (authentication/v1
    ``UserInfo``) may do what ``check`` says."""

    def __call__(self, user: Json, check: AccessCheck) -> AccessDecision: ...


def always_allow(user: Json, check: AccessCheck) -> AccessDecision:
    """The AlwaysAllow authorizer (``alwaysAllowAuthorizer``)."""
    return _ALLOWED


_ALLOWED = AccessDecision(ALLOW)
