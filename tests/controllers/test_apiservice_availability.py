"""The APIService availability controllers over a registry, as kube-aggregator's behave for
their clients: each APIService's ``Available`` condition follows its Service and EndpointSlices
(the differential corpus, ``apiregistration-valid.yaml``, compares each state with kube's, and
the writes' managedFields; here they follow one another); a local
APIService is put back to Available; an APIService stored before the controller started is
looked at when it starts."""

from __future__ import annotations

from typing import Any

from controller_harness import Json, create, read, resource, run, settle, until
from discovery_backend import DiscoveryBackend

from fakeapi.cluster.control_plane import free_port

from fakeapi.controllers.apiservice_availability import APIServiceAvailability
from fakeapi.registry.registry import Registry

GROUP = "apiregistration.k8s.io"
NAME = "v1.widgets.example.com"


def api_service(registry: Registry, service: Json | None = None) -> None:
    spec: Json = {"group": "widgets.example.com", "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}
    if service is not None:
        spec["service"] = service
    create(registry, "apiservices", {"apiVersion": f"{GROUP}/v1", "kind": "APIService", "metadata": {"name": NAME},
                                     "spec": spec}, namespace=None, group=GROUP)


def stored(registry: Registry) -> Json:
    obj = read(registry, "apiservices", NAME, namespace=None, group=GROUP)
    assert obj is not None
    return obj


def condition_of(registry: Registry, name: str) -> tuple[str, str, str] | None:
    """The Available condition's (status, reason, message)."""
    obj = read(registry, "apiservices", name, namespace=None, group=GROUP) or {}
    for condition in (obj.get("status") or {}).get("conditions") or ():
        if condition["type"] == "Available":
            return condition["status"], condition["reason"], condition["message"]
    return None


def available(registry: Registry) -> tuple[str, str, str] | None:
    return condition_of(registry, NAME)


def becomes(registry: Registry, expected: tuple[str, str, str]) -> Any:
    return until(lambda: available(registry) == expected, f"Available {expected}, not {available(registry)}")


def service(registry: Registry, ports: list[Json], **spec: Any) -> None:
    create(registry, "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "api"},
                                  "spec": {"ports": ports, **spec}})


def endpoint_slice(registry: Registry, name: str, ready: bool, port_name: str) -> None:
    create(registry, "endpointslices", {
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": name, "labels": {"kubernetes.io/service-name": "api"}}, "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.1.0.5"], "conditions": {"ready": ready}}],
        "ports": [{"name": port_name, "port": 8443}]}, group="discovery.k8s.io")


def test_a_service_backed_api_service_follows_its_service_and_endpoint_slices() -> None:
    async def scenario(registry: Registry) -> None:
        api_service(registry, {"name": "api", "namespace": "default"})
        await becomes(registry, ("False", "ServiceNotFound", 'service/api in "default" is not present'))
        first = stored(registry)["status"]["conditions"][0]["lastTransitionTime"]
        service(registry, [{"name": "https", "port": 8443}])
        await becomes(registry, ("False", "ServicePortError", 'service/api in "default" is not listening on port 443'))
        assert stored(registry)["status"]["conditions"][0]["lastTransitionTime"] == first  # still False
        current = read(registry, "services", "api")
        assert current is not None
        current["spec"]["ports"][0]["port"] = 443
        resource(registry, "services").storage.update("default", "api", current)
        await becomes(registry, ("False", "EndpointsNotFound", 'cannot find endpointslices for service/api in "default"'))
        endpoint_slice(registry, "api-1", False, "https")
        missing = ("False", "MissingEndpoints",
                   'endpointslices for service/api in "default" have no addresses with port name "https"')
        await becomes(registry, missing)
        resource(registry, "endpointslices", "discovery.k8s.io").storage.delete("default", "api-1")
        await becomes(registry, ("False", "EndpointsNotFound", 'cannot find endpointslices for service/api in "default"'))
        endpoint_slice(registry, "api-2", True, "metrics")
        await becomes(registry, missing)

    run(scenario, APIServiceAvailability)


def external_backend(registry: Registry, port: int, group: str = "widgets.example.com") -> None:
    """An APIService of ``group`` behind an ExternalName Service naming 127.0.0.1 (kube, as
    fakeapi, refuses loopback addresses in EndpointSlices)."""
    create(registry, "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "external"},
                                  "spec": {"type": "ExternalName", "externalName": "127.0.0.1"}})
    create(registry, "apiservices", {
        "apiVersion": f"{GROUP}/v1", "kind": "APIService", "metadata": {"name": f"v1.{group}"},
        "spec": {"group": group, "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10,
                 "insecureSkipTLSVerify": True, "service": {"name": "external", "namespace": "default", "port": port}}},
        namespace=None, group=GROUP)


