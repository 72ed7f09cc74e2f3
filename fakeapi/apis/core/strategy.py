"""The core group's registry strategies (kube's ``pkg/registry/core/<resource>/strategy.go``):
what create and update do to an object beyond the generic registry, the per-kind validation
entry points, and warnings."""

from __future__ import annotations

import ipaddress
from typing import Any

from ...machinery import warning
from ...machinery.golang import go_quote
from ...machinery.metadata import now_rfc3339
from ...machinery.quantity import decode
from ...machinery.validation import is_dns1123_label, parse_cidr_sloppy, warnings_for_ip
from ..fields import map_field
from . import warnings as pod_warnings
from .validation import (
    APPARMOR_CONTAINER_ANNOTATION_PREFIX,
    pod_template_validation_options,
    pod_validation_options,
    validate_apparmor_profile,
    validate_pod_create,
    validate_pod_status_update,
    validate_pod_template,
    validate_pod_template_update,
    validate_pod_update,
    validate_replication_controller,
    validate_replication_controller_status_update,
    validate_replication_controller_update,
)

Json = dict[str, Any]


# ----------------------------------------------------------------------------- QoS

def _positive_compute(resources: Json) -> dict[str, Any]:
    """The cpu and memory quantities above zero."""
    out = {}
    for name in ("cpu", "memory"):
        value = resources.get(name)
        if value is not None:
            quantity = decode(value)
            if quantity.sign() > 0:
                out[name] = quantity
    return out


def _add(total: dict[str, Any], more: dict[str, Any]) -> None:
    for name, value in more.items():
        total[name] = total[name] + value if name in total else value


def pod_qos_class(spec: Json) -> str:
    """``qos.ComputePodQOS``: Guaranteed when every container limits cpu and memory with
    requests equal to limits, BestEffort without any cpu or memory request or limit, else
    Burstable (pod-level resources, when set, decide alone)."""
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    guaranteed = True
    pod_resources = spec.get("resources")
    if pod_resources is not None:
        _add(requests, _positive_compute(map_field(pod_resources, "requests")))
        pod_limits = _positive_compute(map_field(pod_resources, "limits"))
        if map_field(pod_resources, "limits"):
            _add(limits, pod_limits)
            if set(pod_limits) != {"cpu", "memory"}:
                guaranteed = False
    else:
        for kind in ("containers", "initContainers"):
            for container in spec.get(kind) or ():
                resources = map_field(container, "resources")
                _add(requests, _positive_compute(map_field(resources, "requests")))
                container_limits = _positive_compute(map_field(resources, "limits"))
                _add(limits, container_limits)
                if set(container_limits) != {"cpu", "memory"}:
                    guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(name in limits and limits[name].cmp(value) == 0 for name, value in requests.items()) \
            and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


# ----------------------------------------------------------------------------- pods

def _apply_label_keys(selector: Json, keys: list[str], operator: str, labels: Json) -> None:
    for label_key in keys:
        if label_key in labels:
            selector.setdefault("matchExpressions", []).append(
                {"key": label_key, "operator": operator, "values": [labels[label_key]]})


def _mutate_pod_affinity(pod: Json) -> None:
    """``mutatePodAffinity``: matchLabelKeys/mismatchLabelKeys become selector requirements on
    the pod's own label values (MatchLabelKeysInPodAffinity, GA)."""
    affinity = map_field(pod.get("spec"), "affinity")
    labels = map_field(pod.get("metadata"), "labels")
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = map_field(affinity, kind)
        all_terms = [w.get("podAffinityTerm") for w in terms.get("preferredDuringSchedulingIgnoredDuringExecution") or ()]
        all_terms += list(terms.get("requiredDuringSchedulingIgnoredDuringExecution") or ())
        for term in all_terms:
            if not term or term.get("labelSelector") is None:
                continue
            if not term.get("matchLabelKeys") and not term.get("mismatchLabelKeys"):
                continue
            _apply_label_keys(term["labelSelector"], term.get("matchLabelKeys") or [], "In", labels)
            _apply_label_keys(term["labelSelector"], term.get("mismatchLabelKeys") or [], "NotIn", labels)


