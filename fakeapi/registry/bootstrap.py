"""The objects kube-apiserver creates on every cluster it starts, which controllers, admission
and tools take for granted:

* the default namespaces (``default``, ``kube-system``, ``kube-public``, ``kube-node-lease``);

* the RBAC bootstrap policy (``cluster-admin``, ``admin``, ``edit``, ``view`` with their
  aggregation rules, the ``system:*`` roles and their bindings, the Roles of ``kube-system`` and
  ``kube-public``), the PriorityClasses ``system-node-critical`` and ``system-cluster-critical``
  (the Priority admission plugin resolves them), and the API Priority and Fairness FlowSchemas and
  PriorityLevelConfigurations, the ``kubernetes`` Service in ``default`` (its target port made
  this server's), the local APIServices of the built-in group versions (kube-aggregator's
  ``autoregister``, ``automanaged: onstart``): kube-apiserver v1.35.4's own, recorded by
  ``scripts/gen-bootstrap-objects.py`` (``bootstrap_objects.json.gz``);
* the default ServiceCIDR ``kubernetes`` and the IPAddress of the ``kubernetes`` Service's
  cluster IP (the first of the range, kube's default ``10.0.0.0/24``);
* in ``kube-system``, the ConfigMaps ``extension-apiserver-authentication`` (delegated
  authentication reads it: the client CAs and the front proxy's CA and headers of a server
  serving TLS, as kube-apiserver's ``ClientCARegistrationHook`` writes them; else empty) and
  ``kube-apiserver-legacy-service-account-token-tracking``.

They are written in bulk, as stored bytes: starting a server stays cheap. Each gets a fresh uid
and the start time, as if kube-apiserver had just written it. An object that already exists (a
store restored from a snapshot) is left as it is.
"""

from __future__ import annotations

import gzip
import ipaddress
import uuid
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

import orjson

from ..machinery import metadata
from ..store import Compare, CompareResult, CompareTarget, PutRequest, Store, TxnRequest
from .rest import ResourceStore
from .served_versions import ConvertingStore

Json = dict[str, Any]

#: kube-apiserver's default ``--service-cluster-ip-range``.
SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24"
#: The manager kube-apiserver's own writers record in managedFields.
KUBE_APISERVER = "kube-apiserver"
_AUTHENTICATION_CONFIG_MAP = "extension-apiserver-authentication"
_TOKEN_TRACKING_CONFIG_MAP = "kube-apiserver-legacy-service-account-token-tracking"
#: kube-apiserver's lease endpoint reconciler (the default ``--endpoint-reconciler-type``): each
#: API server keeps an Endpoints with its address under this prefix, on a lease of this TTL
#: (``pkg/controlplane/reconcilers/lease.go``, ``DefaultEndpointReconcilerTTL``).
MASTER_LEASES_PREFIX = "/registry/masterleases/"
MASTER_LEASE_TTL_SECONDS = 15


@cache
def _recorded_json() -> bytes:
    return gzip.decompress(resources.files(__package__).joinpath("bootstrap_objects.json.gz").read_bytes())


def recorded_objects() -> list[Json]:
    """The recorded objects, parsed afresh for every server (each server fills them in)."""
    return orjson.loads(_recorded_json())


def _first_ip(cidr: str) -> str:
    return str(next(ipaddress.ip_network(cidr).hosts()))


def _managed(manager: str, operation: str, api_version: str, now: str, fields: Json, subresource: str = "") -> Json:
    """A managedFields entry."""
    entry = {"manager": manager, "operation": operation, "apiVersion": api_version, "time": now,
             "fieldsType": "FieldsV1", "fieldsV1": fields}
    return {**entry, "subresource": subresource} if subresource else entry


