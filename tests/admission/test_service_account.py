"""ServiceAccount as kube's ``plugin/pkg/admission/serviceaccount``: off unless enabled; a new pod
runs as an existing account of its namespace (``default`` when it names none), with the
account's image pull secrets when it has none, and the projected token volume mounted in its
init containers and containers unless ``automountServiceAccountToken`` is off (the pod's choice
first, then the account's). Mirror pods are not changed and may reference no account, secret or
token projection. An account enforcing its mountable secrets refuses the others, also in
ephemeral containers added later (as a plain error: 500). ``default`` is looked up again, 100-200
ms apart, when the write may wait. The kasdiff suite compares all of it with kube
(``tests/kasdiff/test_service_account_admission.py``)."""

from __future__ import annotations

import asyncio
import copy

import pytest
from admission_objects import Json, Objects, new, pod

from fakeapi.admission import Admission, plugins_for, validators_for
from fakeapi.admission.priority import priority
from fakeapi.admission.service_account import TOKEN_MOUNT_PATH, admit, validate
from fakeapi.cli.serve import admission_plugins
from fakeapi.machinery.status import StatusError
from fakeapi.runtime import run_awaiting

MIRROR = {"annotations": {"kubernetes.io/config.mirror": "mirror"}}


def account(name: str = "default", annotations: dict[str, str] | None = None, **fields: object) -> Json:
    return new("v1", "ServiceAccount", name, metadata={"annotations": annotations} if annotations else {}, **fields)


@pytest.fixture
def objects() -> Objects:
    stored = Objects()
    stored.add(account())
    return stored


def admitted(objects: Objects, obj: Json) -> Json:
    admit(objects.admission, obj, None, None)
    validate(objects.admission, obj, None, None)
    return obj["spec"]


def refused(objects: Objects, obj: Json, old: Json | None = None, subresource: str | None = None) -> StatusError:
    with pytest.raises(StatusError) as raised:
        admit(objects.admission, obj, old, subresource)
        validate(objects.admission, obj, old, subresource)
    return raised.value


def test_off_unless_enabled(objects: Objects) -> None:
    off, on = (Admission(objects.lookup, objects.list, enabled=enabled)
               for enabled in (frozenset(), frozenset({"ServiceAccount"})))
    for admission in (off, on):
        created = pod("web")
        admission.admit("", "Pod", created, None, None)
        admission.validate("", "Pod", created, None, None)
        assert ("serviceAccountName" in created["spec"]) == (admission is on)
    assert (off.may_wait, on.may_wait) == (False, True)  # for the default account
    with pytest.raises(ValueError, match="NodeRestriction"):
        Admission(objects.lookup, enabled=frozenset({"NodeRestriction"}))


def test_it_runs_before_priority_as_in_kubes_chain() -> None:
    mutating = plugins_for("", "Pod")
    assert mutating.index(admit) < mutating.index(priority)
    assert validate in validators_for("", "Pod")


def test_a_pod_gets_default_and_the_projected_token_volume(objects: Objects) -> None:
    spec = admitted(objects, pod("web", initContainers=[{"name": "init", "image": "busybox"}]))
    assert (spec["serviceAccountName"], spec["serviceAccount"]) == ("default", "default")
    [volume] = spec["volumes"]
    name = volume["name"]
    assert name.startswith("kube-api-access-") and len(name) == len("kube-api-access-") + 5
    assert volume == {"name": name, "projected": {
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace",
                                        "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}],
        "defaultMode": 420}}
    for container in spec["initContainers"] + spec["containers"]:
        assert container["volumeMounts"] == [{"name": name, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH}]


def test_ephemeral_containers_get_no_mount(objects: Objects) -> None:
    spec = admitted(objects, pod("web", ephemeralContainers=[{"name": "debug", "image": "busybox"}]))
    assert "volumeMounts" not in spec["ephemeralContainers"][0]


def test_a_missing_account_is_refused(objects: Objects) -> None:
    error = refused(objects, pod("web", serviceAccountName="builder"))
    assert (error.code, error.reason, error.message) == (403, "Forbidden", (
        'pods "web" is forbidden: error looking up service account ns/builder: serviceaccount "builder" not found'))
    assert refused(objects, pod("web", "elsewhere")).message == (
        'pods "web" is forbidden: error looking up service account elsewhere/default: '
        'serviceaccount "default" not found')


