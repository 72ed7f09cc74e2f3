"""kubectl through fakeapi's admission webhooks: an object a mutating webhook labels is applied
with the label, and one a validating webhook refuses prints the webhook's refusal, as kubectl
prints kube-apiserver's (tests/kasdiff/test_webhooks.py compares the answers themselves)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from webhook_server import WebhookServer

from fakeapi.testing import ServerProcess
from fakeapi.testing.eventually import eventually

CONFIG_MAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  namespace: kubectl-hooks
  labels: {{refuse: "{refuse}"}}
data: {{a: b}}
"""


@pytest.fixture
def hooks() -> Iterator[WebhookServer]:
    with WebhookServer() as server:
        yield server


def _config(kind: str, behaviour: str, hooks: WebhookServer, selector: dict) -> dict:
    return {"metadata": {"name": f"kubectl-{behaviour}"}, "webhooks": [{
        "name": f"{behaviour}.kubectl.dev", "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "clientConfig": {"url": hooks.url(f"/kubectl/{behaviour}"), "caBundle": hooks.ca_bundle},
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kubectl-hooks"}},
        "objectSelector": selector}]}


def test_kubectl_apply_meets_the_webhooks(server: ServerProcess, kubectl: Callable[..., str],
                                          hooks: WebhookServer) -> None:
    http = server.http
    assert http.post("/api/v1/namespaces", json={"metadata": {"name": "kubectl-hooks"}}).status_code == 201
    for kind, behaviour, selector in (("mutatingwebhookconfigurations", "label", {}),
                                      ("validatingwebhookconfigurations", "deny", {"matchLabels": {"refuse": "yes"}})):
        response = http.post(f"/apis/admissionregistration.k8s.io/v1/{kind}", json=_config(kind, behaviour, hooks, selector))
        assert response.status_code == 201, response.text
    eventually(lambda: http.post("/api/v1/namespaces/kubectl-hooks/configmaps", params={"dryRun": "All"},
                                 json={"metadata": {"name": "probe", "labels": {"refuse": "yes"}}}).status_code == 403,
               "the webhooks")
    kubectl("apply", "-f", "-", input=CONFIG_MAP.format(name="labelled", refuse="no"))
    assert kubectl("get", "configmap", "labelled", "-n", "kubectl-hooks",
                   "-o", "jsonpath={.metadata.labels.webhook-label}") == "yes"
    refused = kubectl("apply", "-f", "-", input=CONFIG_MAP.format(name="refused", refuse="yes"), check=False)
    assert ('error when creating "STDIN": admission webhook "deny.kubectl.dev" denied the request: no thanks'
            in refused), refused
