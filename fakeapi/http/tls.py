"""The TLS of ``--tls``: the server's context (served by ``fakeapi.http.serving``), the protocol
chosen by ALPN, ``h2`` first as Go's servers offer it.

Client certificates are asked for, not required (kube's ``tls.RequestClientCert``), and verified
by the TLS handshake against the client CA; a certificate that does not verify fails the
handshake (kube completes it and answers 401: Python's ``ssl`` cannot ask for a certificate
without verifying it).
"""

from __future__ import annotations

import ssl
from collections.abc import Sequence
from pathlib import Path


def server_context(cert_file: Path, key_file: Path, client_ca_files: Sequence[Path]) -> ssl.SSLContext:
    """TLS 1.2+, ALPN h2 then http/1.1, client certificates asked for and verified against the
    client CAs."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.options |= ssl.OP_NO_COMPRESSION  # RFC 7540 9.2.1
    context.set_alpn_protocols(["h2", "http/1.1"])
    context.load_cert_chain(cert_file, key_file)
    if client_ca_files:
        for ca_file in client_ca_files:
            context.load_verify_locations(ca_file)
        context.verify_mode = ssl.CERT_OPTIONAL
    return context
