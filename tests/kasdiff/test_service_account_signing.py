"""Service-account signing keys as kube-apiserver takes them, on fakeapi and on a real
kube-apiserver given the same files: ``--service-account-signing-key-file``,
``--service-account-key-file`` (repeated) and ``--service-account-issuer`` (repeated).

Two configurations: kube's oracle's own RSA pair (``Certificates``: a PKCS #8 private key signs,
its PKIX public key verifies), and an EC P-256 SEC 1 private key that signs while the key files
are the RSA public key, that EC private key and a certificate for a P-384 key. In both, a
second issuer follows the server's.

The two servers share one etcd (kube stores JSON, fakeapi runs with ``--etcd-servers``), so a
ServiceAccount is one object with one uid on both: a token either server issues names an account
the other finds, and a review of it on the other server succeeds only if the signature, the key
id and the issuer are accepted. Compared: the JWT header (``alg`` and ``kid``, exactly) of a
TokenRequest's token; ``/.well-known/openid-configuration`` (``jwks_uri`` names each server's
own address) and ``/openid/v1/jwks``, byte for byte; TokenReviews of each server's token on
both servers; a token signed with a key neither server knows, or under an issuer neither
accepts.
"""

from __future__ import annotations

import base64
import datetime
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from differ import Json, Outcome, Pair, check

from fakeapi.cluster.control_plane import Etcd, KubeAPIServer
from fakeapi.testing import ServerProcess
from fakeapi.testing.eventually import eventually

NS = "service-account-keys"
SECOND_ISSUER = "https://issuer.example.com/second"
ACCOUNT = f"/api/v1/namespaces/{NS}/serviceaccounts/robot"
REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _ec_files(directory: Path) -> tuple[Path, Path]:
    """A P-256 private key in SEC 1 PEM (``EC PRIVATE KEY``), and a self-signed certificate for
    a P-384 key."""
    signing = ec.generate_private_key(ec.SECP256R1())
    key_file = directory / "ec-p256.key"
    key_file.write_bytes(signing.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.TraditionalOpenSSL,
                                               serialization.NoEncryption()))
    other = ec.generate_private_key(ec.SECP384R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "service-account-verifier")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(other.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1)).sign(other, hashes.SHA384()))
    cert_file = directory / "p384.crt"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return key_file, cert_file


class Servers:
    """The pair, kube's address (its first issuer) and the signing key file both were given."""

    def __init__(self, pair: Pair, real: KubeAPIServer, signing_key: Path) -> None:
        self.pair = pair
        self.real = real
        self.signing_key = signing_key


@pytest.fixture(scope="module", params=["rsa", "ec"])
def servers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            outcomes: list[Outcome]) -> Iterator[Servers]:
    workdir = tmp_path_factory.mktemp(f"service-account-keys-{request.param}")
    key_args: list[str] = []
    if request.param == "ec":
        ec_key, p384_cert = _ec_files(workdir)
        # After Certificates' flags: the signing key is replaced (the last wins), key files added.
        key_args = [f"--service-account-signing-key-file={ec_key}", f"--service-account-key-file={ec_key}",
                    f"--service-account-key-file={p384_cert}"]
    with Etcd(workdir / "etcd") as etcd, \
            KubeAPIServer(workdir / "apiserver", etcd.client_url, f"--service-account-issuer={SECOND_ISSUER}",
                          "--storage-media-type=application/json", *key_args) as real:
        files = real.certificates
        signing_key = files.service_account_key if request.param == "rsa" else ec_key
        fake_args = ["--service-account-issuer", real.url, "--service-account-issuer", SECOND_ISSUER,
                     "--service-account-signing-key-file", str(signing_key),
                     "--service-account-key-file", str(files.service_account_public_key)]
        if request.param == "ec":
            fake_args += ["--service-account-key-file", str(ec_key), "--service-account-key-file", str(p384_cert)]
        with ServerProcess(workdir / "fakeapi", "--controllers", "", "--etcd-servers", etcd.client_url,
                           *fake_args) as fake:
            response = real.http.post("/api/v1/namespaces", json={"metadata": {"name": NS}})
            assert response.status_code == 201, response.text
            response = real.http.post(f"/api/v1/namespaces/{NS}/serviceaccounts", json={"metadata": {"name": "robot"}})
            assert response.status_code == 201, response.text
            eventually(lambda: fake.http.get(ACCOUNT).status_code == 200, "fakeapi sees kube's ServiceAccount")
            both = Pair(fake.http, real.http)
            both.outcomes = outcomes
            yield Servers(both, real, signing_key)


def _issued(client: Any) -> str:
    response = client.post(f"{ACCOUNT}/token", json={"spec": {"audiences": [SECOND_ISSUER]}})
    assert response.status_code == 201, response.text
    return response.json()["status"]["token"]


def _header(token: str) -> Json:
    return json.loads(_unb64(token.split(".")[0]))


def test_token_header(servers: Servers) -> None:
    """alg and kid, exactly: kid is derived from the public key, alg from the key's type."""
    fake_token, real_token = _issued(servers.pair.fake), _issued(servers.pair.real)
    assert _header(fake_token) == _header(real_token)
    fake_claims, real_claims = (json.loads(_unb64(token.split(".")[1])) for token in (fake_token, real_token))
    assert fake_claims["iss"] == real_claims["iss"] == servers.real.url


