"""Validation of the core group's configuration kinds: ConfigMaps, Secrets, ServiceAccounts
(kube's ``ValidateConfigMap*``, ``ValidateSecret*``, ``ValidateServiceAccount*``). Secret and
binary data are validated on their decoded sizes, as kube holds them as bytes."""

from __future__ import annotations

import base64
from typing import Any

from ...machinery.gojson import unmarshal_map_error
from ...machinery.status import (
    FieldError,
    forbidden_error,
    invalid_error,
    required_error,
    too_long_error,
)
from ...machinery.validation import (
    is_config_map_key,
    key,
    name_is_dns_subdomain,
    validate_service_account_name,
)
from ..fields import map_field
from .validation_common import validate_core_object_meta, validate_core_object_meta_update

Json = dict[str, Any]
#: ``core.MaxSecretSize``: the data of a Secret or ConfigMap, 1 MiB.
MAX_SECRET_SIZE = 1024 * 1024
_IMMUTABLE = "field is immutable when `immutable` is set"


def _decoded_size(value: Any) -> int:
    """The byte length of a base64 value (validated when decoded)."""
    return len(base64.b64decode(value)) if isinstance(value, str) else 0


def validate_config_map(config_map: Json) -> list[FieldError]:
    """``ValidateConfigMap``: keys, no key in both data and binaryData, 1 MiB in all."""
    errors = validate_core_object_meta(map_field(config_map, "metadata"), True, name_is_dns_subdomain)
    data, binary = map_field(config_map, "data"), map_field(config_map, "binaryData")
    total = 0
    for name in data:
        errors += [invalid_error(key("data", name), name, m) for m in is_config_map_key(name)]
        if name in binary:
            errors.append(invalid_error(key("data", name), name, "duplicate of key present in binaryData"))
        value = data[name]
        total += len(value.encode()) if isinstance(value, str) else 0
    for name in binary:
        errors += [invalid_error(key("binaryData", name), name, m) for m in is_config_map_key(name)]
        total += _decoded_size(binary[name])
    if total > MAX_SECRET_SIZE:
        errors.append(too_long_error("[]", MAX_SECRET_SIZE))
    return errors


def validate_config_map_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateConfigMapUpdate``: an immutable ConfigMap keeps its data."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    if old.get("immutable"):
        if not new.get("immutable"):
            errors.append(forbidden_error("immutable", _IMMUTABLE))
        if map_field(new, "data") != map_field(old, "data"):
            errors.append(forbidden_error("data", _IMMUTABLE))
        if map_field(new, "binaryData") != map_field(old, "binaryData"):
            errors.append(forbidden_error("binaryData", _IMMUTABLE))
    return errors + validate_config_map(new)


_DOCKER_CONFIG_KEYS = {"kubernetes.io/dockercfg": ".dockercfg", "kubernetes.io/dockerconfigjson": ".dockerconfigjson"}


def validate_secret(secret: Json) -> list[FieldError]:
    """``ValidateSecret``: keys, 1 MiB, and what each secret type requires."""
    meta = map_field(secret, "metadata")
    errors = validate_core_object_meta(meta, True, name_is_dns_subdomain)
    data = map_field(secret, "data")
    total = 0
    for name in data:
        errors += [invalid_error(key("data", name), name, m) for m in is_config_map_key(name)]
        total += _decoded_size(data[name])
    if total > MAX_SECRET_SIZE:
        errors.append(too_long_error("data", MAX_SECRET_SIZE))
    kind = secret.get("type") or ""
    if kind == "kubernetes.io/service-account-token":
        if not map_field(meta, "annotations").get("kubernetes.io/service-account.name"):
            errors.append(required_error(key("metadata.annotations", "kubernetes.io/service-account.name")))
    elif kind in _DOCKER_CONFIG_KEYS:
        config_key = _DOCKER_CONFIG_KEYS[kind]
        if config_key not in data:
            errors.append(required_error(key("data", config_key)))
        else:
            problem = unmarshal_map_error(base64.b64decode(data[config_key] or ""))
            if problem:
                errors.append(invalid_error(key("data", config_key), "<secret contents redacted>", problem))
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            errors += [required_error(key("data", "username")), required_error(key("data", "password"))]
    elif kind == "kubernetes.io/ssh-auth":
        if not data.get("ssh-privatekey"):
            errors.append(required_error(key("data", "ssh-privatekey")))
    elif kind == "kubernetes.io/tls":
        for name in ("tls.crt", "tls.key"):
            if name not in data:
                errors.append(required_error(key("data", name)))
    return errors


def validate_secret_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateSecretUpdate``: the type never changes; an immutable Secret keeps its data."""
    errors = validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata"))
    if (new.get("type") or "") != (old.get("type") or ""):
        errors.append(invalid_error("type", new.get("type") or "", "field is immutable"))
    if old.get("immutable"):
        if not new.get("immutable"):
            errors.append(forbidden_error("immutable", _IMMUTABLE))
        if map_field(new, "data") != map_field(old, "data"):
            errors.append(forbidden_error("data", _IMMUTABLE))
    return errors + validate_secret(new)


def validate_service_account(account: Json) -> list[FieldError]:
    """``ValidateServiceAccount``."""
    return validate_core_object_meta(map_field(account, "metadata"), True, validate_service_account_name)


def validate_service_account_update(new: Json, old: Json) -> list[FieldError]:
    """``ValidateServiceAccountUpdate``."""
    return validate_core_object_meta_update(map_field(new, "metadata"), map_field(old, "metadata")) + \
        validate_service_account(new)
