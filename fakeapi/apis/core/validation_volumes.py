"""Validation of volumes (kube's ``pkg/apis/core/validation``, ``ValidateVolumes``,
``validateVolumeSource`` and each source's checks), in Go's order: a pod's volumes, and the
source checks a PersistentVolume shares with them (``validation_storage``); the downward API's
field selectors, which a container's environment uses too."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ...machinery import quantity as quantities
from ...machinery.golang import go_quote as _quote
from ...machinery.status import (
    FieldError,
    duplicate_error,
    forbidden_error,
    invalid_error,
    not_supported_error,
    required_error,
    too_long_error,
)
from ...machinery.validation import child, inclusive_range_error, index, invalid_json, is_dns1123_subdomain, key
from ..fields import int_field, list_field, map_field, str_field
from .validation_claims import validate_persistent_volume_claim_template
from .validation_common import (
    PodValidationOptions,
    invalid_each,
    validate_dns1123_label,
    validate_persistent_volume_name,
    validate_pull_policy,
    validate_qualified_name,
    validate_secret_name,
)

Json = dict[str, Any]
FILE_MODE_ERROR = "must be a number between 0 and 0777 (octal), both inclusive"
HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate",
                   "Socket")
_DOWNWARD_VOLUME_FIELDS = ("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
                           "metadata.uid")
_CONTAINER_RESOURCE_FIELDS = ("limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu",
                              "requests.ephemeral-storage", "requests.memory")
_ISCSI_IQN = re.compile(r"iqn\.\d{4}-\d{2}\.([a-zA-Z0-9\-.]+)(:[^,;*&$|\s]+)$")
_ISCSI_EUI = re.compile(r"^eui.[a-zA-Z0-9]{16}$")
_ISCSI_NAA = re.compile(r"^naa.[a-zA-Z0-9]{32}$")


def validate_path_no_backsteps(target: str, path: str) -> list[FieldError]:
    """``validatePathNoBacksteps``."""
    if ".." in target.split("/"):
        return [invalid_error(path, target, "must not contain '..'")]
    return []


def validate_local_descending_path(target: str, path: str) -> list[FieldError]:
    """``validateLocalDescendingPath``: relative, no ``..``."""
    errors = [invalid_error(path, target, "must be a relative path")] if target.startswith("/") else []
    return errors + validate_path_no_backsteps(target, path)


def validate_local_non_reserved_path(target: str, path: str) -> list[FieldError]:
    """``ValidateLocalNonReservedPath``."""
    errors = validate_local_descending_path(target, path)
    if target.startswith("..") and not target.startswith("../"):
        errors.append(invalid_error(path, target, "must not start with '..'"))
    return errors


def _validate_file_mode(mode: Any, path: str) -> list[FieldError]:
    if mode is not None and (mode > 0o777 or mode < 0):
        return [invalid_error(path, mode, FILE_MODE_ERROR)]
    return []


def _validate_key_to_path(item: Json, path: str) -> list[FieldError]:
    """``validateKeyToPath``."""
    errors = []
    if not str_field(item, "key"):
        errors.append(required_error(child(path, "key")))
    item_path = str_field(item, "path")
    if not item_path:
        errors.append(required_error(child(path, "path")))
    errors += validate_local_non_reserved_path(item_path, child(path, "path"))
    return errors + _validate_file_mode(item.get("mode"), child(path, "mode"))


def _validate_keys_volume_source(source: Json, path: str, name_field: str) -> list[FieldError]:
    """``validateSecretVolumeSource`` and ``validateConfigMapVolumeSource``: the object named,
    the default mode, and each key projected to a path."""
    errors = required_fields(source, path, name_field)
    errors += _validate_file_mode(source.get("defaultMode"), child(path, "defaultMode"))
    for i, item in enumerate(list_field(source, "items")):
        errors += _validate_key_to_path(item, index(child(path, "items"), i))
    return errors


def validate_object_field_selector(selector: Json, expressions: Sequence[str], path: str) -> list[FieldError]:
    """``validateObjectFieldSelector``."""
    api_version = str_field(selector, "apiVersion")
    if not api_version:
        return [required_error(child(path, "apiVersion"))]
    field_path = str_field(selector, "fieldPath")
    if not field_path:
        return [required_error(child(path, "fieldPath"))]
    if api_version != "v1":
        return [invalid_error(child(path, "fieldPath"), field_path, (
            f"error converting fieldPath: unsupported pod version: {api_version}"))]
    internal = field_path
    match = re.fullmatch(r"(metadata\.(?:annotations|labels))\['(.*)'\]", internal, re.S)
    if match is None and "[" in internal and internal.endswith("]"):
        match = re.fullmatch(r"([^\[]*)\['(.*)'\]", internal, re.S)
    if match is not None:
        base, subscript = match.groups()
        if base == "metadata.annotations":
            return validate_qualified_name(subscript.lower(), path)
        if base == "metadata.labels":
            return validate_qualified_name(subscript, path)
        return [invalid_error(path, base, "does not support subscript")]
    if internal in ("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
                    "metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName",
                    "spec.schedulerName", "status.phase", "status.hostIP", "status.hostIPs", "status.podIP",
                    "status.podIPs"):
        if internal not in expressions:
            return [not_supported_error(child(path, "fieldPath"), internal, expressions)]
        return []
    return [invalid_error(child(path, "fieldPath"), field_path,
                          f'error converting fieldPath: field label not supported: {field_path}')]


_DIVISORS_CPU = ("1m", "1")
_DIVISORS_OTHER = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")


def _validate_resource_divisor(resource: str, divisor: Any, path: str) -> list[FieldError]:
    """``validateContainerResourceDivisor``."""
    if divisor is None:
        return []
    text = str(quantities.decode(divisor))
    if text == "0":
        return []
    errors = []
    if resource in ("limits.cpu", "requests.cpu") and text not in _DIVISORS_CPU:
        errors.append(invalid_error(child(path, "divisor"), resource,
                                    "only divisor's values 1m and 1 are supported with the cpu resource"))
    elif resource in ("limits.memory", "requests.memory") and text not in _DIVISORS_OTHER:
        errors.append(invalid_error(child(path, "divisor"), resource, (
            "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the "
            "memory resource")))
    elif resource in ("limits.ephemeral-storage", "requests.ephemeral-storage") and text not in _DIVISORS_OTHER:
        errors.append(invalid_error(child(path, "divisor"), resource, (
            "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the "
            "local ephemeral storage resource")))
    if resource.startswith(("requests.hugepages-", "limits.hugepages-")) and text not in _DIVISORS_OTHER:
        errors.append(invalid_error(child(path, "divisor"), resource, (
            "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the "
            "hugepages resource")))
    return errors


def validate_resource_field_selector(selector: Json, path: str, volume: bool) -> list[FieldError]:
    """``validateContainerResourceFieldSelector``."""
    errors = []
    resource = str_field(selector, "resource")
    if volume and not str_field(selector, "containerName"):
        errors.append(required_error(child(path, "containerName")))
    elif not resource:
        errors.append(required_error(child(path, "resource")))
    elif resource not in _CONTAINER_RESOURCE_FIELDS and not resource.startswith(
            ("limits.hugepages-", "requests.hugepages-")):
        errors.append(not_supported_error(child(path, "resource"), resource, _CONTAINER_RESOURCE_FIELDS))
    return errors + _validate_resource_divisor(resource, selector.get("divisor"), path)


def _validate_downward_api_file(item: Json, path: str) -> list[FieldError]:
    """``validateDownwardAPIVolumeFile``."""
    errors = []
    file_path = str_field(item, "path")
    if not file_path:
        errors.append(required_error(child(path, "path")))
    errors += validate_local_non_reserved_path(file_path, child(path, "path"))
    if item.get("fieldRef") is not None:
        errors += validate_object_field_selector(item["fieldRef"], _DOWNWARD_VOLUME_FIELDS, child(path, "fieldRef"))
        if item.get("resourceFieldRef") is not None:
            errors.append(invalid_error(path, "resource", "fieldRef and resourceFieldRef can not be specified "
                                                          "simultaneously"))
    elif item.get("resourceFieldRef") is not None:
        errors += validate_resource_field_selector(item["resourceFieldRef"], child(path, "resourceFieldRef"), True)
    else:
        errors.append(required_error(path, "one of fieldRef and resourceFieldRef is required"))
    return errors + _validate_file_mode(item.get("mode"), child(path, "mode"))


def _validate_projection_sources(projected: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    """``validateProjectionSources`` (secrets, config maps, downward API, service account tokens;
    cluster trust bundles and pod certificates are behind gates that are off)."""
    errors: list[FieldError] = []
    paths: set[str] = set()
    for i, source in enumerate(list_field(projected, "sources")):
        sources = 0
        source_path = index(child(path, "sources"), i)
        for kind in ("secret", "configMap"):
            projection = source.get(kind)
            if projection is None:
                continue
            sources += 1
            projection_path = child(source_path, kind)
            if not str_field(projection, "name"):
                errors.append(required_error(child(projection_path, "name")))
            for j, item in enumerate(list_field(projection, "items")):
                errors += _validate_key_to_path(item, index(child(projection_path, "items"), j))
                item_path = str_field(item, "path")
                if item_path:
                    if item_path in paths:
                        errors.append(invalid_error(path, str_field(projection, "name"), "conflicting duplicate paths"))
                    paths.add(item_path)
        if (downward_api := source.get("downwardAPI")) is not None:
            sources += 1
            for item in list_field(downward_api, "items"):
                errors += _validate_downward_api_file(item, child(source_path, "downwardAPI"))
                item_path = str_field(item, "path")
                if item_path:
                    if item_path in paths:
                        errors.append(invalid_error(path, item_path, "conflicting duplicate paths"))
                    paths.add(item_path)
        if (token := source.get("serviceAccountToken")) is not None:
            sources += 1
            token_path = child(source_path, "serviceAccountToken")
            expiration = int_field(token, "expirationSeconds")
            if expiration < 600:
                errors.append(invalid_error(child(token_path, "expirationSeconds"), expiration,
                                            "may not specify a duration less than 10 minutes"))
            if expiration > 1 << 32:
                errors.append(invalid_error(child(token_path, "expirationSeconds"), expiration,
                                            "may not specify a duration larger than 2^32 seconds"))
            if not str_field(token, "path"):
                errors.append(required_error(child(path, "path")))
            elif not options.allow_non_local_projected_token_path:
                errors += validate_local_non_reserved_path(str_field(token, "path"), child(path, "path"))
        if sources > 1:
            errors.append(forbidden_error(source_path, "may not specify more than 1 volume type per source"))
    return errors


def _validate_projected(projected: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    return _validate_file_mode(projected.get("defaultMode"), child(path, "defaultMode")) + \
        _validate_projection_sources(projected, path, options)


def required_fields(source: Json, path: str, *names: str) -> list[FieldError]:
    return [required_error(child(path, name)) for name in names if not source.get(name)]


def validate_iscsi(source: Json, path: str) -> list[FieldError]:
    errors = required_fields(source, path, "targetPortal")
    iqn = str_field(source, "iqn")
    if not iqn:
        errors.append(required_error(child(path, "iqn")))
    elif not iqn.startswith(("iqn", "eui", "naa")):
        errors.append(invalid_error(child(path, "iqn"), iqn, "must be valid format starting with iqn, eui, or naa"))
    elif (iqn.startswith("iqn") and not _ISCSI_IQN.search(iqn)) or (
            iqn.startswith("eui") and not _ISCSI_EUI.search(iqn)) or (
            iqn.startswith("naa") and not _ISCSI_NAA.search(iqn)):
        errors.append(invalid_error(child(path, "iqn"), iqn, "must be valid format"))
    lun = int_field(source, "lun")
    if lun < 0 or lun > 255:
        errors.append(invalid_error(child(path, "lun"), lun, inclusive_range_error(0, 255)))
    if (source.get("chapAuthDiscovery") or source.get("chapAuthSession")) and source.get("secretRef") is None:
        errors.append(required_error(child(path, "secretRef")))
    initiator = source.get("initiatorName")
    if initiator is not None:
        if not initiator.startswith(("iqn", "eui", "naa")):
            errors.append(invalid_error(child(path, "initiatorname"), initiator,
                                        "must be valid format starting with iqn, eui, or naa"))
        if (initiator.startswith("iqn") and not _ISCSI_IQN.search(initiator)) or (
                initiator.startswith("eui") and not _ISCSI_EUI.search(initiator)) or (
                initiator.startswith("naa") and not _ISCSI_NAA.search(initiator)):
            errors.append(invalid_error(child(path, "initiatorname"), initiator, "must be valid format"))
    return errors


def validate_partition(source: Json, path: str) -> list[FieldError]:
    partition = int_field(source, "partition")
    if partition < 0 or partition > 255:
        return [invalid_error(child(path, "partition"), partition, inclusive_range_error(1, 255))]
    return []


def validate_csi_driver_name(driver: str, path: str) -> list[FieldError]:
    """``ValidateCSIDriverName``."""
    if not driver:
        return [required_error(path)]
    errors = [too_long_error(path, 63)] if len(driver.encode()) > 63 else []
    return errors + invalid_each(path, driver, is_dns1123_subdomain(driver.lower()))


def validate_volume_source(volume: Json, path: str, pod_meta: Json | None,
                           options: PodValidationOptions) -> list[FieldError]:
    """``validateVolumeSource``: exactly one source, each checked by its own rules."""
    errors: list[FieldError] = []
    count = 0
    name = str_field(volume, "name")

    def one(kind: str, source_path: str | None = None) -> Json | None:
        nonlocal count
        source = volume.get(kind)
        if source is None:
            return None
        if count > 0:
            errors.append(forbidden_error(child(path, source_path or kind), "may not specify more than 1 volume type"))
            return None
        count += 1
        return source

    if (source := one("emptyDir")) is not None:
        size_limit = source.get("sizeLimit")
        if size_limit is not None and quantities.decode(size_limit).sign() < 0:
            errors.append(forbidden_error(child(path, "emptyDir", "sizeLimit"),
                                          "SizeLimit field must be a valid resource quantity"))
    if (source := one("hostPath")) is not None:
        host_path = str_field(source, "path")
        if not host_path:
            errors.append(required_error(child(path, "hostPath", "path")))
        else:
            errors += validate_path_no_backsteps(host_path, child(path, "hostPath", "path"))
            host_path_type = source.get("type")
            if host_path_type is not None and host_path_type not in HOST_PATH_TYPES:
                errors.append(not_supported_error(child(path, "hostPath", "type"), host_path_type, HOST_PATH_TYPES))
    if (source := one("gitRepo")) is not None:
        errors += required_fields(source, child(path, "gitRepo"), "repository")
        errors += validate_local_descending_path(str_field(source, "directory"), child(path, "gitRepo", "directory"))
    if (source := one("gcePersistentDisk")) is not None:
        errors += required_fields(source, child(path, "persistentDisk"), "pdName")
        errors += validate_partition(source, child(path, "persistentDisk"))
    if (source := one("awsElasticBlockStore")) is not None:
        errors += required_fields(source, child(path, "awsElasticBlockStore"), "volumeID")
        errors += validate_partition(source, child(path, "awsElasticBlockStore"))
    if (source := one("secret")) is not None:
        errors += _validate_keys_volume_source(source, child(path, "secret"), "secretName")
    if (source := one("nfs")) is not None:
        errors += required_fields(source, child(path, "nfs"), "server", "path")
        if not str_field(source, "path").startswith("/"):
            errors.append(invalid_error(child(path, "nfs", "path"), str_field(source, "path"),
                                        "must be an absolute path"))
    if (source := one("iscsi")) is not None:
        errors += validate_iscsi(source, child(path, "iscsi"))
    if volume.get("iscsi") is not None and volume["iscsi"].get("initiatorName") is not None and \
            len(f"{name}:{str_field(volume['iscsi'], 'targetPortal')}") > 64:
        errors.append(invalid_error(child(path, "name"), name, (
            "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if "
            "iscsi.initiatorName is specified.")))
    if (source := one("glusterfs")) is not None:
        errors += required_fields(source, child(path, "glusterfs"), "endpoints", "path")
    if (source := one("flocker")) is not None:
        dataset_name, dataset_uuid = str_field(source, "datasetName"), str_field(source, "datasetUUID")
        if not dataset_name and not dataset_uuid:
            errors.append(required_error(child(path, "flocker"), "one of datasetName and datasetUUID is required"))
        if dataset_name and dataset_uuid:
            errors.append(invalid_error(child(path, "flocker"), "resource",
                                        "datasetName and datasetUUID can not be specified simultaneously"))
        if "/" in dataset_name:
            errors.append(invalid_error(child(path, "flocker", "datasetName"), dataset_name, "must not contain '/'"))
    if (source := one("persistentVolumeClaim")) is not None:
        errors += required_fields(source, child(path, "persistentVolumeClaim"), "claimName")
    if (source := one("rbd")) is not None:
        errors += required_fields(source, child(path, "rbd"), "monitors", "image")
    if (source := one("cinder")) is not None:
        errors += required_fields(source, child(path, "cinder"), "volumeID")
        secret_ref = source.get("secretRef")
        if secret_ref is not None and not str_field(secret_ref, "name"):
            errors.append(required_error(child(path, "cinder", "secretRef", "name")))
    if (source := one("cephfs", "cephFS")) is not None:
        errors += required_fields(source, child(path, "cephfs"), "monitors")
    if (source := one("quobyte")) is not None:
        registry = str_field(source, "registry")
        if not registry:
            errors.append(required_error(child(path, "quobyte", "registry"),
                                         "must be a host:port pair or multiple pairs separated by commas"))
        elif len(str_field(source, "tenant")) >= 65:
            errors.append(required_error(child(path, "quobyte", "tenant"),
                                         "must be a UUID and may not exceed a length of 64 characters"))
        else:
            for pair in registry.split(","):
                if not re.fullmatch(r"(\[[^\]]*\]|[^:\[\]]*):[^:]*", pair):
                    errors.append(invalid_error(child(path, "quobyte", "registry"), registry,
                                                "must be a host:port pair or multiple pairs separated by commas"))
        errors += required_fields(source, child(path, "quobyte"), "volume")
    if (source := one("downwardAPI", "downwarAPI")) is not None:
        errors += _validate_file_mode(source.get("defaultMode"), child(path, "downwardAPI", "defaultMode"))
        for item in list_field(source, "items"):
            errors += _validate_downward_api_file(item, child(path, "downwardAPI"))
    if (source := one("fc")) is not None:
        wwns, wwids = list_field(source, "targetWWNs"), list_field(source, "wwids")
        if not wwns and not wwids:
            errors.append(required_error(child(path, "fc", "targetWWNs"),
                                         "must specify either targetWWNs or wwids, but not both"))
        if wwns and wwids:
            errors.append(invalid_json(child(path, "fc", "targetWWNs"), wwns,
                                       "targetWWNs and wwids can not be specified simultaneously"))
        if wwns:
            if source.get("lun") is None:
                errors.append(required_error(child(path, "fc", "lun"), "lun is required if targetWWNs is specified"))
            elif not 0 <= source["lun"] <= 255:
                errors.append(invalid_error(child(path, "fc", "lun"), source["lun"], inclusive_range_error(0, 255)))
    if (source := one("flexVolume")) is not None:
        errors += validate_flex_volume(source, child(path, "flexVolume"))
    if (source := one("configMap")) is not None:
        errors += _validate_keys_volume_source(source, child(path, "configMap"), "name")
    if (source := one("azureFile")) is not None:
        errors += required_fields(source, child(path, "azureFile"), "secretName", "shareName")
    if (source := one("vsphereVolume")) is not None:
        errors += required_fields(source, child(path, "vsphereVolume"), "volumePath")
    if (source := one("photonPersistentDisk")) is not None:
        errors += required_fields(source, child(path, "photonPersistentDisk"), "pdID")
    if (source := one("portworxVolume")) is not None:
        errors += required_fields(source, child(path, "portworxVolume"), "volumeID")
    if (source := one("azureDisk")) is not None:
        errors += validate_azure_disk(source, child(path, "azureDisk"))
    if (source := one("storageos")) is not None:
        errors += validate_storageos(source, child(path, "storageos"), persistent=False)
    if (source := one("projected")) is not None:
        errors += _validate_projected(source, child(path, "projected"), options)
    if (source := one("scaleIO")) is not None:
        errors += required_fields(source, child(path, "scaleIO"), "gateway", "system", "volumeName")
    if (source := one("csi")) is not None:
        errors += validate_csi_driver_name(str_field(source, "driver"), child(path, "csi", "driver"))
        secret_ref = source.get("nodePublishSecretRef")
        if secret_ref is not None:
            if not str_field(secret_ref, "name"):
                errors.append(required_error(child(path, "csi", "nodePublishSecretRef", "name")))
            else:
                errors += invalid_each(child(path, "csi", "name"), secret_ref["name"],
                                       validate_secret_name(secret_ref["name"], False))
    if (source := one("ephemeral")) is not None:
        claim_template = source.get("volumeClaimTemplate")
        if claim_template is None:
            errors.append(required_error(child(path, "ephemeral", "volumeClaimTemplate")))
        else:
            errors += validate_persistent_volume_claim_template(
                claim_template, child(path, "ephemeral", "volumeClaimTemplate"))
        pod_name = str_field(pod_meta, "name")
        if pod_name and name:
            claim_name = f"{pod_name}-{name}"
            for message in validate_persistent_volume_name(claim_name, False):
                errors.append(invalid_error(child(path, "name"), name, f"PVC name {_quote(claim_name)}: {message}"))
    if (source := one("image")) is not None:
        errors += _validate_image_volume_source(source, child(path, "image"), options)
    if count == 0:
        errors.append(required_error(path, "must specify a volume type"))
    return errors


def validate_flex_volume(source: Json, path: str) -> list[FieldError]:
    """``validateFlexVolumeSource`` (and its PV twin): option keys in kubernetes.io or k8s.io
    namespaces are reserved."""
    errors = required_fields(source, path, "driver")
    for option in map_field(source, "options"):
        namespace = option.split("/", 1)[0] if "/" in option else option
        normalized = "." + namespace.lower()
        if normalized.endswith((".kubernetes.io", ".k8s.io")):
            errors.append(invalid_error(key(child(path, "options"), option), option,
                                        "kubernetes.io and k8s.io namespaces are reserved"))
    return errors


def validate_storageos(source: Json, path: str, *, persistent: bool) -> list[FieldError]:
    """``validateStorageOSVolumeSource``/``validateStorageOSPersistentVolumeSource``."""
    errors: list[FieldError] = []
    volume_name = str_field(source, "volumeName")
    if not volume_name:
        errors.append(required_error(child(path, "volumeName")))
    else:
        errors += validate_dns1123_label(volume_name, child(path, "volumeName"))
    if str_field(source, "volumeNamespace"):
        errors += validate_dns1123_label(source["volumeNamespace"], child(path, "volumeNamespace"))
    secret_ref = source.get("secretRef")
    if secret_ref is not None:
        if not str_field(secret_ref, "name"):
            errors.append(required_error(child(path, "secretRef", "name")))
        if persistent and not str_field(secret_ref, "namespace"):
            errors.append(required_error(child(path, "secretRef", "namespace")))
    return errors


def validate_azure_disk(source: Json, path: str) -> list[FieldError]:
    errors = required_fields(source, path, "diskName", "diskURI")
    caching = source.get("cachingMode")
    if caching is not None and caching not in ("None", "ReadOnly", "ReadWrite"):
        errors.append(not_supported_error(child(path, "cachingMode"), caching, ("None", "ReadOnly", "ReadWrite")))
    kind = source.get("kind")
    if kind is not None and kind not in ("Dedicated", "Managed", "Shared"):
        errors.append(not_supported_error(child(path, "kind"), kind, ("Dedicated", "Managed", "Shared")))
    if kind == "Managed" and not str_field(source, "diskURI").startswith("/subscriptions/"):
        errors.append(not_supported_error(child(path, "diskURI"), str_field(source, "diskURI"),
                                          ("/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/"
                                           "microsoft.compute/disks/{disk-id}",)))
    if kind not in (None, "Managed") and not str_field(source, "diskURI").startswith("https://"):
        errors.append(not_supported_error(child(path, "diskURI"), str_field(source, "diskURI"),
                                          ("https://{account-name}.blob.core.windows.net/{container-name}/"
                                           "{disk-name}.vhd",)))
    return errors


def _validate_image_volume_source(source: Json, path: str, options: PodValidationOptions) -> list[FieldError]:
    """``validateImageVolumeSource``."""
    errors = []
    reference = str_field(source, "reference")
    if not reference and options.resource_is_pod:
        errors.append(required_error(child(path, "reference")))
    if reference.strip() != reference:
        errors.append(invalid_error(child(path, "reference"), reference,
                                    "must not have leading or trailing whitespace"))
    return errors + validate_pull_policy(str_field(source, "pullPolicy"), child(path, "pullPolicy"))


def validate_volumes(volumes: list[Json], pod_meta: Json | None, path: str,
                     options: PodValidationOptions) -> tuple[dict[str, Json], list[FieldError]]:
    """``ValidateVolumes``: the volumes by name (those without errors) and the errors."""
    errors: list[FieldError] = []
    by_name: dict[str, Json] = {}
    pod_name = str_field(pod_meta, "name")
    created_claims = {f"{pod_name}-{str_field(v, 'name')}" for v in volumes if v.get("ephemeral") is not None} \
        if pod_name else set()
    for i, volume in enumerate(volumes):
        volume_path = index(path, i)
        name_path = child(volume_path, "name")
        name = str_field(volume, "name")
        volume_errors = validate_volume_source(volume, volume_path, pod_meta, options)
        if not name:
            volume_errors.append(required_error(name_path))
        else:
            volume_errors += validate_dns1123_label(name, name_path)
        if name in by_name:
            volume_errors.append(duplicate_error(name_path, name))
        if volume_errors:
            errors += volume_errors
        else:
            by_name[name] = volume
        claim = volume.get("persistentVolumeClaim")
        if claim is not None and str_field(claim, "claimName") in created_claims:
            errors.append(invalid_error(child(volume_path, "persistentVolumeClaim", "claimName"), claim["claimName"],
                                        "must not reference a PVC that gets created for an ephemeral volume"))
    return by_name, errors