def test_default_is_looked_up_again_when_the_write_may_wait() -> None:
    objects = Objects()
    lookups: list[str] = []

    def lookup(group: str, kind: str, namespace: str | None, name: str) -> Json | None:
        lookups.append(name)
        if len(lookups) == 3:  # the controller-manager created it meanwhile
            objects.add(account())
        return objects.lookup(group, kind, namespace, name)

    admission = Admission(lookup)
    created = pod("web")
    asyncio.run(run_awaiting(admit, admission, created, None, None))
    assert lookups == ["default"] * 4 and created["spec"]["serviceAccountName"] == "default"  # 3, then Validate's
    lookups.clear()
    with pytest.raises(StatusError):
        asyncio.run(run_awaiting(admit, admission, pod("web", serviceAccountName="builder"), None, None))
    assert lookups == ["builder"]  # only default is waited for
    lookups.clear()
    with pytest.raises(StatusError):
        admit(admission, pod("web", "elsewhere"), None, None)
    assert lookups == ["default"]  # a write that cannot wait looks once


def test_automount_the_pods_choice_then_the_accounts(objects: Objects) -> None:
    objects.add(account("quiet", automountServiceAccountToken=False))
    assert "volumes" not in admitted(objects, pod("web", automountServiceAccountToken=False))
    assert "volumes" not in admitted(objects, pod("web", serviceAccountName="quiet"))
    assert "volumes" in admitted(objects, pod("web", serviceAccountName="quiet", automountServiceAccountToken=True))


def test_existing_mounts_and_token_volumes(objects: Objects) -> None:
    own = {"name": "mine", "mountPath": TOKEN_MOUNT_PATH}
    spec = admitted(objects, pod("web", containers=[{"name": "a", "image": "x", "volumeMounts": [own]}],
                                 volumes=[{"name": "mine", "emptyDir": {}}]))
    assert spec["containers"][0]["volumeMounts"] == [own] and len(spec["volumes"]) == 1  # nobody needs it
    volumes = [{"name": "kube-api-access-mine", "emptyDir": {}}, {"name": "kube-api-access-next", "emptyDir": {}}]
    spec = admitted(objects, pod("web", volumes=copy.deepcopy(volumes)))
    assert spec["volumes"] == volumes
    assert spec["containers"][0]["volumeMounts"][0]["name"] == "kube-api-access-mine"


def test_the_accounts_image_pull_secrets_unless_the_pod_has_some(objects: Objects) -> None:
    objects.add(account("puller", imagePullSecrets=[{"name": "registry"}]))
    assert admitted(objects, pod("web", serviceAccountName="puller"))["imagePullSecrets"] == [{"name": "registry"}]
    assert admitted(objects, pod("web", serviceAccountName="puller", imagePullSecrets=[{"name": "own"}]))[
        "imagePullSecrets"] == [{"name": "own"}]
    assert "imagePullSecrets" not in admitted(objects, pod("web"))


def test_mirror_pods_are_left_alone_or_refused(objects: Objects) -> None:
    mirror = pod("static", metadata=MIRROR, nodeName="node-1")
    assert admitted(objects, copy.deepcopy(mirror)) == mirror["spec"]
    for spec, message in (
            ({"serviceAccountName": "default"}, "a mirror pod may not reference service accounts"),
            ({"imagePullSecrets": [{"name": "s"}]}, "a mirror pod may not reference secrets"),
            ({"volumes": [{"name": "v", "azureFile": {"shareName": "s"}}]}, "a mirror pod may not reference secrets"),
            ({"volumes": [{"name": "v", "rbd": {"image": "i"}}]}, None),
            ({"volumes": [{"name": "v", "rbd": {"image": "i", "secretRef": {"name": "s"}}}]},
             "a mirror pod may not reference secrets"),
            ({"ephemeralContainers": [{"name": "e", "image": "x", "envFrom": [{"secretRef": {"name": "s"}}]}]},
             "a mirror pod may not reference secrets"),
            ({"volumes": [{"name": "v", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}}]},
             "a mirror pod may not use ServiceAccountToken volume projections")):
        candidate = pod("static", metadata=MIRROR, nodeName="node-1", **spec)
        if message is None:
            admitted(objects, candidate)
        else:
            error = refused(objects, candidate)
            assert (error.code, error.message) == (403, f'pods "static" is forbidden: {message}')