def _mutate_topology_spread_constraints(pod: Json) -> None:
    """``mutateTopologySpreadConstraints`` (MatchLabelKeysInPodTopologySpreadSelectorMerge)."""
    labels = map_field(pod.get("metadata"), "labels")
    for constraint in map_field(pod, "spec").get("topologySpreadConstraints") or ():
        if constraint.get("matchLabelKeys") and constraint.get("labelSelector") is not None:
            _apply_label_keys(constraint["labelSelector"], constraint["matchLabelKeys"], "In", labels)


def prepare_pod_for_create(pod: Json) -> None:
    """``podStrategy.PrepareForCreate``: status Pending with the QoS class, the PodScheduled
    condition of a gated pod, affinity and spread selectors from matchLabelKeys."""
    spec = map_field(pod, "spec")
    status: Json = {"phase": "Pending"}
    if spec.get("schedulingGates"):
        status["conditions"] = [{"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                                 "lastTransitionTime": now_rfc3339(), "reason": "SchedulingGated",
                                 "message": "Scheduling is blocked due to non-empty scheduling gates"}]
    status["qosClass"] = pod_qos_class(spec)
    pod["status"] = status
    _mutate_pod_affinity(pod)
    _mutate_topology_spread_constraints(pod)
    _apply_app_armor_version_skew(pod)


def _apply_app_armor_version_skew(pod: Json) -> None:
    """``applyAppArmorVersionSkew``: a container's deprecated AppArmor annotation becomes its
    securityContext.appArmorProfile when it sets none and the profile differs from the pod's;
    the annotation is then deprecated (a warning), and so is one no valid profile comes from.
    Windows pods are left alone."""
    spec = map_field(pod, "spec")
    if map_field(spec, "os").get("name") == "windows":
        return
    annotations = map_field(pod.get("metadata"), "annotations")
    pod_profile = map_field(spec, "securityContext").get("appArmorProfile")
    for kind in ("initContainers", "containers", "ephemeralContainers"):
        for container in spec.get(kind) or ():
            annotation_key = APPARMOR_CONTAINER_ANNOTATION_PREFIX + (container.get("name") or "")
            if annotation_key not in annotations or map_field(container, "securityContext").get("appArmorProfile") is not None:
                continue
            profile = pod_warnings.apparmor_field_for_annotation(annotations[annotation_key])
            if profile is not None and validate_apparmor_profile(profile, ""):
                profile = None  # an invalid profile is not copied
            deprecated = profile is None
            if profile is not None and profile != pod_profile:
                container["securityContext"] = {**map_field(container, "securityContext"), "appArmorProfile": profile}
                deprecated = True
            if deprecated:
                warning.add(f"metadata.annotations[{annotation_key}]: deprecated since v1.30; use the "
                            '"appArmorProfile" field instead')


def pod_grace_period(pod: Json, requested: int | None) -> int:
    """``podStrategy.CheckGracefulDelete``: the request's period, else the pod's
    terminationGracePeriodSeconds; 0 for a pod no kubelet runs (unscheduled) or one that ended;
    a negative period is 1."""
    spec = map_field(pod, "spec")
    period = requested if requested is not None else spec.get("terminationGracePeriodSeconds") or 0
    if not spec.get("nodeName") or map_field(pod, "status").get("phase") in ("Failed", "Succeeded"):
        period = 0
    return 1 if period < 0 else period


def prepare_pod_for_status_update(new: Json, old: Json) -> None:
    """``podStatusStrategy.PrepareForUpdate``: the QoS class and observed generations a status
    writer leaves out are kept."""
    status = new.get("status")
    if status is None:
        status = new["status"] = {}
    old_status = map_field(old, "status")
    if not status.get("qosClass") and old_status.get("qosClass"):
        status["qosClass"] = old_status["qosClass"]
    if not status.get("observedGeneration") and old_status.get("observedGeneration"):
        status["observedGeneration"] = old_status["observedGeneration"]
    remaining: dict[str, list[int]] = {}
    for condition in old_status.get("conditions") or ():
        remaining.setdefault(condition.get("type") or "", []).append(condition.get("observedGeneration") or 0)
    for condition in status.get("conditions") or ():
        generations = remaining.get(condition.get("type") or "")
        previous = generations.pop(0) if generations else 0
        if not condition.get("observedGeneration") and previous:
            condition["observedGeneration"] = previous


def validate_pod(pod: Json) -> list:
    options = pod_validation_options(map_field(pod, "spec"), None, map_field(pod, "metadata"), resource_is_pod=True)
    return validate_pod_create(pod, options)


