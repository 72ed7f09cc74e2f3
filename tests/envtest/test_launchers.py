"""What ``fakeapi envtest``'s executables make of their command lines without a server: the
kube-apiserver flags translated to ``fakeapi serve``'s (and the notes on what fakeapi does not do),
and the etcd's health responder, against the real etcd's."""

from __future__ import annotations

import http.client
import select
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fakeapi.cli.envtest import FlagError, parse_kube_flags, serve_arguments, write_assets
from fakeapi.cli.envtest_etcd import etcd_client_urls
from fakeapi.cluster.control_plane import kube_binaries
from fakeapi.http.pki import issue, new_ca


def _option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_envtests_command_line(tmp_path: Path) -> None:
    """envtest's defaults: its serving pair and client CA, RBAC, ServiceAccount off, no
    controller-manager controllers; the flags without effect named in one note."""
    (tmp_path / "apiserver.crt").write_text("")
    (tmp_path / "apiserver.key").write_text("")
    flags = parse_kube_flags([
        "--advertise-address=127.0.0.1", "--allow-privileged=true", "--authorization-mode=RBAC",
        "--bind-address=127.0.0.1", f"--cert-dir={tmp_path}", f"--client-ca-file={tmp_path}/ca.crt",
        "--disable-admission-plugins=ServiceAccount", "--etcd-servers=http://127.0.0.1:2379", "--secure-port=43211",
        "--service-account-issuer=https://127.0.0.1:43211/", f"--service-account-key-file={tmp_path}/sa-signer.crt",
        f"--service-account-signing-key-file={tmp_path}/sa-signer.key", "--service-cluster-ip-range=10.0.0.0/24"])
    argv, notes = serve_arguments(flags, tmp_path / "fakeapi")
    assert (_option(argv, "--host"), _option(argv, "--port")) == ("127.0.0.1", "43211")
    assert _option(argv, "--tls-cert-file") == str(tmp_path / "apiserver.crt")
    assert _option(argv, "--tls-private-key-file") == str(tmp_path / "apiserver.key")
    assert _option(argv, "--client-ca-file") == f"{tmp_path}/ca.crt"
    assert _option(argv, "--authorization-mode") == "RBAC"
    assert _option(argv, "--disable-admission-plugins") == "ServiceAccount"
    assert _option(argv, "--controllers") == ""
    assert _option(argv, "--service-account-issuer") == "https://127.0.0.1:43211/"
    assert _option(argv, "--service-account-key-file") == f"{tmp_path}/sa-signer.crt"
    assert _option(argv, "--service-account-signing-key-file") == f"{tmp_path}/sa-signer.key"
    assert _option(argv, "--cert-dir") == str(tmp_path / "fakeapi" / "pki")
    assert _option(argv, "--own-ca") == "false"  # envtest's serving pair and client CA alone, as kube's
    assert notes == ["accepted, no effect in fakeapi: --advertise-address --allow-privileged"]


def test_kubes_defaults_and_what_fakeapi_does_not_do(tmp_path: Path) -> None:
    flags = parse_kube_flags(["--authorization-mode", "Node,RBAC", "--service-cluster-ip-range", "10.96.0.0/12",
                              "--anonymous-auth=false", "--enable-garbage-collector=false", "-v", "4",
                              f"--cert-dir={tmp_path}"])
    argv, notes = serve_arguments(flags, tmp_path / "fakeapi")
    assert (_option(argv, "--host"), _option(argv, "--port")) == ("0.0.0.0", "6443")
    assert "--tls-cert-file" not in argv  # no apiserver.crt: fakeapi's CA signs its serving certificate
    assert "--own-ca" not in argv
    assert _option(argv, "--authorization-mode") == "RBAC"
    assert _option(argv, "--anonymous-auth") == "false"
    assert "--no-enable-garbage-collector" in argv
    assert notes == ["authorization modes Node are not served: authorizing with RBAC",
                     "--service-cluster-ip-range 10.96.0.0/12: fakeapi allocates from 10.0.0.0/24",
                     "accepted, no effect in fakeapi: --v"]


def test_repeated_flags_keep_every_value() -> None:
    flags = parse_kube_flags(["--client-ca-file=a", "--client-ca-file", "b", "--enable-admission-plugins=A,B",
                              "--enable-admission-plugins=C", "--service-account-issuer=https://a",
                              "--service-account-issuer=https://b,c", "--service-account-key-file=k1",
                              "--service-account-key-file=k2,k3", "--service-account-signing-key-file=s1",
                              "--service-account-signing-key-file=s2"])
    argv, _ = serve_arguments(flags, Path("/nonexistent"))

    def values(name: str) -> list[str]:
        return [argv[i + 1] for i, arg in enumerate(argv) if arg == name]
    assert values("--client-ca-file") == ["a", "b"]
    # stringArray flags: every occurrence, commas kept; a string flag: the last.
    assert values("--service-account-issuer") == ["https://a", "https://b,c"]
    assert values("--service-account-key-file") == ["k1", "k2,k3"]
    assert values("--service-account-signing-key-file") == ["s2"]
    assert _option(argv, "--enable-admission-plugins") == "A,B,C"


