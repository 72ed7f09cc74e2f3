"""The real Kubernetes control plane, next to fakeapi: etcd v3.6.6, kube-apiserver,
kube-controller-manager and kube-scheduler v1.35.4 as built by ``scripts/build-kube.sh``.

The real kube-apiserver is the judge of fakeapi's answers (``tests/kasdiff``, the benchmarks);
the real controller-manager and scheduler run against fakeapi (``fakeapi cluster``, tests). Every
process listens on loopback only, on free ports, is stopped by whoever started it, and dies with
it (``fakeapi.cluster.processes``).

kube-apiserver runs the way envtest runs it: HTTPS with a self-signed CA, a static bearer token in
``system:masters``, ``--authorization-mode=AlwaysAllow``, service-account signing keys, and the
``ServiceAccount`` admission plugin off (nobody creates the ``default`` ServiceAccount without a
controller-manager, and the plugin would reject every pod). The other admission plugins stay on:
fakeapi emulates the ones that change what is stored.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import secrets
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx

from ..auth.authentication import ADMIN
from ..kubeconfig import write_kubeconfig
from .processes import spawn, stop_all

KUBE_VERSION = "v1.35.4"
ETCD_VERSION = "v3.6.6"
#: How long a component gets to report healthy (kube-apiserver: ~3 s here; more on a busy machine).
START_TIMEOUT = 120.0
#: How long the components of one stop get, together, to exit on SIGTERM before SIGKILL.
STOP_GRACE = 15.0
_BUILD_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build-kube.sh"


class ControlPlaneError(RuntimeError):
    """A binary could not be built or a component did not become healthy; carries its log."""


def kube_binaries(*names: str) -> Path:
    """The directory holding the named binaries (``kube-apiserver``, ``etcd``, ...), built by
    ``scripts/build-kube.sh`` when missing or stale (seconds with a warm Go build cache)."""
    if not _BUILD_SCRIPT.exists():
        override = os.environ.get("FAKEAPI_KUBE_BIN")
        if override and all((Path(override) / name).exists() for name in names):
            return Path(override)
        raise ControlPlaneError(f"{_BUILD_SCRIPT} is missing (fakeapi is not run from its source tree): "
                                "set FAKEAPI_KUBE_BIN to a directory holding the binaries")
    go_path = os.pathsep.join((os.environ.get("PATH", ""), "/usr/local/go/bin"))
    result = subprocess.run(["bash", str(_BUILD_SCRIPT), *names], capture_output=True, text=True,
                            env={**os.environ, "PATH": go_path})
    if result.returncode != 0:
        raise ControlPlaneError(f"scripts/build-kube.sh {' '.join(names)} failed:\n{result.stderr[-4000:]}")
    return Path(result.stdout.strip().splitlines()[-1])


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Component:
    """One process of the control plane, its output in ``<workdir>/<name>.log``."""

    name = ""
    #: How often ``_wait_healthy`` asks (a benchmark timing a start asks more often).
    health_poll_interval = 0.1

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = workdir / f"{self.name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def _launch(self, argv: Sequence[str]) -> None:
        with self.log_path.open("ab") as log:
            # A session of its own: a Ctrl-C meant for the parent does not hit the component first.
            self.process = spawn(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True)

    def log_tail(self, lines: int = 40) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def _wait_healthy(self, url: str, *, verify: ssl.SSLContext | bool = False,
                      headers: dict[str, str] | None = None) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        with httpx.Client(verify=verify, timeout=2.0, headers=headers) as client:
            while time.monotonic() < deadline:
                assert self.process is not None
                if self.process.poll() is not None:
                    raise ControlPlaneError(f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}")
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(url).status_code == 200:
                        return
                time.sleep(self.health_poll_interval)
        self.stop()
        raise ControlPlaneError(f"{self.name} was not healthy at {url} within {START_TIMEOUT:.0f} s:\n{self.log_tail()}")

    def close_clients(self) -> None:
        """Close the clients this object holds (none here); ``stop_components`` stops the process."""

    def stop(self) -> None:
        stop_components([self])

    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def stop_components(components: Sequence[Component], grace: float = STOP_GRACE) -> list[float]:
    """Stop ``components`` at once (``stop_all``: SIGTERM to each, one shared ``grace``, SIGKILL
    to the rest) and close their clients; the seconds each took to end, 0 for one stopped already."""
    processes = [component.process for component in components]
    for component in components:
        component.process = None
    try:
        for component in components:
            component.close_clients()
    finally:
        took = stop_all([process for process in processes if process is not None], grace)
    ended = iter(took)
    return [0.0 if process is None else next(ended) for process in processes]


class Etcd(Component):
    """A one-member etcd v3.6.6 on loopback, its data in ``workdir`` (tmpfs is best), no fsync:
    tests and benchmarks measure the API server, not the disk. As a member of a cluster
    (``EtcdCluster``) it gets its name, peer URL and the cluster's members, and is not waited
    for: a member is healthy only once a quorum runs."""

    name = "etcd"

    def __init__(self, workdir: Path, *extra_args: str, fsync: bool = False, member: str = "fakeapi-oracle",
                 peer_url: str = "", initial_cluster: str = "") -> None:
        super().__init__(workdir)
        self.client_url = f"http://127.0.0.1:{free_port()}"
        peer_url = peer_url or f"http://127.0.0.1:{free_port()}"
        binary = kube_binaries("etcd") / "etcd"
        self._launch([
            str(binary), "--name", member, "--data-dir", str(workdir / "etcd-data"),
            "--listen-client-urls", self.client_url, "--advertise-client-urls", self.client_url,
            "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
            "--initial-cluster", initial_cluster or f"{member}={peer_url}", "--log-level", "warn",
            *(() if fsync else ("--unsafe-no-fsync",)), *extra_args,
        ])
        if not initial_cluster:
            self.wait_healthy()

    def wait_healthy(self) -> None:
        self._wait_healthy(f"{self.client_url}/health")


class EtcdCluster:
    """A real etcd v3.6.6 cluster of ``size`` members on loopback (each member's data and log in
    ``workdir/<member>``), started together and healthy once they elected a leader."""

    def __init__(self, workdir: Path, size: int = 3) -> None:
        peers = {f"member-{i}": f"http://127.0.0.1:{free_port()}" for i in range(size)}
        initial = ",".join(f"{name}={url}" for name, url in peers.items())
        self.members: list[Etcd] = []
        try:
            for name, url in peers.items():
                self.members.append(Etcd(workdir / name, member=name, peer_url=url, initial_cluster=initial))
            for member in self.members:
                member.wait_healthy()
        except BaseException:
            self.stop()
            raise
        self.client_urls = [member.client_url for member in self.members]

    def stop(self) -> None:
        stop_components(self.members)

    def __enter__(self) -> EtcdCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Certificates:
    """A self-signed CA and a serving certificate for 127.0.0.1/localhost signed by it, plus an
    RSA key pair for service-account tokens; PEM files in ``directory``."""

    def __init__(self, directory: Path) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, rsa
        from cryptography.x509.oid import NameOID

        directory.mkdir(parents=True, exist_ok=True)
        now = datetime.datetime.now(datetime.UTC)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fakeapi-oracle-ca")])
        ca_cert = (
            x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
            .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=7))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .sign(ca_key, hashes.SHA256())
        )
        serving_key = ec.generate_private_key(ec.SECP256R1())
        serving_cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
            .issuer_name(ca_name).public_key(serving_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=7))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
            ]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        account_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

        def key_pem(key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> bytes:
            return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption())

        self.ca = directory / "ca.crt"
        self.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
        self.serving_cert = directory / "serving.crt"
        self.serving_cert.write_bytes(serving_cert.public_bytes(serialization.Encoding.PEM))
        self.serving_key = directory / "serving.key"
        self.serving_key.write_bytes(key_pem(serving_key))
        self.service_account_key = directory / "sa.key"
        self.service_account_key.write_bytes(key_pem(account_key))
        self.service_account_public_key = directory / "sa.pub"
        self.service_account_public_key.write_bytes(account_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))


class KubeAPIServer(Component):
    """The real kube-apiserver v1.35.4 over ``etcd_servers``, configured as envtest configures it
    (see the module docstring). ``url``, ``token`` and ``kubeconfig`` are what clients use;
    ``http`` is an ``httpx.Client`` already authenticated. ``authorization_mode`` replaces
    AlwaysAllow (``RBAC``); ``token_lines`` are more users of the static token file
    (``token,user,uid,"group1,group2"``); ``disabled_admission_plugins`` replaces
    ``ServiceAccount`` as the plugins turned off (comma-separated; "" runs kube's defaults)."""

    name = "kube-apiserver"

    def __init__(self, workdir: Path, etcd_servers: str, *extra_args: str,
                 etcd_prefix: str = "/registry", authorization_mode: str = "AlwaysAllow",
                 token_lines: Sequence[str] = (), disabled_admission_plugins: str = "ServiceAccount") -> None:
        super().__init__(workdir)
        self.etcd_servers = etcd_servers
        self.certificates = Certificates(workdir / "pki")
        self.token = secrets.token_hex(16)
        tokens = workdir / "tokens.csv"
        # The administrator fakeapi answers every request as (``fakeapi.registry.authentication``).
        tokens.write_text("".join(f"{line}\n" for line in (
            f'{self.token},{ADMIN.name},{ADMIN.uid},"{",".join(ADMIN.groups)}"', *token_lines)))
        port = free_port()
        self.url = f"https://127.0.0.1:{port}"
        binary = kube_binaries("kube-apiserver") / "kube-apiserver"
        certificates = self.certificates
        self._launch([
            str(binary), f"--etcd-servers={etcd_servers}", f"--etcd-prefix={etcd_prefix}",
            "--bind-address=127.0.0.1", f"--secure-port={port}", f"--cert-dir={workdir / 'pki'}",
            f"--tls-cert-file={certificates.serving_cert}", f"--tls-private-key-file={certificates.serving_key}",
            f"--client-ca-file={certificates.ca}", f"--token-auth-file={tokens}",
            f"--authorization-mode={authorization_mode}",
            f"--service-account-issuer={self.url}",
            f"--service-account-key-file={certificates.service_account_public_key}",
            f"--service-account-signing-key-file={certificates.service_account_key}",
            "--service-cluster-ip-range=10.0.0.0/24", f"--disable-admission-plugins={disabled_admission_plugins}",
            "--allow-privileged=true", "--v=0", *extra_args,
        ])
        self.ssl_context = ssl.create_default_context(cafile=str(certificates.ca))
        self._wait_healthy(f"{self.url}/readyz", verify=self.ssl_context,
                           headers={"Authorization": f"Bearer {self.token}"})
        self.kubeconfig = workdir / "kubeconfig"
        write_kubeconfig(self.kubeconfig, self.url, token=self.token, ca_file=certificates.ca)
        self.http = httpx.Client(base_url=self.url, verify=self.ssl_context, timeout=30,
                                 headers={"Authorization": f"Bearer {self.token}"})

    def close_clients(self) -> None:
        if getattr(self, "http", None) is not None:
            self.http.close()


class ControllerManager(Component):
    """The real kube-controller-manager v1.35.4 against the API server of ``kubeconfig``.

    Its own HTTPS endpoint serves only health (``/healthz`` is always allowed; no delegated
    authentication round trips to the API server). ``controllers`` is its ``--controllers`` list;
    with ``service_account_key`` the service-account token controller signs with it."""

    name = "kube-controller-manager"

    def __init__(self, workdir: Path, kubeconfig: Path, *extra_args: str, controllers: str = "*",
                 service_account_key: Path | None = None, leader_elect: bool = True) -> None:
        super().__init__(workdir)
        port = free_port()
        binary = kube_binaries("kube-controller-manager") / "kube-controller-manager"
        key_args = [f"--service-account-private-key-file={service_account_key}"] if service_account_key else []
        self._launch([
            str(binary), f"--kubeconfig={kubeconfig}", f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}", "--authentication-skip-lookup=true",
            "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
            "--bind-address=127.0.0.1", f"--secure-port={port}", f"--cert-dir={workdir / 'kcm-certs'}",
            f"--controllers={controllers}", f"--leader-elect={str(leader_elect).lower()}",
            "--use-service-account-credentials=false", *key_args, "--v=1", *extra_args,
        ])
        #: Its own endpoint: ``/healthz``, and ``/metrics`` (workqueues, client requests) without credentials.
        self.url = f"https://127.0.0.1:{port}"
        self._wait_healthy(f"{self.url}/healthz")


