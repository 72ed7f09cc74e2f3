"""The ServiceAccount admission plugin, on fakeapi and on a real kube-apiserver that both run it
(``fakeapi serve --enable-admission-plugins ServiceAccount``; kube's default, which the
session's oracle turns off). What the controller-manager would create in a namespace, the
``default`` ServiceAccount and the ``kube-root-ca.crt`` ConfigMap, the test creates on both.

Compared: the stored pods (the ``kube-api-access-`` volume's random suffix normalised) and the
refusals: a pod defaulted to ``default`` with its token volume mounted in init containers and
containers, a missing account (named, with a generateName, and ``default`` in a namespace without
one), ``automountServiceAccountToken`` off on the pod or on the account (and the pod's choice
winning), containers with something already at the token's path, a pod's own
``kube-api-access-*`` volume, the account's image pull secrets, mirror pods (accepted untouched,
refused when they name an account, a secret or a token projection), the account's
``kubernetes.io/enforce-mountable-secrets`` over volumes, env, envFrom and image pull secrets,
ephemeral containers added later (kube's 500; a mirror pod's refused by the pod's validation), updates left alone, a dry run, and the plugin's
place in the chain (its refusal before Priority's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from differ import Json, Outcome, Pair
from fakeapi.cluster.control_plane import Etcd, KubeAPIServer
from fakeapi.testing import ServerProcess

NS = "service-account"
#: A namespace where nobody created the ``default`` ServiceAccount.
BARE_NS = "service-account-bare"
PODS = f"/api/v1/namespaces/{NS}/pods"
MIRROR = {"kubernetes.io/config.mirror": "mirror"}
#: The token volume's name, whose 5 characters are random (``names.SimpleNameGenerator``).
_TOKEN_VOLUME = re.compile(r"kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}")


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, outcomes: list[Outcome]) -> Iterator[Pair]:
    workdir = tmp_path_factory.mktemp("service-account-oracle")
    with Etcd(workdir / "etcd") as etcd, \
            KubeAPIServer(workdir / "apiserver", etcd.client_url, disabled_admission_plugins="") as real, \
            ServerProcess(tmp_path_factory.mktemp("service-account-fakeapi"), "--controllers", "",
                          "--enable-admission-plugins", "ServiceAccount") as fake:
        for client in (fake.http, real.http):
            for path, body in (("/api/v1/namespaces", {"metadata": {"name": NS}}),
                               ("/api/v1/namespaces", {"metadata": {"name": BARE_NS}}),
                               (f"/api/v1/namespaces/{NS}/serviceaccounts", {"metadata": {"name": "default"}}),
                               (f"/api/v1/namespaces/{NS}/configmaps",
                                {"metadata": {"name": "kube-root-ca.crt"}, "data": {"ca.crt": "a CA"}})):
                response = client.post(path, json=body)
                assert response.status_code == 201, response.text
        both = Pair(fake.http, real.http)
        both.outcomes = outcomes
        yield both


def _token_volume_named(answer: Json, _is_fake: bool) -> Json:
    """The answer with the token volume's random suffix replaced, wherever it is named."""
    return json.loads(_TOKEN_VOLUME.sub("kube-api-access-<random>", json.dumps(answer)))


def _pod(name: str, annotations: dict[str, str] | None = None, **spec: object) -> bytes:
    meta: Json = {"name": name} if not name.endswith("-") else {"generateName": name}
    if annotations:
        meta["annotations"] = annotations
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                       "spec": {"containers": [{"name": "app", "image": "app"}], **spec}}).encode()


def _matched(outcome: Outcome) -> Outcome:
    assert outcome.matched, "\n".join(outcome.differences)
    return outcome


def _create(pair: Pair, case: str, body: bytes, status: int, path: str = PODS) -> Outcome:
    """Create on both; a created pod is read back, stored as each server keeps it."""
    outcome = _matched(pair.send(case, "Pod", "create", "POST", path, body=body, rewrite=_token_volume_named))
    assert outcome.real.status == status, outcome.real.body
    if status == 201:
        name = outcome.real.raw["metadata"]["name"]
        _matched(pair.send(case, "Pod", "get", "GET", (f"{path}/{outcome.fake.raw['metadata']['name']}",
                                                       f"{path}/{name}"), rewrite=_token_volume_named))
    return outcome


