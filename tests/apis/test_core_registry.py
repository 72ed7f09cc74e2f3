"""The core kinds through the registry (no HTTP): what kube-apiserver v1.35.4 stores and
answers for the strategies, the Service allocators and the admission plugins fakeapi runs
(expected values are what the real server gave for the same requests; tests/kasdiff compares
the two servers on the whole corpus)."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from fakeapi.machinery import warning
from fakeapi.machinery.delete_options import DeleteOptions
from fakeapi.machinery.status import StatusError
from fakeapi.registry.registry import Registry
from fakeapi.store import Store


@pytest.fixture
def registry() -> Iterator[Registry]:
    """A started registry; its watch caches' tasks wait on a loop that runs only to stop them
    (the tests read the store, not the caches)."""
    loop = asyncio.new_event_loop()
    served = Registry(Store())

    async def start() -> None:
        served.start()

    loop.run_until_complete(start())
    yield served
    loop.run_until_complete(served.stop())
    loop.close()


def create(registry: Registry, plural: str, obj: dict[str, Any], namespace: str | None = "default") -> dict[str, Any]:
    return orjson.loads(registry.resources[("", "v1", plural)].create(namespace, obj))


def refused(registry: Registry, plural: str, obj: dict[str, Any]) -> StatusError:
    with pytest.raises(StatusError) as raised:
        create(registry, plural, obj)
    return raised.value


def pod(name: str, **spec: Any) -> dict[str, Any]:
    containers = spec.pop("containers", [{"name": "app", "image": "nginx"}])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": containers, **spec}}


def service(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"ports": [{"port": 80}], **spec}}


def test_pod_create_sets_status_priority_and_tolerations(registry: Registry) -> None:
    created = create(registry, "pods", pod("web", containers=[
        {"name": "app", "image": "nginx", "resources": {"limits": {"cpu": "0.5", "memory": "64Mi"}}}]))
    assert created["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}
    spec = created["spec"]
    assert spec["containers"][0]["resources"] == {"limits": {"cpu": "500m", "memory": "64Mi"},
                                                  "requests": {"cpu": "500m", "memory": "64Mi"}}
    assert (spec["priority"], spec["enableServiceLinks"], spec["preemptionPolicy"]) == (0, True, "PreemptLowerPriority")
    assert spec["tolerations"] == [
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]


def test_pod_with_system_priority_class(registry: Registry) -> None:
    created = create(registry, "pods", pod("critical", priorityClassName="system-node-critical"))
    assert created["spec"]["priority"] == 2000001000
    error = refused(registry, "pods", pod("unknown-class", priorityClassName="gold"))
    assert (error.code, error.message) == (403, 'pods "unknown-class" is forbidden: no PriorityClass with name gold '
                                                'was found')


def test_pod_spec_is_immutable_but_image_is_not(registry: Registry) -> None:
    pods = registry.resources[("", "v1", "pods")]
    create(registry, "pods", pod("web"))
    changed = orjson.loads(pods.get("default", "web"))
    changed["spec"]["containers"][0]["image"] = "nginx:2"
    assert orjson.loads(pods.update("default", "web", changed))["spec"]["containers"][0]["image"] == "nginx:2"
    changed = orjson.loads(pods.get("default", "web"))
    changed["spec"]["restartPolicy"] = "Never"
    with pytest.raises(StatusError) as raised:
        pods.update("default", "web", changed)
    assert raised.value.code == 422
    assert raised.value.message.startswith('Pod "web" is invalid: spec: Forbidden: pod updates may not change fields '
                                           'other than')


def test_limit_ranger_defaults_pod_resources_and_recomputes_qos(registry: Registry) -> None:
    create(registry, "limitranges", {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "defaults"},
                                     "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"},
                                                          "defaultRequest": {"cpu": "100m"}, "max": {"cpu": "1"}}]}})
    created = create(registry, "pods", pod("defaulted", containers=[
        {"name": "app", "image": "nginx"}, {"name": "own", "image": "nginx", "resources": {"limits": {"cpu": "1"}}}]))
    assert [c["resources"] for c in created["spec"]["containers"]] == [
        {"limits": {"cpu": "500m"}, "requests": {"cpu": "100m"}}, {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}]
    assert created["metadata"]["annotations"] == {
        "kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu request for container app; cpu limit for container app"}
    assert created["status"]["qosClass"] == "Burstable"
    error = refused(registry, "pods", pod("too-big", containers=[
        {"name": "app", "image": "nginx", "resources": {"limits": {"cpu": "2"}}}]))
    assert (error.code, error.message) == (403, 'pods "too-big" is forbidden: maximum cpu usage per Container is 1, '
                                                'but limit is 2')


def test_service_allocates_cluster_ip_and_node_ports(registry: Registry) -> None:
    created = create(registry, "services", service("web", type="NodePort"))
    spec = created["spec"]
    assert ipaddress.ip_address(spec["clusterIP"]) in ipaddress.ip_network("10.0.0.0/24")
    assert spec["clusterIPs"] == [spec["clusterIP"]] and spec["clusterIP"] != "10.0.0.1"
    assert 30000 <= spec["ports"][0]["nodePort"] <= 32767
    assert (spec["ipFamilies"], spec["ipFamilyPolicy"], spec["externalTrafficPolicy"]) == (
        ["IPv4"], "SingleStack", "Cluster")
    error = refused(registry, "services", service("same-ip", clusterIP=spec["clusterIP"]))
    assert error.code == 422
    assert error.message == (f'Service "same-ip" is invalid: spec.clusterIPs: Invalid value: '
                             f'["{spec["clusterIP"]}"]: failed to allocate IP {spec["clusterIP"]}: provided IP is '
                             f'already allocated')
    registry.resources[("", "v1", "services")].delete("default", "web", DeleteOptions())
    assert create(registry, "services", service("same-ip", clusterIP=spec["clusterIP"]))["spec"]["clusterIP"] == \
        spec["clusterIP"]


def test_headless_and_external_name_services_get_no_ip(registry: Registry) -> None:
    assert create(registry, "services", service("headless", clusterIP="None"))["spec"]["clusterIPs"] == ["None"]
    external = create(registry, "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext"},
                                             "spec": {"type": "ExternalName", "externalName": "example.com"}})
    assert "clusterIP" not in external["spec"]


def claim(name: str, data_source: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                     "dataSource": data_source}}


def test_persistent_volume_claim_data_sources_mirror_each_other(registry: Registry) -> None:
    created = create(registry, "persistentvolumeclaims", claim("clone", {"kind": "PersistentVolumeClaim",
                                                                         "name": "origin"}))
    assert created["spec"]["dataSourceRef"] == {"apiGroup": None, "kind": "PersistentVolumeClaim", "name": "origin"}
    assert created["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    populated = create(registry, "persistentvolumeclaims", claim("populated", {
        "apiGroup": "example.com", "kind": "Populator", "name": "p"}))
    assert "dataSource" not in populated["spec"] and "dataSourceRef" not in populated["spec"]


def test_validation_warnings_are_recorded_as_headers(registry: Registry) -> None:
    with warning.recording() as recorded:
        create(registry, "pods", pod("warned", nodeSelector={"beta.kubernetes.io/arch": "amd64"}))
    assert recorded == ['299 - "spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use '
                        '\\"kubernetes.io/arch\\" instead"']


def test_apparmor_annotations_become_container_profiles_with_a_warning(registry: Registry) -> None:
    manifest = pod("apparmor", containers=[{"name": "app", "image": "nginx"}, {"name": "bad", "image": "nginx"}])
    manifest["metadata"]["annotations"] = {"container.apparmor.security.beta.kubernetes.io/app": "unconfined",
                                           "container.apparmor.security.beta.kubernetes.io/bad": "localhost/"}
    with warning.recording() as recorded:
        created = create(registry, "pods", manifest)
    assert [c.get("securityContext") for c in created["spec"]["containers"]] == [
        {"appArmorProfile": {"type": "Unconfined"}}, None]
    assert recorded == [f'299 - "metadata.annotations[container.apparmor.security.beta.kubernetes.io/{name}]: '
                        'deprecated since v1.30; use the \\"appArmorProfile\\" field instead"' for name in ("app", "bad")]
    # the pod's own profile already says it: nothing copied, nothing deprecated
    same = pod("same", securityContext={"appArmorProfile": {"type": "RuntimeDefault"}})
    same["metadata"]["annotations"] = {"container.apparmor.security.beta.kubernetes.io/app": "runtime/default"}
    with warning.recording() as recorded:
        created = create(registry, "pods", same)
    assert (created["spec"]["containers"][0].get("securityContext"), recorded) == (None, [])


def test_host_users_is_read_from_the_pod_spec(registry: Registry) -> None:
    error = refused(registry, "pods", pod("userns", hostUsers=False, hostNetwork=True))
    assert error.message == 'Pod "userns" is invalid: spec.hostNetwork: Forbidden: when `hostUsers` is false'
    unmasked = create(registry, "pods", pod("unmasked", hostUsers=False, containers=[
        {"name": "app", "image": "nginx", "securityContext": {"procMount": "Unmasked"}}]))
    assert unmasked["spec"]["containers"][0]["securityContext"]["procMount"] == "Unmasked"


def test_pod_security_labels_of_the_namespace_are_enforced(registry: Registry) -> None:
    create(registry, "namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "strict", "labels": {"pod-security.kubernetes.io/enforce": "baseline"}}}, None)
    with pytest.raises(StatusError) as raised:
        registry.resources[("", "v1", "pods")].create("strict", pod("host", hostPID=True))
    assert (raised.value.code, raised.value.message) == (
        403, 'pods "host" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true)')
    assert create(registry, "pods", pod("host", hostPID=True))["metadata"]["name"] == "host"  # default: unlabelled


def test_secret_docker_config_errors_are_gos(registry: Registry) -> None:
    error = refused(registry, "secrets", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "docker"},
                                          "type": "kubernetes.io/dockerconfigjson",
                                          "data": {".dockerconfigjson": "bm9wZQ=="}})
    assert error.message == ('Secret "docker" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents '
                             'redacted>": invalid character \'o\' in literal null (expecting \'u\')')


def quota(registry: Registry, name: str, hard: dict[str, str], used: dict[str, str] | None, **spec: Any) -> None:
    """A ResourceQuota whose status the quota controller would have filled."""
    create(registry, "resourcequotas", {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name},
                                        "spec": {"hard": hard, **spec}})
    status = {"hard": hard, **({"used": used} if used is not None else {})}
    registry.resources[("", "v1", "resourcequotas")].rewrite(
        "default", name, lambda stored: {**stored, "status": status}, subresource="status")


def quota_status(registry: Registry, name: str) -> dict[str, Any]:
    return orjson.loads(registry.resources[("", "v1", "resourcequotas")].get("default", name))["status"]


def test_resource_quota_charges_and_refuses_pods(registry: Registry) -> None:
    quota(registry, "compute", {"pods": "2", "requests.cpu": "1", "limits.memory": "1Gi"},
          {"pods": "0", "requests.cpu": "0", "limits.memory": "0"})
    create(registry, "pods", pod("first", containers=[
        {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "600m"}, "limits": {"memory": "512Mi"}}}]))
    assert quota_status(registry, "compute")["used"] == {"pods": "1", "requests.cpu": "600m",
                                                         "limits.memory": "512Mi"}
    error = refused(registry, "pods", pod("second", containers=[
        {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "500m"}, "limits": {"memory": "256Mi"}}}]))
    assert (error.code, error.message) == (403, 'pods "second" is forbidden: exceeded quota: compute, requested: '
                                                'requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1')
    error = refused(registry, "pods", pod("no-limits"))
    assert error.message == ('pods "no-limits" is forbidden: failed quota: compute: must specify limits.memory for: '
                             'app; requests.cpu for: app')
    assert quota_status(registry, "compute")["used"]["pods"] == "1"


def test_resource_quota_counts_objects_and_needs_a_known_status(registry: Registry) -> None:
    quota(registry, "objects", {"configmaps": "1", "count/secrets": "5"}, {"configmaps": "0", "count/secrets": "0"})
    create(registry, "configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}})
    error = refused(registry, "configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "two"}})
    assert error.message == ('configmaps "two" is forbidden: exceeded quota: objects, requested: configmaps=1, '
                             'used: configmaps=1, limited: configmaps=1')
    quota(registry, "unknown", {"services": "1"}, None)
    error = refused(registry, "services", service("web"))
    assert error.message == 'services "web" is forbidden: status unknown for quota: unknown, resources: services'
