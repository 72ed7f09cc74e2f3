"""Who a request is: kube-apiserver's authenticator chain (``pkg/kubeapiserver/authenticator``),
and the impersonation filter (the authentication.k8s.io APIs that say who one is are
``fakeapi.registry.authentication_reviews``).

The chain, in kube's order, each asked once per request:

* a client certificate the TLS handshake verified against the client CA (``x509``: the
  common name is the user, the organizations its groups), found per connection by the server;
* a bearer token (``Authorization: Bearer ...``): the static tokens of ``--token-file`` and
  ``--token`` (kube's ``--token-auth-file``), then the legacy service-account tokens of
  ``kubernetes.io/service-account-token`` Secrets (issuer ``kubernetes/serviceaccount``, signed
  by kube-controller-manager's token controller with a key of ``--service-account-key-file``:
  the Secret must still hold the token, and is labelled with the day it was last used), then
  the service-account tokens this server issued (``serviceaccounts/token``), checked as kube
  checks them (signature, issuer, audience, times, the service account and the object it is
  bound to still there);
* anonymous (``--anonymous-auth``): a request with no credentials is ``system:anonymous`` in
  ``system:unauthenticated``.

A user the chain authenticates gets ``system:authenticated``. A bearer token nobody knows is a 401
even when anonymous requests are allowed (kube's ``union.NewFailOnError``); with anonymous
requests refused, so is a request without credentials.

Then ``Impersonate-*`` headers replace the requester as kube's impersonation filter does, each
thing impersonated authorized first (verb ``impersonate`` on users, groups, serviceaccounts,
uids, userextras). ``TokenReview`` asks the token authenticators only.
"""

from __future__ import annotations

import base64
import binascii
import csv
import datetime
import hashlib
import hmac
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


from ..admission import Lookup
from ..machinery import warning
from ..machinery.golang import go_aggregate, go_quote
from ..machinery.managed_fields import parse_time
from .serviceaccount_tokens import (
    LEEWAY_SECONDS,
    LEGACY_ISSUER,
    USERNAME_PREFIX,
    TokenError,
    TokenSigner,
    make_group_names,
    make_username,
)

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
#: The private claims of a legacy token (``legacyPrivateClaims``), checked in kube's order.
_LEGACY_CLAIMS = (("kubernetes.io/serviceaccount/namespace", "namespace claim is missing"),
                  ("kubernetes.io/serviceaccount/secret.name", "secretName claim is missing"),
                  ("kubernetes.io/serviceaccount/service-account.name", "serviceAccountName claim is missing"),
                  ("kubernetes.io/serviceaccount/service-account.uid", "serviceAccountUID claim is missing"))
#: ``serviceaccount.LastUsedLabelKey`` and ``InvalidSinceLabelKey``: the legacy token tracking.
LEGACY_TOKEN_LAST_USED = "kubernetes.io/legacy-token-last-used"
LEGACY_TOKEN_INVALID_SINCE = "kubernetes.io/legacy-token-invalid-since"
AUTO_GENERATED_TOKEN_WARNING = ("Use tokens from the TokenRequest API or manually created secret-based tokens "
                                "instead of auto-generated secret-based tokens.")
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

    @classmethod
    def from_json(cls, user: Json) -> UserInfo:
        """The user of an authentication/v1 ``UserInfo`` (``to_json``'s inverse)."""
        return cls(user.get("username", ""), user.get("uid", ""), tuple(user.get("groups") or ()),
                   {key: tuple(values) for key, values in (user.get("extra") or {}).items()})

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


#: The administrator of the kubeconfig ``fakeapi serve`` writes (``--token``'s user), as the
#: static token file of fakeapi's oracle setup names it too (``fakeapi.cluster.control_plane``).
ADMIN = UserInfo("admin", "admin-uid", ("system:masters",))
#: ``--token``'s default on loopback: the token of the kubeconfig ``fakeapi serve`` writes.
ADMIN_TOKEN = "fakeapi"
#: What ``anonymous.NewAuthenticator`` makes of a request without credentials.
ANONYMOUS_USER = UserInfo(ANONYMOUS, "", (ALL_UNAUTHENTICATED,))


@dataclass(frozen=True, slots=True)
class TokenAuthentication:
    """What the token authenticators say of a token: the user and audiences if it authenticates,
    else the error kube reports (possibly empty); the warnings authenticating it earned, which
    every use of it adds to its request, from the cache too (kube's token cache replays them)."""

    user: UserInfo | None = None
    audiences: tuple[str, ...] = ()
    error: str = ""
    warnings: tuple[str, ...] = ()


def _with_authenticated_group(user: UserInfo) -> UserInfo:
    """``group.NewAuthenticatedGroupAdder``."""
    if ALL_AUTHENTICATED in user.groups or ALL_UNAUTHENTICATED in user.groups:
        return user
    return UserInfo(user.name, user.uid, (*user.groups, ALL_AUTHENTICATED), user.extra)


class SecretLabeller(Protocol):
    """Sets a label of a Secret as kube-apiserver's loopback client patches it."""

    def __call__(self, namespace: str, name: str, key: str, value: str) -> None: ...


