"""Defaulting of the core (legacy, ``v1``) group: kube's ``pkg/apis/core/v1/defaults.go`` and the
generated ``zz_generated.defaults.go`` (``SetObjectDefaults_<Kind>``, which applies the
``SetDefaults_*`` functions and the ``+default=`` markers to every nested type), plus what kube's
decoding does first: every ``resource.Quantity`` is parsed and stored in canonical form.

Each function works in place on the decoded JSON object, in the *served* version, and is
idempotent. A quantity kube cannot parse raises ``QuantityError``; ``decoding`` turns it into
kube's 400 for the kind being decoded.

``set_defaults_pod_template_spec`` is what other groups' defaulters call for the pod templates
they embed (Deployment, StatefulSet, Job, ...), as their generated defaulters recurse into
``PodTemplateSpec``; ``set_defaults_persistent_volume_claim_spec`` likewise for StatefulSet
volume claim templates.
"""

from __future__ import annotations

import base64
import contextlib
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import orjson

from ...machinery.field_validation import cannot_be_handled
from ...machinery.jsonvalue import Repeated, json_key
from ...machinery.quantity import QuantityError, decode
from .. import features
from .resources import aggregate_container_resources, is_supported_pod_level_resource

Json = dict[str, Any]

#: ``v1.TerminationMessagePathDefault``.
TERMINATION_MESSAGE_PATH_DEFAULT = "/dev/termination-log"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
#: Default ``defaultMode`` of secret, configMap, downwardAPI and projected volumes (0644).
DEFAULT_VOLUME_MODE = 0o644
DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS = 10800
_MILLI = -3


class Base64Error(ValueError):
    """``base64.CorruptInputError``: ``illegal base64 data at input byte N``."""

    def __init__(self, position: int) -> None:
        super().__init__(f"illegal base64 data at input byte {position}")


@contextlib.contextmanager
def decoding(kind: str, version: str = "v1") -> Iterator[None]:
    """Decoding errors of a body as the create and update handlers answer them: 400
    ``Pod in version "v1" cannot be handled as a Pod: <error>``."""
    try:
        yield
    except (QuantityError, Base64Error) as err:
        raise cannot_be_handled(kind, version, str(err)) from None


_BASE64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def go_base64_decode(text: str) -> bytes:
    """``base64.StdEncoding.Decode`` as encoding/json decodes a ``[]byte``: padding required,
    ``\r`` and ``\n`` skipped, errors at Go's input positions (``decodeQuantum``)."""
    if "\n" not in text and "\r" not in text:
        try:
            return base64.b64decode(text, validate=True)
        except ValueError:
            pass  # find Go's error position below
    position, end = 0, len(text)
    quanta: list[str] = []
    while True:
        quantum = ""
        padded = False
        while len(quantum) < 4:
            if position == end:
                if not quantum:
                    return base64.b64decode("".join(quanta))
                raise Base64Error(position - len(quantum))
            char = text[position]
            position += 1
            if char in _BASE64_ALPHABET:
                quantum += char
                continue
            if char in "\r\n":
                continue
            if char != "=":
                raise Base64Error(position - 1)
            if len(quantum) < 2:
                raise Base64Error(position - 1)
            if len(quantum) == 2:
                while position < end and text[position] in "\r\n":
                    position += 1
                if position == end:
                    raise Base64Error(end)
                if text[position] != "=":
                    raise Base64Error(position - 1)
                position += 1
            while position < end and text[position] in "\r\n":
                position += 1
            if position < end:
                raise Base64Error(position)
            padded = True
            break
        quanta.append(quantum + "=" * (4 - len(quantum)) if padded else quantum)
        if padded:
            return base64.b64decode("".join(quanta))


def _canonical_base64(values: Json | None) -> None:
    """Decoding a ``map[string][]byte`` (Secret data, ConfigMap binaryData): each value as Go
    decodes and re-encodes it."""
    if not values:
        return
    for name, value in values.items():
        if value is None:
            continue
        encoded = base64.b64encode(go_base64_decode(value)).decode()
        if encoded != value:
            values[name] = encoded


# ----------------------------------------------------------------------------- quantities