def validate_pod_update_strategy(new: Json, old: Json) -> list:
    options = pod_validation_options(map_field(new, "spec"), map_field(old, "spec"), map_field(new, "metadata"),
                                     map_field(old, "metadata"), resource_is_pod=True)
    return validate_pod_update(new, old, options)


def validate_pod_status_update_strategy(new: Json, old: Json) -> list:
    options = pod_validation_options(map_field(new, "spec"), map_field(old, "spec"), map_field(new, "metadata"),
                                     map_field(old, "metadata"), resource_is_pod=True)
    return validate_pod_status_update(new, old, options)


def _name_warnings(obj: Json, used_in: str) -> list[str]:
    """The warning of a name that is not a DNS label where it becomes one (``used_in``)."""
    messages = is_dns1123_label(map_field(obj, "metadata").get("name") or "")
    if not messages:
        return []
    return [f"metadata.name: this is used in {used_in}, which can result in surprising behavior; a DNS label is "
            f"recommended: [{' '.join(messages)}]"]


def pod_warnings_on_create(pod: Json) -> list[str]:
    """``podStrategy.WarningsOnCreate``."""
    return _name_warnings(pod, "the Pod's hostname") + pod_warnings.warnings_for_pod(pod, None)


# ----------------------------------------------------------------------------- pod templates

def prepare_pod_template_for_create(template: Json) -> None:
    """``podTemplateStrategy.PrepareForCreate``: generation 1."""
    template["metadata"]["generation"] = 1


def prepare_pod_template_for_update(new: Json, old: Json) -> None:
    """``podTemplateStrategy.PrepareForUpdate``: generation moves with the template."""
    generation = map_field(old, "metadata").get("generation") or 0
    new["metadata"]["generation"] = generation + 1 if new.get("template") != old.get("template") else generation


def validate_pod_template_strategy(template: Json) -> list:
    return validate_pod_template(template, pod_template_validation_options(map_field(template, "template"), None))


def validate_pod_template_update_strategy(new: Json, old: Json) -> list:
    options = pod_template_validation_options(map_field(new, "template"), map_field(old, "template"))
    return validate_pod_template_update(new, old, options)


def pod_template_warnings_on_create(template: Json) -> list[str]:
    return pod_warnings.warnings_for_pod_template("template", template.get("template"), None)


def pod_template_warnings_on_update(new: Json, old: Json) -> list[str]:
    if map_field(new, "metadata").get("generation") == map_field(old, "metadata").get("generation"):
        return []
    return pod_warnings.warnings_for_pod_template("template", new.get("template"), old.get("template"))


# ----------------------------------------------------------------------------- replication controllers

def prepare_replication_controller_for_create(controller: Json) -> None:
    """``rcStrategy.PrepareForCreate``: an empty status (``replicas`` is not omitempty)."""
    controller["status"] = {"replicas": 0}


def validate_replication_controller_strategy(controller: Json) -> list:
    template = map_field(controller, "spec").get("template")
    return validate_replication_controller(controller, pod_template_validation_options(template, None))


def validate_replication_controller_update_strategy(new: Json, old: Json) -> list:
    options = pod_template_validation_options(map_field(new, "spec").get("template"),
                                              map_field(old, "spec").get("template"))
    return validate_replication_controller_update(new, old, options)


def replication_controller_warnings_on_create(controller: Json) -> list[str]:
    template = map_field(controller, "spec").get("template")
    return _name_warnings(controller, "Pod names and hostnames") + \
        pod_warnings.warnings_for_pod_template("spec.template", template, None)


def replication_controller_warnings_on_update(new: Json, old: Json) -> list[str]:
    if map_field(new, "metadata").get("generation") == map_field(old, "metadata").get("generation"):
        return []
    return pod_warnings.warnings_for_pod_template("spec.template", map_field(old, "spec").get("template"),
                                                  map_field(new, "spec").get("template"))


__all__ = [
    "pod_qos_class", "prepare_pod_for_create", "prepare_pod_for_status_update", "validate_pod",
    "validate_replication_controller_status_update",
]


# ----------------------------------------------------------------------------- services

def prepare_service_for_create(service: Json) -> None:
    """``svcStrategy.PrepareForCreate``: an empty status (its ``loadBalancer`` struct shows)."""
    service["status"] = {"loadBalancer": {}}