def test_a_backend_is_asked_for_its_discovery_document() -> None:
    async def scenario(registry: Registry) -> None:
        with DiscoveryBackend() as backend:
            external_backend(registry, backend.port, "passed.example.com")
            await until(lambda: condition_of(registry, "v1.passed.example.com") == (
                "True", "Passed", "all checks passed"), "Passed")
            path, headers = backend.requests[0]
            assert path == "/apis/passed.example.com/v1"
            assert (headers["X-Remote-User"], headers["X-Remote-Group"]) == ("system:kube-aggregator", "system:masters")
            create(registry, "apiservices", {
                "apiVersion": f"{GROUP}/v1", "kind": "APIService", "metadata": {"name": "v1.missing.example.com"},
                "spec": {"group": "missing.example.com", "version": "v1", "groupPriorityMinimum": 100,
                         "versionPriority": 10, "insecureSkipTLSVerify": True,
                         "service": {"name": "external", "namespace": "default", "port": backend.port}}},
                namespace=None, group=GROUP)
            url = f"https://127.0.0.1:{backend.port}/apis/missing.example.com/v1"
            await until(lambda: condition_of(registry, "v1.missing.example.com") == (
                "False", "FailedDiscoveryCheck",
                f"failing or missing response from {url}: bad status from {url}: 404"), "FailedDiscoveryCheck")

    run(scenario, APIServiceAvailability)


def test_a_backend_that_comes_up_is_found_by_the_retries() -> None:
    port = free_port()
    url = f"https://127.0.0.1:{port}/apis/passed.example.com/v1"

    async def scenario(registry: Registry) -> None:
        external_backend(registry, port, "passed.example.com")
        await until(lambda: condition_of(registry, "v1.passed.example.com") == (
            "False", "FailedDiscoveryCheck", f'failing or missing response from {url}: Get "{url}": '
            f"dial tcp 127.0.0.1:{port}: connect: connection refused"), "connection refused")
        with DiscoveryBackend(port):
            await until(lambda: condition_of(registry, "v1.passed.example.com") == (
                "True", "Passed", "all checks passed"), "Passed", timeout=20)

    run(scenario, APIServiceAvailability)


def test_a_node_port_service_is_resolved_to_its_endpoints() -> None:
    """Without the ClusterIP checks: what the resolver cannot find fails the discovery check."""
    async def scenario(registry: Registry) -> None:
        api_service(registry, {"name": "api", "namespace": "default", "port": 8443})
        service(registry, [{"name": "https", "port": 443}], type="NodePort")
        await becomes(registry, ("False", "FailedDiscoveryCheck", 'no service port 8443 found for service "api"'))
        current = stored(registry)
        current["spec"]["service"]["port"] = 443
        resource(registry, "apiservices", GROUP).storage.update(None, NAME, current)
        await becomes(registry, ("False", "FailedDiscoveryCheck", 'no endpoints available for service "api"'))

    run(scenario, APIServiceAvailability)


def test_a_local_api_service_is_put_back_to_available() -> None:
    async def scenario(registry: Registry) -> None:
        api_service(registry, {"name": "api", "namespace": "default"})
        await becomes(registry, ("False", "ServiceNotFound", 'service/api in "default" is not present'))
        current = stored(registry)
        current["spec"].pop("service")
        resource(registry, "apiservices", GROUP).storage.update(None, NAME, current)
        await becomes(registry, ("True", "Local", "Local APIServices are always available"))
        current = stored(registry)
        current["status"]["conditions"][0].update(status="Unknown", reason="Edited", message="by a client")
        resource(registry, "apiservices", GROUP).storage.update(None, NAME, current, subresource="status")
        await becomes(registry, ("True", "Local", "Local APIServices are always available"))

    run(scenario, APIServiceAvailability)


def test_api_services_stored_before_the_controller_starts_are_looked_at() -> None:
    async def scenario(registry: Registry) -> None:
        api_service(registry, {"name": "api", "namespace": "default"})
        await settle()
        assert available(registry) is None  # no controller yet
        started = APIServiceAvailability(registry)
        started.start()
        try:
            await becomes(registry, ("False", "ServiceNotFound", 'service/api in "default" is not present'))
        finally:
            await started.stop()

    run(scenario)