class Scheduler(Component):
    """The real kube-scheduler v1.35.4 against the API server of ``kubeconfig``."""

    name = "kube-scheduler"

    def __init__(self, workdir: Path, kubeconfig: Path, *extra_args: str, leader_elect: bool = True) -> None:
        super().__init__(workdir)
        port = free_port()
        binary = kube_binaries("kube-scheduler") / "kube-scheduler"
        self._launch([
            str(binary), f"--kubeconfig={kubeconfig}", f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}", "--authentication-skip-lookup=true",
            "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
            "--bind-address=127.0.0.1", f"--secure-port={port}", f"--cert-dir={workdir / 'scheduler-certs'}",
            f"--leader-elect={str(leader_elect).lower()}", "--v=1", *extra_args,
        ])
        self.url = f"https://127.0.0.1:{port}"
        self._wait_healthy(f"{self.url}/healthz")


@contextlib.contextmanager
def real_apiserver(workdir: Path, *extra_args: str, authorization_mode: str = "AlwaysAllow") -> Iterator[KubeAPIServer]:
    """etcd + kube-apiserver, both stopped on exit."""
    with Etcd(workdir / "etcd") as etcd, \
            KubeAPIServer(workdir / "apiserver", etcd.client_url, *extra_args, authorization_mode=authorization_mode) as api:
        yield api


def kubectl_binary() -> Path:
    """kubectl v1.35.4 (the machine's kubectl may be older), built like the rest."""
    return kube_binaries("kubectl") / "kubectl"


__all__ = [
    "Certificates", "ControlPlaneError", "ControllerManager", "Etcd", "KubeAPIServer", "Scheduler",
    "free_port", "kube_binaries", "kubectl_binary", "real_apiserver", "stop_components", "write_kubeconfig",
]