class Authenticator:
    """The authenticator chain (see the module doc). ``api_audiences`` is kube's
    ``--api-audiences`` (its default: the issuer); ``static_tokens`` maps the tokens of
    ``--token-file``/``--token`` to their users; ``unauthenticated`` is who a request without
    credentials is (``--anonymous-auth``: ``system:anonymous``; None: 401); ``label_secret``
    records a legacy token's use on its Secret."""

    def __init__(self, signer: TokenSigner, lookup: Lookup, api_audiences: tuple[str, ...],
                 clock: Callable[[], float] = time.time, *, static_tokens: Mapping[str, UserInfo] | None = None,
                 unauthenticated: UserInfo | None = ANONYMOUS_USER,
                 label_secret: SecretLabeller | None = None) -> None:
        self.signer = signer
        self._lookup = lookup
        self._label_secret = label_secret
        self.api_audiences = api_audiences
        self._clock = clock
        #: The static token authenticator's users, ``system:authenticated`` added once here.
        self.static_tokens = {token: _with_authenticated_group(user) for token, user in (static_tokens or {}).items()}
        #: ``system:authenticated`` added here too when it is a user (the administrator).
        self.unauthenticated = None if unauthenticated is None else _with_authenticated_group(unauthenticated)
        #: (token, audiences) -> (until, what it authenticated as); insertion-ordered.
        self._successes: dict[tuple[str, tuple[str, ...]], tuple[float, TokenAuthentication]] = {}

    def authenticate(self, authorization: str, certificate_user: UserInfo | None) -> UserInfo | None:
        """The user a request is, from its ``Authorization`` header ("" for none) and the user
        its connection's client certificate names; None: 401 Unauthorized."""
        if certificate_user is not None:
            return certificate_user
        token = _bearer_token(authorization)
        if token:
            static = self.static_tokens.get(token)
            if static is not None:
                return static
            return self.authenticate_token(token).user  # unknown: an error, never anonymous
        return self.unauthenticated

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
            found = cached[1]
        else:
            found = self._authenticate(token, wanted)
            if found.user is not None:
                if len(self._successes) >= SUCCESS_CACHE_SIZE:
                    del self._successes[next(iter(self._successes))]  # the oldest entry
                self._successes[key] = (now + SUCCESS_CACHE_SECONDS, found)
        for text in found.warnings:
            warning.add(text)
        return found

    def _authenticate(self, token: str, wanted: tuple[str, ...]) -> TokenAuthentication:
        static = self.static_tokens.get(token)
        if static is not None:
            # The static token file is audience agnostic: it authenticates for the API audiences.
            implicit = tuple(a for a in self.api_audiences if a in wanted)
            if implicit:
                return TokenAuthentication(static, implicit)
            return TokenAuthentication(error=INVALID_BEARER_TOKEN)
        try:
            # kube's union asks the legacy authenticator first; a token is one issuer's or the other's.
            found = self._legacy_token(token, wanted) or self._service_account_token(token, wanted)
        except TokenError as err:
            return TokenAuthentication(error=go_aggregate([INVALID_BEARER_TOKEN, str(err)]))
        if found is None:
            return TokenAuthentication(error=INVALID_BEARER_TOKEN)
        return found

    def _service_account_token(self, token: str, wanted: tuple[str, ...]) -> TokenAuthentication | None:
        """``jwtTokenAuthenticator.AuthenticateToken`` and ``claims.go``'s ``validator``."""
        now = int(self._clock())
        verified = self.signer.verify(token)
        if verified is None:
            return None
        claims = verified.claims
        granted = self._granted_audiences(claims, wanted)
        self.signer.check_times(claims, now)
        return TokenAuthentication(_with_authenticated_group(self._validate(verified.private, claims, now)), granted)

    def _granted_audiences(self, claims: Json, wanted: tuple[str, ...]) -> tuple[str, ...]:
        """The token's audiences (a legacy token has none: the API audiences) that were asked for."""
        token_audiences = tuple(claims.get("aud") or ()) if isinstance(claims.get("aud"), list) else (
            (claims["aud"],) if isinstance(claims.get("aud"), str) else ())
        if not token_audiences:
            token_audiences = self.api_audiences
        granted = tuple(a for a in token_audiences if a in wanted)
        if not granted:
            raise TokenError(f"token audiences {_go_strings(token_audiences)} is invalid for the target audiences "
                             f"{_go_strings(wanted)}")
        return granted

    def _legacy_token(self, token: str, wanted: tuple[str, ...]) -> TokenAuthentication | None:
        """The legacy ``jwtTokenAuthenticator`` (issuer ``kubernetes/serviceaccount``, no times
        checked) and ``legacyValidator`` with ``--service-account-lookup`` (kube's default)."""
        verified = self.signer.verify(token, (LEGACY_ISSUER,))
        if verified is None:
            return None
        claims = verified.claims
        granted = self._granted_audiences(claims, wanted)
        subject = claims.get("sub")
        if not subject or not isinstance(subject, str):
            raise TokenError("sub claim is missing")
        for claim, missing in _LEGACY_CLAIMS:
            if not claims.get(claim):
                raise TokenError(missing)
        namespace, secret_name, account_name, account_uid = (claims[claim] for claim, _ in _LEGACY_CLAIMS)
        if split_service_account_username(subject) != (namespace, account_name):
            raise TokenError("sub claim is invalid")
        secret = self._lookup("", "Secret", namespace, secret_name)
        if secret is None or secret["metadata"].get("deletionTimestamp"):
            raise TokenError("Token has been invalidated")
        if not hmac.compare_digest(_secret_token(secret), token.encode()):
            raise TokenError("Token does not match server's copy")
        account = self._lookup("", "ServiceAccount", namespace, account_name)
        if account is None:
            raise TokenError(f'serviceaccounts "{account_name}" not found')
        if account["metadata"].get("deletionTimestamp"):
            raise TokenError(f"ServiceAccount {namespace}/{account_name} has been deleted")
        if account["metadata"].get("uid", "") != account_uid:
            raise TokenError(f"ServiceAccount UID ({account['metadata'].get('uid', '')}) does not match claim "
                             f"({account_uid})")
        labels = secret["metadata"].get("labels") or {}
        if labels.get(LEGACY_TOKEN_INVALID_SINCE):
            self._mark_used(secret, labels)
            raise TokenError(f"the token in secret {namespace}/{secret_name} for service account "
                             f"{namespace}/{account_name} has been marked invalid. Use tokens from the TokenRequest "
                             f"API or manually created secret-based tokens, or remove the "
                             f"'{LEGACY_TOKEN_INVALID_SINCE}' label from the secret to temporarily allow use of "
                             f"this token")
        # Auto-generated: one of the Secrets the account lists (as the token controller made them).
        auto_generated = any(isinstance(ref, dict) and ref.get("name") == secret_name
                             for ref in account.get("secrets") or ())
        self._mark_used(secret, labels)
        user = UserInfo(make_username(namespace, account_name), account_uid, make_group_names(namespace))
        return TokenAuthentication(_with_authenticated_group(user), granted,
                                   warnings=(AUTO_GENERATED_TOKEN_WARNING,) if auto_generated else ())

    def _mark_used(self, secret: Json, labels: Mapping[str, str]) -> None:
        """``patchSecretWithLastUsedDate``: today's date (UTC) unless the label has it already
        (or tomorrow's: clocks differ)."""
        now = datetime.datetime.fromtimestamp(self._clock(), datetime.UTC)
        today = now.strftime("%Y-%m-%d")
        if self._label_secret is None or labels.get(LEGACY_TOKEN_LAST_USED) in (
                today, (now + datetime.timedelta(days=1)).strftime("%Y-%m-%d")):
            return
        self._label_secret(secret["metadata"]["namespace"], secret["metadata"]["name"], LEGACY_TOKEN_LAST_USED,
                           today)

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


