#!/usr/bin/env python3
"""Regenerate the objects kube-apiserver creates on every cluster it starts
(``fakeapi/registry/bootstrap_objects.json.gz``), as kube-apiserver v1.35.4 itself writes them:

* the RBAC bootstrap policy (``plugin/pkg/auth/authorizer/rbac/bootstrappolicy``): the default
  ClusterRoles (``cluster-admin``, ``admin``, ``edit``, ``view`` and their aggregation rules, the
  ``system:*`` roles), ClusterRoleBindings, and the Roles and RoleBindings of ``kube-system`` and
  ``kube-public`` (the ``rbac/bootstrap-roles`` post-start hook, which runs with the RBAC
  authorizer: the script starts kube-apiserver with ``--authorization-mode=Node,RBAC``);
* the PriorityClasses ``system-node-critical`` and ``system-cluster-critical``
  (``scheduling/bootstrap-system-priority-classes``);
* the API Priority and Fairness FlowSchemas and PriorityLevelConfigurations
  (``k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap``, written by the config producer, the
  FlowSchemas' ``Dangling`` condition by the config consumer).

* the ``kubernetes`` Service in ``default`` (``kubernetes-service`` controller, with the cluster
  IP it gets, the first of the service range: the script runs kube-apiserver with fakeapi's
  range, ``10.0.0.0/24``);
* the local APIServices of the built-in group versions (kube-aggregator's ``autoregister``
  controller: ``v1.``, ``v1.apps``, ..., labelled ``kube-aggregator.kubernetes.io/automanaged:
  onstart``, with kube's group and version priorities, ``Available`` as ``Local``).

What differs per server is dropped: uid, resourceVersion, creationTimestamp and the times of
managedFields and conditions, which fakeapi fills in when it creates them; the Service's target
port is set to fakeapi's port then. The objects whose content depends on the server more (the
default ServiceCIDR, the authentication ConfigMaps) are built by ``fakeapi/registry/bootstrap.py``.

Needs the real kube-apiserver and etcd (``scripts/build-kube.sh``, warm: seconds).
Usage: ``.venv/bin/python scripts/gen-bootstrap-objects.py``.
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fakeapi.cluster.control_plane import real_apiserver  # noqa: E402

OUT = ROOT / "fakeapi" / "registry" / "bootstrap_objects.json.gz"
#: (API path of the collection, group, version, kind) of what the script records.
COLLECTIONS = (
    ("/apis/scheduling.k8s.io/v1/priorityclasses", "scheduling.k8s.io", "v1", "PriorityClass"),
    ("/apis/rbac.authorization.k8s.io/v1/clusterroles", "rbac.authorization.k8s.io", "v1", "ClusterRole"),
    ("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"),
    ("/apis/rbac.authorization.k8s.io/v1/roles", "rbac.authorization.k8s.io", "v1", "Role"),
    ("/apis/rbac.authorization.k8s.io/v1/rolebindings", "rbac.authorization.k8s.io", "v1", "RoleBinding"),
    ("/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", "flowcontrol.apiserver.k8s.io", "v1",
     "PriorityLevelConfiguration"),
    ("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", "flowcontrol.apiserver.k8s.io", "v1", "FlowSchema"),
    ("/api/v1/namespaces/default/services", "", "v1", "Service"),
    ("/apis/apiregistration.k8s.io/v1/apiservices", "apiregistration.k8s.io", "v1", "APIService"),
)
_PER_SERVER = ("uid", "resourceVersion", "creationTimestamp")


def _strip(obj: dict) -> dict:
    meta = obj["metadata"]
    for name in _PER_SERVER:
        meta.pop(name, None)
    for entry in meta.get("managedFields") or ():
        entry.pop("time", None)
    for condition in (obj.get("status") or {}).get("conditions") or ():
        condition.pop("lastTransitionTime", None)
    if "ports" in (obj.get("spec") or {}):  # the kubernetes Service
        for port in obj["spec"]["ports"]:
            port["targetPort"] = port["port"]  # the server's own port: fakeapi sets its own
    return obj


def _settled(http, paths: list[str]) -> list[dict]:
    """The collections once two reads a second apart agree (the FlowSchemas' conditions come
    from a controller that runs after the server is ready)."""
    previous = None
    for _ in range(30):
        current = [http.get(path).json() for path in paths]
        items = [[_strip(item) for item in listed["items"]] for listed in current]
        if items == previous:
            return items
        previous = items
        time.sleep(1)
    raise SystemExit("the bootstrap objects did not settle")


def main() -> None:
    with real_apiserver(Path(tempfile.mkdtemp(prefix="fakeapi-bootstrap-")), "--authorization-mode=Node,RBAC") as server:
        listed = _settled(server.http, [path for path, *_ in COLLECTIONS])
    objects = []
    for (_path, group, version, kind), items in zip(COLLECTIONS, listed, strict=True):
        api_version = f"{group}/{version}" if group else version
        for item in sorted(items, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"])):
            objects.append({"kind": kind, "apiVersion": api_version, **item})
    data = json.dumps(objects, separators=(",", ":"), sort_keys=False).encode()
    OUT.write_bytes(gzip.compress(data, mtime=0))
    print(f"{OUT.relative_to(ROOT)}: {len(objects)} objects, {len(data)} bytes of JSON")


if __name__ == "__main__":
    main()
