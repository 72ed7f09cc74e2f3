"""What authentication and authorization cost, and what TLS and HTTP/2 cost.

1. In-process, per call: the authenticator (anonymous, static token), the request attributes, the RBAC authorizer (a decision remembered; a decision
   after an RBAC change, which rebuilds the index and resolves the user's rules), and a GET
   through the whole ASGI app with AlwaysAllow and with RBAC (a user allowed by a RoleBinding),
   the bootstrap policy plus ``--bindings`` RoleBindings loaded.
2. Over sockets: GETs of one ConfigMap from a Go client (``tests/clientgo/cmd/httpload``, 16 concurrent
   requests) against ``fakeapi serve`` on uvicorn (plain HTTP/1.1) and on the TLS server (HTTP/1.1
   and HTTP/2), and the real kube-apiserver (RBAC, HTTPS), in requests per second.

Prints numbers; not a test. ``--quick`` for a short run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


from fakeapi.http.access import request_attributes
from fakeapi.http.request_info import request_info
from fakeapi.server import Server, ServerConfig, create_app
from fakeapi.auth.authentication import ADMIN_TOKEN, UserInfo
from fakeapi.auth.authorization import RBAC, AccessControl, Attributes
from fakeapi.testing import ServerProcess
from fakeapi.cluster.control_plane import real_apiserver

sys.path.insert(0, str(Path(__file__).parent))
from metrics_bench import call  # noqa: E402  (the ASGI call helper of the metrics benchmark)

HERE = Path(__file__).parent
JANE = UserInfo("jane", "", ("devs", "system:authenticated"))


def _scope(path: str, query: bytes) -> dict[str, Any]:
    """A GET's ASGI scope, as far as its ``RequestInfo`` reads it."""
    return {"type": "http", "method": "GET", "path": path, "query_string": query, "headers": []}


def per_call(fn: Callable[[], object], seconds: float) -> float:
    """Microseconds per call of ``fn``."""
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(200):
            fn()
        calls += 200
    return (time.perf_counter() - start) / calls * 1e6