@pytest.mark.parametrize("argv, message", [
    (["--version=maybe"], None),
    (["--secure-port=0x10"], None),
    (["--secure-port=1.5"], 'invalid argument "1.5" for "--secure-port" flag: strconv.ParseInt: parsing "1.5": '
                            "invalid syntax"),
    (["-v"], "flag needs an argument: 'v' in -v"),
])
def test_flag_values(argv: list[str], message: str | None) -> None:
    """pflag's checks of values: Go's base-0 integers, a ``version`` flag's free value."""
    if message is None:
        parse_kube_flags(argv)
    else:
        with pytest.raises(FlagError, match=f"^{message}$".replace("(", r"\(").replace(")", r"\)")):
            parse_kube_flags(argv)


def test_etcd_client_urls() -> None:
    assert etcd_client_urls([]) == ["http://localhost:2379"]
    assert etcd_client_urls(["--listen-client-urls=http://127.0.0.1:1,http://127.0.0.1:2"]) == [
        "http://127.0.0.1:1", "http://127.0.0.1:2"]
    assert etcd_client_urls(["-listen-client-urls", "http://127.0.0.1:3", "--data-dir=x"]) == ["http://127.0.0.1:3"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _answers(port: int, process: subprocess.Popen[bytes]) -> list[tuple[int, str | None, bytes]]:
    """Status, Content-Type and body of GET /health and GET /v2/keys, once the port answers."""
    deadline = time.monotonic() + 30
    answers = []
    for path in ("/health", "/v2/keys"):
        while True:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.05)
        answers.append((response.status, response.getheader("Content-Type"), response.read()))
    return answers


def test_kube_apiserver_listens_before_it_loads_the_server(tmp_path: Path) -> None:
    """envtest polls the kube-apiserver's health every 100 ms: a poll that connects while the
    server loads (before it says it listens) is answered once the server is ready, on that very
    connection, not refused."""
    ca = new_ca("envtest-ca")
    serving = issue(ca, "apiserver", hosts=["127.0.0.1"])
    (tmp_path / "apiserver.crt").write_bytes(serving.certificate_pem)
    (tmp_path / "apiserver.key").write_bytes(serving.key_pem)
    write_assets(tmp_path / "assets", None)
    port = _free_port()
    process = subprocess.Popen([str(tmp_path / "assets" / "kube-apiserver"), f"--cert-dir={tmp_path}",
                                "--bind-address=127.0.0.1", f"--secure-port={port}"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=60)
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.005)
        assert process.stdout is not None
        said_listening = select.select([process.stdout], [], [], 0)[0]
        assert not said_listening, "the server listened before the connection was made"
        context = ssl.create_default_context(cafile=None, cadata=ca.certificate_pem.decode())
        context.set_alpn_protocols(["http/1.1"])
        connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=60)
        connection.sock = context.wrap_socket(sock, server_hostname="127.0.0.1")
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        assert (response.status, response.read()) == (200, b"ok")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def test_etcd_answers_health_as_etcd_and_stops_on_sigterm(tmp_path: Path) -> None:
    real_port, port = _free_port(), _free_port()
    real = subprocess.Popen([str(kube_binaries("etcd") / "etcd"), f"--listen-client-urls=http://127.0.0.1:{real_port}",
                             f"--advertise-client-urls=http://127.0.0.1:{real_port}",
                             f"--listen-peer-urls=http://127.0.0.1:{_free_port()}", f"--data-dir={tmp_path}/etcd"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    etcd = subprocess.Popen([sys.executable, "-m", "fakeapi.cli.envtest_etcd",
                             f"--listen-client-urls=http://127.0.0.1:{port}", "--data-dir=/nonexistent"])
    try:
        assert _answers(port, etcd) == _answers(real_port, real)
        etcd.send_signal(signal.SIGTERM)
        assert etcd.wait(5) == 0
    finally:
        for process in (real, etcd):
            process.kill()
            process.wait()


def test_etcd_stops_on_sigterm_without_waiting_out_its_poll() -> None:
    """envtest's stop waits for the process: SIGTERM ends its wait for a connection at once
    (the poll made a minute long here, which the test would wait out otherwise)."""
    port = _free_port()
    etcd = subprocess.Popen([sys.executable, "-c", "import sys; from fakeapi.cli import envtest_etcd as e; "
                             "e.PARENT_POLL = 60; sys.exit(e.run_etcd(sys.argv[1:]))",
                             f"--listen-client-urls=http://127.0.0.1:{port}"])
    try:
        _answers(port, etcd)
        etcd.send_signal(signal.SIGTERM)
        assert etcd.wait(10) == 0
    finally:
        etcd.kill()
        etcd.wait()


@pytest.mark.parametrize(("name", "module", "argv"), [
    ("kube-apiserver", ["fakeapi.cli.envtest", "kube-apiserver"], argv) for argv in
    (["--help"], ["-h"], ["--version"], ["--version=false", "--nope"], ["--help", "--nope"])
] + [
    ("etcd", ["fakeapi.cli.envtest_etcd"], argv) for argv in
    (["--help"], ["-h"], ["-help"], ["--version"], ["-version"], ["--version", "--data-dir=x"])
], ids=repr)
def test_launchers_answer_as_the_python_module(name: str, module: list[str], argv: list[str], tmp_path: Path) -> None:
    """The texts a launcher answers itself (a command line of ``--help`` or ``--version`` alone),
    and the ones it leaves to Python, are the Python module's, byte for byte, exit code too."""
    write_assets(tmp_path, None)

    def answer(command: list[str]) -> tuple[int, str, str]:
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return result.returncode, result.stdout, result.stderr

    assert answer([str(tmp_path / name), *argv]) == answer([sys.executable, "-m", *module, *argv])