def _built_objects(now: str, today: str, authentication: tuple[tuple[str, str], ...]) -> list[Json]:
    """The objects whose content is this server's: its service range, its start date, its
    client and front proxy CAs (``authentication``: the ConfigMap's data, by key)."""
    cluster_ip = _first_ip(SERVICE_CLUSTER_IP_RANGE)
    return [
        {"kind": "ServiceCIDR", "apiVersion": "networking.k8s.io/v1",
         "metadata": {"name": "kubernetes", "managedFields": [
             _managed("kubernetes-service-cidr-controller", "Apply", "networking.k8s.io/v1", now, {"f:status": {
                 "f:conditions": {'k:{"type":"Ready"}': {".": {}, "f:lastTransitionTime": {}, "f:message": {},
                                                          "f:status": {}, "f:type": {}}}}}, "status"),
             _managed(KUBE_APISERVER, "Update", "networking.k8s.io/v1", now, {"f:spec": {"f:cidrs": {}}})]},
         "spec": {"cidrs": [SERVICE_CLUSTER_IP_RANGE]},
         "status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": now, "reason": "",
                                    "message": "Kubernetes default Service CIDR is ready"}]}},
        {"kind": "IPAddress", "apiVersion": "networking.k8s.io/v1",
         "metadata": {"name": cluster_ip, "labels": {"ipaddress.kubernetes.io/ip-family": "IPv4",
                                                     "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"},
                      "managedFields": [_managed(KUBE_APISERVER, "Update", "networking.k8s.io/v1", now, {
                          "f:metadata": {"f:labels": {".": {}, "f:ipaddress.kubernetes.io/ip-family": {},
                                                      "f:ipaddress.kubernetes.io/managed-by": {}}},
                          "f:spec": {"f:parentRef": {".": {}, "f:name": {}, "f:namespace": {}, "f:resource": {}}}})]},
         "spec": {"parentRef": {"resource": "services", "namespace": "default", "name": "kubernetes"}}},
        _authentication_config_map(now, authentication),
        {"kind": "ConfigMap", "apiVersion": "v1",
         "metadata": {"name": _TOKEN_TRACKING_CONFIG_MAP, "namespace": "kube-system",
                      "managedFields": [_managed(KUBE_APISERVER, "Update", "v1", now, {"f:data": {".": {}, "f:since": {}}})]},
         "data": {"since": today}},
    ]


def _authentication_config_map(now: str, authentication: tuple[tuple[str, str], ...]) -> Json:
    """``extension-apiserver-authentication``: empty without data; with it, as kube-apiserver
    writes it (an Update of every key by ``kube-apiserver``)."""
    metadata: Json = {"name": _AUTHENTICATION_CONFIG_MAP, "namespace": "kube-system"}
    if not authentication:
        return {"kind": "ConfigMap", "apiVersion": "v1", "metadata": metadata}
    fields = {"f:data": {".": {}, **{f"f:{key}": {} for key, _ in authentication}}}
    metadata["managedFields"] = [_managed(KUBE_APISERVER, "Update", "v1", now, fields)]
    return {"kind": "ConfigMap", "apiVersion": "v1", "metadata": metadata, "data": dict(authentication)}


def _stamped(obj: Json) -> Json:
    """An object with stand-ins for what each start writes: its uid, resourceVersion, creation
    and field times."""
    meta = obj["metadata"]
    meta["uid"] = _UID
    meta["creationTimestamp"] = _NOW
    for entry in meta.get("managedFields") or ():
        entry["time"] = _NOW
    for condition in (obj.get("status") or {}).get("conditions") or ():
        condition["lastTransitionTime"] = _NOW
    meta["resourceVersion"] = _RESOURCE_VERSION
    return obj


#: Stand-ins in the stored templates, filled in at every start (none occurs in the objects).
_UID, _NOW, _TODAY, _RESOURCE_VERSION = "@uid@", "@now@", "@today@", "@resourceVersion@"


@cache
def _templates(advertise_port: int, authentication: tuple[tuple[str, str], ...]
               ) -> tuple[tuple[str, str, str | None, str, bytes], ...]:
    """Every bootstrap object as (group, kind, namespace, name, its stored bytes as a ``%``
    format of the stand-ins): parsed and encoded once per process, so that a server per pytest
    test starts in milliseconds."""
    templates = []
    for obj in [*recorded_objects(), *_built_objects(_NOW, _TODAY, authentication)]:
        if obj["kind"] == "Service":
            obj["spec"]["ports"][0]["targetPort"] = advertise_port
        group, _, _version = obj["apiVersion"].rpartition("/")
        meta = obj["metadata"]
        templates.append((group, obj["kind"], meta.get("namespace"), meta["name"], _template(_stamped(obj))))
    return tuple(templates)


def _template(obj: Json) -> bytes:
    """``obj``'s stored bytes as a ``%`` format of the stand-ins."""
    template = orjson.dumps(obj).replace(b"%", b"%%")
    for stand_in in (_UID, _NOW, _TODAY, _RESOURCE_VERSION):
        template = template.replace(stand_in.encode(), b"%(" + stand_in.encode() + b")s")
    return template