def canonical_quantities(quantities: Json | None) -> None:
    """Decoding a ``ResourceList`` (or any map of quantities): each value as kube re-encodes it."""
    if not quantities:
        return
    for name, value in quantities.items():
        quantities[name] = "0" if value is None else str(decode(value))


def set_defaults_resource_list(resources: Json | None) -> None:
    """``SetDefaults_ResourceList`` after decoding: quantities rounded up to milli-units."""
    if not resources:
        return
    for name, value in resources.items():
        resources[name] = "0" if value is None else str(decode(value).round_up(_MILLI))


def canonical_quantity(obj: Json | None, name: str) -> None:
    """Decoding one ``Quantity`` field (``emptyDir.sizeLimit``, ``capacity.storage``, ...)."""
    if obj is not None and obj.get(name) is not None:
        obj[name] = str(decode(obj[name]))


# ----------------------------------------------------------------------------- image names

# distribution/reference's grammar, for ``ParseImageName``: only whether an image names the tag
# ``latest`` (explicitly or by naming neither tag nor digest) matters to defaulting.
_ALPHANUMERIC = "[a-z0-9]+"
_SEPARATOR = "(?:[._]|__|[-]+)"
_PATH_COMPONENT = f"{_ALPHANUMERIC}(?:{_SEPARATOR}{_ALPHANUMERIC})*"
_DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_NAME = f"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(f"({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?", re.ASCII)
_HEX64 = re.compile("[a-f0-9]{64}")
_DIGEST_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}
_NAME_TOTAL_LENGTH_MAX = 255


@lru_cache(maxsize=1024)
def _image_tag(image: str) -> str:
    """The tag ``parsers.ParseImageName`` gives (``latest`` when neither tag nor digest is
    named); "" for a reference it cannot parse."""
    if _HEX64.fullmatch(image):
        return ""
    match = _REFERENCE.fullmatch(image)
    if match is None:
        return ""
    name, tag, digest = match.groups()
    first, _, rest = name.partition("/")
    if not rest or ("." not in first and ":" not in first and first != "localhost" and first.lower() == first):
        remote = name  # a Docker Hub name: no domain part
        full = ("docker.io/" + ("library/" if "/" not in name else "") + name)
    else:
        remote = rest
        full = name
    if remote.lower() != remote or len(full) > _NAME_TOTAL_LENGTH_MAX:
        return ""
    if digest:
        algorithm, _, hex_digits = digest.partition(":")
        if _DIGEST_LENGTHS.get(algorithm) != len(hex_digits):
            return ""
    return tag or ("" if digest else "latest")


def _default_pull_policy(image: str | None) -> str:
    return "Always" if _image_tag(image or "") == "latest" else "IfNotPresent"


# ----------------------------------------------------------------------------- pod specs

def _set_defaults_http_get(action: Json | None) -> None:
    """``SetDefaults_HTTPGetAction``."""
    if action is not None:
        if not action.get("path"):
            action["path"] = "/"
        if not action.get("scheme"):
            action["scheme"] = "HTTP"


def _set_defaults_probe(probe: Json | None) -> None:
    """``SetDefaults_Probe`` and its handler's defaults."""
    if probe is None:
        return
    if not probe.get("timeoutSeconds"):
        probe["timeoutSeconds"] = 1
    if not probe.get("periodSeconds"):
        probe["periodSeconds"] = 10
    if not probe.get("successThreshold"):
        probe["successThreshold"] = 1
    if not probe.get("failureThreshold"):
        probe["failureThreshold"] = 3
    _set_defaults_http_get(probe.get("httpGet"))
    grpc = probe.get("grpc")
    if grpc is not None and grpc.get("service") is None:
        grpc["service"] = ""


def _set_defaults_field_ref(field_ref: Json | None) -> None:
    """``SetDefaults_ObjectFieldSelector``."""
    if field_ref is not None and not field_ref.get("apiVersion"):
        field_ref["apiVersion"] = "v1"


def _set_defaults_container(container: Json) -> None:
    """``SetDefaults_Container`` and what the generated defaulter adds under a container."""
    if not container.get("imagePullPolicy"):
        container["imagePullPolicy"] = _default_pull_policy(container.get("image"))
    if not container.get("terminationMessagePath"):
        container["terminationMessagePath"] = TERMINATION_MESSAGE_PATH_DEFAULT
    if not container.get("terminationMessagePolicy"):
        container["terminationMessagePolicy"] = "File"
    for port in container.get("ports") or ():
        if not port.get("protocol"):
            port["protocol"] = "TCP"
    for env in container.get("env") or ():
        value_from = env.get("valueFrom")
        if value_from is not None:
            _set_defaults_field_ref(value_from.get("fieldRef"))
            file_key_ref = value_from.get("fileKeyRef")
            if file_key_ref is not None and file_key_ref.get("optional") is None:
                file_key_ref["optional"] = False
            resource_field_ref = value_from.get("resourceFieldRef")
            if resource_field_ref is not None:
                canonical_quantity(resource_field_ref, "divisor")
    resources = container.get("resources")
    if resources:
        set_defaults_resource_list(resources.get("limits"))
        set_defaults_resource_list(resources.get("requests"))
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        _set_defaults_probe(container.get(probe))
    lifecycle = container.get("lifecycle")
    if lifecycle is not None:
        for hook in ("postStart", "preStop"):
            handler = lifecycle.get(hook)
            if handler is not None:
                _set_defaults_http_get(handler.get("httpGet"))


#: The volume source fields of ``v1.VolumeSource`` (``AllPtrFieldsNil`` looks at these).
VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
)