def _secret_token(secret: Json) -> bytes:
    """The Secret's ``data.token``, decoded (empty if it has none)."""
    try:
        return base64.b64decode((secret.get("data") or {}).get("token") or "", validate=True)
    except (binascii.Error, ValueError):
        return b""


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


def read_token_file(path: str) -> dict[str, UserInfo]:
    """kube's ``tokenfile.NewCSV`` (``--token-auth-file``): CSV lines ``token,user,uid`` with an
    optional fourth column of comma-separated groups (quoted); an empty token is skipped, a later
    line wins over an earlier one with the same token. ``ValueError`` with kube's message for a
    line of fewer than three columns; ``OSError`` if it cannot be read."""
    tokens: dict[str, UserInfo] = {}
    with open(path, newline="", encoding="utf-8") as file:
        for record in csv.reader(file):
            if not record:
                continue  # Go's csv reader skips empty lines
            if len(record) < 3:
                raise ValueError(f"token file '{path}' must have at least 3 columns (token, user name, user uid), "
                                 f"found {len(record)}")
            if not record[0]:
                continue
            groups = tuple(record[3].split(",")) if len(record) >= 4 else ()
            tokens[record[0]] = UserInfo(record[1], record[2], groups)
    return tokens


def certificate_user(der: bytes) -> UserInfo | None:
    """kube's ``x509.CommonNameUserConversion`` of a verified client certificate (DER): the common
    name is the user, the organizations are its groups, the certificate's SHA-256 its credential
    id; None without a common name (kube then tries the next authenticator)."""
    # cryptography's x509 is loaded at the first client certificate, not at every start.
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    certificate = x509.load_der_x509_certificate(der)
    subject = certificate.subject
    common_names = subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if not common_names or not common_names[0].value:
        return None
    groups = tuple(str(attribute.value) for attribute in subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME))
    fingerprint = hashlib.sha256(der).hexdigest()
    return _with_authenticated_group(UserInfo(str(common_names[0].value), "", groups,
                                              {CREDENTIAL_ID_KEY: (f"X509SHA256={fingerprint}",)}))