def _account(pair: Pair, case: str, name: str, annotations: dict[str, str] | None = None, **fields: object) -> None:
    meta: Json = {"name": name, **({"annotations": annotations} if annotations else {})}
    body = json.dumps({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta, **fields}).encode()
    _matched(pair.send(case, "ServiceAccount", "create", "POST", f"/api/v1/namespaces/{NS}/serviceaccounts",
                       body=body))


def test_a_pod_gets_default_and_its_token_volume(pair: Pair) -> None:
    outcome = _create(pair, "sa-default", _pod("defaulted", initContainers=[{"name": "init", "image": "init"}]), 201)
    spec = outcome.real.body["spec"]
    assert spec["serviceAccountName"] == "default"
    assert spec["volumes"][0]["name"] == "kube-api-access-<random>"
    assert [c["volumeMounts"][0]["mountPath"] for c in spec["initContainers"] + spec["containers"]] == [
        "/var/run/secrets/kubernetes.io/serviceaccount"] * 2


def test_a_missing_account_is_refused(pair: Pair) -> None:
    assert _create(pair, "sa-missing", _pod("missing", serviceAccountName="nobody"), 403).real.body["message"] == (
        'pods "missing" is forbidden: error looking up service account service-account/nobody: '
        'serviceaccount "nobody" not found')
    _create(pair, "sa-missing-generated", _pod("missing-", serviceAccountName="nobody"), 403)
    _create(pair, "sa-missing-default", _pod("nodefault"), 403, f"/api/v1/namespaces/{BARE_NS}/pods")


def test_the_plugin_refuses_before_priority(pair: Pair) -> None:
    _create(pair, "sa-before-priority", _pod("both-missing", serviceAccountName="nobody",
                                             priorityClassName="no-such-class"), 403)


def test_automount_off_on_the_pod_or_the_account(pair: Pair) -> None:
    _account(pair, "sa-automount", "quiet", automountServiceAccountToken=False)
    _create(pair, "sa-automount", _pod("pod-off", automountServiceAccountToken=False), 201)
    outcome = _create(pair, "sa-automount", _pod("account-off", serviceAccountName="quiet"), 201)
    assert "volumes" not in outcome.real.body["spec"]
    _create(pair, "sa-automount", _pod("pod-wins", serviceAccountName="quiet", automountServiceAccountToken=True), 201)