def _set_defaults_downward_api_items(items: list[Json] | None) -> None:
    for item in items or ():
        _set_defaults_field_ref(item.get("fieldRef"))
        resource_field_ref = item.get("resourceFieldRef")
        if resource_field_ref is not None:
            canonical_quantity(resource_field_ref, "divisor")


def _set_defaults_volume(volume: Json) -> None:
    """``SetDefaults_Volume`` and the generated defaults of each volume source."""
    if all(volume.get(source) is None for source in VOLUME_SOURCES):
        volume["emptyDir"] = {}
    if (source := volume.get("hostPath")) is not None and source.get("type") is None:
        source["type"] = ""
    if (source := volume.get("emptyDir")) is not None:
        canonical_quantity(source, "sizeLimit")
    if (source := volume.get("secret")) is not None and source.get("defaultMode") is None:
        source["defaultMode"] = DEFAULT_VOLUME_MODE
    if (source := volume.get("configMap")) is not None and source.get("defaultMode") is None:
        source["defaultMode"] = DEFAULT_VOLUME_MODE
    if (source := volume.get("downwardAPI")) is not None:
        if source.get("defaultMode") is None:
            source["defaultMode"] = DEFAULT_VOLUME_MODE
        _set_defaults_downward_api_items(source.get("items"))
    if (source := volume.get("projected")) is not None:
        if source.get("defaultMode") is None:
            source["defaultMode"] = DEFAULT_VOLUME_MODE
        for projection in source.get("sources") or ():
            downward_api = projection.get("downwardAPI")
            if downward_api is not None:
                _set_defaults_downward_api_items(downward_api.get("items"))
            token = projection.get("serviceAccountToken")
            if token is not None and token.get("expirationSeconds") is None:
                token["expirationSeconds"] = 3600
    _set_defaults_legacy_volume_sources(volume)
    if (source := volume.get("ephemeral")) is not None:
        claim_template = source.get("volumeClaimTemplate")
        if claim_template is not None:
            claim_spec = claim_template.get("spec")
            if claim_spec is None:
                claim_spec = claim_template["spec"] = {}
            set_defaults_persistent_volume_claim_spec(claim_spec)
    if (source := volume.get("image")) is not None and features.enabled("ImageVolume") and not source.get("pullPolicy"):
        source["pullPolicy"] = _default_pull_policy(source.get("reference"))


