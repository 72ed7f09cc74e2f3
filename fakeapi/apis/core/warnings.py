"""Warnings about pods and pod templates (kube's ``pkg/api/pod/warnings.go``,
``GetWarningsForPod``/``GetWarningsForPodTemplate``): deprecated node labels, annotations and
volume types, values that will be refused one day, definitions that hide others."""

from __future__ import annotations

from typing import Any

from ...machinery.golang import go_quote
from ...machinery.jsonvalue import Repeated, json_key
from ...machinery.quantity import decode
from ...machinery.validation import (
    child,
    index,
    is_valid_label_value,
    key,
    warnings_for_ip,
)
from ..fields import list_field, map_field

Json = dict[str, Any]

DEPRECATED_NODE_LABELS = {
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region": 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    "failure-domain.beta.kubernetes.io/zone": 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    "beta.kubernetes.io/instance-type": 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
    "app.kubernetes.io/created-by": "deprecated since v1.9",
    "scheduler.alpha.kubernetes.io/preferAvoidPods": "deprecated since v1.22; use Taints and Tolerations instead",
    "node-role.kubernetes.io/master": 'use "node-role.kubernetes.io/control-plane" instead',
}
_DEPRECATED_ANNOTATIONS = (
    ("scheduler.alpha.kubernetes.io/critical-pod", 'non-functional in v1.16+; use the "priorityClassName" field instead'),
    ("security.alpha.kubernetes.io/sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
    ("security.alpha.kubernetes.io/unsafe-sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
)
_DEPRECATED_ANNOTATION_NAMES = frozenset(name for name, _message in _DEPRECATED_ANNOTATIONS)
_DEPRECATED_VOLUMES = (
    ("photonPersistentDisk", "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("gitRepo", "gitRepo", "deprecated in v1.11, and disabled by default in v1.33+"),
    ("scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageos", "storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"),
)
_SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
_APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"


def warnings_for_pod(pod: Json, old_pod: Json | None) -> list[str]:
    """``GetWarningsForPod``."""
    return _kept_warnings(None, map_field(pod, "spec"), map_field(pod, "metadata"))


def warnings_for_pod_template(path: str, template: Json | None, old_template: Json | None) -> list[str]:
    """``GetWarningsForPodTemplate`` (None when there is no template)."""
    if template is None:
        return []
    return _kept_warnings(path, map_field(template, "spec"), map_field(template, "metadata"))


#: ``_warnings``' answers by ``_warnings_key``: the pods of one template warn alike.
_WARNINGS: Repeated[tuple[Any, ...], tuple[str, ...]] = Repeated(256)


def _kept_warnings(base: str | None, spec: Json, meta: Json) -> list[str]:
    key = _warnings_key(base, spec, meta)
    if key is None:
        return _warnings(base, spec, meta)
    return list(_WARNINGS.answer(key, lambda: tuple(_warnings(base, spec, meta))))


def _warnings_key(base: str | None, spec: Json, meta: Json) -> tuple[Any, ...] | None:
    """Everything ``_warnings`` reads, None for a spec not worth keeping: the path, the spec's
    JSON and the annotations it looks for (deprecated ones, seccomp's and AppArmor's)."""
    encoded = json_key(spec)
    if encoded is None:
        return None
    annotations = tuple(
        (name, value) for name, value in map_field(meta, "annotations").items()
        if name in _DEPRECATED_ANNOTATION_NAMES or name == _SECCOMP_POD
        or name.startswith((_SECCOMP_CONTAINER_PREFIX, _APPARMOR_PREFIX))
    )
    return base, encoded, annotations


def node_selector_term_warnings(term: Json, check_values: bool, path: str) -> list[str]:
    """``nodeapi.GetWarningsForNodeSelectorTerm``."""
    warnings = []
    for i, expression in enumerate(list_field(term, "matchExpressions")):
        expression_key = expression.get("key") or ""
        if expression_key in DEPRECATED_NODE_LABELS:
            warnings.append(f"{child(index(child(path, 'matchExpressions'), i), 'key')}: {expression_key} is "
                            f"{DEPRECATED_NODE_LABELS[expression_key]}")
        if check_values:
            for j, value in enumerate(list_field(expression, "values")):
                for message in is_valid_label_value(value):
                    warnings.append(f"{index(child(index(child(path, 'matchExpressions'), i), 'values'), j)}: "
                                    f"{value} is invalid, {message}")
    return warnings


def _fractional(value: Any) -> str | None:
    quantity = decode(value)
    return str(quantity) if quantity.milli_value() % 1000 else None


def _warnings(base: str | None, spec: Json, meta: Json) -> list[str]:
    """``warningsForPodSpecAndMeta``; ``base`` is the template's path (None for a pod)."""
    def at(*names: str) -> str:
        return child(base or "", *names)

    warnings: list[str] = []
    annotations = map_field(meta, "annotations")
    for label in map_field(spec, "nodeSelector"):
        if label in DEPRECATED_NODE_LABELS:
            warnings.append(f"{key(at('spec', 'nodeSelector'), label)}: {DEPRECATED_NODE_LABELS[label]}")
    node_affinity = map_field(map_field(spec, "affinity"), "nodeAffinity")
    if node_affinity:
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is not None:
            terms_path = at("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                            "nodeSelectorTerms")
            for i, term in enumerate(list_field(required, "nodeSelectorTerms")):
                warnings += node_selector_term_warnings(term, False, index(terms_path, i))
        preferred_path = at("spec", "affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
        for i, term in enumerate(list_field(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution")):
            warnings += node_selector_term_warnings(map_field(term, "preference"), True,
                                                    child(index(preferred_path, i), "preference"))
    for i, constraint in enumerate(list_field(spec, "topologySpreadConstraints")):
        constraint_path = index(at("spec", "topologySpreadConstraints"), i)
        topology_key = constraint.get("topologyKey") or ""
        if topology_key in DEPRECATED_NODE_LABELS:
            warnings.append(f"{child(constraint_path, 'topologyKey')}: {topology_key} is "
                            f"{DEPRECATED_NODE_LABELS[topology_key]}")
        if constraint.get("labelSelector") is None:
            warnings.append(f"{child(constraint_path, 'labelSelector')}: a null labelSelector results in matching no pod")
    for annotation, message in _DEPRECATED_ANNOTATIONS:
        if annotation in annotations:
            warnings.append(f"{key(at('metadata', 'annotations'), annotation)}: {message}")
    for i, volume in enumerate(list_field(spec, "volumes")):
        volume_path = index(at("spec", "volumes"), i)
        for source, shown, message in _DEPRECATED_VOLUMES[:2]:
            if volume.get(source) is not None:
                warnings.append(f"{child(volume_path, shown)}: {message}")
        for source, shown, message in _DEPRECATED_VOLUMES[2:7]:
            if volume.get(source) is not None:
                warnings.append(f"{child(volume_path, shown)}: {message}")
        claim_template = map_field(volume.get("ephemeral"), "volumeClaimTemplate")
        if claim_template:
            warnings += claim_spec_warnings(child(volume_path, "ephemeral", "volumeClaimTemplate", "spec"),
                                            map_field(claim_template, "spec"))
        for source, shown, message in _DEPRECATED_VOLUMES[7:]:
            if volume.get(source) is not None:
                warnings.append(f"{child(volume_path, shown)}: {message}")
    warnings += _overlapping_virtual_paths(list_field(spec, "volumes"))
    seen: set[str] = set()
    for i, alias in enumerate(list_field(spec, "hostAliases")):
        ip = alias.get("ip") or ""
        if ip in seen and len(list_field(spec, "hostAliases")) > 1:
            warnings.append(f"{child(index(at('spec', 'hostAliases'), i), 'ip')}: duplicate ip {go_quote(ip)}")
        seen.add(ip)
    seen = set()
    secrets = list_field(spec, "imagePullSecrets")
    for i, secret in enumerate(secrets):
        name = secret.get("name") or ""
        if name in seen and len(secrets) > 1:
            warnings.append(f"{child(index(at('spec', 'imagePullSecrets'), i), 'name')}: duplicate name {go_quote(name)}")
        seen.add(name)
    for i, secret in enumerate(secrets):
        if not secret.get("name"):
            warnings.append(f"{child(index(at('spec', 'imagePullSecrets'), i), 'name')}: invalid empty name \"\"")
    overhead = map_field(spec, "overhead")
    for resource in ("memory", "ephemeral-storage"):
        if resource in overhead and (text := _fractional(overhead[resource])) is not None:
            warnings.append(f"{key(at('spec', 'overhead'), resource)}: fractional byte value {go_quote(text)} is "
                            "invalid, must be an integer")
    if map_field(spec, "securityContext").get("seccompProfile") is None and _SECCOMP_POD in annotations:
        warnings.append(f"{key(at('metadata', 'annotations'), _SECCOMP_POD)}: non-functional in v1.27+; use the "
                        '"seccompProfile" field instead')
    pod_apparmor = map_field(spec, "securityContext").get("appArmorProfile")
    containers = list(_containers(spec, at("spec")))
    for container, path in containers:
        name = container.get("name") or ""
        context = map_field(container, "securityContext")
        if context.get("seccompProfile") is None and _SECCOMP_CONTAINER_PREFIX + name in annotations:
            warnings.append(f"{key(at('metadata', 'annotations'), _SECCOMP_CONTAINER_PREFIX + name)}: non-functional "
                            'in v1.27+; use the "seccompProfile" field instead')
        apparmor_key = _APPARMOR_PREFIX + name
        if base is not None and context.get("appArmorProfile") is None and apparmor_key in annotations:
            if pod_apparmor is None or pod_apparmor != apparmor_field_for_annotation(annotations[apparmor_key]):
                warnings.append(f"{key(at('metadata', 'annotations'), apparmor_key)}: deprecated since v1.30; use the "
                                '"appArmorProfile" field instead')
        resources = map_field(container, "resources")
        for which, resource in (("limits", "memory"), ("requests", "memory"), ("limits", "ephemeral-storage"),
                                ("requests", "ephemeral-storage")):
            value = map_field(resources, which).get(resource)
            if value is not None and (text := _fractional(value)) is not None:
                warnings.append(f"{key(child(path, 'resources', which), resource)}: fractional byte value "
                                f"{go_quote(text)} is invalid, must be an integer")
        env = list_field(container, "env")
        if len(env) > 1:
            names: set[str] = set()
            for i, variable in enumerate(env):
                variable_name = variable.get("name") or ""
                if variable_name in names:
                    reference = f"$({variable_name})"
                    value = variable.get("value") or ""
                    if variable.get("valueFrom") is not None or value == reference or reference not in value:
                        warnings.append(f"{index(child(path, 'env'), i)}: hides previous definition of "
                                        f"{go_quote(variable_name)}, which may be dropped when using apply")
                else:
                    names.add(variable_name)
    ports: dict[str, list[tuple[str, Json]]] = {}
    for container, path in containers:
        for i, port in enumerate(list_field(container, "ports")):
            port_path = index(child(path, "ports"), i)
            host_ip, host_port = port.get("hostIP") or "", port.get("hostPort") or 0
            if host_ip and not host_port:
                warnings.append(f"{port_path}: hostIP set without hostPort: {_port_text(port)}")
            port_key = f"{port.get('containerPort') or 0}/{port.get('protocol') or ''}"
            for other_path, other in ports.get(port_key, ()):
                other_ip, other_port = other.get("hostIP") or "", other.get("hostPort") or 0
                if host_ip == other_ip and host_port == other_port:
                    warnings.append(f"{port_path}: duplicate port definition with {other_path}")
                elif not host_port or not other_port:
                    warnings.append(f"{port_path}: overlapping port definition with {other_path}")
                elif host_port == other_port and (not host_ip) != (not other_ip):
                    warnings.append(f"{port_path}: dangerously ambiguous port definition with {other_path}")
            ports.setdefault(port_key, []).append((port_path, port))
    port_names: dict[str, str] = {}
    for container, path in containers:
        for i, port in enumerate(list_field(container, "ports")):
            name = port.get("name") or ""
            if not name:
                continue
            port_path = index(child(path, "ports"), i)
            if name in port_names:
                other = port_names[name]
                warnings.append(f"{port_path}: duplicate port name {go_quote(name)} with {other}, services and probes "
                                f"that select ports by name will use {other}")
            else:
                port_names[name] = port_path
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is not None and grace < 0:
        warnings.append(f"{at('spec', 'terminationGracePeriodSeconds')}: must be >= 0; negative values are invalid "
                        "and will be treated as 1")
    affinity = map_field(spec, "affinity")
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = map_field(affinity, kind)
        if not terms and kind not in affinity:
            continue
        required_path = at("spec", "affinity", kind, "requiredDuringSchedulingIgnoredDuringExecution")
        for i, term in enumerate(list_field(terms, "requiredDuringSchedulingIgnoredDuringExecution")):
            if term.get("labelSelector") is None:
                warnings.append(f"{child(index(required_path, i), 'labelSelector')}: a null labelSelector results in "
                                "matching no pod")
        preferred_path = at("spec", "affinity", kind, "preferredDuringSchedulingIgnoredDuringExecution")
        for i, weighted in enumerate(list_field(terms, "preferredDuringSchedulingIgnoredDuringExecution")):
            if map_field(weighted, "podAffinityTerm").get("labelSelector") is None:
                warnings.append(f"{child(index(preferred_path, i), 'podAffinityTerm', 'labelSelector')}: a null "
                                "labelSelector results in matching no pod")
    for i, nameserver in enumerate(list_field(map_field(spec, "dnsConfig"), "nameservers")):
        warnings += warnings_for_ip(index(at("spec", "dnsConfig", "nameservers"), i), nameserver)
    for i, alias in enumerate(list_field(spec, "hostAliases")):
        warnings += warnings_for_ip(child(index(at("spec", "hostAliases"), i), "ip"), alias.get("ip") or "")
    return warnings


def _containers(spec: Json, path: str):  # type: ignore[no-untyped-def]
    """``pods.VisitContainersWithPath``: init, regular, ephemeral containers."""
    for kind in ("initContainers", "containers", "ephemeralContainers"):
        for i, container in enumerate(list_field(spec, kind)):
            yield container, index(child(path, kind), i)


def _port_text(port: Json) -> str:
    """``%+v`` of an internal ``core.ContainerPort``."""
    return (f"{{Name:{port.get('name') or ''} HostPort:{port.get('hostPort') or 0} "
            f"ContainerPort:{port.get('containerPort') or 0} Protocol:{port.get('protocol') or ''} "
            f"HostIP:{port.get('hostIP') or ''}}}")


def apparmor_field_for_annotation(annotation: str) -> Json | None:
    """``ApparmorFieldForAnnotation``."""
    if annotation == "unconfined":
        return {"type": "Unconfined"}
    if annotation == "runtime/default":
        return {"type": "RuntimeDefault"}
    if annotation.startswith("localhost/"):
        profile = annotation.removeprefix("localhost/")
        if profile:
            return {"type": "Localhost", "localhostProfile": profile}
    return None


def claim_spec_warnings(path: str, spec: Json) -> list[str]:
    """``pvcutil.GetWarningsForPersistentVolumeClaimSpec``: fractional storage sizes."""
    warnings = []
    for which in ("requests", "limits"):
        value = map_field(map_field(spec, "resources"), which).get("storage")
        if value is not None and (text := _fractional(value)) is not None:
            warnings.append(f"{key(child(path, 'resources', which), 'storage')}: fractional byte value "
                            f"{go_quote(text)} is invalid, must be an integer")
    return warnings


def _overlapping_virtual_paths(volumes: list[Json]) -> list[str]:
    """``warningsForOverlappingVirtualPaths``: items of a config map, secret, downward API or
    projected volume that write into each other."""
    warnings: list[str] = []

    def warn(volume: Json, description: str, body: str) -> None:
        warnings.append(f"volume {go_quote(volume.get('name') or '')} ({description}): overlapping paths: {body}")

    for volume in volumes:
        for kind, name_field, label in (("configMap", "name", "ConfigMap"), ("secret", "secretName", "Secret")):
            source = volume.get(kind)
            if source is not None and source.get("items") is not None:
                description = f"{label} {go_quote(source.get(name_field) or '')}"
                for overlap in _mapping_overlaps([(i.get("path") or "", "") for i in source["items"]]):
                    warn(volume, description, overlap)
        downward_api = volume.get("downwardAPI")
        if downward_api is not None and downward_api.get("items") is not None:
            for overlap in _mapping_overlaps([(i.get("path") or "", "") for i in downward_api["items"]]):
                warn(volume, "DownwardAPI", overlap)
        projected = volume.get("projected")
        if projected is None:
            continue
        seen: list[tuple[str, str]] = []
        for source in list_field(projected, "sources"):
            if not any(value is not None for value in source.values()):
                warnings.append(f"volume {go_quote(volume.get('name') or '')} (Projected) has no sources provided")
                continue
            paths: list[tuple[str, str]] = []
            if source.get("configMap") is not None and source["configMap"].get("items") is not None:
                name = f"ConfigMap {go_quote(source['configMap'].get('name') or '')}"
                paths = [(i.get("path") or "", name) for i in source["configMap"]["items"]]
            elif source.get("secret") is not None and source["secret"].get("items") is not None:
                name = f"Secret {go_quote(source['secret'].get('name') or '')}"
                paths = [(i.get("path") or "", name) for i in source["secret"]["items"]]
            elif source.get("downwardAPI") is not None and source["downwardAPI"].get("items") is not None:
                paths = [(i.get("path") or "", "DownwardAPI") for i in source["downwardAPI"]["items"]]
            elif source.get("serviceAccountToken") is not None:
                paths = [(source["serviceAccountToken"].get("path") or "", "ServiceAccountToken")]
            for path, origin in paths:
                path = path.rstrip("/")
                for other_path, other_origin in _collisions(seen, path):
                    warn(volume, "Projected", f"{_path_text(path, origin)} with {_path_text(other_path, other_origin)}")
                seen.append((path, origin))
    return warnings


def _path_text(path: str, origin: str) -> str:
    """``pathAndSource.String()``."""
    return f"{go_quote(path)} ({origin})" if origin else go_quote(path)


def _collisions(seen: list[tuple[str, str]], path: str) -> list[tuple[str, str]]:
    """``checkForOverlap``: an earlier path equal to, under, or above this one."""
    collisions = []
    if not path:
        return collisions
    for other, origin in seen:
        if not other:
            continue
        if other == path or other.startswith(path + "/") or path.startswith(other + "/"):
            collisions.append((other, origin))
    return collisions


def _mapping_overlaps(paths: list[tuple[str, str]]) -> list[str]:
    """``checkVolumeMappingForOverlap``."""
    overlaps: list[str] = []
    seen: list[tuple[str, str]] = []
    for path, origin in paths:
        path = path.rstrip("/")
        for other, other_origin in _collisions(seen, path):
            overlaps.append(f"{_path_text(path, origin)} with {_path_text(other, other_origin)}")
        seen.append((path, origin))
    return overlaps
