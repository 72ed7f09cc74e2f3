"""The certificates a TLS server needs, made with ``cryptography``: a self-signed CA, a serving
certificate for the names clients dial, and client certificates (common name = user,
organizations = groups, as kube-apiserver's x509 authenticator reads them); and the front
proxy's CA and client certificate, which aggregated API servers recognise. Keys are ECDSA P-256:
quick to make, and every Kubernetes client speaks them.

``ServerCertificates.in_directory`` keeps them as PEM files and reuses them across restarts: a
kubeconfig written once (or a CA a user trusted) stays valid. Only what is missing, expiring or
no longer right is made again: a serving certificate that does not cover the names asked for, or
anything the CA did not sign (a new CA invalidates everything it signed).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

#: How long what is made here is valid, and how long before its end it is made again.
VALIDITY = datetime.timedelta(days=365)
RENEW_BEFORE = datetime.timedelta(days=7)
#: Clocks of clients a little behind ours still accept a certificate made just now.
BACKDATE = datetime.timedelta(minutes=5)

PrivateKey = ec.EllipticCurvePrivateKey


@dataclass(frozen=True, slots=True)
class KeyPair:
    certificate: x509.Certificate
    key: PrivateKey

    @property
    def certificate_pem(self) -> bytes:
        return self.certificate.public_bytes(serialization.Encoding.PEM)

    @property
    def key_pem(self) -> bytes:
        return self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption())


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def new_ca(common_name: str) -> KeyPair:
    """A self-signed CA."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = _now()
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE).not_valid_after(now + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return KeyPair(certificate, key)


def issue(ca: KeyPair, common_name: str, *, organizations: Sequence[str] = (), hosts: Sequence[str] = (),
          client: bool = False) -> KeyPair:
    """A certificate signed by ``ca``: for serving ``hosts`` (DNS names and IP addresses), or
    with ``client`` for authenticating as ``common_name`` in ``organizations``."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([*(x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations),
                         x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = _now()
    builder = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(ca.certificate.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE).not_valid_after(min(now + VALIDITY, ca.certificate.not_valid_after_utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=False, key_cert_sign=False,
                                     crl_sign=False, content_commitment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH if client
                                              else ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.key.public_key()), critical=False)
    )
    if hosts:
        builder = builder.add_extension(x509.SubjectAlternativeName([_general_name(h) for h in hosts]), critical=False)
    return KeyPair(builder.sign(ca.key, hashes.SHA256()), key)


def _general_name(host: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def _covers(certificate: x509.Certificate, hosts: Sequence[str]) -> bool:
    try:
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return not hosts
    have = {*(str(ip) for ip in names.get_values_for_type(x509.IPAddress)), *names.get_values_for_type(x509.DNSName)}
    return all(str(_general_name(host).value) in have for host in hosts)


def _signed_by(certificate: x509.Certificate, ca: x509.Certificate) -> bool:
    try:
        certificate.verify_directly_issued_by(ca)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def _fresh(certificate: x509.Certificate) -> bool:
    return certificate.not_valid_after_utc - RENEW_BEFORE > _now()


def _read(certificate_file: Path, key_file: Path) -> KeyPair | None:
    """The pair in these files, or None if either is missing or unreadable as PEM."""
    try:
        certificate = x509.load_pem_x509_certificate(certificate_file.read_bytes())
        key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    except (OSError, ValueError):
        return None
    return KeyPair(certificate, key) if isinstance(key, ec.EllipticCurvePrivateKey) else None


def _write(pair: KeyPair, certificate_file: Path, key_file: Path) -> None:
    """Both files, each replaced whole (a reader never sees half of one); keys readable by the
    owner only."""
    for path, data, mode in ((key_file, pair.key_pem, 0o600), (certificate_file, pair.certificate_pem, 0o644)):
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(tmp, path)


#: The front proxy's client certificate's name (kubeadm's), which aggregated servers allow.
FRONT_PROXY_CLIENT = "front-proxy-client"


def _kept_ca(directory: Path, stem: str, common_name: str) -> KeyPair:
    """The CA in ``<stem>.crt``/``.key``, made again when missing or expiring."""
    ca = _read(directory / f"{stem}.crt", directory / f"{stem}.key")
    if ca is None or not _fresh(ca.certificate):
        ca = new_ca(common_name)
        _write(ca, directory / f"{stem}.crt", directory / f"{stem}.key")
    return ca


def _kept_client(directory: Path, stem: str, ca: KeyPair, common_name: str, organizations: Sequence[str]) -> KeyPair:
    """The client pair in ``<stem>.crt``/``.key``, made again when missing, expiring, not signed
    by ``ca`` or not for this user."""
    client = _read(directory / f"{stem}.crt", directory / f"{stem}.key")
    subject = client.certificate.subject if client is not None else None
    wanted = [*(x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations),
              x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if client is None or not (_fresh(client.certificate) and _signed_by(client.certificate, ca.certificate)
                              and list(subject or ()) == wanted):
        client = issue(ca, common_name, organizations=organizations, client=True)
        _write(client, directory / f"{stem}.crt", directory / f"{stem}.key")
    return client


@dataclass(frozen=True, slots=True)
class ServerCertificates:
    """The files of one server's PKI: its CA, its serving pair, the administrator's client pair
    (what a kubeconfig with ``--kubeconfig-auth cert`` carries), and the front proxy's CA and
    client pair, which the server presents to aggregated API servers (kube-apiserver's
    ``--proxy-client-cert-file``; the CA is its ``--requestheader-client-ca-file``, which they
    read from ``extension-apiserver-authentication``)."""

    directory: Path
    ca: KeyPair
    serving: KeyPair
    admin: KeyPair
    front_proxy_ca: KeyPair
    front_proxy_client: KeyPair

    @property
    def ca_file(self) -> Path:
        return self.directory / "ca.crt"

    @property
    def serving_cert_file(self) -> Path:
        return self.directory / "serving.crt"

    @property
    def serving_key_file(self) -> Path:
        return self.directory / "serving.key"

    @property
    def front_proxy_client_files(self) -> tuple[Path, Path]:
        """The front proxy's client certificate and key files."""
        return self.directory / "front-proxy-client.crt", self.directory / "front-proxy-client.key"

    @classmethod
    def in_directory(cls, directory: Path, hosts: Sequence[str], admin: str,
                     admin_groups: Sequence[str]) -> ServerCertificates:
        """The certificates in ``directory``, made (or made again) where needed: the serving
        certificate covers ``hosts``, the admin's is for ``admin`` in ``admin_groups``."""
        directory.mkdir(parents=True, exist_ok=True)
        ca = _kept_ca(directory, "ca", "fakeapi-ca")
        serving = _read(directory / "serving.crt", directory / "serving.key")
        if serving is None or not (_fresh(serving.certificate) and _signed_by(serving.certificate, ca.certificate)
                                   and _covers(serving.certificate, hosts)):
            serving = issue(ca, "fakeapi", hosts=hosts)
            _write(serving, directory / "serving.crt", directory / "serving.key")
        client = _kept_client(directory, "admin", ca, admin, admin_groups)
        front_proxy_ca = _kept_ca(directory, "front-proxy-ca", "fakeapi-front-proxy-ca")
        front_proxy_client = _kept_client(directory, "front-proxy-client", front_proxy_ca, FRONT_PROXY_CLIENT, ())
        return cls(directory, ca, serving, client, front_proxy_ca, front_proxy_client)

    def extension_apiserver_authentication(self, client_ca_pems: Sequence[bytes]) -> dict[str, str]:
        """``kube-system/extension-apiserver-authentication``'s data as kube-apiserver publishes
        it with kubeadm's flags: the CAs of client certificates (``client_ca_pems``), and how an
        aggregated server recognises this server's proxied requests (its front proxy's CA, the
        client's name, the X-Remote-* headers)."""
        return {
            "client-ca-file": "".join(pem.decode() for pem in client_ca_pems),
            "requestheader-allowed-names": f'["{FRONT_PROXY_CLIENT}"]',
            "requestheader-client-ca-file": self.front_proxy_ca.certificate_pem.decode(),
            "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]',
            "requestheader-group-headers": '["X-Remote-Group"]',
            "requestheader-username-headers": '["X-Remote-User"]',
        }
