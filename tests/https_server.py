"""HTTPS servers on 127.0.0.1 for tests (webhooks, aggregated API servers): a certificate of a
throwaway CA of their own, a thread per request."""

from __future__ import annotations

import ssl
import tempfile
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fakeapi.http.pki import KeyPair, issue, new_ca


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 without a log line per request; ``send`` answers with a whole body."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def send(self, code: int, body: bytes, content_type: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def https_server(handler: type[BaseHTTPRequestHandler], ca_name: str, hosts: Sequence[str],
                 port: int = 0, client_ca_pem: str = "") -> tuple[ThreadingHTTPServer, KeyPair]:
    """A server (not yet serving) of ``handler`` on ``port`` (0: a free one) with a certificate
    for ``hosts``, and the CA that signed it; with ``client_ca_pem``, clients must present a
    certificate that CA signed."""
    ca = new_ca(ca_name)
    pair = issue(ca, "127.0.0.1", hosts=hosts)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as directory:  # the context reads the files at once
        cert, key = Path(directory) / "tls.crt", Path(directory) / "tls.key"
        cert.write_bytes(pair.certificate_pem)
        key.write_bytes(pair.key_pem)
        context.load_cert_chain(cert, key)
    if client_ca_pem:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(cadata=client_ca_pem)
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    # The handshake in the request's thread, not in accept: a test that stops the server from
    # the event loop its client runs on would wait for a handshake that loop cannot make.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    return server, ca
