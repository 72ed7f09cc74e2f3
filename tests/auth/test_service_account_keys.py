"""kube-apiserver's service-account key files as fakeapi reads them (``load_signing_keys``; the
refusals are kube-apiserver v1.35.4's words, taken from the binary), the tokens such keys sign,
and ``fakeapi serve``'s checks of the issuer and key flags. The differential proof against the
real server is tests/kasdiff/test_service_account_signing.py."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa, utils

from fakeapi.auth.serviceaccount_tokens import KeyFileError, TokenSigner, TokenError, load_signing_keys
from fakeapi.cli import serve
from fakeapi.cli.main import build_parser

ISSUER = "https://issuer.example.com"
PEM = serialization.Encoding.PEM
NO_PASSWORD = serialization.NoEncryption()


def _private(key: object, form: serialization.PrivateFormat) -> bytes:
    return key.private_bytes(PEM, form, NO_PASSWORD)  # type: ignore[attr-defined]


def _public(key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def _certificate(key: ec.EllipticCurvePrivateKey) -> bytes:
    import datetime

    name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "verifier")])
    now = datetime.datetime.now(datetime.UTC)
    return (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()).public_bytes(PEM))


def _write(directory: Path, name: str, data: bytes) -> Path:
    path = directory / name
    path.write_bytes(data)
    return path


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def test_key_files_in_every_form_kube_reads(tmp_path: Path) -> None:
    """A PKCS #1 signing key; key files holding a certificate, a PKIX public key, a SEC 1 EC key
    after its ``EC PARAMETERS`` block, an RSA private key, and a block that is no key (skipped):
    every key, in order."""
    signing = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    p256, p384 = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP384R1())
    parameters = b"-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
    keys = load_signing_keys(
        _write(tmp_path, "signing.key", _private(signing, serialization.PrivateFormat.TraditionalOpenSSL)),
        [_write(tmp_path, "a.pem", _certificate(p256) + _public(p384)),
         _write(tmp_path, "b.pem", parameters + _private(p256, serialization.PrivateFormat.TraditionalOpenSSL)
                + _private(signing, serialization.PrivateFormat.PKCS8))])
    assert [key.public_numbers() for key in keys.public_keys] == [
        key.public_key().public_numbers() for key in (p256, p384, p256, signing)]
    signer = TokenSigner((ISSUER,), keys)
    assert [(key["kty"], key["alg"]) for key in json.loads(signer.jwks)["keys"]] == [
        ("EC", "ES256"), ("EC", "ES384"), ("EC", "ES256"), ("RSA", "RS256")]
    assert json.loads(signer.openid_configuration("https://x/openid/v1/jwks"))[
        "id_token_signing_alg_values_supported"] == ["ES256", "ES384", "RS256"]


@pytest.mark.parametrize("curve, alg, digest", [(ec.SECP256R1(), "ES256", hashes.SHA256()),
                                                (ec.SECP384R1(), "ES384", hashes.SHA384()),
                                                (ec.SECP521R1(), "ES512", hashes.SHA512())])
def test_ec_signing_key(tmp_path: Path, curve: ec.EllipticCurve, alg: str, digest: hashes.HashAlgorithm) -> None:
    """An EC key signs with its curve's algorithm, a raw ``r || s``; the token verifies, and a
    tampered one does not."""
    key = ec.generate_private_key(curve)
    signer = TokenSigner((ISSUER, "second"), load_signing_keys(
        _write(tmp_path, "ec.key", _private(key, serialization.PrivateFormat.PKCS8)), []))
    token = signer.sign({"iss": "second", "sub": "x"})
    header, payload, signature = token.split(".")
    assert json.loads(_unb64(header))["alg"] == alg
    raw = _unb64(signature)
    size = len(raw) // 2
    der = utils.encode_dss_signature(int.from_bytes(raw[:size], "big"), int.from_bytes(raw[size:], "big"))
    key.public_key().verify(der, f"{header}.{payload}".encode(), ec.ECDSA(digest))
    verified = signer.verify(token)
    assert verified is not None and verified.claims["iss"] == "second"
    with pytest.raises(TokenError, match="^go-jose/go-jose: error in cryptographic primitive$"):
        signer.verify(f"{header}.{payload}.{signature[:-4]}AAAA")


def test_refusals_are_kubes(tmp_path: Path) -> None:
    p256 = ec.generate_private_key(ec.SECP256R1())
    good = _write(tmp_path, "good.key", _private(p256, serialization.PrivateFormat.TraditionalOpenSSL))
    bad = _write(tmp_path, "bad", b"not a key\n")
    pkcs8_ec = _write(tmp_path, "ec8.pem", _private(p256, serialization.PrivateFormat.PKCS8))
    p224 = _write(tmp_path, "p224.pem", _private(ec.generate_private_key(ec.SECP224R1()),
                                                 serialization.PrivateFormat.TraditionalOpenSSL))
    ed = _write(tmp_path, "ed.pem", _private(ed25519.Ed25519PrivateKey.generate(), serialization.PrivateFormat.PKCS8))
    cases = [
        (bad, [good], f"failed to parse service-account-issuer-key-file: error reading private key file {bad}: "
                      "data does not contain a valid RSA or ECDSA private key"),
        (good, [bad], f"error reading public key file {bad}: data does not contain any valid RSA or ECDSA public keys"),
        # Go's ParseECPrivateKey reads SEC 1 only: a PKCS #8 EC key is no public key of a key file.
        (good, [pkcs8_ec], f"error reading public key file {pkcs8_ec}: "
                           "data does not contain any valid RSA or ECDSA public keys"),
        (p224, [good], "failed to build token generator: could not generate signer for ECDSA keypair: "
                       "unknown private key curve, must be 256, 384, or 521"),
        (ed, [good], "failed to build token generator: unknown private key type ed25519.PrivateKey, "
                     "must be *rsa.PrivateKey, *ecdsa.PrivateKey, or jose.OpaqueSigner"),
        (good, [tmp_path / "nonexistent"], f"open {tmp_path / 'nonexistent'}: no such file or directory"),
    ]
    for signing, key_files, message in cases:
        with pytest.raises(KeyFileError) as refused:
            load_signing_keys(signing, key_files)
        assert str(refused.value) == message


def _serve_args(*argv: str) -> object:
    return build_parser(("serve",)).parse_args(["serve", *argv])


def test_serve_flags(tmp_path: Path) -> None:
    key = _write(tmp_path, "sa.key", _private(rsa.generate_private_key(public_exponent=65537, key_size=2048),
                                              serialization.PrivateFormat.PKCS8))
    issuers, keys = serve.service_account_signing(_serve_args())
    assert (issuers, keys) == (("https://kubernetes.default.svc.cluster.local",), None)
    issuers, keys = serve.service_account_signing(_serve_args(
        "--service-account-issuer", "https://a", "--service-account-issuer", "b", "--service-account-signing-key-file",
        str(key)))
    assert issuers == ("https://a", "b") and keys is not None and len(keys.public_keys) == 1
    for argv, message in [
        (("--service-account-issuer", "a", "--service-account-issuer", "a"),
         'fakeapi: service-account-issuer "a" is already specified'),
        (("--service-account-issuer", ""), "fakeapi: service-account-issuer should not be an empty string"),
        (("--service-account-key-file", str(key)),
         "fakeapi: --service-account-key-file needs --service-account-signing-key-file"),
        (("--service-account-signing-key-file", str(tmp_path / "none")), f"fakeapi: open {tmp_path / 'none'}: "
                                                                         "no such file or directory"),
    ]:
        with pytest.raises(SystemExit) as exited:
            serve.service_account_signing(_serve_args(*argv))
        assert str(exited.value) == message