def _set_defaults_legacy_volume_sources(source: Json) -> None:
    """The ``+default=`` markers of the in-tree volume sources (pod volumes and PVs alike)."""
    if (iscsi := source.get("iscsi")) is not None and not iscsi.get("iscsiInterface"):
        iscsi["iscsiInterface"] = "default"
    if (rbd := source.get("rbd")) is not None:
        if not rbd.get("pool"):
            rbd["pool"] = "rbd"
        if not rbd.get("user"):
            rbd["user"] = "admin"
        if not rbd.get("keyring"):
            rbd["keyring"] = "/etc/ceph/keyring"
    if (azure_disk := source.get("azureDisk")) is not None:
        for name, value in (("cachingMode", "ReadWrite"), ("fsType", "ext4"), ("readOnly", False),
                            ("kind", "Shared")):
            if azure_disk.get(name) is None:
                azure_disk[name] = value
    if (scale_io := source.get("scaleIO")) is not None:
        if not scale_io.get("storageMode"):
            scale_io["storageMode"] = "ThinProvisioned"
        if not scale_io.get("fsType"):
            scale_io["fsType"] = "xfs"


def set_defaults_pod_spec(spec: Json) -> None:
    """``SetDefaults_PodSpec`` and the generated defaults of everything in a pod spec (what
    ``SetObjectDefaults_Pod`` and ``SetObjectDefaults_PodTemplate`` share)."""
    if not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS
    if not spec.get("schedulerName"):
        spec["schedulerName"] = DEFAULT_SCHEDULER_NAME
    for volume in spec.get("volumes") or ():
        _set_defaults_volume(volume)
    for containers in ("initContainers", "containers", "ephemeralContainers"):
        for container in spec.get(containers) or ():
            _set_defaults_container(container)
    set_defaults_resource_list(spec.get("overhead"))
    resources = spec.get("resources")
    if resources is not None:
        set_defaults_resource_list(resources.get("limits"))
        set_defaults_resource_list(resources.get("requests"))
    _service_account_alias(spec)


def _service_account_alias(spec: Json) -> None:
    """The v1 <-> internal round trip of a pod spec: ``serviceAccount`` is an alias of
    ``serviceAccountName`` (which wins when both are set); kube stores both."""
    account = spec.get("serviceAccountName") or spec.get("serviceAccount")
    if account:
        spec["serviceAccountName"] = spec["serviceAccount"] = account
    else:
        spec.pop("serviceAccountName", None)
        spec.pop("serviceAccount", None)


#: Annotations old clients set for init containers, dropped by the v1 <-> internal conversion.
_INIT_CONTAINER_ANNOTATIONS = ("pod.beta.kubernetes.io/init-containers", "pod.alpha.kubernetes.io/init-containers",
                               "pod.beta.kubernetes.io/init-container-statuses",
                               "pod.alpha.kubernetes.io/init-container-statuses")


def _drop_init_container_annotations(meta: Json | None) -> None:
    annotations = meta.get("annotations") if meta else None
    if annotations:
        for name in _INIT_CONTAINER_ANNOTATIONS:
            annotations.pop(name, None)


def _pod_ips_round_trip(status: Json | None) -> None:
    """``podIP`` and ``podIPs`` through the internal type: podIP wins when they differ, and is
    ``podIPs[0]`` on the way out."""
    if not status:
        return
    pod_ip = status.get("podIP")
    pod_ips = status.get("podIPs")
    if pod_ip and (not pod_ips or pod_ips[0].get("ip") != pod_ip):
        status["podIPs"] = [{"ip": pod_ip}]
    elif pod_ips:
        status["podIP"] = pod_ips[0].get("ip") or ""
        if not status["podIP"]:
            del status["podIP"]


def set_defaults_pod_template_spec(template: Json) -> None:
    """The defaults of a ``PodTemplateSpec`` embedded in another object (its ``spec`` is a
    struct in Go: an absent one is defaulted as an empty one)."""
    spec = template.get("spec")
    if spec is None:
        spec = template["spec"] = {}
    set_defaults_pod_spec(spec)
    _drop_init_container_annotations(template.get("metadata"))