#: The namespaces kube-apiserver creates (``default`` by its bootstrap controller, the others by
#: its system namespaces controller), in the order it creates them.
DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


@cache
def _namespace_templates() -> tuple[tuple[str, bytes], ...]:
    """Each default namespace as (name, stored bytes as a ``%`` format of the stand-ins): what a
    create of ``{"metadata": {"name": name}}`` stores (the namespace strategy's label and
    finalizer, its Active phase), its metadata in kube's field order."""
    templates = []
    for name in DEFAULT_NAMESPACES:
        namespace = {"kind": "Namespace", "apiVersion": "v1",
                     "metadata": {"name": name, "uid": "", "resourceVersion": "", "creationTimestamp": "",
                                  "labels": {"kubernetes.io/metadata.name": name}},
                     "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
        templates.append((name, _template(_stamped(namespace))))
    return tuple(templates)


def create_bootstrap_objects(store: Store, advertise_port: int,
                             resource_for_kind: Callable[[str, str], ResourceStore | ConvertingStore | None],
                             authentication: tuple[tuple[str, str], ...] = ()) -> None:
    """Write the default namespaces and the bootstrap objects that do not exist yet (before the
    watch caches start): ``resource_for_kind`` is the registry's (an object's key is its resource
    store's), ``advertise_port`` the ``kubernetes`` Service's target port, ``authentication`` the
    data of ``extension-apiserver-authentication`` by key. Each namespace is written at its own
    revision, as kube's controllers create them one by one; the other objects in bulk."""
    now = metadata.now_rfc3339().encode()
    stamps = {_NOW.encode(): now, _TODAY.encode(): now[:10]}
    namespaces = resource_for_kind("", "Namespace")
    assert namespaces is not None
    for name, template in _namespace_templates():
        key = namespaces.storage.key(None, name).encode()
        stamps[_UID.encode()] = str(uuid.uuid4()).encode()
        stamps[_RESOURCE_VERSION.encode()] = str(store.known_revision + 1).encode()
        # Created, never overwritten: another API server on the same etcd may have been first.
        store.txn(TxnRequest(compare=(Compare(key, CompareTarget.CREATE, CompareResult.EQUAL, 0),),
                             success=(PutRequest(key, template % stamps),)))
    # All are written at once when none exists (a new store: no reads); a batch of which some
    # exist fails its compares, and is made again of those that do not.
    missing = []
    for group, kind, namespace, name, template in _templates(advertise_port, authentication):
        served = resource_for_kind(group, kind)
        assert served is not None, f"{group} {kind} is not served"
        missing.append((served.storage.key(namespace, name).encode(), template))
    uid, resource_version = _UID.encode(), _RESOURCE_VERSION.encode()
    while missing:  # etcd's limit of operations per txn (and of compares)
        batch, missing = missing[:store.max_txn_ops], missing[store.max_txn_ops:]
        # The revision the batch will be written at (another API process may write first: see versioner).
        stamps[resource_version] = str(store.known_revision + 1).encode()
        puts = []
        for key, template in batch:
            stamps[uid] = str(uuid.uuid4()).encode()
            puts.append(PutRequest(key, template % stamps))
        # Each object is created, never overwritten: an API server starting beside this one on
        # the same etcd (or the store this one restarts on) may hold some already.
        absent = tuple(Compare(key, CompareTarget.CREATE, CompareResult.EQUAL, 0) for key, _ in batch)
        if not store.txn(TxnRequest(compare=absent, success=tuple(puts))).succeeded:
            missing = [(key, template) for key, template in batch if store.get(key) is None] + missing


def register_master_lease(store: Store, ip: str = "127.0.0.1") -> None:
    """Write this server's master lease, as a starting kube-apiserver does: an Endpoints under
    ``/registry/masterleases/<ip>`` on a 15 s lease, outside every resource's prefix (no watch
    sees it, yet the revision moves)."""
    lease = store.lease_grant(MASTER_LEASE_TTL_SECONDS).id
    endpoints = {"kind": "Endpoints", "apiVersion": "v1", "metadata": {"name": ip, "creationTimestamp": None},
                 "subsets": [{"addresses": [{"ip": ip}]}]}
    put = PutRequest((MASTER_LEASES_PREFIX + ip).encode(), orjson.dumps(endpoints), lease=lease)
    store.txn(TxnRequest(success=(put,)))
