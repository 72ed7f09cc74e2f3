"""Who a request is, and the authentication.k8s.io APIs that say it: ``SelfSubjectReview`` and
``TokenReview`` (kube's ``pkg/registry/authentication``), with the token authenticators and the
impersonation filter of kube-apiserver they rely on.

fakeapi enforces no authentication: every request is served, as kube-apiserver with
``--authorization-mode=AlwaysAllow`` serves every authenticated one. Where an answer depends on
who asks (``kubectl auth whoami``, self reviews), the requester is

* the service account of a bearer token fakeapi issued (``serviceaccounts/token``) when the
  token checks out as kube checks it (signature, issuer, audience, times, the service account and
  the object it is bound to still there);
* otherwise ``ADMIN``: the static-token administrator of kube-apiserver's ``--token-auth-file``
  in fakeapi's oracle setup (``fakeapi.testing.control_plane`` writes the same line), so both
  servers answer alike. A token fakeapi does not know is not refused (no 401);

then ``Impersonate-*`` headers replace the requester as kube's impersonation filter does
(AlwaysAllow allows any impersonation). They are read where the requester matters, so a request
elsewhere with inconsistent impersonation headers is served, not refused with kube's 400.
``TokenReview`` knows two kinds of token: ``ADMIN_TOKEN`` (the token of the kubeconfig
``fakeapi serve`` writes) and the service-account tokens.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from ..admission import Lookup
from ..machinery import metadata
from ..machinery._golang import go_quote
from ..machinery.managed_fields import parse_time
from ..machinery.status import bad_request
from .serviceaccount_tokens import (
    LEEWAY_SECONDS,
    USERNAME_PREFIX,
    TokenError,
    TokenSigner,
    make_group_names,
    make_username,
)
from .virtual import BodyType, CreateOnly, CreateRequest

Json = dict[str, Any]

ALL_AUTHENTICATED = "system:authenticated"
ALL_UNAUTHENTICATED = "system:unauthenticated"
ANONYMOUS = "system:anonymous"
#: ``user.CredentialIDKey`` and the pod and node keys of a bound service-account token's user.
CREDENTIAL_ID_KEY = "authentication.kubernetes.io/credential-id"
_POD_NAME_KEY = "authentication.kubernetes.io/pod-name"
_POD_UID_KEY = "authentication.kubernetes.io/pod-uid"
_NODE_NAME_KEY = "authentication.kubernetes.io/node-name"
_NODE_UID_KEY = "authentication.kubernetes.io/node-uid"
#: kube-apiserver's token cache: successes are remembered 10 s (failures are not), keyed by the
#: token and the audiences asked for.
SUCCESS_CACHE_SECONDS = 10.0
SUCCESS_CACHE_SIZE = 4096
#: What the bearer-token authenticator answers for a token no authenticator knows.
INVALID_BEARER_TOKEN = "invalid bearer token"
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


@dataclass(frozen=True, slots=True)
class UserInfo:
    """``user.Info``: ``extra`` maps keys to values in the order they were given."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> Json:
        """authentication/v1 ``UserInfo`` (every field ``omitempty``; Go sorts the extra map)."""
        out: Json = {}
        if self.name:
            out["username"] = self.name
        if self.uid:
            out["uid"] = self.uid
        if self.groups:
            out["groups"] = list(self.groups)
        if self.extra:
            out["extra"] = {key: list(self.extra[key]) for key in sorted(self.extra)}
        return out


#: The administrator every request is unless it proves otherwise (see the module doc), as the
#: static token authenticator knows it (``system:authenticated`` is added when it authenticates).
ADMIN = UserInfo("admin", "admin-uid", ("system:masters",))
#: The token of the kubeconfig ``fakeapi serve`` writes: the static token of ``ADMIN``.
ADMIN_TOKEN = "fakeapi"


@dataclass(frozen=True, slots=True)
class TokenAuthentication:
    """What the token authenticators say of a token: the user and audiences if it authenticates,
    else the error kube reports (possibly empty)."""

    user: UserInfo | None = None
    audiences: tuple[str, ...] = ()
    error: str = ""