def _set_defaults_pod_status(status: Json | None) -> None:
    """The generated defaults of ``PodStatus``: its resource lists."""
    if not status:
        return
    for statuses in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"):
        for container_status in status.get(statuses) or ():
            set_defaults_resource_list(container_status.get("allocatedResources"))
            resources = container_status.get("resources")
            if resources is not None:
                set_defaults_resource_list(resources.get("limits"))
                set_defaults_resource_list(resources.get("requests"))
    set_defaults_resource_list(status.get("allocatedResources"))
    resources = status.get("resources")
    if resources is not None:
        set_defaults_resource_list(resources.get("limits"))
        set_defaults_resource_list(resources.get("requests"))


def _requests_from_limits(containers: list[Json] | None) -> None:
    """A container's limits are its requests where it names none (``SetDefaults_Pod``)."""
    for container in containers or ():
        resources = container.get("resources")
        limits = resources.get("limits") if resources else None
        if limits:
            requests = resources.get("requests")
            if requests is None:
                requests = resources["requests"] = {}
            for name, value in limits.items():
                requests.setdefault(name, value)


#: Pod specs as ``_set_defaults_pod_spec`` leaves them (JSON), by their JSON before (of at most
#: ``PART_MAX_BYTES``): the pods of one template, and a load test's, repeat their specs. Handed
#: out as new copies; a spec whose defaulting fails (a quantity's 400) is not kept.
_DEFAULTED_SPECS: Repeated[bytes, bytes] = Repeated(256)


def set_defaults_pod(pod: Json) -> None:
    """``SetObjectDefaults_Pod``."""
    spec = pod.get("spec")
    if spec is None:
        spec = pod["spec"] = {}
    key = json_key(spec)
    kept = _DEFAULTED_SPECS.get(key) if key is not None else None
    if kept is not None:
        if kept != key:  # else defaulted already (an update sends back what it read): as it is
            pod["spec"] = orjson.loads(kept)
    else:
        _set_defaults_pod_spec(spec)
        if key is not None:
            _DEFAULTED_SPECS.put_made(key, lambda: orjson.dumps(spec))
    _set_defaults_pod_status(pod.get("status"))
    _drop_init_container_annotations(pod.get("metadata"))
    _pod_ips_round_trip(pod.get("status"))


def _set_defaults_pod_spec(spec: Json) -> None:
    """What ``SetObjectDefaults_Pod`` does to the spec (it reads nothing else)."""
    # SetDefaults_Pod runs first, on quantities already decoded.
    for containers in ("containers", "initContainers"):
        for container in spec.get(containers) or ():
            resources = container.get("resources")
            if resources:
                canonical_quantities(resources.get("limits"))
                canonical_quantities(resources.get("requests"))
    _requests_from_limits(spec.get("containers"))
    _requests_from_limits(spec.get("initContainers"))
    if features.enabled("PodLevelResources"):
        _default_pod_level_resources(spec)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    if spec.get("hostNetwork"):
        for containers in ("containers", "initContainers"):
            for container in spec.get(containers) or ():
                for port in container.get("ports") or ():
                    if not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort") or 0
    set_defaults_pod_spec(spec)
    # The v1 -> internal conversion of a Pod (not of a template) treats a negative grace period as 1.
    if spec["terminationGracePeriodSeconds"] < 0:
        spec["terminationGracePeriodSeconds"] = 1


def _default_pod_level_resources(spec: Json) -> None:
    """``defaultHugePagePodLimits`` and ``defaultPodRequests``: pod-level requests from the
    containers' requests and the pod's limits, for the resources supported at pod level."""
    resources = spec.get("resources")
    if not resources:
        return
    canonical_quantities(resources.get("limits"))
    canonical_quantities(resources.get("requests"))
    limits = resources.get("limits") or {}
    requests = resources.get("requests") or {}
    if limits or requests:
        pod_limits = dict(limits)
        for name, value in aggregate_container_resources(spec, "limits").items():
            if is_supported_pod_level_resource(name) and name.startswith("hugepages-") and name not in requests \
                    and name not in pod_limits:
                pod_limits[name] = str(value)
        if pod_limits:
            resources["limits"] = limits = pod_limits
    if not limits:
        return
    pod_requests = dict(requests)
    for name, value in aggregate_container_resources(spec, "requests").items():
        if name not in pod_requests and is_supported_pod_level_resource(name) and not name.startswith("hugepages-"):
            pod_requests[name] = str(value)
    for name, value in limits.items():
        if name not in pod_requests and is_supported_pod_level_resource(name):
            pod_requests[name] = value
    if pod_requests:
        resources["requests"] = pod_requests


