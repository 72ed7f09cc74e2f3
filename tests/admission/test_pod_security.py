"""PodSecurity admission alone: a namespace's policy from its labels (kube's PolicyToEvaluate and
its tests), the checks of each level and version in kube's order, pods refused or warned about,
pod templates warned about, and the namespace updates refused or warned about. The whole answers
are compared with kube's in tests/kasdiff/corpus/core-pod-security.yaml."""

from __future__ import annotations

from typing import Any

import pytest
from admission_objects import Objects, new, pod

from fakeapi.admission import pod_security, validators_for
from fakeapi.admission.pod_security import (
    LevelVersion,
    Policy,
    pod_security_of_namespace,
    pod_security_of_pod,
    policy_of,
)
from fakeapi.admission.pod_security_policy import BASELINE, NEWEST_MINOR, RESTRICTED, checks_of, violations
from fakeapi.machinery import warning
from fakeapi.machinery.status import StatusError

ENFORCE = "pod-security.kubernetes.io/enforce"
WARN = "pod-security.kubernetes.io/warn"
AUDIT = "pod-security.kubernetes.io/audit"

COMPLIANT_SPEC = {
    "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
    "containers": [{"name": "app", "image": "nginx",
                    "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}}],
}
RESTRICTED_DETAIL = (
    'allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), '
    'unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), '
    'runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), '
    'seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or '
    '"Localhost")'
)


def namespace(name: str = "ns", **labels: str) -> dict[str, Any]:
    return new("v1", "Namespace", name, None, metadata={"labels": labels} if labels else {})


# -- the policy of a namespace -----------------------------------------------------------------

def test_no_labels_is_privileged_everywhere() -> None:
    assert policy_of({}) == (Policy(), [])
    assert policy_of({"app": "web"}) == (Policy(), [])


def test_warn_follows_a_stricter_enforce_with_its_version() -> None:
    policy, errors = policy_of({ENFORCE: "baseline", "pod-security.kubernetes.io/enforce-version": "v1.20"})
    assert errors == []
    assert policy.warn == LevelVersion(BASELINE, "v1.20") == policy.enforce
    assert policy.audit == LevelVersion("privileged")


def test_warn_of_its_own_is_kept_and_its_version_pins_a_derived_level() -> None:
    assert policy_of({ENFORCE: "restricted", WARN: "baseline"})[0].warn == LevelVersion(BASELINE)
    assert policy_of({ENFORCE: "restricted", "pod-security.kubernetes.io/warn-version": "v1.22"})[0].warn == \
        LevelVersion(RESTRICTED, "v1.22")


def test_labels_that_do_not_parse_fail_closed_for_enforce_and_open_for_the_others() -> None:
    policy, errors = policy_of({ENFORCE: "strict", "pod-security.kubernetes.io/enforce-version": "v1.07",
                                AUDIT: "Baseline", WARN: "x", "pod-security.kubernetes.io/warn-version": "1.30"})
    assert policy == Policy(enforce=LevelVersion(RESTRICTED), audit=LevelVersion("privileged"),
                            warn=LevelVersion("privileged"))
    assert [field for field, _, _ in errors] == [
        f"metadata.labels[{ENFORCE}]", f"metadata.labels[{ENFORCE}-version]", f"metadata.labels[{AUDIT}]",
        f"metadata.labels[{WARN}]", f"metadata.labels[{WARN}-version]",
    ]
    assert errors[0] == (f"metadata.labels[{ENFORCE}]", "FieldValueInvalid",
                         'Invalid value: "strict": must be one of privileged, baseline, restricted')
    assert errors[1][2] == 'Invalid value: "v1.07": must be "latest" or "v1.x"'


def test_a_version_beyond_int64_does_not_parse() -> None:
    assert policy_of({ENFORCE: "baseline", "pod-security.kubernetes.io/enforce-version": "v1.9223372036854775808"})[1]
    assert not policy_of({ENFORCE: "baseline", "pod-security.kubernetes.io/enforce-version": "v1.9223372036854775807"})[1]


# -- the checks --------------------------------------------------------------------------------

def _ids(level: str, minor: int) -> list[str]:
    return [check_id for check_id, _ in checks_of(level, minor)]


BASELINE_IDS = ["appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPathVolumes", "hostPorts",
                "hostProbesAndHostLifecycle", "privileged", "procMount", "seLinuxOptions", "seccompProfile_baseline",
                "sysctls", "windowsHostProcess"]


def test_baseline_runs_its_checks_by_id_from_their_first_version() -> None:
    assert _ids(BASELINE, NEWEST_MINOR) == BASELINE_IDS
    assert _ids(BASELINE, 33) == [i for i in BASELINE_IDS if i != "hostProbesAndHostLifecycle"]


def test_restricted_replaces_the_baseline_checks_it_overrides_from_their_version_on() -> None:
    assert _ids(RESTRICTED, NEWEST_MINOR) == [
        "appArmorProfile", "hostNamespaces", "hostPorts", "hostProbesAndHostLifecycle", "privileged",
        "seLinuxOptions", "sysctls", "windowsHostProcess", "allowPrivilegeEscalation", "capabilities_restricted",
        "procMount_restricted", "restrictedVolumes", "runAsNonRoot", "runAsUser", "seccompProfile_restricted"]
    assert _ids(RESTRICTED, 0) == [
        "appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPorts", "privileged", "procMount",
        "seLinuxOptions", "seccompProfile_baseline", "sysctls", "windowsHostProcess", "restrictedVolumes",
        "runAsNonRoot"]
    assert "seccompProfile_baseline" not in _ids(RESTRICTED, 19)
    assert "capabilities_baseline" in _ids(RESTRICTED, 21) and "capabilities_baseline" not in _ids(RESTRICTED, 22)


def test_a_later_version_evaluates_as_the_newest() -> None:
    assert checks_of(RESTRICTED, 99) == checks_of(RESTRICTED, NEWEST_MINOR)


def test_reasons_come_baseline_first_then_restricted_each_by_check_id() -> None:
    spec = {"hostPID": True, "securityContext": {"runAsUser": 0},
            "containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 1, "hostPort": 1}]}]}
    assert [reason for reason, _ in violations(RESTRICTED, NEWEST_MINOR, {}, spec)] == [
        "host namespaces", "hostPort", "allowPrivilegeEscalation != false", "unrestricted capabilities",
        "runAsNonRoot != true", "runAsUser=0", "seccompProfile"]


@pytest.mark.parametrize(("level", "minor", "meta", "spec", "found"), [
    # host ports are sorted as strings; one container "uses", several "use"
    (BASELINE, 35, {}, {"containers": [
        {"name": "a", "ports": [{"containerPort": 1, "hostPort": 8080}, {"containerPort": 2, "hostPort": 443}]},
        {"name": "b", "ports": [{"containerPort": 3, "hostPort": 80}]}]},
     [("hostPort", 'containers "a", "b" use hostPorts 443, 80, 8080')]),
    # AppArmor: the profile types sorted, then the annotations sorted
    (BASELINE, 35, {"annotations": {"container.apparmor.security.beta.kubernetes.io/b": "unconfined",
                                    "container.apparmor.security.beta.kubernetes.io/a": "localhost/x"}},
     {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}, "containers": [{"name": "a"}]},
     [("forbidden AppArmor profiles", 'pod and annotation must not set AppArmor profile type to "Unconfined", '
       '"container.apparmor.security.beta.kubernetes.io/b="unconfined""')]),
    # SELinux: types, then user, then role
    (BASELINE, 35, {}, {"containers": [{"name": "a", "securityContext": {"seLinuxOptions": {"user": "u", "role": "r"}}}]},
     [("seLinuxOptions", 'container "a" set forbidden securityContext.seLinuxOptions: user may not be set; '
       "role may not be set")]),
    # probe and lifecycle hosts: containers and hosts sorted, each once
    (BASELINE, 34, {}, {"containers": [
        {"name": "b", "startupProbe": {"tcpSocket": {"port": 1, "host": "z"}}},
        {"name": "a", "lifecycle": {"postStart": {"httpGet": {"port": 1, "host": "y"}}},
         "livenessProbe": {"httpGet": {"port": 1, "host": "z"}}}]},
     [("probe or lifecycle host", 'containers "a", "b" use probe or lifecycle hosts "y", "z"')]),
    # an explicitly bad runAsNonRoot hides the implicit ones
    (RESTRICTED, 35, {}, {**COMPLIANT_SPEC, "securityContext": {"runAsNonRoot": False,
                                                                 "seccompProfile": {"type": "RuntimeDefault"}}},
     [("runAsNonRoot != true", "pod must not set securityContext.runAsNonRoot=false")]),
    # a user namespace pod may run as root from v1.35 on
    (RESTRICTED, 35, {}, {**COMPLIANT_SPEC, "hostUsers": False, "securityContext": {
        "runAsUser": 0, "seccompProfile": {"type": "RuntimeDefault"}}}, []),
    (RESTRICTED, 34, {}, {**COMPLIANT_SPEC, "hostUsers": False, "securityContext": {
        "runAsUser": 0, "seccompProfile": {"type": "RuntimeDefault"}}},
     [("runAsNonRoot != true", 'pod or container "app" must set securityContext.runAsNonRoot=true'),
      ("runAsUser=0", "pod must not set runAsUser=0")]),
    # windows pods skip the linux-only checks from v1.25 on
    (RESTRICTED, 35, {}, {"os": {"name": "windows"}, "securityContext": {"runAsNonRoot": True},
                          "containers": [{"name": "app"}]}, []),
    # volumes: the first restricted source a volume sets names its type; unknown otherwise
    (RESTRICTED, 35, {}, {**COMPLIANT_SPEC, "volumes": [{"name": "a", "nfs": {}}, {"name": "b"},
                                                        {"name": "c", "csi": {"driver": "d"}}]},
     [("restricted volume types", 'volumes "a", "b" use restricted volume types "nfs", "unknown"')]),
    # before v1.19 the seccomp profiles were annotations
    (BASELINE, 18, {"annotations": {"container.seccomp.security.alpha.kubernetes.io/app": "unconfined",
                                    "seccomp.security.alpha.kubernetes.io/pod": "docker/default"}},
     {"securityContext": {"seccompProfile": {"type": "Unconfined"}}, "containers": [{"name": "app"}]},
     [("seccompProfile", 'forbidden annotation container.seccomp.security.alpha.kubernetes.io/app="unconfined"')]),
    # sysctls allowed by version
    (BASELINE, 31, {}, {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_wmem"}, {"name": "net.ipv4.tcp_fin_timeout"}]},
                        "containers": [{"name": "app"}]}, [("forbidden sysctls", "net.ipv4.tcp_wmem")]),
])
def test_check_details_are_kubes(level: str, minor: int, meta: dict, spec: dict, found: list) -> None:
    assert violations(level, minor, meta, spec) == found


# -- pods ----------------------------------------------------------------------------------------

class Counting(Objects):
    """Objects that count the reads admission makes."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []
        lookup, listing = self.admission.lookup, self.admission.list

        def counted_lookup(group: str, kind: str, namespace: str | None, name: str) -> dict | None:
            self.reads.append(f"lookup {kind}")
            return lookup(group, kind, namespace, name)

        def counted_list(group: str, kind: str, namespace: str | None) -> list[dict]:
            self.reads.append(f"list {kind}")
            return listing(group, kind, namespace)

        self.admission.lookup, self.admission.list = counted_lookup, counted_list


def _validate(objects: Objects, group: str, kind: str, obj: dict, old: dict | None = None,
              subresource: str | None = None) -> list[str]:
    """The object through PodSecurity's plugin for its kind: the warnings it recorded."""
    plugins = [plugin for plugin in validators_for(group, kind) if plugin.__module__ == pod_security.__name__]
    assert len(plugins) == 1
    with warning.recording() as recorded:
        plugins[0](objects.admission, obj, old, subresource)
    return recorded


def test_a_namespace_without_labels_costs_one_lookup() -> None:
    objects = Counting()
    objects.add(namespace(app="web"))
    assert _validate(objects, "", "Pod", pod("p", hostPID=True)) == []
    assert objects.reads == ["lookup Namespace"]


def test_enforce_refuses_a_pod_with_kubes_status() -> None:
    objects = Objects()
    objects.add(namespace(**{ENFORCE: "restricted"}))
    with pytest.raises(StatusError) as refused:
        _validate(objects, "", "Pod", pod("p"))
    assert refused.value.code == 403
    assert refused.value.reason == "Forbidden"
    assert refused.value.message == f'pods "p" is forbidden: violates PodSecurity "restricted:latest": {RESTRICTED_DETAIL}'


def test_no_namespace_is_exempt_by_default() -> None:
    objects = Objects()
    objects.add(namespace("kube-system", **{ENFORCE: "restricted"}))
    with pytest.raises(StatusError):
        _validate(objects, "", "Pod", pod("p", namespace="kube-system"))


def test_warn_warns_and_a_refusal_does_not() -> None:
    objects = Objects()
    objects.add(namespace(**{ENFORCE: "baseline", WARN: "restricted", "pod-security.kubernetes.io/warn-version": "v1.30"}))
    assert _validate(objects, "", "Pod", pod("p")) == [
        warning.header(f'would violate PodSecurity "restricted:v1.30": {RESTRICTED_DETAIL}')]
    with pytest.raises(StatusError):
        _validate(objects, "", "Pod", pod("p", hostIPC=True))


def test_audit_alone_reaches_no_client() -> None:
    objects = Objects()
    objects.add(namespace(**{AUDIT: "restricted"}))
    assert _validate(objects, "", "Pod", pod("p")) == []


def test_pod_updates_are_evaluated_only_when_an_image_or_a_container_changes() -> None:
    objects = Objects()
    objects.add(namespace(**{ENFORCE: "restricted"}))
    old = pod("p")
    relabelled = pod("p", metadata={"labels": {"a": "b"}})
    assert _validate(objects, "", "Pod", relabelled, old) == []
    with pytest.raises(StatusError):
        _validate(objects, "", "Pod", pod("p", containers=[{"name": "app", "image": "nginx:2"}]), old)
    compliant = pod("p", **COMPLIANT_SPEC)
    debugged = pod("p", **COMPLIANT_SPEC, ephemeralContainers=[{"name": "debug", "image": "busybox"}])
    with pytest.raises(StatusError) as refused:
        _validate(objects, "", "Pod", debugged, compliant, "ephemeralcontainers")
    assert 'container "debug"' in refused.value.message
    assert _validate(objects, "", "Pod", debugged, debugged, "ephemeralcontainers") == []
    assert _validate(objects, "", "Pod", pod("p"), compliant, "status") == []


# -- pod templates --------------------------------------------------------------------------------

def test_templates_are_warned_about_never_refused() -> None:
    objects = Objects()
    objects.add(namespace(**{ENFORCE: "baseline"}))
    template = {"spec": {"hostNetwork": True, "containers": [{"name": "app", "image": "nginx"}]}}
    deployment = new("apps/v1", "Deployment", "d", spec={"template": template})
    expected = [warning.header('would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)')]
    assert _validate(objects, "apps", "Deployment", deployment) == expected
    assert _validate(objects, "apps", "Deployment", deployment, deployment) == expected
    assert _validate(objects, "apps", "Deployment", deployment, deployment, "scale") == []
    cron_job = new("batch/v1", "CronJob", "c", spec={"jobTemplate": {"spec": {"template": template}}})
    assert _validate(objects, "batch", "CronJob", cron_job) == expected
    assert _validate(objects, "", "PodTemplate", new("v1", "PodTemplate", "t", template=template)) == expected
    assert _validate(objects, "", "ReplicationController", new("v1", "ReplicationController", "r", spec={})) == []


# -- namespaces -----------------------------------------------------------------------------------

def _namespace_update(objects: Objects, old: dict, **labels: str) -> list[str]:
    updated = namespace(old["metadata"]["name"], **{**old["metadata"].get("labels", {}), **labels})
    with warning.recording() as recorded:
        pod_security_of_namespace(objects.admission, updated, old, None)
    return recorded


def test_labels_that_do_not_parse_are_refused_unless_they_were_already_so() -> None:
    with pytest.raises(StatusError) as refused:
        pod_security_of_namespace(Objects().admission, namespace(**{WARN: "x"}), None, None)
    assert refused.value.code == 422
    assert refused.value.message == (f'Namespace "ns" is invalid: metadata.labels[{WARN}]: Invalid value: "x": '
                                     "must be one of privileged, baseline, restricted")
    old = namespace(**{WARN: "x"})
    assert _namespace_update(Objects(), old, other="label") == []
    with pytest.raises(StatusError):
        _namespace_update(Objects(), old, **{WARN: "y"})


def test_a_tighter_enforce_level_warns_about_the_pods_it_would_refuse() -> None:
    objects = Objects()
    controller = {"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u1",
                                       "controller": True}]}
    objects.add(pod("web-b"), pod("web-a", metadata=controller), pod("web-c", metadata=controller),
                pod("agent", hostPID=True), pod("ok", **COMPLIANT_SPEC), pod("elsewhere", namespace="other"))
    old = namespace()
    reasons = "allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"
    assert _namespace_update(objects, old, **{ENFORCE: "restricted"}) == [warning.header(text) for text in (
        'existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"',
        f"agent: host namespaces, {reasons}",
        f"web-a (and 2 other pods): {reasons}",
    )]
    restricted = namespace(**{ENFORCE: "restricted"})
    assert _namespace_update(objects, restricted, **{ENFORCE: "baseline"}) == []  # relaxed
    assert _namespace_update(objects, restricted, other="label") == []  # unchanged
    assert _namespace_update(objects, old, **{ENFORCE: "privileged"}) == []


def test_only_the_first_pods_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pod_security, "NAMESPACE_MAX_PODS_TO_CHECK", 2)
    objects = Objects()
    objects.add(pod("a"), pod("b"), pod("c", **COMPLIANT_SPEC))
    truncated = warning.header("new PodSecurity enforce level only checked against the first 2 of 3 existing pods")
    assert _namespace_update(objects, namespace(), **{ENFORCE: "baseline"}) == [truncated]  # said even if none violates
    assert _namespace_update(objects, namespace(), **{ENFORCE: "restricted"})[:2] == [truncated, warning.header(
        'existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"')]


def test_pods_of_namespaces_with_labels_elsewhere_are_admitted() -> None:
    objects = Objects()
    objects.add(namespace(**{ENFORCE: "restricted"}), namespace("open"))
    pod_security_of_pod(objects.admission, pod("p", namespace="open", hostPID=True), None, None)