def service_warnings(service: Json, old: Json | None = None) -> list[str]:
    """``serviceapi.GetWarningsForService``."""
    warnings = []
    spec = map_field(service, "spec")
    annotations = map_field(map_field(service, "metadata"), "annotations")
    if "service.kubernetes.io/topology-aware-hints" in annotations:
        warnings.append("annotation service.kubernetes.io/topology-aware-hints is deprecated, please use "
                        "service.kubernetes.io/topology-mode instead")
    cluster_ip = spec.get("clusterIP") or ""
    if cluster_ip and cluster_ip != "None":
        for i, address in enumerate(spec.get("clusterIPs") or ()):
            warnings += warnings_for_ip(f"spec.clusterIPs[{i}]", address)
    if spec.get("type") == "ClusterIP" and cluster_ip == "None":
        if spec.get("loadBalancerIP"):
            warnings.append("spec.loadBalancerIP is ignored for headless services")
        if spec.get("externalIPs"):
            warnings.append("spec.externalIPs is ignored for headless services")
        if spec.get("sessionAffinity") != "None":
            warnings.append("spec.SessionAffinity is ignored for headless services")
    for i, address in enumerate(spec.get("externalIPs") or ()):
        warnings += warnings_for_ip(f"spec.externalIPs[{i}]", address)
    if spec.get("loadBalancerIP"):
        warnings += warnings_for_ip("spec.loadBalancerIP", spec["loadBalancerIP"])
    for i, cidr in enumerate(spec.get("loadBalancerSourceRanges") or ()):
        warnings += warnings_for_cidr(f"spec.loadBalancerSourceRanges[{i}]", cidr)
    if spec.get("type") == "ExternalName" and spec.get("externalIPs"):
        warnings.append('spec.externalIPs is ignored when spec.type is "ExternalName"')
    if spec.get("type") != "ExternalName" and spec.get("externalName"):
        warnings.append('spec.externalName is ignored when spec.type is not "ExternalName"')
    if spec.get("trafficDistribution") == "PreferClose":
        warnings.append('spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"')
    return warnings


def service_status_warnings(service: Json) -> list[str]:
    warnings = []
    for i, ingress in enumerate(map_field(map_field(service, "status"), "loadBalancer").get("ingress") or ()):
        if ingress.get("ip"):
            warnings += warnings_for_ip(f"status.loadBalancer.ingress[{i}]", ingress["ip"])
    return warnings


def warnings_for_cidr(path: str, value: str) -> list[str]:
    """``GetWarningsForCIDR``."""
    parsed = parse_cidr_sloppy(value)
    if parsed is None:
        return []
    address, network = parsed
    warnings = []
    if address != network.network_address:
        single = f"{address}/{network.max_prefixlen}"
        warnings.append(f"{path}: CIDR value {go_quote(value)} is ambiguous in this context (should be "
                        f"{go_quote(network.compressed)} or {go_quote(single)}?)")
    try:
        strict = ipaddress.ip_network(value, strict=False)
        valid = not value.partition("/")[2].startswith("0") or value.partition("/")[2] == "0"
        valid = valid and not (isinstance(strict, ipaddress.IPv6Network)
                               and ipaddress.IPv6Address(value.partition("/")[0]).ipv4_mapped is not None)
    except ValueError:
        valid = False
    if not valid:
        warnings.append(f"{path}: non-standard CIDR value {go_quote(value)} will be considered invalid in a future "
                        f"Kubernetes release: use {go_quote(network.compressed)}")
    elif not warnings and network.version == 6:
        canonical = f"{ipaddress.IPv6Address(value.partition('/')[0]).compressed}/{network.prefixlen}"
        if canonical != value:
            warnings.append(f"{path}: IPv6 CIDR value {go_quote(value)} should be in RFC 5952 canonical format "
                            f"({go_quote(canonical)})")
    return warnings


# ----------------------------------------------------------------------------- other kinds

def endpoints_warnings(endpoints: Json, old: Json | None = None) -> list[str]:
    """``endpointsWarnings``: non-standard addresses (not for the endpoints controller's)."""
    if map_field(map_field(endpoints, "metadata"), "labels").get("endpoints.kubernetes.io/managed-by") == \
            "endpoint-controller":
        return []
    warnings = []
    for i, subset in enumerate(endpoints.get("subsets") or ()):
        for kind in ("addresses", "notReadyAddresses"):
            for j, address in enumerate(subset.get(kind) or ()):
                warnings += warnings_for_ip(f"subsets[{i}].{kind}[{j}].ip", address.get("ip") or "")
    return warnings