# ----------------------------------------------------------------------------- other kinds

def set_defaults_pod_template(template: Json) -> None:
    """``SetObjectDefaults_PodTemplate``."""
    inner = template.get("template")
    if inner is None:
        inner = template["template"] = {}
    set_defaults_pod_template_spec(inner)


def set_defaults_replication_controller(controller: Json) -> None:
    """``SetObjectDefaults_ReplicationController``: the selector and labels from the template's
    labels, replicas 1, and the template's defaults."""
    spec = controller.get("spec")
    if spec is None:
        spec = controller["spec"] = {}
    template = spec.get("template")
    labels = (template.get("metadata") or {}).get("labels") if template else None
    if labels:  # an empty map would be omitted anyway
        if not spec.get("selector"):
            spec["selector"] = dict(labels)
        meta = controller.setdefault("metadata", {})
        if not meta.get("labels"):
            meta["labels"] = dict(labels)
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if template is not None:
        set_defaults_pod_template_spec(template)


def set_defaults_persistent_volume_claim_spec(spec: Json) -> None:
    """``SetDefaults_PersistentVolumeClaimSpec`` and its resource lists."""
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    resources = spec.get("resources")
    if resources is not None:
        set_defaults_resource_list(resources.get("limits"))
        set_defaults_resource_list(resources.get("requests"))


def set_defaults_persistent_volume_claim(claim: Json) -> None:
    """``SetObjectDefaults_PersistentVolumeClaim``."""
    status = claim.get("status")
    if status is None:
        status = claim["status"] = {}
    if not status.get("phase"):
        status["phase"] = "Pending"
    spec = claim.get("spec")
    if spec is None:
        spec = claim["spec"] = {}
    set_defaults_persistent_volume_claim_spec(spec)
    set_defaults_resource_list(status.get("capacity"))
    set_defaults_resource_list(status.get("allocatedResources"))


def set_defaults_persistent_volume(volume: Json) -> None:
    """``SetObjectDefaults_PersistentVolume``."""
    status = volume.get("status")
    if status is None:
        status = volume["status"] = {}
    if not status.get("phase"):
        status["phase"] = "Pending"
    spec = volume.get("spec")
    if spec is None:
        spec = volume["spec"] = {}
    if not spec.get("persistentVolumeReclaimPolicy"):
        spec["persistentVolumeReclaimPolicy"] = "Retain"
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    set_defaults_resource_list(spec.get("capacity"))
    if (host_path := spec.get("hostPath")) is not None and host_path.get("type") is None:
        host_path["type"] = ""
    _set_defaults_legacy_volume_sources(spec)


def set_defaults_service(service: Json) -> None:
    """``SetObjectDefaults_Service``."""
    spec = service.get("spec")
    if spec is None:
        spec = service["spec"] = {}
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    if spec["sessionAffinity"] == "ClientIP":
        config = spec.get("sessionAffinityConfig") or {}
        if (config.get("clientIP") or {}).get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS}}
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    service_type = spec["type"]
    for port in spec.get("ports") or ():
        if not port.get("protocol"):
            port["protocol"] = "TCP"
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port") or 0
    externally_accessible = service_type in ("LoadBalancer", "NodePort") or (
        service_type == "ClusterIP" and bool(spec.get("externalIPs")))
    if externally_accessible and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if spec.get("internalTrafficPolicy") is None and service_type in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if service_type == "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is None:
            spec["allocateLoadBalancerNodePorts"] = True
        for ingress in ((service.get("status") or {}).get("loadBalancer") or {}).get("ingress") or ():
            if ingress.get("ip") and ingress.get("ipMode") is None:
                ingress["ipMode"] = "VIP"


