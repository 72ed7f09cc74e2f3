"""Kubeconfigs: writing the one a server hands its clients, and reading one back: its current
context's server URL, and the arguments an ``httpx`` client needs to reach it as that context's
user (the bearer token or the client certificate, and the CA that verifies the server)."""

from __future__ import annotations

import base64
import os
import ssl
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from .auth.authentication import ADMIN_TOKEN

if TYPE_CHECKING:  # the certificates' module loads cryptography's x509, which a plain start does without
    from .http.pki import KeyPair


class KubeconfigError(ValueError):
    """A kubeconfig that is not YAML."""


def client_settings(kubeconfig: Path) -> tuple[str, dict[str, Any]]:
    """(server URL, ``httpx.Client`` keyword arguments) of ``kubeconfig``'s current context."""
    import yaml  # a client's: a server's start writes its kubeconfig without PyYAML (~7 ms)

    try:
        config = yaml.safe_load(kubeconfig.read_text())
    except yaml.YAMLError as err:
        raise KubeconfigError(str(err)) from None
    context = next(c["context"] for c in config["contexts"] if c["name"] == config["current-context"])
    cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
    user = next(u["user"] for u in config["users"] if u["name"] == context["user"])
    arguments: dict[str, Any] = {}
    if user.get("token"):
        arguments["headers"] = {"Authorization": f"Bearer {user['token']}"}
    if "certificate-authority-data" in cluster:
        context_ssl = ssl.create_default_context(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
        if "client-certificate-data" in user:
            _load_client_certificate(context_ssl, base64.b64decode(user["client-certificate-data"]),
                                     base64.b64decode(user["client-key-data"]))
        arguments["verify"] = context_ssl
    return cluster["server"], arguments


def _load_client_certificate(context: ssl.SSLContext, certificate: bytes, key: bytes) -> None:
    """The ssl module loads a certificate and key from files only: private ones, gone after."""
    with tempfile.TemporaryDirectory() as directory:
        paths = []
        for name, data in (("client.crt", certificate), ("client.key", key)):
            path = Path(directory) / name
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            paths.append(path)
        context.load_cert_chain(*paths)


def write_kubeconfig(path: Path, server_url: str, *, token: str | None = ADMIN_TOKEN, ca_pem: bytes | None = None,
                     ca_file: Path | None = None, client_certificate: KeyPair | None = None,
                     name: str = "fakeapi") -> None:
    """The kubeconfig of a server at ``server_url``, with one cluster, user and context named
    ``name``: its CA (``ca_pem`` embedded, or ``ca_file`` referred to, for https) and one
    credential, ``client_certificate`` or else ``token``. Replaced whole, readable by its owner
    only (it holds a credential)."""
    cluster: dict[str, Any] = {"server": server_url}
    if ca_pem is not None:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    elif ca_file is not None:
        cluster["certificate-authority"] = str(ca_file)
    user: dict[str, Any] = {}
    if client_certificate is not None:
        user["client-certificate-data"] = base64.b64encode(client_certificate.certificate_pem).decode()
        user["client-key-data"] = base64.b64encode(client_certificate.key_pem).decode()
    elif token:
        user["token"] = token
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": cluster}],
        "users": [{"name": name, "user": user}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name, "namespace": "default"}}],
        "current-context": name,
        "preferences": {},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write("".join(_yaml_lines(config, "")))
    os.replace(tmp, path)


def _yaml_lines(value: dict[str, Any] | list[Any], indent: str) -> list[str]:
    """A kubeconfig's YAML, block style, each string double-quoted as JSON writes it (a JSON
    string is a YAML double-quoted scalar), so no text reads back as another type; written
    without PyYAML, whose import would cost every start ~7 ms."""
    lines: list[str] = []
    items = value.items() if isinstance(value, dict) else ((None, item) for item in value)
    for key, item in items:
        lead = f"{indent}{key}:" if key is not None else f"{indent}-"
        if isinstance(item, str):
            lines.append(f"{lead} {orjson.dumps(item).decode()}\n")
        elif not item:
            lines.append(f"{lead} {'{}' if isinstance(item, dict) else '[]'}\n")
        elif key is None:  # a list's mapping: its first key on the dash's line
            nested = _yaml_lines(item, indent + "  ")
            lines.append(f"{lead} {nested[0].lstrip()}")
            lines.extend(nested[1:])
        else:
            lines.append(f"{lead}\n")
            lines.extend(_yaml_lines(item, indent + "  "))
    return lines
