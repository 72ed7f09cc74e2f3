"""Service-account tokens: the JWTs ``serviceaccounts/token`` issues and the authenticator checks
(kube's ``pkg/serviceaccount``: ``jwt.go``, ``claims.go``, ``openidmetadata.go``).

Tokens are signed with kube-apiserver's ``--service-account-signing-key-file`` (RS256 for an RSA
key, ES256/384/512 for an EC key by its curve) and verified with its ``--service-account-key-file``
keys, which ``/openid/v1/jwks`` publishes; a key's id is kube's (``keyIDFromPublicKey``: the
unpadded base64url SHA-256 of the DER public key), so tokens, keys and verifiers agree with a
kube-apiserver given the same files. Without them one RSA 2048 key of the server's own signs and
verifies. That key is made on first use, not at start: the pytest plugin starts a server per
test, and most never issue a token; and ``cryptography`` is loaded then too (a twentieth of a
plain start's CPU; a TLS server loads it at start anyway).

A token's payload is go-jose's: the public claims (``aud``, ``exp``, ``iat``, ``iss``, ``jti``,
``nbf``, ``sub``) and the private ``kubernetes.io`` claim merged into one JSON object whose keys
are sorted at every level (go-jose marshals a ``map[string]interface{}``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import uuid
from dataclasses import dataclass
from collections.abc import Collection, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
    PublicKey = rsa.RSAPublicKey | ec.EllipticCurvePublicKey

Json = dict[str, Any]

#: ``serviceaccount.LegacyIssuer``: the issuer of the tokens kube-controller-manager's token
#: controller writes into ``kubernetes.io/service-account-token`` Secrets.
LEGACY_ISSUER = "kubernetes/serviceaccount"
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


@dataclass(frozen=True, slots=True)
class SigningKeys:
    """kube-apiserver's service-account keys: the private key of
    ``--service-account-signing-key-file`` and the public keys of every
    ``--service-account-key-file``, in order."""

    private_key: PrivateKey
    public_keys: tuple[PublicKey, ...]


class KeyFileError(Exception):
    """A key file kube-apiserver refuses to start with; the message is kube's."""


