"""An operator's webhooks, served by controller-runtime's webhook server (the Go program in
tests/operators/crwebhook: a defaulter and a validator of a custom resource, as kubebuilder
scaffolds them), registered in fakeapi and in the real kube-apiserver: creates defaulted and
labelled, a warning, refusals on create, update and delete, all answered as kube answers."""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import orjson
import pytest
from differ import Pair, check

from fakeapi.http.pki import issue, new_ca

MODULE = Path(__file__).resolve().parent.parent / "operators" / "crwebhook"
GROUP, NAMESPACE = "crwebhook.example.com", "crwebhook"
WIDGETS = f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/widgets"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": f"widgets.{GROUP}"},
    "spec": {"group": GROUP, "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {"spec": {"type": "object", "properties": {
                     "size": {"type": "integer"}, "color": {"type": "string"}}}}}}}]},
}


@pytest.fixture(scope="module")
def webhooks(go_build: Callable[[Path, str], Path]) -> Iterator[tuple[int, str]]:
    """The operator's webhook server: (port, caBundle)."""
    import base64

    binary = go_build(MODULE, "./cmd/widget-webhooks")
    ca = new_ca("operator-webhook-ca")
    pair = issue(ca, "127.0.0.1", hosts=["127.0.0.1"])
    with tempfile.TemporaryDirectory() as cert_dir, socket.socket() as probe:
        (Path(cert_dir) / "tls.crt").write_bytes(pair.certificate_pem)
        (Path(cert_dir) / "tls.key").write_bytes(pair.key_pem)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        process = subprocess.Popen([str(binary), "--port", str(port), "--cert-dir", cert_dir],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            assert process.stdout is not None and process.stdout.readline().strip() == "serving"
            yield port, base64.b64encode(ca.certificate_pem).decode()
        finally:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=10)


def _configurations(port: int, ca_bundle: str) -> list[tuple[str, dict]]:
    def hook(path: str, operations: list[str]) -> dict:
        return {"name": f"{path}.{GROUP}", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                "failurePolicy": "Fail",
                "clientConfig": {"url": f"https://127.0.0.1:{port}/{path}", "caBundle": ca_bundle},
                "rules": [{"operations": operations, "apiGroups": [GROUP], "apiVersions": ["v1"],
                           "resources": ["widgets"]}]}
    return [("mutatingwebhookconfigurations", {"metadata": {"name": "widget-defaulter"},
                                               "webhooks": [hook("mutate-widget", ["CREATE", "UPDATE"])]}),
            ("validatingwebhookconfigurations", {"metadata": {"name": "widget-validator"},
                                                 "webhooks": [hook("validate-widget", ["CREATE", "UPDATE", "DELETE"])]})]


def _wait(client: httpx.Client, ready: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not ready():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def widget(name: str, labels: dict | None = None, **spec: object) -> bytes:
    return orjson.dumps({"apiVersion": f"{GROUP}/v1", "kind": "Widget",
                         "metadata": {"name": name, "labels": labels or {}}, "spec": spec})


def test_an_operators_defaulter_and_validator(pair: Pair, webhooks: tuple[int, str]) -> None:
    start = len(pair.outcomes)
    port, ca_bundle = webhooks
    for client in (pair.fake, pair.real):
        client.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}})
        assert client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code in (201, 409)
        _wait(client, lambda c=client: c.get(WIDGETS).status_code == 200, "the CRD is served")
        for kind, config in _configurations(port, ca_bundle):
            response = client.post(f"/apis/admissionregistration.k8s.io/v1/{kind}", json=config)
            assert response.status_code == 201, response.text
        _wait(client, lambda c=client: "defaulted-by" in (c.post(
            WIDGETS, params={"dryRun": "All"}, content=widget("probe"), headers={"Content-Type": "application/json"}
        ).json().get("metadata", {}).get("labels") or {}), "the webhooks are called")
    try:
        def send(verb: str, method: str, path: str, body: bytes | None = None,
                 content_type: str = "application/json") -> None:
            pair.send("operator-webhooks", "Widget", verb, method, path, body=body, content_type=content_type)

        send("create (defaulted)", "POST", WIDGETS, widget("plain", color="blue"))
        send("create (warned)", "POST", WIDGETS, widget("large", size=7))
        send("create (refused)", "POST", WIDGETS, widget("huge", size=11))
        send("update (refused)", "PATCH", f"{WIDGETS}/large", orjson.dumps({"spec": {"size": 12}}),
             "application/merge-patch+json")
        send("update", "PATCH", f"{WIDGETS}/large", orjson.dumps({"spec": {"size": 3}}),
             "application/merge-patch+json")
        send("create (protected)", "POST", WIDGETS, widget("kept", {"protected": "true"}))
        send("delete (refused)", "DELETE", f"{WIDGETS}/kept")
        send("delete", "DELETE", f"{WIDGETS}/plain")
        send("list", "GET", WIDGETS)
    finally:
        for client in (pair.fake, pair.real):
            for kind, config in _configurations(port, ca_bundle):
                client.delete(f"/apis/admissionregistration.k8s.io/v1/{kind}/{config['metadata']['name']}")
            client.delete(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{GROUP}")
    check(pair, start)