def set_defaults_secret(secret: Json) -> None:
    """``SetObjectDefaults_Secret``, after the decoding of ``data`` and the conversion that
    moves ``stringData`` into it (stringData wins; it is never stored)."""
    if not secret.get("type"):
        secret["type"] = "Opaque"
    _canonical_base64(secret.get("data"))
    string_data = secret.pop("stringData", None)
    if string_data:
        data = secret.get("data")
        if data is None:
            data = secret["data"] = {}
        for name, value in string_data.items():
            data[name] = base64.b64encode((value or "").encode()).decode()


def set_defaults_config_map(config_map: Json) -> None:
    """``SetDefaults_ConfigMap`` (``data`` a non-nil map, omitted when empty: nothing to do)
    after the decoding of ``binaryData``."""
    _canonical_base64(config_map.get("binaryData"))


def set_defaults_namespace(namespace: Json) -> None:
    """``SetObjectDefaults_Namespace``: the ``kubernetes.io/metadata.name`` label, phase Active."""
    meta = namespace.setdefault("metadata", {})
    name = meta.get("name")
    if name:
        labels = meta.get("labels")
        if labels is None:
            labels = meta["labels"] = {}
        labels["kubernetes.io/metadata.name"] = name
    status = namespace.get("status")
    if status is None:
        status = namespace["status"] = {}
    if not status.get("phase"):
        status["phase"] = "Active"


def _pod_cidrs_round_trip(spec: Json | None) -> None:
    """``podCIDR`` and ``podCIDRs`` through the internal type (which has only podCIDRs): podCIDR
    wins when they differ, and is ``podCIDRs[0]`` on the way out."""
    if not spec:
        return
    pod_cidr = spec.get("podCIDR")
    pod_cidrs = spec.get("podCIDRs")
    if pod_cidr and (not pod_cidrs or pod_cidrs[0] != pod_cidr):
        spec["podCIDRs"] = [pod_cidr]
    elif pod_cidrs:
        if pod_cidrs[0]:
            spec["podCIDR"] = pod_cidrs[0]
        else:
            spec.pop("podCIDR", None)


def set_defaults_node(node: Json) -> None:
    """``SetObjectDefaults_Node``: allocatable is the capacity when not given; the podCIDR(s)
    conversion round trip."""
    _pod_cidrs_round_trip(node.get("spec"))
    status = node.get("status")
    if not status:
        return
    if status.get("allocatable") is None and status.get("capacity") is not None:
        status["allocatable"] = dict(status["capacity"])
    set_defaults_resource_list(status.get("capacity"))
    set_defaults_resource_list(status.get("allocatable"))


def set_defaults_endpoints(endpoints: Json) -> None:
    """``SetObjectDefaults_Endpoints``: ports' protocol TCP."""
    for subset in endpoints.get("subsets") or ():
        for port in subset.get("ports") or ():
            if not port.get("protocol"):
                port["protocol"] = "TCP"


def set_defaults_limit_range(limit_range: Json) -> None:
    """``SetObjectDefaults_LimitRange``: a container item's default limit is its max, its default
    request its default limit or its min."""
    for item in (limit_range.get("spec") or {}).get("limits") or ():
        for name in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
            canonical_quantities(item.get(name))
        if item.get("type") == "Container":
            default = item.get("default")
            if default is None:
                default = item["default"] = {}
            default_request = item.get("defaultRequest")
            if default_request is None:
                default_request = item["defaultRequest"] = {}
            for name, value in (item.get("max") or {}).items():
                default.setdefault(name, value)
            for name, value in default.items():
                default_request.setdefault(name, value)
            for name, value in (item.get("min") or {}).items():
                default_request.setdefault(name, value)
            for name in ("default", "defaultRequest"):  # empty maps are omitted (omitempty)
                if not item[name]:
                    del item[name]
        for name in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
            set_defaults_resource_list(item.get(name))


def set_defaults_resource_quota(quota: Json) -> None:
    """``SetObjectDefaults_ResourceQuota``: its resource lists."""
    set_defaults_resource_list((quota.get("spec") or {}).get("hard"))
    status = quota.get("status") or {}
    set_defaults_resource_list(status.get("hard"))
    set_defaults_resource_list(status.get("used"))