def load_signing_keys(signing_key_file: Path, key_files: Sequence[Path]) -> SigningKeys:
    """The keys of the files, read as kube reads them (client-go's ``keyutil``), refused with
    kube's words: ``PrivateKeyFromFile`` for the signing key (the first PEM block of type ``EC
    PRIVATE KEY``, ``RSA PRIVATE KEY`` or ``PRIVATE KEY`` that parses as one; an RSA key, or an EC
    key on P-256, P-384 or P-521), ``PublicKeysFromFile`` for each key file (every block that is
    an RSA private key, a public key or certificate, or a SEC 1 EC private key; other blocks
    skipped, a file without any refused). Without key files the signing key's public key
    verifies, as fakeapi's own key does (kube requires a key file)."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa, x25519

    private_key = next((key for kind, der in _pem_blocks(_read(signing_key_file))
                        if (key := _private_key(kind, der)) is not None), None)
    if private_key is None:
        raise KeyFileError(f"failed to parse service-account-issuer-key-file: error reading private key file "
                           f"{signing_key_file}: data does not contain a valid RSA or ECDSA private key")
    if not isinstance(private_key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        go_type = {ed25519.Ed25519PrivateKey: "ed25519.PrivateKey", x25519.X25519PrivateKey: "*ecdh.PrivateKey"}
        name = next(name for cls, name in go_type.items() if isinstance(private_key, cls))
        raise KeyFileError(f"failed to build token generator: unknown private key type {name}, "
                           "must be *rsa.PrivateKey, *ecdsa.PrivateKey, or jose.OpaqueSigner")
    if isinstance(private_key, ec.EllipticCurvePrivateKey) and not _has_algorithm(private_key.public_key()):
        raise KeyFileError("failed to build token generator: could not generate signer for ECDSA keypair: "
                           "unknown private key curve, must be 256, 384, or 521")
    public_keys: list[PublicKey] = []
    for path in key_files:
        found = [key for _kind, der in _pem_blocks(_read(path)) if (key := _public_key(der)) is not None]
        if not found:
            raise KeyFileError(f"error reading public key file {path}: "
                               "data does not contain any valid RSA or ECDSA public keys")
        if not all(_has_algorithm(key) for key in found):
            # kube starts, then cannot publish /openid/v1/jwks; fakeapi says so at once.
            raise KeyFileError(f"{path}: an EC key on a curve other than P-256, P-384 or P-521 "
                               "(unknown private key curve, must be 256, 384, or 521)")
        public_keys += found
    return SigningKeys(private_key, tuple(public_keys) or (private_key.public_key(),))


def _has_algorithm(key: PublicKey) -> bool:
    """Whether kube names a signing algorithm for the key (``algorithmFromPublicKey``)."""
    from cryptography.hazmat.primitives.asymmetric import ec

    curves = {bits for _name, bits in _CURVES.values()}
    return not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.key_size in curves


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as err:
        raise KeyFileError(f"open {path}: {(err.strerror or str(err)).lower()}") from None


#: A PEM block: its type and its base64 lines (Go's ``pem.Decode`` without headers).
_PEM_BLOCK = re.compile(rb"-----BEGIN ([^\n-]*)-----\r?\n(.*?)-----END \1-----", re.S)


def _pem_blocks(data: bytes) -> list[tuple[str, bytes]]:
    """Go's ``pem.Decode`` in a loop: each block's type and DER bytes (a block whose base64 does
    not decode is skipped, as Go skips to the next ``-----BEGIN``)."""
    blocks = []
    for match in _PEM_BLOCK.finditer(data):
        try:
            blocks.append((match[1].decode(), base64.b64decode(b"".join(match[2].split()), validate=True)))
        except (binascii.Error, UnicodeDecodeError):
            continue
    return blocks


def _private_key(kind: str, der: bytes) -> Any:
    """``ParsePrivateKeyPEM``'s parse of one block: SEC 1 (EC) for ``EC PRIVATE KEY``, PKCS #1
    (RSA) for ``RSA PRIVATE KEY``, PKCS #8 (any key Go parses) for ``PRIVATE KEY``; None for a
    block that is none of these."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa, x25519
    from cryptography.hazmat.primitives.serialization import load_der_private_key

    wanted = {"EC PRIVATE KEY": (ec.EllipticCurvePrivateKey,), "RSA PRIVATE KEY": (rsa.RSAPrivateKey,),
              "PRIVATE KEY": (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey, ed25519.Ed25519PrivateKey,
                              x25519.X25519PrivateKey)}.get(kind)
    if wanted is None or kind != "RSA PRIVATE KEY" and _is_sec1(der) != (kind == "EC PRIVATE KEY"):
        return None
    try:
        key = load_der_private_key(der, password=None)
    except (ValueError, TypeError):
        return None
    return key if isinstance(key, wanted) else None


def _public_key(der: bytes) -> PublicKey | None:
    """``ParsePublicKeysPEM``'s parse of one block, whatever its type: an RSA private key (PKCS #1
    or #8), an RSA or EC public key (PKIX, or a certificate's), an EC private key (SEC 1 only)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    from cryptography.hazmat.primitives.serialization import load_der_private_key, load_der_public_key

    try:
        private = load_der_private_key(der, password=None)
    except (ValueError, TypeError):
        private = None
    if isinstance(private, rsa.RSAPrivateKey) or isinstance(private, ec.EllipticCurvePrivateKey) and _is_sec1(der):
        return private.public_key()
    try:
        public = load_der_public_key(der)
    except (ValueError, TypeError):
        try:
            public = x509.load_der_x509_certificate(der).public_key()
        except ValueError:
            return None
    return public if isinstance(public, (rsa.RSAPublicKey, ec.EllipticCurvePublicKey)) else None


def _is_sec1(der: bytes) -> bool:
    """Whether DER is a SEC 1 ``ECPrivateKey`` (``SEQUENCE { INTEGER 1, OCTET STRING ...``), not
    a PKCS #8 one (``SEQUENCE { INTEGER 0, SEQUENCE ...``): Go's ``ParseECPrivateKey`` takes
    only the first."""
    if len(der) < 2 or der[0] != 0x30:
        return False
    start = 2 + (der[1] & 0x7F if der[1] & 0x80 else 0)
    return der[start:start + 4] == b"\x02\x01\x01\x04"


def new_signing_key() -> PrivateKey:
    """A signing key of the server's own, for a server without
    ``--service-account-signing-key-file``: RSA 2048, as kube's own test keys."""
    from cryptography.hazmat.primitives.asymmetric import rsa  # at the first token, not at start

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def write_signing_key(directory: Path) -> Path:
    """A new service-account signing key, as a server without
    ``--service-account-signing-key-file`` makes its own, readable by its owner only."""
    from cryptography.hazmat.primitives import serialization

    key = new_signing_key()
    path = directory / "service-account.key"
    path.touch(mode=0o600)
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                       serialization.NoEncryption()))
    return path


