"""The ValidatingAdmissionPolicy status controller over a registry, as kube-controller-manager's
``validatingadmissionpolicy-status``: a new policy gets its type checking and observedGeneration
by a status apply of its field manager; a changed spec is checked again, and a status already
of the policy's generation is left as it is."""

from __future__ import annotations

from controller_harness import Json, create, read, resource, run, settle, until

from fakeapi.controllers.policy_status import MANAGER, PolicyStatus
from fakeapi.registry.registry import Registry

GROUP = "admissionregistration.k8s.io"
PLURAL = "validatingadmissionpolicies"


def _policy(name: str, expression: str) -> Json:
    return {"apiVersion": f"{GROUP}/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name}, "spec": {
        "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"],
                                                "operations": ["CREATE"]}]},
        "validations": [{"expression": expression}]}}


def _stored(registry: Registry, name: str) -> Json:
    policy = read(registry, PLURAL, name, namespace=None, group=GROUP)
    assert policy is not None
    return policy


def _observed(registry: Registry, name: str, generation: int) -> Json | None:
    policy = _stored(registry, name)
    return policy if (policy.get("status") or {}).get("observedGeneration") == generation else None


def test_a_policy_gets_its_type_checking_and_is_checked_again_when_changed() -> None:
    async def scenario(registry: Registry) -> None:
        create(registry, PLURAL, _policy("clean", "object.spec.replicas > 1"), namespace=None, group=GROUP)
        create(registry, PLURAL, _policy("warned", "object.spec.replicaz > 1"), namespace=None, group=GROUP)
        clean = await until(lambda: _observed(registry, "clean", 1), "the clean policy checked")
        assert clean["status"] == {"observedGeneration": 1, "typeChecking": {}}
        assert [(entry["manager"], entry["operation"], entry.get("subresource"))
                for entry in clean["metadata"]["managedFields"] if entry["manager"] == MANAGER] == [
            (MANAGER, "Apply", "status")]
        warned = await until(lambda: _observed(registry, "warned", 1), "the warned policy checked")
        assert warned["status"]["typeChecking"]["expressionWarnings"] == [{
            "fieldRef": "spec.validations[0].expression",
            "warning": "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicaz'\n"
                       " | object.spec.replicaz > 1\n | ...........^\n"}]

        resource(registry, PLURAL, GROUP).rewrite(None, "warned", lambda policy: {
            **policy, "spec": {**policy["spec"], "validations": [{"expression": "object.spec.replicas > 1"}]}})
        changed = await until(lambda: _observed(registry, "warned", 2), "the changed policy checked again")
        # as on kube: the apply of an empty typeChecking takes its warnings, and it with them
        assert changed["status"] == {"observedGeneration": 2}
        version = changed["metadata"]["resourceVersion"]
        await settle()
        assert _stored(registry, "warned")["metadata"]["resourceVersion"] == version  # nothing more to write

    run(scenario, PolicyStatus)