def _own_jwks_uri(answer: Json, _is_fake: bool) -> Json:
    """Each server names its own address: fakeapi the one it was asked at, kube its external one."""
    uri = answer.get("jwks_uri", "")
    return {**answer, "jwks_uri": uri.rsplit("/openid/", 1)[-1]}


def test_openid_documents(servers: Servers) -> None:
    start = len(servers.pair.outcomes)
    servers.pair.send("sa-keys-openid", "OpenIDConfiguration", "get", "GET", "/.well-known/openid-configuration",
                      rewrite=_own_jwks_uri)
    servers.pair.send("sa-keys-openid", "JSONWebKeySet", "get", "GET", "/openid/v1/jwks")
    check(servers.pair, start)
    # Byte for byte: go-jose's field order, EC coordinates padded to the curve's size.
    assert servers.pair.fake.get("/openid/v1/jwks").content == servers.pair.real.get("/openid/v1/jwks").content


def _review(client: Any, token: str, **spec: Any) -> Json:
    response = client.post(REVIEWS, json={"spec": {"token": token, **spec}})
    assert response.status_code == 201, response.text
    return response.json()["status"]


def test_each_accepts_the_others_tokens(servers: Servers) -> None:
    """A token issued by either server authenticates on both, as the same user with the same
    audiences: the other server's signature, kid and issuer are accepted."""
    for token in (_issued(servers.pair.fake), _issued(servers.pair.real)):
        fake_review = _review(servers.pair.fake, token, audiences=[SECOND_ISSUER])
        real_review = _review(servers.pair.real, token, audiences=[SECOND_ISSUER])
        assert fake_review == real_review
        assert fake_review["authenticated"] is True, fake_review
        assert fake_review["user"]["username"] == f"system:serviceaccount:{NS}:robot"


def _signed(header: Json, claims: Json, key_file: Path) -> str:
    """A JWS of ``claims`` signed with the PEM key in ``key_file`` as go-jose signs (RS256, or
    ES256 as a raw ``r || s``)."""
    from cryptography.hazmat.primitives.asymmetric import padding, rsa, utils

    key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    encoded = (base64.urlsafe_b64encode(json.dumps(part, separators=(",", ":")).encode()).rstrip(b"=").decode()
               for part in (header, claims))
    signing_input = ".".join(encoded)
    if isinstance(key, rsa.RSAPrivateKey):
        signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    else:
        assert isinstance(key, ec.EllipticCurvePrivateKey)
        r, s = utils.decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return f"{signing_input}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def test_refused_tokens(servers: Servers, tmp_path: Path) -> None:
    """Tokens the test signs, answered alike by both servers: with a key neither knows (under
    the known kid, and under none), under a kid no key has, under an issuer neither accepts (not
    theirs: no error of its own), with a kid that is no string (no JWT to go-jose), under another
    algorithm than the key's; and, accepted, under the second issuer and without a kid (every key
    is tried)."""
    real_token = _issued(servers.pair.real)
    header, claims = _header(real_token), json.loads(_unb64(real_token.split(".")[1]))
    stranger = tmp_path / "stranger.key"
    stranger_key = ec.generate_private_key(ec.SECP256R1())
    stranger.write_bytes(stranger_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()))
    now = int(time.time())
    fresh = {**claims, "iat": now, "nbf": now, "exp": now + 600}
    tokens = {
        "unknown-key-known-kid": _signed(header, fresh, stranger),
        "unknown-key-no-kid": _signed({"alg": header["alg"]}, fresh, stranger),
        "unknown-kid": _signed({**header, "kid": "not-a-key"}, fresh, servers.signing_key),
        "second-issuer": _signed(header, {**fresh, "iss": SECOND_ISSUER}, servers.signing_key),
        "other-issuer": _signed(header, {**fresh, "iss": "https://other.example.com"}, servers.signing_key),
        "no-kid": _signed({"alg": header["alg"]}, fresh, servers.signing_key),
        "kid-not-a-string": _signed({**header, "kid": 5}, fresh, servers.signing_key),
        "other-alg": _signed({**header, "alg": "RS384" if header["alg"] == "ES256" else "ES256"}, fresh,
                             servers.signing_key),
    }
    #: What kube answers (the review's error, or the user it authenticated).
    expected = {
        "unknown-key-known-kid": "[invalid bearer token, go-jose/go-jose: error in cryptographic primitive]",
        "unknown-key-no-kid": "[invalid bearer token, go-jose/go-jose: error in cryptographic primitive]",
        "unknown-kid": "[invalid bearer token, invalid signature, no keys found]",
        "second-issuer": f"system:serviceaccount:{NS}:robot",
        "other-issuer": "invalid bearer token",
        "no-kid": f"system:serviceaccount:{NS}:robot",
        "kid-not-a-string": "invalid bearer token",
        "other-alg": "[invalid bearer token, go-jose/go-jose: error in cryptographic primitive]",
    }
    for case, token in tokens.items():
        fake_review = _review(servers.pair.fake, token, audiences=[SECOND_ISSUER])
        real_review = _review(servers.pair.real, token, audiences=[SECOND_ISSUER])
        assert fake_review == real_review, case
        assert real_review.get("error", real_review["user"].get("username")) == expected[case], (case, real_review)