class TokenSigner:
    """The server's signing key, the tokens it issues, the keys it verifies them with, and its
    OpenID metadata. ``issuers`` are kube's ``--service-account-issuer``s: the first is the
    ``iss`` of new tokens, every one is accepted; ``keys`` are the keys of
    ``--service-account-signing-key-file`` and ``--service-account-key-file``
    (``load_signing_keys``), None for a key of the server's own."""

    def __init__(self, issuers: tuple[str, ...], keys: SigningKeys | None = None) -> None:
        self.issuer = issuers[0]
        self.issuers = issuers
        self._keys = keys

    @cached_property
    def _key(self) -> PrivateKey:
        return self._keys.private_key if self._keys is not None else new_signing_key()

    @cached_property
    def _verification_keys(self) -> tuple[_VerificationKey, ...]:
        """What tokens are verified with and ``/openid/v1/jwks`` lists, in the files' order
        (duplicates kept, as kube keeps them); without key files, the signing key's own."""
        public_keys = self._keys.public_keys if self._keys is not None else (self._key.public_key(),)
        return tuple(_VerificationKey(key) for key in public_keys)

    @cached_property
    def key_id(self) -> str:
        return _VerificationKey(self._key.public_key()).key_id

    @cached_property
    def _header(self) -> str:
        return _b64(orjson.dumps({"alg": _algorithm(self._key.public_key()), "kid": self.key_id}))

    def sign(self, claims: Json) -> str:
        """A compact JWS of ``claims`` (keys sorted at every level, as go-jose writes them)."""
        payload = _b64(orjson.dumps(claims, option=orjson.OPT_SORT_KEYS))
        signing_input = f"{self._header}.{payload}".encode()
        return f"{self._header}.{payload}.{_b64(_sign(self._key, signing_input))}"

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

    def verify(self, token: str, issuers: Collection[str] = ()) -> VerifiedToken | None:
        """The claims of a token one of ``issuers`` (default: this server's) signed, checked with
        the key its ``kid`` names (every key without one); None for a token that is not one of
        those (another issuer, not a JWT), which other authenticators may know; ``TokenError``
        for one that fails (``jwtTokenAuthenticator``). The times are the caller's
        (``check_times``): a legacy token has none checked."""
        if token.lstrip().startswith("{"):
            return None
        parts = token.split(".")
        if len(parts) != 3:
            return None
        try:
            claims = orjson.loads(_unb64(parts[1]))
        except (binascii.Error, ValueError):
            return None
        if not isinstance(claims, dict) or claims.get("iss") not in (issuers or self.issuers):
            return None
        try:
            header = orjson.loads(_unb64(parts[0]))
            signature = _unb64(parts[2])
        except (binascii.Error, ValueError):
            return None
        # go-jose's parse fails on a header field of the wrong type: not a token of ours then.
        if not isinstance(header, dict) or not all(isinstance(header.get(name, ""), str) for name in ("alg", "kid")):
            return None
        kid = header.get("kid", "")
        keys = [key for key in self._verification_keys if not kid or key.key_id == kid]
        if not keys:
            raise TokenError("invalid signature, no keys found")
        signing_input = f"{parts[0]}.{parts[1]}".encode()
        if not any(key.verifies(header.get("alg"), signing_input, signature) for key in keys):
            # go-jose reports every failed verification so; kube's aggregate of equal messages is one.
            raise TokenError("go-jose/go-jose: error in cryptographic primitive")
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
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": sorted({key.algorithm for key in self._verification_keys}),
        })

    @cached_property
    def jwks(self) -> bytes:
        """``/openid/v1/jwks``: the verification keys as go-jose marshals ``JSONWebKey``s."""
        return orjson.dumps({"keys": [key.jwk for key in self._verification_keys]})


