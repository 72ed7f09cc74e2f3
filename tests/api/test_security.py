"""Authentication, TLS and authorization as users meet them: ``fakeapi serve`` processes used by
kubectl v1.35.4 and the Python ``kubernetes`` client through the kubeconfig fakeapi writes (over
HTTPS with its CA; with its token or its client certificate), a client certificate from another
CA (``--client-ca-file``), a token file, anonymous requests on and off, certificates kept across
restarts, what a server bound beyond loopback warns about, and YAML bodies that try to make the
server run code or touch files."""

from __future__ import annotations

import argparse
import base64
import json
import os
import ssl
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from kubernetes import client, config, watch

from fakeapi.cli.main import build_parser
from fakeapi.cli.serve import security_warnings, access_control
from fakeapi.http.pki import issue, new_ca
from fakeapi.auth.authentication import ADMIN, ADMIN_TOKEN, ANONYMOUS_USER
from fakeapi.testing import ServerProcess
from fakeapi.cluster.control_plane import kubectl_binary

ADMIN_USER = {"username": "admin", "uid": "admin-uid", "groups": ["system:masters", "system:authenticated"]}


def kubectl(kubeconfig: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(kubeconfig.parent / "kubecache")}
    result = subprocess.run([str(kubectl_binary()), *args], env=env, capture_output=True, text=True, timeout=60)
    if check and result.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)}: {result.stderr}")
    return result


def whoami(kubeconfig: Path) -> dict[str, object]:
    return json.loads(kubectl(kubeconfig, "auth", "whoami", "-o", "json").stdout)["status"]["userInfo"]


@pytest.mark.parametrize("credential", ["token", "cert"])
def test_kubectl_and_python_client_over_tls(credential: str, tmp_path: Path) -> None:
    with ServerProcess(tmp_path, "--tls", "--kubeconfig-auth", credential) as server:
        me = whoami(server.kubeconfig)
        credential_id = me.pop("extra", {}).get("authentication.kubernetes.io/credential-id")  # type: ignore[attr-defined]
        if credential == "cert":
            assert me == {"username": "admin", "groups": ["system:masters", "system:authenticated"]}
            assert credential_id and credential_id[0].startswith("X509SHA256=")
        else:
            assert me == ADMIN_USER
        kubectl(server.kubeconfig, "create", "configmap", "made-by-kubectl", "--from-literal=a=b")
        # The Python client: same kubeconfig, a watch over TLS sees a change.
        api = client.ApiClient(config.new_client_from_config(str(server.kubeconfig)).configuration)
        core = client.CoreV1Api(api)
        listed = core.list_namespaced_config_map("default")
        assert "made-by-kubectl" in [cm.metadata.name for cm in listed.items]
        stream = watch.Watch().stream(core.list_namespaced_config_map, "default",
                                      resource_version=listed.metadata.resource_version, timeout_seconds=10)
        kubectl(server.kubeconfig, "create", "configmap", "watched")
        event = next(stream)
        assert (event["type"], event["object"].metadata.name) == ("ADDED", "watched")
        api.close()


def test_plain_http_anonymous_and_tokens(tmp_path: Path) -> None:
    """Over plain HTTP kubectl sends no credentials (client-go's kubeconfig loader keeps them for
    TLS): on a default loopback server it is the administrator, as it always was; with
    ``--anonymous-auth`` it is system:anonymous. The Python client sends the kubeconfig's token."""
    with ServerProcess(tmp_path / "a") as server:
        assert whoami(server.kubeconfig) == ADMIN_USER
        me = server.http.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", json={}).json()
        assert me["status"]["userInfo"] == ADMIN_USER
        bad = httpx.get(f"{server.url}/api/v1/namespaces", headers={"Authorization": "Bearer wrong"})
        assert bad.status_code == 401 and bad.json() == {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "Unauthorized",
            "reason": "Unauthorized", "code": 401}
    with ServerProcess(tmp_path / "anonymous", "--anonymous-auth") as server:
        assert whoami(server.kubeconfig) == {"username": "system:anonymous", "groups": ["system:unauthenticated"]}
        assert server.http.post("/apis/authentication.k8s.io/v1/selfsubjectreviews",
                                json={}).json()["status"]["userInfo"] == ADMIN_USER
    with ServerProcess(tmp_path / "b", "--anonymous-auth=false") as server:
        refused = kubectl(server.kubeconfig, "get", "namespaces", check=False)
        assert refused.returncode != 0 and "You must be logged in to the server" in refused.stderr
        assert httpx.get(f"{server.url}/healthz").status_code == 401
        assert server.http.get("/api/v1/namespaces").status_code == 200


