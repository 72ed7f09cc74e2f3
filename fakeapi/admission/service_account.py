"""ServiceAccount (kube's ``plugin/pkg/admission/serviceaccount``), off unless enabled (see the
package's ``OFF_BY_DEFAULT``): a new pod runs as a ServiceAccount of its namespace that exists
(``default`` when it names none), gets the account's image pull secrets when it has none of its
own, and, unless the pod or the account turns ``automountServiceAccountToken`` off, a projected
``kube-api-access-<random>`` volume (a bound token, the cluster's CA, the namespace) mounted
read-only at ``/var/run/secrets/kubernetes.io/serviceaccount`` in every init container and
container. Mirror pods (the kubelet's static pods) are left as they are, and refused if they
reference a service account, a secret or a token projection. An account annotated
``kubernetes.io/enforce-mountable-secrets: "true"`` refuses pods (and ephemeral containers added
later) referencing secrets it does not list.

As kube: the account is read from the cache, then from the store; ``default``, which the
controller-manager creates right after its namespace, is looked up 10 times 100-200 ms apart
before the pod is refused, when the write may wait (``fakeapi.runtime.can_wait``: it runs under
``run_awaiting``, which ``Admission.may_wait`` asks of the HTTP layer)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

from ..machinery.metadata import generate_name
from ..machinery.status import StatusError, unclassified_error
from ..runtime import can_wait, wait_for
from . import Admission, Json, mutating, refusal, validating

PLUGIN = "ServiceAccount"
DEFAULT_SERVICE_ACCOUNT = "default"
#: The annotation of an account whose pods may reference only the secrets it lists, when "true".
ENFORCE_MOUNTABLE_SECRETS = "kubernetes.io/enforce-mountable-secrets"
#: Where the token, the CA and the namespace are mounted.
TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
#: The prefix of the projected volume's name (kube's ``ServiceAccountVolumeName``).
VOLUME_PREFIX = "kube-api-access-"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
#: ``serviceaccount.WarnOnlyBoundTokenExpirationSeconds``: the kubelet refreshes the token
#: well before an hour; kube-apiserver recognises this value to warn, not fail, on stale use.
TOKEN_EXPIRATION_SECONDS = 3607
#: ``api.ProjectedVolumeSourceDefaultMode`` (0644), set explicitly (kube #104464).
DEFAULT_MODE = 0o644
#: Lookups of ``default`` before the pod is refused (``getServiceAccount``).
DEFAULT_ACCOUNT_ATTEMPTS = 10


def _ignored(subresource: str | None) -> bool:
    """``shouldIgnore``: only pods themselves and their ephemeral containers are admitted."""
    return subresource not in (None, "ephemeralcontainers")


def _refuse(pod: Json, message: str) -> StatusError:
    return refusal("", "pods", pod, message)


def _namespace(pod: Json) -> str:
    return (pod.get("metadata") or {}).get("namespace") or ""


def _is_mirror(pod: Json) -> bool:
    return MIRROR_ANNOTATION in ((pod.get("metadata") or {}).get("annotations") or {})


def _service_account(admission: Admission, pod: Json) -> Json:
    """``getServiceAccount``: the pod's account, or the 403 refusing the pod; also when it
    names none (``Validate``'s check: a pod created while the plugin was off meets it when
    ephemeral containers are added)."""
    namespace, name = _namespace(pod), (pod.get("spec") or {}).get("serviceAccountName")
    if not name:
        raise _refuse(pod, f"no service account specified for pod {namespace}/"
                           f"{(pod.get('metadata') or {}).get('name') or ''}")
    attempts = DEFAULT_ACCOUNT_ATTEMPTS if name == DEFAULT_SERVICE_ACCOUNT and can_wait() else 1
    # One random interval for every retry, as kube draws it.
    interval = (random.randrange(100) + 100) / 1000
    for attempt in range(attempts):
        if attempt:
            wait_for(asyncio.sleep(interval))
        account = admission.lookup("", "ServiceAccount", namespace, name)
        if account is not None:
            return account
    raise _refuse(pod, f"error looking up service account {namespace}/{name}: "
                       f'serviceaccount "{name}" not found')


@mutating("", "Pod", plugin=PLUGIN)
def admit(admission: Admission, pod: Json, old: Json | None, subresource: str | None) -> None:
    """kube's ``Admit``: pods are mutated on create only; mirror pods never (the kubelet would
    delete one whose spec it did not write), they are only checked."""
    if old is not None or _ignored(subresource):
        return
    if _is_mirror(pod):
        validate(admission, pod, old, subresource)
        return
    spec = pod.setdefault("spec", {})
    if not spec.get("serviceAccountName"):
        # ``serviceAccount`` is the v1 alias the conversion to storage fills in.
        spec["serviceAccountName"] = spec["serviceAccount"] = DEFAULT_SERVICE_ACCOUNT
    account = _service_account(admission, pod)
    if _should_automount(account, spec):
        _mount_token(spec)
    if not spec.get("imagePullSecrets") and account.get("imagePullSecrets"):
        # Only the names are copied (``LocalObjectReference``; an empty one is omitted).
        spec["imagePullSecrets"] = [{"name": ref["name"]} if ref.get("name") else {}
                                    for ref in account["imagePullSecrets"]]
    validate(admission, pod, old, subresource)


@validating("", "Pod", plugin=PLUGIN)
def validate(admission: Admission, pod: Json, old: Json | None, subresource: str | None) -> None:
    """kube's ``Validate``: on create, mirror pods' references and the mountable secrets of
    accounts that enforce them; on an update of ephemeral containers, theirs."""
    if _ignored(subresource):
        return
    spec = pod.get("spec") or {}
    if old is not None and subresource == "ephemeralcontainers":
        _limit_ephemeral_container_secrets(admission, pod)
        return
    if old is not None:
        return
    if _is_mirror(pod):
        _check_mirror_pod(pod)
        return
    account = _service_account(admission, pod)
    if _enforces_mountable_secrets(account):
        message = _unmountable_secret(account, spec)
        if message:
            raise _refuse(pod, message)


def _should_automount(account: Json, spec: Json) -> bool:
    """The pod's ``automountServiceAccountToken``, else the account's, else true."""
    for choice in (spec.get("automountServiceAccountToken"), account.get("automountServiceAccountToken")):
        if choice is not None:
            return bool(choice)
    return True


def _token_volume(name: str) -> Json:
    """``TokenVolumeSource``, as the conversion to v1 stores it (fields in Go's order)."""
    return {"name": name, "projected": {
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [
                {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        ],
        "defaultMode": DEFAULT_MODE,
    }}


def _mount_token(spec: Json) -> None:
    """``mountServiceAccountToken``: a volume already named ``kube-api-access-*`` is reused;
    containers with something mounted at the token's path are left alone."""
    volumes = spec.get("volumes") or []
    existing = next((volume.get("name") for volume in volumes
                     if (volume.get("name") or "").startswith(VOLUME_PREFIX)), None)
    volume_name = existing or generate_name(VOLUME_PREFIX)
    needs_volume = False
    for containers in ("initContainers", "containers"):
        for container in spec.get(containers) or ():
            mounts = container.get("volumeMounts") or []
            if any(mount.get("mountPath") == TOKEN_MOUNT_PATH for mount in mounts):
                continue
            container["volumeMounts"] = [*mounts, {"name": volume_name, "readOnly": True,
                                                   "mountPath": TOKEN_MOUNT_PATH}]
            needs_volume = True
    if existing is None and needs_volume:
        spec["volumes"] = [*volumes, _token_volume(volume_name)]


def _enforces_mountable_secrets(account: Json) -> bool:
    """The account's annotation, read as Go's ``strconv.ParseBool`` (anything else is false)."""
    value = ((account.get("metadata") or {}).get("annotations") or {}).get(ENFORCE_MOUNTABLE_SECRETS)
    return value in ("1", "t", "T", "TRUE", "true", "True")


def _secret_env_references(containers: list[Json], what: str, account_name: str,
                           mountable: set[str]) -> Iterator[str]:
    """The refusal of each env var and envFrom of ``containers`` naming a secret the account
    does not list."""
    for container in containers:
        for env in container.get("env") or ():
            secret = ((env.get("valueFrom") or {}).get("secretKeyRef"))
            if secret is not None and (secret.get("name") or "") not in mountable:
                yield (f"{what} {container.get('name') or ''} with envVar {env.get('name') or ''} referencing "
                       f'secret.secretName="{secret.get("name") or ""}" is not allowed because service account '
                       f"{account_name} does not reference that secret")
        for source in container.get("envFrom") or ():
            secret = source.get("secretRef")
            if secret is not None and (secret.get("name") or "") not in mountable:
                yield (f"{what} {container.get('name') or ''} with envFrom referencing "
                       f'secret.secretName="{secret.get("name") or ""}" is not allowed because service account '
                       f"{account_name} does not reference that secret")


def _mountable(account: Json) -> set[str]:
    return {ref.get("name") or "" for ref in account.get("secrets") or ()}


def _unmountable_secret(account: Json, spec: Json) -> str | None:
    """``limitSecretReferences``: the first secret volume, init container's or container's env,
    or image pull secret the account does not list, as kube words it; None if there is none."""
    name = (account.get("metadata") or {}).get("name") or ""
    mountable = _mountable(account)
    for volume in spec.get("volumes") or ():
        secret = volume.get("secret")
        if secret is not None and (secret.get("secretName") or "") not in mountable:
            return (f'volume with secret.secretName="{secret.get("secretName") or ""}" is not allowed because '
                    f"service account {name} does not reference that secret")
    for what, containers in (("init container", "initContainers"), ("container", "containers")):
        for message in _secret_env_references(spec.get(containers) or [], what, name, mountable):
            return message
    pull_secrets = {ref.get("name") or "" for ref in account.get("imagePullSecrets") or ()}
    for index, ref in enumerate(spec.get("imagePullSecrets") or ()):
        if (ref.get("name") or "") not in pull_secrets:
            return (f'imagePullSecrets[{index}].name="{ref.get("name") or ""}" is not allowed because service '
                    f"account {name} does not reference that imagePullSecret")
    return None


def _limit_ephemeral_container_secrets(admission: Admission, pod: Json) -> None:
    """``limitEphemeralContainerSecretReferences``: kube returns its refusal as a plain error,
    not a Status, which the apiserver answers 500 with no reason."""
    spec = pod.get("spec") or {}
    account = _service_account(admission, pod)
    if not _enforces_mountable_secrets(account):
        return
    name = (account.get("metadata") or {}).get("name") or ""
    for message in _secret_env_references(spec.get("ephemeralContainers") or [], "ephemeral container", name,
                                          _mountable(account)):
        raise unclassified_error(message)


#: The volume sources that name a secret (``VisitPodSecretNames``), and their field naming it
#: (None: the source always names one).
_SECRET_VOLUME_REFERENCES: dict[str, str | None] = {
    "azureFile": None, "secret": None, "cephfs": "secretRef", "cinder": "secretRef", "flexVolume": "secretRef",
    "rbd": "secretRef", "scaleIO": "secretRef", "iscsi": "secretRef", "storageos": "secretRef",
    "csi": "nodePublishSecretRef"}


def _references_secrets(spec: Json) -> bool:
    """``VisitPodSecretNames`` over every container: whether the pod names any secret."""
    if spec.get("imagePullSecrets"):
        return True
    for containers in ("initContainers", "containers", "ephemeralContainers"):
        for container in spec.get(containers) or ():
            if any(source.get("secretRef") is not None for source in container.get("envFrom") or ()):
                return True
            if any((env.get("valueFrom") or {}).get("secretKeyRef") is not None for env in container.get("env") or ()):
                return True
    for volume in spec.get("volumes") or ():
        for source, field in _SECRET_VOLUME_REFERENCES.items():
            if volume.get(source) is not None and (field is None or volume[source].get(field) is not None):
                return True
        projected = volume.get("projected")
        if projected is not None and any(p.get("secret") is not None for p in projected.get("sources") or ()):
            return True
    return False


def _check_mirror_pod(pod: Json) -> None:
    spec = pod.get("spec") or {}
    if spec.get("serviceAccountName"):
        raise _refuse(pod, "a mirror pod may not reference service accounts")
    if _references_secrets(spec):
        raise _refuse(pod, "a mirror pod may not reference secrets")
    for volume in spec.get("volumes") or ():
        projected = volume.get("projected")
        if projected is not None and any(p.get("serviceAccountToken") is not None
                                         for p in projected.get("sources") or ()):
            raise _refuse(pod, "a mirror pod may not use ServiceAccountToken volume projections")