def node_warnings(node: Json, old: Json | None = None) -> list[str]:
    """``nodeWarnings``."""
    spec = map_field(node, "spec")
    warnings = []
    if spec.get("configSource") is not None:
        warnings.append("spec.configSource: the feature is removed")
    if spec.get("externalID"):
        warnings.append("spec.externalID: this field is deprecated, and is unused by Kubernetes")
    for i, cidr in enumerate(spec.get("podCIDRs") or ()):
        warnings += warnings_for_cidr(f"spec.podCIDRs[{i}]", cidr)
    return warnings


def prepare_node_for_status_update(new: Json, old: Json) -> None:
    """``nodeStatusStrategy``: the config status only while the node uses it."""
    if map_field(map_field(old, "status"), "config") == {} and "config" in map_field(new, "status"):
        new["status"].pop("config", None)


def prepare_namespace_for_update(new: Json, old: Json) -> None:
    """``namespaceStrategy.PrepareForUpdate``: spec.finalizers change only through /finalize."""
    old_finalizers = map_field(old, "spec").get("finalizers")
    spec = new.setdefault("spec", {})
    if old_finalizers is None:
        spec.pop("finalizers", None)
    else:
        spec["finalizers"] = old_finalizers


def clean_secret_references(account: Json, old: Json | None = None) -> None:
    """``cleanSecretReferences``: a service account's secrets are references by name only."""
    secrets = account.get("secrets")
    if secrets:
        account["secrets"] = [{"name": s["name"]} if s.get("name") else {} for s in secrets]


_ENFORCE_MOUNTABLE = "kubernetes.io/enforce-mountable-secrets"


def service_account_warnings(account: Json, old: Json | None = None) -> list[str]:
    """``warnIfHasEnforceMountableSecretsAnnotation``."""
    if old is not None and _ENFORCE_MOUNTABLE in map_field(map_field(old, "metadata"), "annotations"):
        return []
    if _ENFORCE_MOUNTABLE in map_field(map_field(account, "metadata"), "annotations"):
        return [f"metadata.annotations[{_ENFORCE_MOUNTABLE}]: deprecated in v1.32+; prefer separate namespaces to "
                "isolate access to mounted secrets"]
    return []


def prepare_resource_quota_for_create(quota: Json) -> None:
    """``resourcequotaStrategy.PrepareForCreate``: status starts empty (the quota controller
    fills it)."""
    quota["status"] = {}


_KNOWN_QUOTA_RESOURCES = ("cpu", "memory", "ephemeral-storage", "storage")


def resource_quota_warnings(quota: Json) -> list[str]:
    """``resourcequotaStrategy.WarningsOnCreate``: requests above limits."""
    hard = map_field(map_field(quota, "spec"), "hard")
    warnings = []
    for name in _KNOWN_QUOTA_RESOURCES:
        request_name = f"requests.{name}"
        request = hard.get(request_name)
        if request is None and name in ("cpu", "memory") and name in hard:
            request, request_name = hard[name], name
        limit = hard.get(f"limits.{name}")
        if request is not None and limit is not None and decode(request).cmp(decode(limit)) > 0:
            warnings.append(f"ResourceQuota {request_name} ({decode(request)}) should be less than limits.{name} "
                            f"({decode(limit)})")
    return warnings


# ----------------------------------------------------------------------------- storage

def prepare_persistent_volume_for_create(volume: Json) -> None:
    """``persistentvolumeStrategy.PrepareForCreate``: phase Pending, since now."""
    volume["status"] = {"phase": "Pending", "lastPhaseTransitionTime": now_rfc3339()}


def prepare_persistent_volume_for_status_update(new: Json, old: Json) -> None:
    """``persistentvolumeStatusStrategy.PrepareForUpdate``: a phase change is timestamped."""
    status = new.setdefault("status", {})
    old_status = map_field(old, "status")
    if status.get("phase") == old_status.get("phase"):
        if status.get("lastPhaseTransitionTime") is None and old_status.get("lastPhaseTransitionTime") is not None:
            status["lastPhaseTransitionTime"] = old_status["lastPhaseTransitionTime"]
    elif status.get("lastPhaseTransitionTime") in (None, old_status.get("lastPhaseTransitionTime")):
        status["lastPhaseTransitionTime"] = now_rfc3339()