def test_token_file_rbac_and_certificates_kept_across_restarts(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('jane-token,jane,jane-uid,"devs"\n')
    args = ("--tls", "--token", "s3cret", "--token-file", str(tokens), "--authorization-mode", "RBAC")
    with ServerProcess(tmp_path, *args) as server:
        first_ca = (tmp_path / "fakeapi-pki" / "ca.crt").read_bytes()
        jane = httpx.Client(base_url=server.url, verify=server.verify, headers={"Authorization": "Bearer jane-token"})
        denied = jane.get("/api/v1/namespaces/default/pods")
        assert denied.status_code == 403 and denied.json()["message"] == (
            'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"')
        kubectl(server.kubeconfig, "create", "rolebinding", "jane-view", "--clusterrole=view", "--group=devs")
        assert kubectl(server.kubeconfig, "auth", "can-i", "list", "pods", "--as=jane", "--as-group=devs").stdout.strip() == "yes"
        assert kubectl(server.kubeconfig, "auth", "can-i", "create", "pods", "--as=jane", "--as-group=devs",
                       check=False).stdout.strip() == "no"
        assert jane.get("/api/v1/namespaces/default/pods").status_code in (200, 403)  # the cache may lag a moment
        assert httpx.get(f"{server.url}/api/v1/namespaces/default/pods", verify=server.verify,
                         headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).status_code == 401  # --token replaced it
        jane.close()
        old_kubeconfig = yaml.safe_load(server.kubeconfig.read_text())
    with ServerProcess(tmp_path, *args) as server:
        # The CA, the serving certificate and the token are the same: a kubeconfig written before
        # the restart still verifies the server and authenticates (only a random port moved).
        assert (tmp_path / "fakeapi-pki" / "ca.crt").read_bytes() == first_ca
        old_kubeconfig["clusters"][0]["cluster"]["server"] = server.url
        (tmp_path / "old-kubeconfig").write_text(yaml.safe_dump(old_kubeconfig))
        assert whoami(tmp_path / "old-kubeconfig") == ADMIN_USER


def test_client_certificates_of_another_ca(tmp_path: Path) -> None:
    ca = new_ca("team-ca")
    (tmp_path / "team-ca.crt").write_bytes(ca.certificate_pem)
    carol = issue(ca, "carol", organizations=["qa"], client=True)
    (tmp_path / "carol.crt").write_bytes(carol.certificate_pem)
    (tmp_path / "carol.key").write_bytes(carol.key_pem)
    with ServerProcess(tmp_path, "--tls", "--client-ca-file", str(tmp_path / "team-ca.crt")) as server:
        context = server.verify
        assert not isinstance(context, bool)
        context.load_cert_chain(tmp_path / "carol.crt", tmp_path / "carol.key")
        with httpx.Client(base_url=server.url, verify=context) as carol_client:
            me = carol_client.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", json={}).json()
        assert me["status"]["userInfo"]["username"] == "carol"
        assert me["status"]["userInfo"]["groups"] == ["qa", "system:authenticated"]


def test_without_own_ca_the_given_pair_and_client_cas_alone(tmp_path: Path) -> None:
    """``--own-ca=false`` (envtest's kube-apiserver): the serving pair of ``--tls-cert-file``, the
    client certificates of ``--client-ca-file``, no CA of fakeapi's made, and
    extension-apiserver-authentication naming the client CA alone, as kube-apiserver's without
    front-proxy flags."""
    serving_ca, team_ca = new_ca("serving-ca"), new_ca("team-ca")
    serving = issue(serving_ca, "apiserver", hosts=["127.0.0.1", "localhost"])
    carol = issue(team_ca, "carol", organizations=["qa"], client=True)
    for name, pem in (("serving-ca.crt", serving_ca.certificate_pem),
                      ("serving.crt", serving.certificate_pem), ("serving.key", serving.key_pem),
                      ("team-ca.crt", team_ca.certificate_pem), ("carol.crt", carol.certificate_pem),
                      ("carol.key", carol.key_pem)):
        (tmp_path / name).write_bytes(pem)
    with ServerProcess(tmp_path, "--tls", "--own-ca", "false", "--tls-cert-file", str(tmp_path / "serving.crt"),
                       "--tls-private-key-file", str(tmp_path / "serving.key"),
                       "--client-ca-file", str(tmp_path / "team-ca.crt")) as server:
        # The kubeconfig trusts the serving certificate itself, which Go accepts and Python's ssl not.
        kubeconfig = yaml.safe_load(server.kubeconfig.read_text())
        assert kubeconfig["clusters"][0]["cluster"]["certificate-authority-data"] == \
            base64.b64encode(serving.certificate_pem).decode()
        token = kubeconfig["users"][0]["user"]["token"]
        context = ssl.create_default_context(cafile=tmp_path / "serving-ca.crt")
        with httpx.Client(base_url=server.url, verify=context, headers={"Authorization": f"Bearer {token}"}) as admin:
            authentication = admin.get("/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication")
        assert authentication.json()["data"] == {"client-ca-file": team_ca.certificate_pem.decode()}
        context.load_cert_chain(tmp_path / "carol.crt", tmp_path / "carol.key")
        with httpx.Client(base_url=server.url, verify=context) as carol_client:
            me = carol_client.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", json={}).json()
        assert me["status"]["userInfo"]["username"] == "carol"
    assert not (tmp_path / "fakeapi-pki").exists()
    refused = subprocess.run([sys.executable, "-m", "fakeapi.cli", "serve", "--port", "0", "--tls", "--own-ca", "false",
                              "--kubeconfig", str(tmp_path / "other")], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1
    assert refused.stderr == "fakeapi: --own-ca=false needs --tls-cert-file, and a kubeconfig with the token\n"


def _serve_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["serve", *argv])


def test_binding_beyond_loopback() -> None:
    """Loopback: anonymous on, the well-known token. Elsewhere: anonymous off and a random token
    unless asked otherwise, and a warning for what is left open."""
    access, token = access_control(_serve_args())
    assert access.anonymous and token == ADMIN_TOKEN and access.static_tokens == {ADMIN_TOKEN: ADMIN}
    assert access.unauthenticated_user == ADMIN  # plain kubectl sends no credentials
    assert security_warnings(_serve_args(), access) == []
    for flags in (("--tls",), ("--anonymous-auth",), ("--token", "t"), ("--authorization-mode", "RBAC")):
        assert access_control(_serve_args(*flags))[0].unauthenticated_user == ANONYMOUS_USER, flags
    args = _serve_args("--host", "0.0.0.0")
    access, token = access_control(args)
    assert not access.anonymous and token != ADMIN_TOKEN and len(token) > 30
    assert security_warnings(args, access) == [
        "serving 0.0.0.0:6443 without TLS: credentials and data cross the network in clear (--tls)"]
    args = _serve_args("--host", "0.0.0.0", "--anonymous", "--tls")
    access, _ = access_control(args)
    assert security_warnings(args, access) == [
        "anonymous requests are allowed and authorization is AlwaysAllow: anyone who reaches 0.0.0.0:6443 can "
        "read and change everything (--anonymous-auth=false, --authorization-mode=RBAC)"]


def test_yaml_is_data_and_no_request_touches_files(tmp_path: Path) -> None:
    """YAML bodies are loaded safely: Python tags are refused, never run; no request writes a
    file or reads one it names."""
    with ServerProcess(tmp_path, "--tls", "--data-dir", str(tmp_path / "data")) as server:
        before = sorted(str(p) for p in tmp_path.rglob("*"))
        marker = tmp_path / "pwned"
        evil = f'!!python/object/apply:os.system ["touch {marker}"]'.encode()
        yaml_bodies = (
            (b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: " + evil + b"}\n"),
            (b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: !!python/name:os.system\n"),
        )
        for body in yaml_bodies:
            created = server.http.post("/api/v1/namespaces/default/configmaps", content=body,
                                       headers={"Content-Type": "application/yaml"})
            # Unknown tags are ignored as go-yaml ignores them: what is left is mistyped data (400)
            # or an empty name (422).
            assert created.status_code in (400, 422), created.text
            applied = server.http.patch("/api/v1/namespaces/default/configmaps/x", content=body,
                                        params={"fieldManager": "t"},
                                        headers={"Content-Type": "application/apply-patch+yaml"})
            # Refused as kube refuses it (a mistyped field in an apply is its 500 "failed to
            # create typed patch object"), never run.
            assert applied.status_code in (400, 500) and applied.json()["kind"] == "Status", applied.text
        for path in ("/api/v1/namespaces/default/configmaps/../../../etc/passwd", "/fakeapi/v1/snapshot?file=/etc/passwd",
                     f"/openapi/v3/..%2f..%2f{tmp_path}", "/api/v1/namespaces/default/configmaps?fieldSelector=%2Fetc"):
            assert server.http.get(path).status_code in (200, 400, 404)
        assert not marker.exists()
        assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_one_http2_connection_carries_thousands_of_requests(tmp_path: Path, go_build: Any) -> None:
    """client-go sends everything over one HTTP/2 connection for the life of a controller: the
    server must not end it after some number of requests (Hypercorn's default, when it
    served HTTP/2: a GOAWAY after 1,000, which fails the requests in flight). A Go client sends 1,200, 16 at a time, over one
    connection."""
    httpload = go_build(Path(__file__).parents[1] / "clientgo", "./cmd/httpload")
    with ServerProcess(tmp_path, "--tls") as server:
        result = subprocess.run([str(httpload), "-url", f"{server.url}/version", "-token", ADMIN_TOKEN, "-h2",
                                 "-ca", str(tmp_path / "fakeapi-pki" / "ca.crt"), "-c", "16", "-n", "1200", "-d", "50s"],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        load = json.loads(result.stdout)
        assert load["proto"] == "HTTP/2.0" and load["requests"] == 1200, load


def test_report_and_snapshot_through_the_kubeconfig(tmp_path: Path) -> None:
    """``fakeapi report`` and ``fakeapi snapshot save`` reach a TLS server with RBAC as the
    kubeconfig's user; anonymously they are refused."""
    with ServerProcess(tmp_path, "--tls", "--authorization-mode", "RBAC", "--kubeconfig-auth", "cert") as server:
        def fakeapi(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "fakeapi.cli", *args], capture_output=True, text=True, timeout=60)
        report = fakeapi("report", "--kubeconfig", str(server.kubeconfig), "--json")
        assert report.returncode == 0, report.stderr
        assert "clients" in json.loads(report.stdout)
        saved = fakeapi("snapshot", "save", str(tmp_path / "s.snap"), "--kubeconfig", str(server.kubeconfig))
        assert saved.returncode == 0 and "revision" in saved.stdout, saved.stderr
        refused = fakeapi("report", "--url", server.url)
        assert refused.returncode != 0 and "CERTIFICATE_VERIFY_FAILED" in refused.stderr