class _VerificationKey:
    """One public key tokens are verified with: its ``kid`` (``keyIDFromPublicKey``: the unpadded
    base64url SHA-256 of its DER SubjectPublicKeyInfo) and the algorithm kube names for it."""

    def __init__(self, public_key: PublicKey) -> None:
        self.public_key = public_key
        self.algorithm = _algorithm(public_key)

    @cached_property
    def key_id(self) -> str:
        from cryptography.hazmat.primitives import serialization

        der = self.public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        return _b64(hashlib.sha256(der).digest())

    @property
    def jwk(self) -> Json:
        """go-jose's ``rawJSONWebKey``, its fields in their order: ``use, kty, kid, crv, alg, x,
        y, n, e``; an EC key's coordinates padded to the curve's size, an RSA key's not."""
        from cryptography.hazmat.primitives.asymmetric import ec

        if isinstance(self.public_key, ec.EllipticCurvePublicKey):
            numbers = self.public_key.public_numbers()
            size = (self.public_key.curve.key_size + 7) // 8
            return {"use": "sig", "kty": "EC", "kid": self.key_id, "crv": _CURVES[self.algorithm][0],
                    "alg": self.algorithm, "x": _b64(numbers.x.to_bytes(size, "big")),
                    "y": _b64(numbers.y.to_bytes(size, "big"))}
        numbers = self.public_key.public_numbers()
        return {"use": "sig", "kty": "RSA", "kid": self.key_id, "alg": self.algorithm,
                "n": _b64(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")),
                "e": _b64(numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big"))}

    def verifies(self, algorithm: object, signing_input: bytes, signature: bytes) -> bool:
        """go-jose v2's verifiers: an RSA key checks RS256/384/512 and PS256/384/512, an EC key
        the ES algorithm of its own curve (a raw ``r || s`` of twice the curve's size)."""
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec, padding, utils

        if not isinstance(algorithm, str) or algorithm[2:] not in ("256", "384", "512"):
            return False
        digest = {"256": hashes.SHA256, "384": hashes.SHA384, "512": hashes.SHA512}[algorithm[2:]]()
        try:
            if isinstance(self.public_key, ec.EllipticCurvePublicKey):
                size = (self.public_key.curve.key_size + 7) // 8
                if algorithm != self.algorithm or len(signature) != 2 * size:
                    return False
                r, s = int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big")
                self.public_key.verify(utils.encode_dss_signature(r, s), signing_input, ec.ECDSA(digest))
            elif algorithm.startswith("RS"):
                self.public_key.verify(signature, signing_input, padding.PKCS1v15(), digest)
            elif algorithm.startswith("PS"):
                # go-jose verifies with rsa.PSSOptions nil: the salt's length is detected.
                self.public_key.verify(signature, signing_input, padding.PSS(padding.MGF1(digest), padding.PSS.AUTO),
                                       digest)
            else:
                return False
        except InvalidSignature:
            return False
        return True


#: An ES algorithm's curve: its JWK name and its key size in bits (``signerFromECDSAPrivateKey``).
_CURVES = {"ES256": ("P-256", 256), "ES384": ("P-384", 384), "ES512": ("P-521", 521)}


def _algorithm(public_key: PublicKey) -> str:
    """``algorithmFromPublicKey``: RS256 for every RSA key, an EC key's ES algorithm by its curve."""
    from cryptography.hazmat.primitives.asymmetric import ec

    if isinstance(public_key, ec.EllipticCurvePublicKey):
        return next(alg for alg, (_name, bits) in _CURVES.items() if bits == public_key.curve.key_size)
    return "RS256"


def _sign(key: PrivateKey, signing_input: bytes) -> bytes:
    """go-jose's signature: PKCS #1 v1.5 with SHA-256 for RSA; ECDSA as a raw ``r || s``, each
    padded to the curve's size, with the hash of the curve's ES algorithm."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, padding, utils

    if isinstance(key, ec.EllipticCurvePrivateKey):
        size = (key.curve.key_size + 7) // 8
        digest = {256: hashes.SHA256, 384: hashes.SHA384, 521: hashes.SHA512}[key.curve.key_size]()
        r, s = utils.decode_dss_signature(key.sign(signing_input, ec.ECDSA(digest)))
        return r.to_bytes(size, "big") + s.to_bytes(size, "big")
    return key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())


def _ref(obj: Json) -> Json:
    """``claims.go``'s ``ref``: name and uid, each omitted when empty (a node that was not found
    is named without a uid)."""
    meta = obj.get("metadata") or {}
    return {key: meta[key] for key in ("name", "uid") if meta.get(key)}
