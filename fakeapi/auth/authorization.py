"""Who may do what: kube-apiserver's authorizers (``k8s.io/apiserver/pkg/authorization``) and the
403 it answers with.

A request is described by ``Attributes`` (kube's ``AttributesRecord``, built from the request's
``RequestInfo`` by the HTTP layer, or from an access review's spec). ``authorizer_for(mode)``
builds what ``--authorization-mode`` names, as kube-apiserver's ``reload.go`` does: the
``system:masters`` group first (``NewPrivilegedGroups``: allowed whatever the mode), then the
mode's authorizer (``AlwaysAllow``; ``RBAC`` in ``fakeapi.registry.rbac``), the first decision
that is not "no opinion" winning (``union.New``). The privileged group is not a rule resolver: a
rules review of a ``system:masters`` user lists what the mode's authorizer gives it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..machinery.status import StatusError, forbidden
from ..machinery.golang import go_aggregate, go_quote
from .authentication import ADMIN, ADMIN_TOKEN, ANONYMOUS_USER, UserInfo

#: ``user.SystemPrivilegedGroup``.
SYSTEM_MASTERS = "system:masters"
ALWAYS_ALLOW = "AlwaysAllow"
RBAC = "RBAC"
MODES = (ALWAYS_ALLOW, RBAC)
#: ``responsewriters``' sanitizer: what looks like HTML in a 403 message is escaped.
_SANITIZE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


@dataclass(frozen=True, slots=True)
class AccessControl:
    """Who gets in and what they may do: ``--authorization-mode`` (modes, in order),
    ``--token``/``--token-file`` (token -> user), ``--anonymous-auth``. The default is a plain
    loopback server's: AlwaysAllow, the kubeconfig's administrator token, requests without
    credentials let in as the administrator (``unauthenticated_as_admin``)."""

    authorization_modes: tuple[str, ...] = (ALWAYS_ALLOW,)
    static_tokens: Mapping[str, UserInfo] = field(default_factory=lambda: {ADMIN_TOKEN: ADMIN})
    anonymous: bool = True
    #: With AlwaysAllow alone, a request without credentials is the administrator, not
    #: ``system:anonymous``: kubectl and client-go send no credentials over plain HTTP (client-go's
    #: kubeconfig loader keeps them for https), and they act as the kubeconfig's user, as they
    #: always have on fakeapi (kube-apiserver's old insecure port made every request a
    #: ``system:masters`` member likewise). ``--anonymous-auth`` or ``--tls`` turn it off.
    unauthenticated_as_admin: bool = True

    @property
    def unauthenticated_user(self) -> UserInfo | None:
        """Who a request without credentials is; None: 401."""
        if not self.anonymous:
            return None
        if self.unauthenticated_as_admin and self.authorization_modes == (ALWAYS_ALLOW,):
            return ADMIN
        return ANONYMOUS_USER


class Decision(enum.Enum):
    DENY = "Deny"
    ALLOW = "Allow"
    NO_OPINION = "NoOpinion"


@dataclass(slots=True)
class Attributes:
    """``authorizer.AttributesRecord``: a resource request (``resource_request``: verb, group,
    version, resource, subresource, namespace, name) or a non-resource one (verb and path).
    Built for every request an authorizer may refuse: not frozen, whose ``__init__`` costs a
    multiple (treat it as immutable)."""

    user: UserInfo
    verb: str
    resource_request: bool
    path: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""


@dataclass(frozen=True, slots=True)
class ResourceRule:
    """``authorizer.ResourceRuleInfo`` (a rules review's entry)."""

    verbs: tuple[str, ...]
    api_groups: tuple[str, ...]
    resources: tuple[str, ...]
    resource_names: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[str]]:
        out = {"verbs": list(self.verbs), "apiGroups": list(self.api_groups), "resources": list(self.resources)}
        if self.resource_names:
            out["resourceNames"] = list(self.resource_names)
        return out