def _with_authenticated_group(user: UserInfo) -> UserInfo:
    """``group.NewAuthenticatedGroupAdder``."""
    if ALL_AUTHENTICATED in user.groups or ALL_UNAUTHENTICATED in user.groups:
        return user
    return UserInfo(user.name, user.uid, (*user.groups, ALL_AUTHENTICATED), user.extra)


def _aggregate(errors: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message bare, several bracketed, repeats
    dropped."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


class Authenticator:
    """The token authenticators (the static ``ADMIN_TOKEN``, the service-account tokens) and
    the requester of a request (see the module doc). ``api_audiences`` is kube's
    ``--api-audiences`` (its default: the issuer)."""

    def __init__(self, signer: TokenSigner, lookup: Lookup, api_audiences: tuple[str, ...],
                 clock: Callable[[], float] = time.time) -> None:
        self.signer = signer
        self._lookup = lookup
        self.api_audiences = api_audiences
        self._clock = clock
        #: (token, audiences) -> (until, what it authenticated as); insertion-ordered.
        self._successes: dict[tuple[str, tuple[str, ...]], tuple[float, TokenAuthentication]] = {}

    def authenticate_token(self, token: str, audiences: Sequence[str] = ()) -> TokenAuthentication:
        """kube-apiserver's union of token authenticators behind the bearer-token one, for the
        ``audiences`` asked for (default: the API audiences). A success is remembered for
        ``SUCCESS_CACHE_SECONDS`` (kube's token cache): a token whose service account or pod has
        gone since still authenticates that long, as on kube."""
        wanted = tuple(audiences) or self.api_audiences
        now = self._clock()
        key = (token, wanted)
        cached = self._successes.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        found = self._authenticate(token, wanted)
        if found.user is not None:
            if len(self._successes) >= SUCCESS_CACHE_SIZE:
                del self._successes[next(iter(self._successes))]  # the oldest entry
            self._successes[key] = (now + SUCCESS_CACHE_SECONDS, found)
        return found

    def _authenticate(self, token: str, wanted: tuple[str, ...]) -> TokenAuthentication:
        if token == ADMIN_TOKEN:
            # The static token file is audience agnostic: it authenticates for the API audiences.
            implicit = tuple(a for a in self.api_audiences if a in wanted)
            if implicit:
                return TokenAuthentication(_with_authenticated_group(ADMIN), implicit)
            return TokenAuthentication(error=INVALID_BEARER_TOKEN)
        try:
            found = self._service_account_token(token, wanted)
        except TokenError as err:
            return TokenAuthentication(error=_aggregate([INVALID_BEARER_TOKEN, str(err)]))
        if found is None:
            return TokenAuthentication(error=INVALID_BEARER_TOKEN)
        return found

    def _service_account_token(self, token: str, wanted: tuple[str, ...]) -> TokenAuthentication | None:
        """``jwtTokenAuthenticator.AuthenticateToken`` and ``claims.go``'s ``validator``."""
        now = int(self._clock())
        verified = self.signer.verify(token, now)
        if verified is None:
            return None
        claims = verified.claims
        token_audiences = tuple(claims.get("aud") or ()) if isinstance(claims.get("aud"), list) else (
            (claims["aud"],) if isinstance(claims.get("aud"), str) else ())
        if not token_audiences:
            token_audiences = self.api_audiences
        granted = tuple(a for a in token_audiences if a in wanted)
        if not granted:
            raise TokenError(f"token audiences {_go_strings(token_audiences)} is invalid for the target audiences "
                             f"{_go_strings(wanted)}")
        self.signer.check_times(claims, now)
        return TokenAuthentication(_with_authenticated_group(self._validate(verified.private, claims, now)), granted)

    def _validate(self, private: Json, claims: Json, now: int) -> UserInfo:
        """The objects the claims name must still be there, with the same uids, not deleted more
        than a leeway ago."""
        namespace = private.get("namespace", "")
        account = private.get("serviceaccount") or {}
        found = self._lookup("", "ServiceAccount", namespace, account.get("name", ""))
        if found is None:
            raise TokenError(f'serviceaccounts "{account.get("name", "")}" not found')
        found_uid = found["metadata"].get("uid", "")
        if found_uid != account.get("uid"):
            raise TokenError(f"service account UID ({found_uid}) does not match claim ({account.get('uid', '')})")
        if _deleted_before(found, now):
            raise TokenError(f"service account {namespace}/{account.get('name', '')} has been deleted")
        extra: dict[str, tuple[str, ...]] = {}
        for kind, ref in (("Secret", private.get("secret")), ("Pod", private.get("pod"))):
            if ref is None:
                continue
            bound = self._lookup("", kind, namespace, ref.get("name", ""))
            if bound is None or _deleted_before(bound, now):
                raise TokenError("service account token has been invalidated")
            if bound["metadata"].get("uid") != ref.get("uid"):
                raise TokenError(f"{kind.lower()} UID ({bound['metadata'].get('uid', '')}) does not match service "
                                 f"account {kind.lower()} ref claim ({ref.get('uid', '')})")
            if kind == "Pod":
                extra[_POD_NAME_KEY], extra[_POD_UID_KEY] = (ref.get("name", ""),), (ref.get("uid", ""),)
        node = private.get("node")
        if node is not None:
            if private.get("pod") is None:
                bound = self._lookup("", "Node", None, node.get("name", ""))
                if bound is None or _deleted_before(bound, now):
                    raise TokenError("service account token has been invalidated")
                if bound["metadata"].get("uid") != node.get("uid"):
                    raise TokenError(f"node UID ({bound['metadata'].get('uid', '')}) does not match service account "
                                     f"node ref claim ({node.get('uid', '')})")
            extra[_NODE_NAME_KEY] = (node.get("name", ""),)
            if node.get("uid"):
                extra[_NODE_UID_KEY] = (node["uid"],)
        if claims.get("jti"):
            extra[CREDENTIAL_ID_KEY] = (f"JTI={claims['jti']}",)
        name = account.get("name", "")
        return UserInfo(make_username(namespace, name), account.get("uid", ""), make_group_names(namespace), extra)

    def requester(self, authorization: str | None, headers: Iterable[tuple[str, str]]) -> UserInfo:
        """The user a request with this ``Authorization`` header and these (lower-cased) headers
        is, after impersonation (see the module doc)."""
        user = _with_authenticated_group(ADMIN)
        token = _bearer_token(authorization)
        if token:
            found = self.authenticate_token(token)
            if found.user is not None:
                user = found.user
        return impersonated(user, headers)


def _go_strings(values: Iterable[str]) -> str:
    """Go's ``%q`` of a ``[]string``."""
    return "[" + " ".join(go_quote(v) for v in values) + "]"


def _deleted_before(obj: Json, now: int) -> bool:
    """Deleted (``deletionTimestamp`` set) more than go-jose's leeway before ``now``."""
    stamp = obj["metadata"].get("deletionTimestamp")
    return bool(stamp) and parse_time(stamp).timestamp() < now - LEEWAY_SECONDS


def _bearer_token(authorization: str | None) -> str:
    """``bearertoken.Authenticator``: ``Bearer <token>`` (scheme case-insensitive)."""
    parts = (authorization or "").strip().split(" ", 2)
    if len(parts) < 2 or parts[0].lower() != "bearer":
        return ""
    return parts[1]


def split_service_account_username(username: str) -> tuple[str, str] | None:
    """``serviceaccount.SplitUsername``: (namespace, name), or None if not a valid one."""
    if not username.startswith(USERNAME_PREFIX):
        return None
    parts = username[len(USERNAME_PREFIX):].split(":")
    if len(parts) != 2:
        return None
    namespace, name = parts
    if len(namespace) > 63 or not _DNS_LABEL.match(namespace) or len(name) > 253 or not _DNS_SUBDOMAIN.match(name):
        return None
    return namespace, name


def impersonated(user: UserInfo, headers: Iterable[tuple[str, str]]) -> UserInfo:
    """kube's ``WithImpersonation`` filter (every impersonation allowed): ``Impersonate-User``
    (a service-account name brings its groups unless groups are given), ``Impersonate-Group``,
    ``Impersonate-Uid``, ``Impersonate-Extra-<key>``; 400 for any of the others without a user."""
    wanted_user, wanted_uid = "", ""
    groups: list[str] = []
    extra: dict[str, list[str]] = {}
    requests: list[tuple[str, str, str, str, str]] = []  # ObjectReference: kind, ns, name, apiVersion, fieldPath
    for header, value in headers:
        if header == "impersonate-user" and not wanted_user:
            wanted_user = value
        elif header == "impersonate-uid" and not wanted_uid:
            wanted_uid = value
    if wanted_user:
        account = split_service_account_username(wanted_user)
        requests.append(("ServiceAccount", *account, "", "") if account else ("User", "", wanted_user, "", ""))
    for header, value in headers:
        if header == "impersonate-group":
            groups.append(value)
            requests.append(("Group", "", value, "", ""))
    for header, value in headers:
        if header.startswith("impersonate-extra-"):
            key = unquote(header[len("impersonate-extra-"):])
            extra.setdefault(key, []).append(value)
            requests.append(("UserExtra", "", value, "authentication.k8s.io/v1", key))
    if wanted_uid:
        requests.append(("UID", "", wanted_uid, "authentication.k8s.io/v1", ""))
    if not requests:
        return user
    if not wanted_user:
        described = " ".join(f"{{{kind} {ns} {name}  {api_version}  {field_path}}}"
                             for kind, ns, name, api_version, field_path in requests)
        raise bad_request(f"requested [{described}] without impersonating a user")
    account = split_service_account_username(wanted_user)
    if account is not None and not any(header == "impersonate-group" for header, _ in headers):
        groups = list(make_group_names(account[0]))
    if wanted_user != ANONYMOUS:
        if ALL_AUTHENTICATED not in groups and ALL_UNAUTHENTICATED not in groups:
            groups.append(ALL_AUTHENTICATED)
    elif ALL_UNAUTHENTICATED not in groups:
        groups.append(ALL_UNAUTHENTICATED)
    return UserInfo(wanted_user, wanted_uid, tuple(groups), {key: tuple(values) for key, values in extra.items()})


class SelfSubjectReviews(CreateOnly):
    """``selfsubjectreviews``: the requester, as ``SelfSubjectReview`` status."""

    body_type = BodyType("authentication.k8s.io", ("v1",), "SelfSubjectReview")

    def create(self, request: CreateRequest) -> Json:
        return {
            "kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": metadata.now_rfc3339()},
            "status": {"userInfo": request.user().to_json()},
        }


class TokenReviews(CreateOnly):
    """``tokenreviews``: what the token authenticators say of ``spec.token``."""

    body_type = BodyType("authentication.k8s.io", ("v1",), "TokenReview")
    answers_request = True
    zero_object = {"metadata": {"creationTimestamp": None}, "spec": {}, "status": {"user": {}}}

    def __init__(self, authenticator: Authenticator) -> None:
        self._authenticator = authenticator

    def create(self, request: CreateRequest) -> Json:
        review = request.body
        spec = review.get("spec") or {}
        if not spec.get("token"):
            raise bad_request("token is required for TokenReview in authentication")
        found = self._authenticator.authenticate_token(spec["token"], spec.get("audiences") or ())
        status: Json = {}
        if found.user is not None:
            status["authenticated"] = True
        status["user"] = found.user.to_json() if found.user is not None else {}
        if found.user is not None:
            status["audiences"] = list(found.audiences)
        if found.error:
            status["error"] = found.error
        review["status"] = status
        return review
