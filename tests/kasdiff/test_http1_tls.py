"""HTTP/1.1 over TLS on fakeapi (``fakeapi.http.http1``) and on the real kube-apiserver, spoken
byte by byte: what each answers (status line, framing, whether the connection ends) to pipelined
requests, ``Expect: 100-continue``, HTTP/1.0 with and without keep-alive, HEAD, an unknown
method, a malformed header and a body over the limit, refused before it is all read."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from urllib.parse import urlsplit

import orjson
import pytest
import yaml

from fakeapi.cluster.control_plane import KubeAPIServer
from fakeapi.kubeconfig import client_settings
from fakeapi.testing import ServerProcess

NS = "http1-tls"
CONFIGMAPS = f"/api/v1/namespaces/{NS}/configmaps"


class Server:
    """Where to connect and how: the address, the TLS context trusting the server, its token."""

    def __init__(self, url: str, context: ssl.SSLContext, token: str) -> None:
        parts = urlsplit(url)
        self.address = (parts.hostname or "127.0.0.1", parts.port or 443)
        self.context = context
        self.token = token

    def exchange(self, *requests: bytes, wait_continue: bool = False) -> tuple[list[bytes], bool]:
        """Sends ``requests`` in one write (the second after ``100 Continue`` with
        ``wait_continue``); returns each answer's status line and headers' names that frame it,
        and whether the server then ended the connection."""
        with socket.create_connection(self.address, timeout=10) as raw, \
                self.context.wrap_socket(raw, server_hostname=self.address[0]) as conn:
            file = conn.makefile("rb")
            answers: list[bytes] = []
            pending = [r.replace(b"{token}", self.token.encode()) for r in requests]
            conn.sendall(pending.pop(0) if wait_continue else b"".join(pending))
            if wait_continue:
                answers.append(file.readline().rstrip(b"\r\n"))
                assert file.readline() == b"\r\n"
                conn.sendall(b"".join(pending))
            for request in requests[1:] if wait_continue else requests:
                answers.append(_read_answer(file, request.startswith(b"HEAD ")))
            conn.settimeout(3)
            try:
                closed = file.read(1) == b""
            except (TimeoutError, ConnectionError, ssl.SSLError):
                closed = False
            return answers, closed


def _read_answer(file: object, head: bool) -> bytes:
    """One answer: its status line, its framing (``length`` or ``chunked``) and a close if it
    says so; its body (none for a HEAD) read and dropped."""
    status = file.readline().rstrip(b"\r\n")  # type: ignore[attr-defined]
    headers: dict[bytes, bytes] = {}
    while (line := file.readline()) not in (b"\r\n", b""):  # type: ignore[attr-defined]
        name, _, value = line.rstrip(b"\r\n").partition(b":")
        headers[name.strip().lower()] = value.strip().lower()
    framing = b"chunked" if headers.get(b"transfer-encoding") == b"chunked" else b"length" if b"content-length" in headers else b"none"
    if head:
        pass
    elif framing == b"length":
        file.read(int(headers[b"content-length"]))  # type: ignore[attr-defined]
    elif framing == b"chunked":
        while (size := int(file.readline().strip(), 16)):  # type: ignore[attr-defined]
            file.read(size + 2)  # type: ignore[attr-defined]
        file.readline()  # type: ignore[attr-defined]
    close = b" close" if headers.get(b"connection") == b"close" else b""
    return status + b" " + framing + close


@pytest.fixture(scope="module")
def servers(real_server: KubeAPIServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Server]]:
    with ServerProcess(tmp_path_factory.mktemp("fakeapi-tls"), "--tls", "--controllers", "") as fake:
        # Contexts of their own, offering HTTP/1.1 alone: the servers' shared ones may offer h2
        # (test_http2_bodies sets it on kube's).
        real_ca = yaml.safe_load(real_server.kubeconfig.read_text())["clusters"][0]["cluster"]["certificate-authority"]
        contexts = [client_settings(fake.kubeconfig)[1]["verify"], ssl.create_default_context(cafile=real_ca)]
        for context in contexts:
            context.set_alpn_protocols(["http/1.1"])
        token = fake.http.headers["Authorization"].removeprefix("Bearer ")
        pair = (Server(fake.url, contexts[0], token), Server(real_server.url, contexts[1], real_server.token))
        for server in pair:
            namespace = orjson.dumps({"metadata": {"name": NS}})
            server.exchange(b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(namespace), namespace))
        yield pair


def _get(path: str, extra: bytes = b"", version: bytes = b"1.1", method: bytes = b"GET") -> bytes:
    return b"%s %s HTTP/%s\r\nHost: x\r\nAuthorization: Bearer {token}\r\n%s\r\n" % (method, path.encode(), version, extra)


def _post(name: str, extra: bytes = b"", size: int = 0) -> tuple[bytes, bytes]:
    body = orjson.dumps({"metadata": {"name": name}, "data": {"x": "y" * size}})
    return (b"POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n%s\r\n" % (CONFIGMAPS.encode(), len(body), extra), body)


CASES = {
    "pipelined": lambda: ([_get(CONFIGMAPS), _get("/api/v1/namespaces/" + NS), _get(CONFIGMAPS + "/absent")], False),
    "connection-close": lambda: ([_get(CONFIGMAPS), _get(CONFIGMAPS, b"Connection: close\r\n")], False),
    "http-1.0": lambda: ([_get(CONFIGMAPS, version=b"1.0")], False),
    "http-1.0-keep-alive": lambda: ([_get(CONFIGMAPS, b"Connection: keep-alive\r\n", version=b"1.0")], False),
    "head": lambda: ([_get(CONFIGMAPS, method=b"HEAD"), _get(CONFIGMAPS)], False),
    "unknown-method": lambda: ([_get(CONFIGMAPS, method=b"FROBNICATE"), _get(CONFIGMAPS)], False),
    "malformed-header": lambda: ([_get(CONFIGMAPS, b"Bad Header\r\n")], False),
    "expect-continue": lambda: (list(_post("continued", b"Expect: 100-continue\r\n")), True),
    "refused-unread": lambda: ([b"".join(_post("big", size=4 * 2**20)), _get(CONFIGMAPS)], False),
}


@pytest.mark.parametrize("case", CASES)
def test_http1_over_tls_answers_as_kube(servers: tuple[Server, Server], case: str) -> None:
    requests, wait_continue = CASES[case]()
    fake, real = (server.exchange(*requests, wait_continue=wait_continue) for server in servers)
    assert fake == real