def test_existing_mounts_and_volumes_are_kept(pair: Pair) -> None:
    containers = [{"name": "own", "image": "app", "volumeMounts": [
        {"name": "mine", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}, {"name": "other", "image": "app"}]
    _create(pair, "sa-existing-mount", _pod("own-mount", containers=containers,
                                            volumes=[{"name": "mine", "emptyDir": {}}]), 201)
    outcome = _create(pair, "sa-existing-volume", _pod("own-volume", volumes=[
        {"name": "kube-api-access-mine", "emptyDir": {}}, {"name": "kube-api-access-later", "emptyDir": {}}]), 201)
    assert outcome.real.body["spec"]["containers"][0]["volumeMounts"][0]["name"] == "kube-api-access-mine"


def test_the_accounts_image_pull_secrets(pair: Pair) -> None:
    _account(pair, "sa-pull-secrets", "puller", imagePullSecrets=[{"name": "registry"}, {"name": "mirror"}])
    _create(pair, "sa-pull-secrets", _pod("inherits", serviceAccountName="puller"), 201)
    _create(pair, "sa-pull-secrets", _pod("keeps", serviceAccountName="puller",
                                          imagePullSecrets=[{"name": "own"}]), 201)


def test_mirror_pods(pair: Pair) -> None:
    node = {"nodeName": "node-1"}
    outcome = _create(pair, "sa-mirror", _pod("mirror", MIRROR, **node), 201)
    assert "serviceAccountName" not in outcome.real.body["spec"]
    # Nor ephemeral containers: the pod's validation refuses them before the plugin could.
    _matched(pair.send("sa-mirror-ephemeral", "Pod", "patch", "PATCH", f"{PODS}/mirror/ephemeralcontainers",
                       body=b'{"spec": {"ephemeralContainers": [{"name": "debug", "image": "debug"}]}}',
                       content_type="application/strategic-merge-patch+json"))
    _create(pair, "sa-mirror-account", _pod("mirror-account", MIRROR, serviceAccountName="default", **node), 403)
    for case, spec in (
            ("sa-mirror-secret-volume", {"volumes": [{"name": "s", "secret": {"secretName": "s"}}]}),
            ("sa-mirror-pull-secret", {"imagePullSecrets": [{"name": "s"}]}),
            ("sa-mirror-env", {"containers": [{"name": "app", "image": "app", "env": [
                {"name": "E", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}]}),
            ("sa-mirror-csi", {"volumes": [{"name": "c", "csi": {"driver": "d", "nodePublishSecretRef": {"name": "s"}}}]}),
            ("sa-mirror-projected-secret", {"volumes": [{"name": "p", "projected": {"sources": [
                {"secret": {"name": "s"}}]}}]}),
            ("sa-mirror-token", {"volumes": [{"name": "p", "projected": {"sources": [
                {"serviceAccountToken": {"path": "token"}}]}}]})):
        _create(pair, case, _pod(case, MIRROR, **{**node, **spec}), 403)


def test_enforced_mountable_secrets(pair: Pair) -> None:
    _account(pair, "sa-enforced", "strict", {"kubernetes.io/enforce-mountable-secrets": "true"},
             secrets=[{"name": "allowed"}], imagePullSecrets=[{"name": "pull"}])
    env = [{"name": "E", "valueFrom": {"secretKeyRef": {"name": "other", "key": "k"}}}]
    for case, status, spec in (
            ("sa-enforced-allowed", 201, {"volumes": [{"name": "s", "secret": {"secretName": "allowed"}}],
                                          "containers": [{"name": "app", "image": "app",
                                                          "envFrom": [{"secretRef": {"name": "allowed"}}]}]}),
            ("sa-enforced-volume", 403, {"volumes": [{"name": "s", "secret": {"secretName": "other"}}]}),
            ("sa-enforced-env", 403, {"containers": [{"name": "app", "image": "app", "env": env}]}),
            ("sa-enforced-init-env-from", 403, {"initContainers": [
                {"name": "init", "image": "init", "envFrom": [{"secretRef": {"name": "other"}}]}]}),
            ("sa-enforced-pull-secret", 403, {"imagePullSecrets": [{"name": "pull"}, {"name": "other"}]})):
        _create(pair, case, _pod(case, serviceAccountName="strict", **spec), status)
    # Ephemeral containers are checked when added: kube answers its refusal as a plain error (500).
    path = f"{PODS}/sa-enforced-allowed/ephemeralcontainers"
    for case, container in (("sa-enforced-ephemeral-env", {"env": env}),
                            ("sa-enforced-ephemeral-env-from", {"envFrom": [{"secretRef": {"name": "other"}}]}),
                            ("sa-enforced-ephemeral-allowed", {"envFrom": [{"secretRef": {"name": "allowed"}}]})):
        body = json.dumps({"spec": {"ephemeralContainers": [{"name": "debug", "image": "debug", **container}]}})
        _matched(pair.send(case, "Pod", "patch", "PATCH", path, body=body.encode(),
                           content_type="application/strategic-merge-patch+json", rewrite=_token_volume_named))


def test_updates_and_dry_runs(pair: Pair) -> None:
    _create(pair, "sa-update", _pod("updated"), 201)
    _matched(pair.send("sa-update", "Pod", "patch", "PATCH", f"{PODS}/updated",
                       body=b'{"metadata": {"labels": {"changed": "yes"}}}',
                       content_type="application/strategic-merge-patch+json", rewrite=_token_volume_named))
    _matched(pair.send("sa-dry-run", "Pod", "create", "POST", f"{PODS}?dryRun=All", body=_pod("dry"),
                       rewrite=_token_volume_named))