def test_enforced_mountable_secrets(objects: Objects) -> None:
    for value, enforced in (("true", True), ("1", True), ("yes", False), ("false", False)):
        objects.add(account(f"strict-{value}", {"kubernetes.io/enforce-mountable-secrets": value},
                            secrets=[{"name": "allowed"}], imagePullSecrets=[{"name": "pull"}]))
        candidate = pod("web", serviceAccountName=f"strict-{value}", volumes=[{"name": "s", "secret": {"secretName": "x"}}])
        if enforced:
            refused(objects, candidate)
        else:
            admitted(objects, candidate)
    env = [{"name": "E", "valueFrom": {"secretKeyRef": {"name": "x", "key": "k"}}}]
    for spec, message in (
            ({"volumes": [{"name": "s", "secret": {"secretName": "x"}}]},
             'volume with secret.secretName="x" is not allowed because service account strict-true does not '
             "reference that secret"),
            ({"initContainers": [{"name": "i", "image": "x", "env": env}]},
             'init container i with envVar E referencing secret.secretName="x" is not allowed because service '
             "account strict-true does not reference that secret"),
            ({"containers": [{"name": "c", "image": "x", "envFrom": [{"secretRef": {"name": "x"}}]}]},
             'container c with envFrom referencing secret.secretName="x" is not allowed because service account '
             "strict-true does not reference that secret"),
            ({"imagePullSecrets": [{"name": "pull"}, {"name": "x"}]},
             'imagePullSecrets[1].name="x" is not allowed because service account strict-true does not reference '
             "that imagePullSecret")):
        assert refused(objects, pod("web", serviceAccountName="strict-true", **spec)).message == (
            f'pods "web" is forbidden: {message}')
    allowed = pod("web", serviceAccountName="strict-true", volumes=[{"name": "s", "secret": {"secretName": "allowed"}}],
                  imagePullSecrets=[{"name": "pull"}])
    admitted(objects, allowed)
    # Added later, ephemeral containers are checked on their own subresource; updates otherwise not.
    for container, message in (
            ({"env": env}, 'ephemeral container debug with envVar E referencing secret.secretName="x" is not '
                           "allowed because service account strict-true does not reference that secret"),
            ({"envFrom": [{"secretRef": {"name": "allowed"}}]}, None)):
        updated = copy.deepcopy(allowed)
        updated["spec"]["ephemeralContainers"] = [{"name": "debug", "image": "x", **container}]
        if message is None:
            validate(objects.admission, updated, allowed, "ephemeralcontainers")
        else:
            error = refused(objects, updated, allowed, "ephemeralcontainers")
            assert (error.code, error.reason, error.message) == (500, "", message)
        validate(objects.admission, updated, allowed, None)
        validate(objects.admission, updated, allowed, "status")


def test_ephemeral_containers_of_a_pod_without_an_account(objects: Objects) -> None:
    stored = pod("web")
    updated = pod("web", ephemeralContainers=[{"name": "debug", "image": "x"}])
    assert refused(objects, updated, stored, "ephemeralcontainers").message == (
        'pods "web" is forbidden: no service account specified for pod ns/web')


def test_updates_and_other_subresources_are_not_mutated(objects: Objects) -> None:
    stored = pod("web")
    for subresource in (None, "status"):
        updated = pod("web")
        admit(objects.admission, updated, stored, subresource)
        assert updated == stored


def test_enabling_and_disabling_by_kubes_names() -> None:
    assert admission_plugins(["ServiceAccount", "NamespaceLifecycle"], []) == frozenset({"ServiceAccount"})
    assert admission_plugins([], ["ServiceAccount"]) == frozenset()
    for enable, disable, message in (
            (["ServiceAccount"], ["ServiceAccount"],
             "[ServiceAccount] in enable-admission-plugins and disable-admission-plugins overlapped"),
            (["NodeRestriction"], [], 'enable-admission-plugins plugin "NodeRestriction" is unknown to fakeapi'),
            ([], ["Priority"], 'disable-admission-plugins plugin "Priority" is always run by fakeapi')):
        with pytest.raises(SystemExit, match=message.replace("[", r"\[").replace("]", r"\]")):
            admission_plugins(enable, disable)