async def in_process(seconds: float, bindings: int) -> None:
    rbac = AccessControl(authorization_modes=(RBAC,))
    server = Server(ServerConfig(access=rbac, controllers=frozenset()))
    server.start()
    registry = server.registry
    roles = registry.resources[("rbac.authorization.k8s.io", "v1", "roles")].storage
    role_bindings = registry.resources[("rbac.authorization.k8s.io", "v1", "rolebindings")].storage
    roles.create("default", {"metadata": {"name": "reader"},
                             "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]})
    for i in range(bindings):
        role_bindings.create("default", {"metadata": {"name": f"b{i}"}, "subjects": [{"kind": "User", "name": f"user{i}"}],
                                         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"}})
    role_bindings.create("default", {"metadata": {"name": "devs"}, "subjects": [{"kind": "Group", "name": "devs"}],
                                     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"}})
    await asyncio.sleep(0.5)  # the caches take the writes in
    authenticator, authorizer = registry.authenticator, registry.authorizer
    attributes = Attributes(JANE, "get", True, resource="configmaps", namespace="default", name="x")
    print(f"RBAC objects: bootstrap policy + {bindings + 1} RoleBindings")
    rows = [
        ("authenticate: anonymous", lambda: authenticator.authenticate("", None)),
        ("authenticate: static token", lambda: authenticator.authenticate(f"Bearer {ADMIN_TOKEN}", None)),
        ("request info + attributes (a named GET)", lambda: request_attributes(JANE, request_info(registry, _scope(
            "/api/v1/namespaces/default/configmaps/x", b"")))),
        ("request info + attributes (a LIST with a field selector)", lambda: request_attributes(JANE, request_info(
            registry, _scope("/api/v1/namespaces/default/pods", b"fieldSelector=metadata.name%3Dx&watch=1")))),
        ("RBAC authorize: decision remembered", lambda: authorizer.authorize(attributes)),
    ]
    for name, fn in rows:
        print(f"  {name:<52} {per_call(fn, seconds):8.2f} us")

    def after_change() -> None:
        authorizer.authorizers[0]._dirty = True  # type: ignore[attr-defined]  # as an RBAC event does
        authorizer.authorize(attributes)
    print(f"  {'RBAC authorize: after an RBAC change (rebuild)':<52} {per_call(after_change, seconds / 4):8.2f} us")

    def other_user() -> None:
        authorizer.authorizers[0]._decisions.clear()  # type: ignore[attr-defined]
        authorizer.authorizers[0]._resolved.clear()  # type: ignore[attr-defined]
        authorizer.authorize(attributes)
    print(f"  {'RBAC authorize: a user not seen before (resolve)':<52} {per_call(other_user, seconds / 4):8.2f} us")
    await server.stop()

    for label, access, headers in (
        ("AlwaysAllow, no credentials", AccessControl(), []),
        ("AlwaysAllow, static token", AccessControl(), [(b"authorization", f"Bearer {ADMIN_TOKEN}".encode())]),
        ("RBAC, a user allowed by a RoleBinding", AccessControl(authorization_modes=(RBAC,),
                                                                static_tokens={"jane": JANE}),
         [(b"authorization", b"Bearer jane")]),
    ):
        app = create_app(ServerConfig(access=access, controllers=frozenset()))
        async with app.router.lifespan_context(app):
            server = app.state.server
            server.registry.resources[("", "v1", "configmaps")].create("default", {"metadata": {"name": "x"}})
            if access.authorization_modes == (RBAC,):
                server.registry.resources[("rbac.authorization.k8s.io", "v1", "roles")].storage.create(
                    "default", {"metadata": {"name": "reader"},
                                "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]})
                server.registry.resources[("rbac.authorization.k8s.io", "v1", "rolebindings")].storage.create(
                    "default", {"metadata": {"name": "devs"}, "subjects": [{"kind": "Group", "name": "devs"}],
                                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"}})
            await asyncio.sleep(0.3)
            assert await call(app, "GET", "/api/v1/namespaces/default/configmaps/x", headers=headers) == 200
            n = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                for _ in range(100):
                    await call(app, "GET", "/api/v1/namespaces/default/configmaps/x", headers=headers)
                n += 100
            print(f"  GET through the ASGI app, {label:<40} {(time.perf_counter() - start) / n * 1e6:8.1f} us")


def _httpload() -> Path:
    """``tests/clientgo/cmd/httpload``, built (Go's build cache makes a rebuild instant)."""
    module = HERE.parent / "tests" / "clientgo"
    env = {**os.environ, "PATH": os.environ.get("PATH", "") + ":/usr/local/go/bin"}
    subprocess.run(["go", "build", "-o", "bin/httpload", "./cmd/httpload"], cwd=module, check=True, env=env)
    return module / "bin" / "httpload"


def over_sockets(seconds: float) -> None:
    binary = _httpload()
    with tempfile.TemporaryDirectory() as tmp:
        results: dict[str, Any] = {}
        for label, args, http2 in (("uvicorn, HTTP/1.1", (), False), ("TLS, HTTP/1.1", ("--tls",), False),
                                   ("TLS, HTTP/2", ("--tls",), True)):
            workdir = Path(tmp) / label.replace(" ", "").replace(",", "-").replace("/", "")
            workdir.mkdir()
            with ServerProcess(workdir, *args, "--controllers", "") as server:
                server.http.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "x"}})
                ca = []
                if not isinstance(server.verify, bool):
                    (workdir / "ca.pem").write_bytes((workdir / "fakeapi-pki" / "ca.crt").read_bytes())
                    ca = ["-ca", str(workdir / "ca.pem")]
                out = subprocess.run(
                    [str(binary), "-url", f"{server.url}/api/v1/namespaces/default/configmaps/x", "-token", ADMIN_TOKEN,
                     *ca, "-c", "16", "-d", f"{seconds}s", *(["-h2"] if http2 else [])],
                    capture_output=True, text=True, check=True)
                results[label] = json.loads(out.stdout)
        # The same against the real kube-apiserver (RBAC, its static admin token), for the ratio.
        with real_apiserver(Path(tmp) / "kube", authorization_mode="RBAC") as api:
            api.http.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "x"}})
            for label, http2 in (("kube-apiserver, HTTP/1.1", False), ("kube-apiserver, HTTP/2", True)):
                out = subprocess.run(
                    [str(binary), "-url", f"{api.url}/api/v1/namespaces/default/configmaps/x", "-token", api.token,
                     "-ca", str(api.certificates.ca), "-c", "16", "-d", f"{seconds}s", *(["-h2"] if http2 else [])],
                    capture_output=True, text=True, check=True)
                results[label] = json.loads(out.stdout)
        for label, result in results.items():
            print(f"  {label:<26} {result['rps']:8.0f} req/s   p50 {result['p50_ms']:6.2f} ms   p99 {result['p99_ms']:6.2f} ms"
                  f"   ({result['proto']})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--bindings", type=int, default=1000, help="RoleBindings besides the bootstrap policy")
    args = parser.parse_args()
    seconds = 0.5 if args.quick else 2.0
    print("In-process, per call:")
    asyncio.run(in_process(seconds, args.bindings))
    print("Over sockets, GET of one ConfigMap, 16 concurrent requests (Go client):")
    over_sockets(3 if args.quick else 10)


if __name__ == "__main__":
    main()
