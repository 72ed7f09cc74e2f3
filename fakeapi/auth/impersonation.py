"""kube's impersonation filter (``k8s.io/apiserver/pkg/endpoints/filters/impersonation``):
``Impersonate-User`` (a service account's user name brings the service account's groups unless
groups are given), ``Impersonate-Group``, ``Impersonate-Uid`` and ``Impersonate-Extra-<key>``
replace the requester, once the requester may impersonate each of them (verb ``impersonate`` on
``users``, ``serviceaccounts``, ``groups``, ``uids``, ``userextras/<key>``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from ..machinery.status import bad_request
from .authentication import (
    ALL_AUTHENTICATED,
    ALL_UNAUTHENTICATED,
    ANONYMOUS,
    UserInfo,
    split_service_account_username,
)
from .authorization import Attributes, Authorizer, forbidden_error
from .serviceaccount_tokens import make_group_names, make_username

_AUTHENTICATION_V1 = ("authentication.k8s.io", "v1")
EXTRA_PREFIX = "impersonate-extra-"


@dataclass(frozen=True, slots=True)
class _Request:
    """One thing impersonated (kube builds a ``v1.ObjectReference`` of it)."""

    kind: str  # User, ServiceAccount, Group, UserExtra, UID
    namespace: str
    name: str
    field_path: str = ""

    def described(self) -> str:
        """The ObjectReference as Go's ``%v`` prints it in the 400 message."""
        api_version = "authentication.k8s.io/v1" if self.kind in ("UserExtra", "UID") else ""
        return f"{{{self.kind} {self.namespace} {self.name}  {api_version}  {self.field_path}}}"

    def attributes(self, requester: UserInfo) -> Attributes:
        """What the requester must be allowed to impersonate it."""
        group, version = _AUTHENTICATION_V1 if self.kind in ("UserExtra", "UID") else ("", "")
        resource, subresource = {
            "ServiceAccount": ("serviceaccounts", ""), "User": ("users", ""), "Group": ("groups", ""),
            "UserExtra": ("userextras", self.field_path), "UID": ("uids", ""),
        }[self.kind]
        return Attributes(requester, "impersonate", True, api_group=group, api_version=version,
                          namespace=self.namespace, resource=resource, subresource=subresource, name=self.name)


def impersonate(requester: UserInfo, headers: Sequence[tuple[str, str]], authorizer: Authorizer) -> UserInfo:
    """The user a request acts as: ``requester`` when it impersonates nobody; 400 for groups,
    uid or extras without a user, 403 for what the requester may not impersonate. ``headers``
    are the request's, names lower-cased."""
    requests = _requests(headers)
    if not requests:
        return requester
    if requests[0].kind not in ("User", "ServiceAccount"):
        raise bad_request(f"requested [{' '.join(r.described() for r in requests)}] without impersonating a user")
    groups_given = any(header == "impersonate-group" for header, _ in headers)
    username, uid = "", ""
    groups: list[str] = []
    extra: dict[str, list[str]] = {}
    always_allows = getattr(authorizer, "always_allows", False)
    for request in requests:
        if request.kind == "ServiceAccount":
            username = make_username(request.namespace, request.name)
            if not groups_given:
                groups = list(make_group_names(request.namespace))
        elif request.kind == "User":
            username = request.name
        elif request.kind == "Group":
            groups.append(request.name)
        elif request.kind == "UserExtra":
            extra.setdefault(request.field_path, []).append(request.name)
        else:
            uid = request.name
        if not always_allows:
            attributes = request.attributes(requester)
            verdict = authorizer.authorize(attributes)
            if not verdict.allowed:
                raise forbidden_error(attributes, verdict.reason)
    if username != ANONYMOUS:
        if ALL_AUTHENTICATED not in groups and ALL_UNAUTHENTICATED not in groups:
            groups.append(ALL_AUTHENTICATED)
    elif ALL_UNAUTHENTICATED not in groups:
        groups.append(ALL_UNAUTHENTICATED)
    return UserInfo(username, uid, tuple(groups), {key: tuple(values) for key, values in extra.items()})


def _requests(headers: Sequence[tuple[str, str]]) -> list[_Request]:
    """``buildImpersonationRequests``: the user first, then groups, extras and the uid."""
    wanted_user = wanted_uid = ""
    for header, value in headers:
        if header == "impersonate-user" and not wanted_user:
            wanted_user = value
        elif header == "impersonate-uid" and not wanted_uid:
            wanted_uid = value
    requests: list[_Request] = []
    if wanted_user:
        account = split_service_account_username(wanted_user)
        requests.append(_Request("ServiceAccount", *account) if account else _Request("User", "", wanted_user))
    requests += [_Request("Group", "", value) for header, value in headers if header == "impersonate-group"]
    requests += [_Request("UserExtra", "", value, unquote(header[len(EXTRA_PREFIX):]))
                 for header, value in headers if header.startswith(EXTRA_PREFIX)]
    if wanted_uid:
        requests.append(_Request("UID", "", wanted_uid))
    return requests