@dataclass(frozen=True, slots=True)
class NonResourceRule:
    verbs: tuple[str, ...]
    non_resource_urls: tuple[str, ...]

    def to_json(self) -> dict[str, list[str]]:
        return {"verbs": list(self.verbs), "nonResourceURLs": list(self.non_resource_urls)}


@dataclass(frozen=True, slots=True)
class Rules:
    """What ``RulesFor`` answers: the rules, whether they are incomplete, the resolution error."""

    resource: tuple[ResourceRule, ...] = ()
    non_resource: tuple[NonResourceRule, ...] = ()
    incomplete: bool = False
    error: str = ""


@dataclass(frozen=True, slots=True)
class Verdict:
    """An authorizer's answer: its decision, the reason it gives, the evaluation error."""

    decision: Decision
    reason: str = ""
    error: str = ""

    @property
    def allowed(self) -> bool:
        return self.decision is Decision.ALLOW


NO_OPINION = Verdict(Decision.NO_OPINION)
ALLOW = Verdict(Decision.ALLOW)


class Authorizer(Protocol):
    def authorize(self, attributes: Attributes) -> Verdict: ...

    def rules_for(self, user: UserInfo, namespace: str) -> Rules: ...


class AlwaysAllow:
    """``alwaysAllowAuthorizer``: everything, and ``*`` rules."""

    always_allows = True

    def authorize(self, attributes: Attributes) -> Verdict:
        return ALLOW

    def rules_for(self, user: UserInfo, namespace: str) -> Rules:
        return Rules((ResourceRule(("*",), ("*",), ("*",)),), (NonResourceRule(("*",), ("*",)),))


@dataclass(slots=True)
class Union:
    """kube-apiserver's authorizer: ``system:masters`` first, then each mode's authorizer."""

    authorizers: Sequence[Authorizer]
    #: Whether every request is allowed (AlwaysAllow among the modes): the HTTP layer then
    #: skips authorization.
    always_allows: bool = field(init=False)

    def __post_init__(self) -> None:
        self.always_allows = any(getattr(a, "always_allows", False) for a in self.authorizers)

    def authorize(self, attributes: Attributes) -> Verdict:
        if SYSTEM_MASTERS in attributes.user.groups:
            return ALLOW
        reasons: list[str] = []
        errors: list[str] = []
        for authorizer in self.authorizers:
            verdict = authorizer.authorize(attributes)
            if verdict.decision is not Decision.NO_OPINION:
                return verdict
            if verdict.reason:
                reasons.append(verdict.reason)
            if verdict.error:
                errors.append(verdict.error)
        return Verdict(Decision.NO_OPINION, "\n".join(reasons), go_aggregate(errors))

    def rules_for(self, user: UserInfo, namespace: str) -> Rules:
        resource: list[ResourceRule] = []
        non_resource: list[NonResourceRule] = []
        incomplete = False
        errors: list[str] = []
        for authorizer in self.authorizers:
            rules = authorizer.rules_for(user, namespace)
            resource.extend(rules.resource)
            non_resource.extend(rules.non_resource)
            incomplete = incomplete or rules.incomplete
            if rules.error:
                errors.append(rules.error)
        return Rules(tuple(resource), tuple(non_resource), incomplete, go_aggregate(errors))


def forbidden_error(attributes: Attributes, reason: str) -> StatusError:
    """``responsewriters.ForbiddenStatusError``: what a refused request gets."""
    username = go_quote(attributes.user.name)
    verb = attributes.verb
    if not attributes.resource_request:
        message = f"User {username} cannot {verb} path {go_quote(attributes.path)}"
    else:
        resource = attributes.resource
        if attributes.subresource:
            resource = f"{resource}/{attributes.subresource}"
        where = (f"in the namespace {go_quote(attributes.namespace)}" if attributes.namespace
                 else "at the cluster scope")
        message = (f"User {username} cannot {verb} resource {go_quote(resource)} in API group "
                   f"{go_quote(attributes.api_group)} {where}")
    message = message.translate(_SANITIZE)
    if reason:
        message = f"{message}: {reason}"
    return forbidden(attributes.api_group, attributes.resource, attributes.name, message)
