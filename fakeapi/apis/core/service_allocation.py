"""Cluster IPs and node ports of Services, as kube-apiserver's service REST storage allocates
them (``pkg/registry/core/service/storage``: ``beginCreate``/``beginUpdate`` with
``alloc.go``, and ``dropTypeDependentFields`` of the strategy).

fakeapi serves one IPv4 service range, kube-apiserver's ``--service-cluster-ip-range`` of the
oracle (10.0.0.0/24), and node ports 30000-32767. Dynamic allocations are random in the upper
part of each range, as kube's allocators prefer (``rangeOffset``), the lower part being for
addresses and ports users ask for. ``10.0.0.1`` is kept for the ``kubernetes`` Service kube
creates.

An ``Allocator`` computes the allocation of a write and marks it used only when the write is
committed (``commit``): a write refused afterwards (validation, conflict, dry run) needs no
rollback. The registry drives one from its single event-loop thread.
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Callable, Iterable
from typing import Any

from ...machinery.status import StatusError, internal_error, invalid, invalid_error
from ...machinery.validation import invalid_json, parse_ip_sloppy
from .validation_service import (
    externally_accessible,
    needs_health_check,
    validate_cluster_ips_related_fields,
)

Json = dict[str, Any]
SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24"
NODE_PORT_RANGE = (30000, 32767)
_EMPTY: Json = {}


def _spec(service: Json | None) -> Json:
    spec = service.get("spec") if service else None
    return spec if isinstance(spec, dict) else _EMPTY


def _ports(service: Json | None) -> list[Json]:
    return _spec(service).get("ports") or []


def needs_cluster_ip(service: Json) -> bool:
    return _spec(service).get("type") != "ExternalName"


def needs_node_port(service: Json) -> bool:
    spec = _spec(service)
    return spec.get("type") == "NodePort" or (
        spec.get("type") == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not False)


def _should_allocate_node_ports(service: Json) -> bool:
    spec = _spec(service)
    return spec.get("type") == "NodePort" or (
        spec.get("type") == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is True)


def node_ports_of(service: Json | None) -> list[int]:
    """``collectServiceNodePorts`` plus the health check node port of a service that needs one."""
    ports = [p["nodePort"] for p in _ports(service) if p.get("nodePort")]
    spec = _spec(service)
    if needs_health_check(spec) and spec.get("healthCheckNodePort"):
        ports.append(spec["healthCheckNodePort"])
    return ports


def cluster_ips_of(service: Json | None) -> list[str]:
    spec = _spec(service)
    if spec.get("type") == "ExternalName":
        return []
    return [ip for ip in spec.get("clusterIPs") or () if ip and ip != "None"]


def _refuse(service: Json, errors: list) -> StatusError:
    return invalid("", "Service", (service.get("metadata") or {}).get("name") or "", errors)


class Allocator:
    """The used cluster IPs and node ports of one registry's Services; ``load`` fills them
    from the stored services the first time they are needed."""

    def __init__(self, load: Callable[[], Iterable[Json]], rng: random.Random | None = None) -> None:
        self._load = load
        self._rng = rng or random.Random()
        self.network = ipaddress.ip_network(SERVICE_CLUSTER_IP_RANGE)
        self._used_ips: set[str] | None = None
        self._used_ports: set[int] = set()

    def _ensure_loaded(self) -> set[str]:
        if self._used_ips is None:
            self._used_ips = {str(self.network.network_address + 1)}  # the kubernetes Service's
            for service in self._load():
                self._used_ips.update(cluster_ips_of(service))
                self._used_ports.update(node_ports_of(service))
        return self._used_ips

    def commit(self, old: Json | None, new: Json | None) -> None:
        """A service write landed: what ``old`` held and ``new`` does not is free again."""
        used_ips = self._ensure_loaded()
        used_ips.difference_update(set(cluster_ips_of(old)) - set(cluster_ips_of(new)))
        self._used_ports.difference_update(set(node_ports_of(old)) - set(node_ports_of(new)))
        used_ips.update(cluster_ips_of(new))
        self._used_ports.update(node_ports_of(new))

    # ------------------------------------------------------------------ create

    def allocate_create(self, service: Json) -> None:
        """``beginCreate``: normalise cluster IPs, default the IP family fields, allocate."""
        spec = service.setdefault("spec", {})
        if spec.get("clusterIP") and not spec.get("clusterIPs"):
            spec["clusterIPs"] = [spec["clusterIP"]]
        self._init_ip_family_fields(service, None)
        self._alloc_cluster_ips(service, set())
        self._init_node_ports(service, set())

    def _init_ip_family_fields(self, service: Json, old: Json | None) -> None:
        """``initIPFamilyFields`` for a single-stack IPv4 cluster."""
        spec = _spec(service)
        if spec.get("type") == "ExternalName":
            return
        if old is not None and _matching_prefer_dual_stack(service, old):
            return
        if spec.get("ipFamilyPolicy") is None:
            if old is not None and _spec(old).get("ipFamilyPolicy") is not None:
                spec["ipFamilyPolicy"] = _spec(old)["ipFamilyPolicy"]
            elif spec.get("clusterIP") == "None" and not spec.get("selector"):
                spec["ipFamilyPolicy"] = "RequireDualStack"
            else:
                spec["ipFamilyPolicy"] = "SingleStack"
        errors = validate_cluster_ips_related_fields(service, old)
        if errors:
            raise _refuse(service, errors)
        errors = []
        policy = spec["ipFamilyPolicy"]
        ips, families = spec.get("clusterIPs") or [], spec.get("ipFamilies") or []
        if old is not None:
            old_spec = _spec(old)
            if policy == "SingleStack":
                if ips == (old_spec.get("clusterIPs") or []) and len(ips) > 1:
                    spec["clusterIPs"] = ips = ips[:1]
                if families == (old_spec.get("ipFamilies") or []) and len(families) > 1:
                    spec["ipFamilies"] = families = families[:1]
            else:
                if ips and len(ips) < len(old_spec.get("clusterIPs") or []):
                    errors.append(invalid_error("spec.ipFamilyPolicy", policy,
                                                "must be 'SingleStack' to release the secondary cluster IP"))
                if families and len(families) < len(old_spec.get("ipFamilies") or []):
                    errors.append(invalid_error("spec.ipFamilyPolicy", policy,
                                                "must be 'SingleStack' to release the secondary IP family"))
        if policy == "SingleStack":
            if len(ips) == 2:
                errors.append(invalid_error("spec.ipFamilyPolicy", policy, (
                    "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified")))
            if len(families) == 2:
                errors.append(invalid_error("spec.ipFamilyPolicy", policy, (
                    "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified")))
        for i, address in enumerate(ips):
            if address == "None":
                break
            parsed = parse_ip_sloppy(address)
            family = "IPv4" if parsed is not None and parsed.version == 4 else (
                "IPv6" if parsed is not None else "unknown")
            if i >= len(families):
                if family != "IPv4":
                    errors.append(invalid_json(f"spec.clusterIPs[{i}]", ips, f"{family} is not configured on this cluster"))
                else:
                    families = spec["ipFamilies"] = [*families, family]
        if errors:
            raise _refuse(service, errors)
        if spec.get("clusterIP") == "None" and not spec.get("selector"):
            if not families:
                families = spec["ipFamilies"] = ["IPv4"]
            if len(families) < 2 and policy != "SingleStack":
                spec["ipFamilies"] = [*families, "IPv6" if families[0] == "IPv4" else "IPv4"]
            return
        if policy == "RequireDualStack":
            errors.append(invalid_error("spec.ipFamilyPolicy", policy, "this cluster is not configured for dual-stack "
                                                                      "services"))
        for i, family in enumerate(families):
            if family != "IPv4":
                errors.append(invalid_error(f"spec.ipFamilies[{i}]", family, "not configured on this cluster"))
        if errors:
            raise _refuse(service, errors)
        if not families:
            spec["ipFamilies"] = ["IPv4"]

    def _alloc_cluster_ips(self, service: Json, taken: set[str]) -> None:
        """``allocClusterIPs``: the first family's address (the only one here)."""
        spec = _spec(service)
        if spec.get("type") == "ExternalName":
            return
        ips = spec.get("clusterIPs")
        if ips and ips[0] == "None":
            return
        ips = list(ips or ())
        for i, _family in enumerate(spec.get("ipFamilies") or ()):
            if i >= len(ips):
                ips.append("")
        requested = ips[0] if ips else ""
        spec["clusterIPs"] = ips
        address = self._allocate_ip(service, requested, taken)
        ips[0] = address
        spec["clusterIP"] = address

    def _allocate_ip(self, service: Json, requested: str, taken: set[str]) -> str:
        used = self._ensure_loaded() | taken
        if not requested:
            free = [str(a) for a in self.network.hosts() if str(a) not in used]
            upper = [a for a in free if int(ipaddress.ip_address(a)) - int(self.network.network_address) > 16]
            if not free:
                raise internal_error("failed to allocate a serviceIP: range is full")
            address = self._rng.choice(upper or free)
        else:
            parsed = parse_ip_sloppy(requested)
            if parsed is None:
                raise internal_error(f'failed to parse service IP "{requested}"')
            ips = _spec(service).get("clusterIPs") or []
            if parsed not in self.network:
                raise _refuse(service, [invalid_json("spec.clusterIPs", ips, (
                    f"failed to allocate IP {requested}: the provided network does not match the current range"))])
            if str(parsed) in used or parsed in (self.network.network_address, self.network.broadcast_address):
                raise _refuse(service, [invalid_json("spec.clusterIPs", ips, (
                    f"failed to allocate IP {requested}: provided IP is already allocated"))])
            address = requested
        taken.add(address)
        return address

    def _port_problem(self, requested: int, taken: set[int]) -> str | None:
        """Why a requested node port cannot be had (``portallocator.Allocate``'s errors)."""
        low, high = NODE_PORT_RANGE
        if not low <= requested <= high:
            return f"provided port is not in the valid range. The range of valid ports is {low}-{high}"
        if requested in self._used_ports or requested in taken:
            return "provided port is already allocated"
        return None

    def _allocate_port(self, service: Json, requested: int, path: str, taken: set[int]) -> int:
        self._ensure_loaded()
        low, high = NODE_PORT_RANGE
        if requested:
            problem = self._port_problem(requested, taken)
            if problem is not None:
                raise _refuse(service, [invalid_error(path, requested, problem)])
            taken.add(requested)
            return requested
        offset = low + min(max(16, (high - low + 1) // 32), 128)
        free = [p for p in range(offset, high + 1) if p not in self._used_ports and p not in taken]
        free = free or [p for p in range(low, offset) if p not in self._used_ports and p not in taken]
        if not free:
            raise internal_error("failed to allocate a nodePort: range is full")
        port = self._rng.choice(free)
        taken.add(port)
        return port

    def _init_node_ports(self, service: Json, taken: set[int]) -> None:
        """``txnAllocNodePorts``: a node port per service port number, and the health check's."""
        spec = _spec(service)
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            by_port: dict[int, int] = {}
            ports = spec.get("ports") or []
            for i, port in enumerate(ports):
                node_port = port.get("nodePort") or 0
                if not node_port and not _should_allocate_node_ports(service):
                    continue
                number = port.get("port") or 0
                allocated = by_port.get(number, 0)
                path = f"spec.ports[{i}].nodePort"
                if not allocated:
                    requested = next((p.get("nodePort") for p in ports
                                      if (p.get("port") or 0) == number and p.get("nodePort")), 0)
                    port["nodePort"] = self._allocate_port(service, requested, path, taken)
                    by_port[number] = port["nodePort"]
                elif node_port != allocated:
                    if not node_port:
                        port["nodePort"] = allocated
                    else:
                        self._allocate_port(service, node_port, path, taken)
        if needs_health_check(spec):
            spec["healthCheckNodePort"] = self._allocate_health_check_port(service, taken)

    def _allocate_health_check_port(self, service: Json, taken: set[int]) -> int:
        """``allocHealthCheckNodePort``: its failures are internal errors in kube."""
        requested = _spec(service).get("healthCheckNodePort") or 0
        if requested:
            self._ensure_loaded()
            problem = self._port_problem(requested, taken)
            if problem is not None:
                raise internal_error(f"failed to allocate requested HealthCheck NodePort {requested}: {problem}")
            taken.add(requested)
            return requested
        return self._allocate_port(service, 0, "spec.healthCheckNodePort", taken)

    # ------------------------------------------------------------------ update

    def allocate_update(self, service: Json, old: Json) -> None:
        """``beginUpdate``: keep what the update left out, normalise, allocate what is new."""
        _patch_allocated_values(service, old)
        _normalize_cluster_ips(service, old)
        self._init_ip_family_fields(service, old)
        self._update_cluster_ips(service, old)
        self._update_node_ports(service, old)
        _drop_type_dependent_fields(service, old)

    def _update_cluster_ips(self, service: Json, old: Json) -> None:
        spec, old_spec = _spec(service), _spec(old)
        if _matching_prefer_dual_stack(service, old):
            return
        if old_spec.get("type") == "ExternalName" and spec.get("type") != "ExternalName":
            self._alloc_cluster_ips(service, set(cluster_ips_of(old)))

    def _update_node_ports(self, service: Json, old: Json) -> None:
        """``txnUpdateNodePorts``: ports the old service held stay its own."""
        spec = _spec(service)
        taken: set[int] = set()
        old_ports = set(node_ports_of(old))
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            for i, port in enumerate(spec.get("ports") or ()):
                node_port = port.get("nodePort") or 0
                if not node_port and not _should_allocate_node_ports(service):
                    continue
                if node_port:
                    if node_port not in old_ports and node_port not in taken:
                        self._allocate_port(service, node_port, f"spec.ports[{i}].nodePort", taken)
                else:
                    port["nodePort"] = self._allocate_port(service, 0, f"spec.ports[{i}].nodePort",
                                                           taken | old_ports)
        if needs_health_check(spec) and not needs_health_check(_spec(old)):
            spec["healthCheckNodePort"] = self._allocate_health_check_port(service, taken | old_ports)


def _matching_prefer_dual_stack(service: Json, old: Json) -> bool:
    """``isMatchingPreferDualStackClusterIPFields``."""
    spec, old_spec = _spec(service), _spec(old)
    return (spec.get("ipFamilyPolicy") == "PreferDualStack"
            and old_spec.get("ipFamilyPolicy") in (None, "PreferDualStack")
            and old_spec.get("type") == spec.get("type") in ("ClusterIP", "NodePort", "LoadBalancer")
            and (spec.get("clusterIPs") or []) == (old_spec.get("clusterIPs") or [])
            and (spec.get("ipFamilies") or []) == (old_spec.get("ipFamilies") or []))


def _normalize_cluster_ips(service: Json, old: Json) -> None:
    """``normalizeClusterIPs`` of an update."""
    spec, old_spec = _spec(service), _spec(old)
    if old_spec.get("clusterIPs") and not spec.get("clusterIPs") and \
            (old_spec.get("clusterIP") or "") == (spec.get("clusterIP") or ""):
        spec["clusterIPs"] = old_spec["clusterIPs"]
    if (old_spec.get("clusterIP") or "") != (spec.get("clusterIP") or ""):
        same = (spec.get("clusterIPs") or []) == (old_spec.get("clusterIPs") or [])
        if old_spec.get("clusterIP") and not spec.get("clusterIP"):
            if same:
                spec.pop("clusterIPs", None)
        elif same:
            spec["clusterIPs"] = [spec.get("clusterIP") or ""]


def _patch_allocated_values(service: Json, old: Json) -> None:
    """``patchAllocatedValues``: an update that leaves out the allocated cluster IPs and node
    ports keeps them."""
    spec, old_spec = _spec(service), _spec(old)
    if needs_cluster_ip(old) and needs_cluster_ip(service):
        if not spec.get("clusterIP") and old_spec.get("clusterIP"):
            spec["clusterIP"] = old_spec["clusterIP"]
        if not spec.get("clusterIPs") and old_spec.get("clusterIPs"):
            spec["clusterIPs"] = old_spec["clusterIPs"]
    if needs_node_port(old) and needs_node_port(service):
        old_used = {p.get("nodePort") for p in _ports(old) if p.get("nodePort")}
        new_used = {p.get("nodePort") for p in _ports(service) if p.get("nodePort")}
        by_name = {p.get("name") or "": p.get("nodePort") or 0 for p in _ports(old)}
        for port in _ports(service):
            if not port.get("nodePort"):
                value = by_name.get(port.get("name") or "", 0)
                if value not in old_used & new_used and value:
                    port["nodePort"] = value
    if needs_health_check(old_spec) and needs_health_check(spec) and not spec.get("healthCheckNodePort") \
            and old_spec.get("healthCheckNodePort"):
        spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"]


def _drop_type_dependent_fields(service: Json, old: Json) -> None:
    """``dropTypeDependentFields``: fields a type change makes meaningless go, when the update
    left them as they were."""
    spec, old_spec = _spec(service), _spec(old)
    if needs_cluster_ip(old) and not needs_cluster_ip(service):
        if (spec.get("clusterIPs") or []) == (old_spec.get("clusterIPs") or []):
            spec.pop("clusterIP", None)
            spec.pop("clusterIPs", None)
        if (spec.get("ipFamilies") or []) == (old_spec.get("ipFamilies") or []):
            spec.pop("ipFamilies", None)
        if spec.get("ipFamilyPolicy") == old_spec.get("ipFamilyPolicy"):
            spec.pop("ipFamilyPolicy", None)
    if needs_node_port(old) and not needs_node_port(service) and \
            [p.get("nodePort") for p in _ports(service)] == [p.get("nodePort") for p in _ports(old)]:
        for port in _ports(service):
            port.pop("nodePort", None)
    old_health = needs_health_check(old_spec)
    if old_health and not needs_health_check(spec) and spec.get("healthCheckNodePort") == old_spec.get(
            "healthCheckNodePort"):
        spec.pop("healthCheckNodePort", None)
    if old_spec.get("type") == "LoadBalancer" and spec.get("type") != "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is not None and \
                spec.get("allocateLoadBalancerNodePorts") == old_spec.get("allocateLoadBalancerNodePorts"):
            spec.pop("allocateLoadBalancerNodePorts")
        if spec.get("loadBalancerClass") is not None and spec.get("loadBalancerClass") == old_spec.get(
                "loadBalancerClass"):
            spec.pop("loadBalancerClass")
    if externally_accessible(old_spec) and not externally_accessible(spec) and \
            spec.get("externalTrafficPolicy") == old_spec.get("externalTrafficPolicy"):
        spec.pop("externalTrafficPolicy", None)
    # needsInternalTrafficPolicy: every type but ExternalName.
    if spec.get("type") == "ExternalName" and spec.get("internalTrafficPolicy") == old_spec.get("internalTrafficPolicy"):
        spec.pop("internalTrafficPolicy", None)
    if spec.get("type") != "LoadBalancer":
        status = service.get("status")
        if isinstance(status, dict):
            status["loadBalancer"] = {}

