"""What a start loads: the modules ``fakeapi serve`` defers to their first use stay unloaded by a
start (each cost it 10-100 ms), and a server serving them loads them when asked."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from fakeapi.testing import ServerProcess

#: Loaded by the first service-account token, by a Table, by --seed; CEL and the admission
#: webhooks' and policies' dispatchers by the first webhook configuration, policy or CRD (and
#: CRD conversion webhooks' client with them), a policy's type checker by the first policy.
DEFERRED = ("cryptography", "fakeapi.printers", "fakeapi.seed", "fakeapi.cel.engine", "fakeapi.cel.admission",
            "fakeapi.admission.policy.dispatch", "fakeapi.admission.policy.typechecking",
            "fakeapi.admission.webhook.dispatch", "fakeapi.apis.webhook_client", "fakeapi.apiextensions.cel_validation")
#: No start loads uvicorn (which served plain HTTP until fakeapi.http.serving did, ~20 ms of a
#: start), nor Hypercorn and h11, which served HTTP/1.1 over TLS until fakeapi.http.http1 (40 ms).
NOT_SERVING = ("uvicorn", "hypercorn", "h11", "wsproto")


def loaded_by(code: str) -> set[str]:
    """The modules that ``code`` leaves loaded, in a fresh Python, and the packages holding them."""
    script = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    parts = [name.split(".") for name in result.stdout.split()]
    return {".".join(part[:length]) for part in parts for length in range(1, len(part) + 1)}


def test_a_start_loads_neither_the_deferred_modules_nor_uvicorn() -> None:
    server = loaded_by("import fakeapi.cli.serve, fakeapi.server.server, fakeapi.http.serving")
    assert not server & set(DEFERRED) and not server & set(NOT_SERVING)
    assert "fakeapi.server" in server  # the check sees what was imported
    tls = loaded_by("import fakeapi.cli.serve, fakeapi.server.server, fakeapi.http.serving, fakeapi.http.tls, fakeapi.http.pki")
    assert not tls & set(NOT_SERVING)
    assert "cryptography" in tls


@pytest.mark.parametrize("tls", [False, True], ids=["http", "tls"])
def test_deferred_features_answer_on_first_use(tmp_path, tls: bool) -> None:
    """A Table, a service-account token and the OpenID keys, each the first of its kind in a
    server that started without their modules."""
    with ServerProcess(tmp_path, *(["--tls"] if tls else [])) as server:
        table = server.http.get("/api/v1/namespaces", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
        assert table.status_code == 200 and table.json()["kind"] == "Table"
        assert [row["cells"][0] for row in table.json()["rows"]] == ["default", "kube-node-lease", "kube-public",
                                                                     "kube-system"]
        account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}
        assert server.http.post("/api/v1/namespaces/default/serviceaccounts", json=account).status_code == 201
        request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"audiences": []}}
        token = server.http.post("/api/v1/namespaces/default/serviceaccounts/robot/token", json=request)
        assert token.status_code == 201 and token.json()["status"]["token"].count(".") == 2
        keys = server.http.get("/openid/v1/jwks")
        assert keys.status_code == 200 and keys.json()["keys"][0]["alg"] == "RS256"


def test_a_crd_without_rules_loads_no_cel() -> None:
    """A CRD's validation and its served versions load CEL only when its schema has rules."""
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}]}}
    code = ("from fakeapi.apiextensions.crd import custom_resource_types\n"
            "from fakeapi.apiextensions.crd_defaults import default_crd\n"
            "from fakeapi.apiextensions.crd_validation import validate_crd\n"
            "crd = {crd!r}\n"
            "default_crd(crd)\n"
            "validate_crd(crd)\n"
            "assert custom_resource_types(crd)[0].rules.validate({{'spec': {{'size': 4}}}}, None, []) == {errors}")
    assert "fakeapi.cel.engine" not in loaded_by(code.format(crd=crd, errors=[]))
    schema["properties"]["spec"]["x-kubernetes-validations"] = [{"rule": "self.size <= 3", "message": "at most 3"}]
    errors = [("spec", "FieldValueInvalid", "Invalid value: at most 3")]
    assert "fakeapi.cel.engine" in loaded_by(code.format(crd=crd, errors=errors))


def test_cel_answers_on_first_use(tmp_path) -> None:
    """A CRD's validation rule and a ValidatingAdmissionPolicy, each the first of its kind in a
    server that started without CEL: the rule refuses a custom resource, the policy a ConfigMap."""
    with ServerProcess(tmp_path) as server:
        schema = {"type": "object", "properties": {"spec": {
            "type": "object", "properties": {"replicas": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.replicas <= 3", "message": "at most 3"}]}}}
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "widgets.example.com"},
               "spec": {"group": "example.com", "scope": "Namespaced",
                        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                        "versions": [{"name": "v1", "served": True, "storage": True,
                                      "schema": {"openAPIV3Schema": schema}}]}}
        assert server.http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd).status_code == 201
        widgets = "/apis/example.com/v1/namespaces/default/widgets"
        widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"replicas": 4}}
        for _ in range(100):  # the CRD is served once established
            refused = server.http.post(widgets, json=widget)
            if refused.status_code != 404:
                break
            time.sleep(0.05)
        assert refused.status_code == 422
        assert refused.json()["details"]["causes"] == [
            {"reason": "FieldValueInvalid", "message": "Invalid value: at most 3", "field": "spec"}]
        policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
        rules = [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}]
        policy = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                  "metadata": {"name": "no-data"},
                  "spec": {"matchConstraints": {"resourceRules": rules},
                           "validations": [{"expression": "!has(object.data)", "message": "no data"}]}}
        binding = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                   "metadata": {"name": "no-data"}, "spec": {"policyName": "no-data", "validationActions": ["Deny"]}}
        assert server.http.post(policies, json=policy).status_code == 201
        assert server.http.post(policies.replace("policies", "policybindings"), json=binding).status_code == 201
        config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}
        denied = server.http.post("/api/v1/namespaces/default/configmaps", json=config_map)
        assert denied.status_code == 422
        assert denied.json()["message"] == ("configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'no-data' with "
                                            "binding 'no-data' denied request: no data")
