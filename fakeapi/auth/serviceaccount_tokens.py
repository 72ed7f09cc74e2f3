"""Service-account tokens: the JWTs ``serviceaccounts/token`` issues and the authenticator checks
(kube's ``pkg/serviceaccount``: ``jwt.go``, ``claims.go``, ``openidmetadata.go``).

One RSA 2048 key per server signs every token with RS256; its key id is kube's
(``keyIDFromPublicKey``: the unpadded base64url SHA-256 of the DER public key), so a verifier
that fetches ``/openid/v1/jwks`` finds it. The key is made on first use, not at start: the
pytest plugin starts a server per test, and most never issue a token; and ``cryptography`` is
loaded then too (a twentieth of a plain start's CPU; a TLS server loads it at start anyway).

A token's payload is go-jose's: the public claims (``aud``, ``exp``, ``iat``, ``iss``, ``jti``,
``nbf``, ``sub``) and the private ``kubernetes.io`` claim merged into one JSON object whose keys
are sorted at every level (go-jose marshals a ``map[string]interface{}``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import uuid
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import rsa

Json = dict[str, Any]

#: ``serviceaccount.ServiceAccountUsernamePrefix``.
USERNAME_PREFIX = "system:serviceaccount:"
#: ``WarnOnlyBoundTokenExpirationSeconds``: what kubelet asks for; kube then issues a token valid
#: for ``EXTENDED_EXPIRATION_SECONDS`` that warns once this has passed.
WARN_ONLY_EXPIRATION_SECONDS = 60 * 60 + 7
EXTENDED_EXPIRATION_SECONDS = 24 * 365 * 60 * 60
#: go-jose's ``DefaultLeeway``: clock skew a token's times are allowed.
LEEWAY_SECONDS = 60
#: What ``/.well-known/openid-configuration`` and ``/openid/v1/jwks`` tell caches.
METADATA_MAX_AGE_SECONDS = 3600


def make_username(namespace: str, name: str) -> str:
    return f"{USERNAME_PREFIX}{namespace}:{name}"


def make_group_names(namespace: str) -> tuple[str, str]:
    return "system:serviceaccounts", f"system:serviceaccounts:{namespace}"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class TokenError(Exception):
    """A token that does not authenticate, with the error kube reports for it."""


@dataclass(frozen=True, slots=True)
class VerifiedToken:
    """A token whose signature, issuer and times check out: its claims, still to be checked
    against the objects they name (``claims.go``'s ``validator``)."""

    claims: Json

    @property
    def private(self) -> Json:
        return self.claims.get("kubernetes.io") or {}


class TokenSigner:
    """The server's signing key, the tokens it issues, and its OpenID metadata."""

    def __init__(self, issuer: str) -> None:
        self.issuer = issuer

    @cached_property
    def _key(self) -> rsa.RSAPrivateKey:
        from cryptography.hazmat.primitives.asymmetric import rsa

        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    @cached_property
    def key_id(self) -> str:
        from cryptography.hazmat.primitives import serialization

        der = self._key.public_key().public_bytes(serialization.Encoding.DER,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo)
        return _b64(hashlib.sha256(der).digest())

    @cached_property
    def _header(self) -> str:
        return _b64(orjson.dumps({"alg": "RS256", "kid": self.key_id}))

    def sign(self, claims: Json) -> str:
        """A compact JWS of ``claims`` (keys sorted at every level, as go-jose writes them)."""
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        payload = _b64(orjson.dumps(claims, option=orjson.OPT_SORT_KEYS))
        signing_input = f"{self._header}.{payload}".encode()
        signature = self._key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        return f"{self._header}.{payload}.{_b64(signature)}"

    def claims(self, *, namespace: str, service_account: Json, audiences: list[str], now: int,
               expiration_seconds: int, warn_after_seconds: int = 0, pod: Json | None = None,
               secret: Json | None = None, node: Json | None = None) -> Json:
        """``serviceaccount.Claims``: what a token for ``service_account`` says, bound to at most
        one pod (and its node), secret or node."""
        private: Json = {"namespace": namespace, "serviceaccount": _ref(service_account)}
        if pod is not None:
            private["pod"] = _ref(pod)
            if node is not None:
                private["node"] = _ref(node)
        elif secret is not None:
            private["secret"] = _ref(secret)
        elif node is not None:
            private["node"] = _ref(node)
        if warn_after_seconds:
            private["warnafter"] = now + warn_after_seconds
        return {
            "aud": audiences, "exp": now + expiration_seconds, "iat": now, "iss": self.issuer,
            "jti": str(uuid.uuid4()), "kubernetes.io": private, "nbf": now,
            "sub": make_username(namespace, service_account["metadata"]["name"]),
        }

    def verify(self, token: str, now: int) -> VerifiedToken | None:
        """The claims of a token this server signed and whose times hold at ``now``; None for a
        token that is not one of ours (another issuer, not a JWT), which other authenticators may
        know; ``TokenError`` for one of ours that fails (``jwtTokenAuthenticator``)."""
        if token.lstrip().startswith("{"):
            return None
        parts = token.split(".")
        if len(parts) != 3:
            return None
        try:
            claims = orjson.loads(_unb64(parts[1]))
        except (binascii.Error, ValueError):
            return None
        if not isinstance(claims, dict) or claims.get("iss") != self.issuer:
            return None
        try:
            header = orjson.loads(_unb64(parts[0]))
            signature = _unb64(parts[2])
        except (binascii.Error, ValueError):
            return None
        if not isinstance(header, dict) or header.get("alg") != "RS256":
            raise TokenError("go-jose/go-jose: unexpected signature algorithm in JWT header")
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        try:
            self._key.public_key().verify(signature, f"{parts[0]}.{parts[1]}".encode(), padding.PKCS1v15(),
                                          hashes.SHA256())
        except InvalidSignature:
            raise TokenError("go-jose/go-jose: error in cryptographic primitive") from None
        return VerifiedToken(claims)

    @staticmethod
    def check_times(claims: Json, now: int) -> None:
        """``jwt.Claims.Validate`` with go-jose's leeway, as ``claims.go`` words its failures."""
        if isinstance(claims.get("nbf"), int) and now + LEEWAY_SECONDS < claims["nbf"]:
            raise TokenError("service account token is not valid yet")
        if isinstance(claims.get("exp"), int) and now - LEEWAY_SECONDS > claims["exp"]:
            raise TokenError("service account token has expired")
        if isinstance(claims.get("iat"), int) and now + LEEWAY_SECONDS < claims["iat"]:
            raise TokenError("service account token is issued in the future")

    def openid_configuration(self, jwks_uri: str) -> bytes:
        """``/.well-known/openid-configuration`` (``openidmetadata.go``'s ``openIDMetadata``);
        ``jwks_uri`` is where clients reach ``/openid/v1/jwks`` (kube: its external address)."""
        return orjson.dumps({
            "issuer": self.issuer, "jwks_uri": jwks_uri, "response_types_supported": ["id_token"],
            "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
        })

    @cached_property
    def jwks(self) -> bytes:
        """``/openid/v1/jwks``: the public key as go-jose marshals a ``JSONWebKey``."""
        numbers = self._key.public_key().public_numbers()
        return orjson.dumps({"keys": [{
            "use": "sig", "kty": "RSA", "kid": self.key_id, "alg": "RS256",
            "n": _b64(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")),
            "e": _b64(numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big")),
        }]})


def _ref(obj: Json) -> Json:
    """``claims.go``'s ``ref``: name and uid, each omitted when empty (a node that was not found
    is named without a uid)."""
    meta = obj.get("metadata") or {}
    return {key: meta[key] for key in ("name", "uid") if meta.get(key)}
