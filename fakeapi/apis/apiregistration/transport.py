"""The TLS side of kube-aggregator's transport to an APIService's server, shared by the proxy
(``fakeapi.http.proxy``) and the availability controller's discovery check: the server's
certificate verified against the APIService's ``caBundle`` (the system's roots without one), or
not at all (``insecureSkipTLSVerify``; the availability check never verifies), and the front
proxy's client certificate presented when the server has one (kube-apiserver's
``--proxy-client-cert-file``)."""

from __future__ import annotations

import base64
import binascii
import ssl
from pathlib import Path

#: The front proxy's client certificate and key files.
ClientFiles = tuple[Path, Path]


def backend_tls_context(ca_bundle: str, insecure: bool, client_files: ClientFiles | None) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif ca_bundle:
        try:
            context = ssl.create_default_context(cadata=base64.b64decode(ca_bundle).decode("ascii"))
        except (binascii.Error, UnicodeDecodeError, ssl.SSLError):
            pass  # kube's transport fails to verify the server then, as this one will
    if client_files is not None:
        context.load_cert_chain(*client_files)
    return context