def prepare_persistent_volume_claim_for_create(claim: Json) -> None:
    """``persistentvolumeclaimStrategy.PrepareForCreate``: an empty status (which reads back
    as phase Pending, as kube defaults it on every decode)."""
    claim["status"] = {"phase": "Pending"}
    spec = claim.get("spec")
    if spec:
        _enforce_data_source_backwards_compatibility(spec, None)
        _normalize_data_sources(spec)


def prepare_persistent_volume_claim_for_update(new: Json, old: Json) -> None:
    """``persistentvolumeclaimStrategy.PrepareForUpdate``'s data sources (the status is the
    stored one, as for every kind with a status subresource)."""
    spec = new.get("spec")
    if spec:
        _enforce_data_source_backwards_compatibility(spec, map_field(old, "spec"))
        _normalize_data_sources(spec)


def _enforce_data_source_backwards_compatibility(spec: Json, old_spec: Json | None) -> None:
    """``EnforceDataSourceBackwardsCompatibility``: without dataSourceRef, a dataSource other
    than a PVC or a VolumeSnapshot is dropped (unless the old claim had a data source)."""
    if old_spec and (old_spec.get("dataSource") is not None or old_spec.get("dataSourceRef") is not None):
        return
    if spec.get("dataSourceRef") is not None:
        return
    source = spec.get("dataSource")
    if source is None:
        return
    kind, group = source.get("kind") or "", source.get("apiGroup") or ""
    if not ((kind == "PersistentVolumeClaim" and group == "")
            or (kind == "VolumeSnapshot" and group == "snapshot.storage.k8s.io")):
        del spec["dataSource"]


def _normalize_data_sources(spec: Json) -> None:
    """``NormalizeDataSources``: dataSource and dataSourceRef mirror each other when only one
    is set (a namespaced dataSourceRef is not mirrored)."""
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    # The references' apiGroup is a pointer Go writes even when nil.
    if source is not None and ref is None:
        spec["dataSourceRef"] = {"apiGroup": source.get("apiGroup"), "kind": source.get("kind") or "",
                                 "name": source.get("name") or ""}
    elif ref is not None and source is None and not ref.get("namespace"):
        spec["dataSource"] = {"apiGroup": ref.get("apiGroup"), "kind": ref.get("kind") or "",
                              "name": ref.get("name") or ""}


_PV_DEPRECATED_ANNOTATIONS = (
    ("volume.beta.kubernetes.io/storage-class", 'deprecated since v1.8; use "storageClassName" attribute instead'),
    ("volume.beta.kubernetes.io/mount-options", 'deprecated since v1.31; use "mountOptions" attribute instead'),
)
_PV_DEPRECATED_SOURCES = (("cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
                          ("photonPersistentDisk", "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
                          ("scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
                          ("storageos", "storageOS", "deprecated in v1.22, non-functional in v1.25+"),
                          ("glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
                          ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"))


def persistent_volume_warnings(volume: Json, old: Json | None = None) -> list[str]:
    """``pvutil.GetWarningsForPersistentVolume``."""
    annotations = map_field(map_field(volume, "metadata"), "annotations")
    spec = map_field(volume, "spec")
    warnings = [f"metadata.annotations[{name}]: {message}" for name, message in _PV_DEPRECATED_ANNOTATIONS
                if name in annotations]
    if spec.get("persistentVolumeReclaimPolicy") == "Recycle":
        warnings.append("spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the "
                        "recommended approach is to use dynamic provisioning.")
    required = map_field(spec, "nodeAffinity").get("required")
    if required is not None:
        for i, term in enumerate(required.get("nodeSelectorTerms") or ()):
            warnings += pod_warnings.node_selector_term_warnings(
                term, False, f"spec.nodeAffinity.required.nodeSelectorTerms[{i}]")
    for source, shown, message in _PV_DEPRECATED_SOURCES:
        if spec.get(source) is not None:
            warnings.append(f"spec.{shown}: {message}")
    return warnings


def persistent_volume_claim_warnings(claim: Json, old: Json | None = None) -> list[str]:
    """``pvcutil.GetWarningsForPersistentVolumeClaim``."""
    warnings = []
    if "volume.beta.kubernetes.io/storage-class" in map_field(map_field(claim, "metadata"), "annotations"):
        warnings.append("metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "
                        '"storageClassName" attribute instead')
    return warnings + pod_warnings.claim_spec_warnings("spec", map_field(claim, "spec"))
