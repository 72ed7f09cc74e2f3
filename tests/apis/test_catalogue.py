"""The built-in catalogue against kube-apiserver 1.35's default discovery and etcd layout."""

from __future__ import annotations

import itertools

import pytest

from fakeapi.apis.catalogue import (
    TARGET_RELEASE,
    ResourceType,
    SubresourceType,
    compare_kube_aware_versions,
    default_catalogue,
)

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
CATALOGUE = default_catalogue()


def resource(group: str, version: str, plural: str) -> ResourceType:
    found = CATALOGUE.lookup(group, version, plural)
    assert found is not None, f"{group}/{version} {plural} is not served"
    return found


@pytest.mark.parametrize(("group", "version", "plural", "kind", "namespaced", "short_names"), [
    ("", "v1", "pods", "Pod", True, ("po",)),
    ("", "v1", "events", "Event", True, ("ev",)),
    ("events.k8s.io", "v1", "events", "Event", True, ("ev",)),
    ("apps", "v1", "deployments", "Deployment", True, ("deploy",)),
    ("coordination.k8s.io", "v1", "leases", "Lease", True, ()),
    ("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False, ("crd", "crds")),
    ("", "v1", "namespaces", "Namespace", False, ("ns",)),
    ("", "v1", "nodes", "Node", False, ("no",)),
])
def test_core_resources(group: str, version: str, plural: str, kind: str, namespaced: bool,
                        short_names: tuple[str, ...]) -> None:
    resource_type = resource(group, version, plural)
    assert (resource_type.kind, resource_type.singular, resource_type.namespaced, resource_type.short_names) == (
        kind, kind.lower(), namespaced, short_names)
    assert resource_type.stored and not resource_type.virtual


def test_verbs_are_kube_verbs() -> None:
    assert resource("", "v1", "pods").verbs == ALL_VERBS
    assert resource("", "v1", "namespaces").verbs == tuple(v for v in ALL_VERBS if v != "deletecollection")
    assert resource("authorization.k8s.io", "v1", "subjectaccessreviews").verbs == ("create",)


def test_subresources() -> None:
    assert resource("", "v1", "pods").subresources["status"] == SubresourceType("Pod", "", "v1", ("get", "patch", "update"))
    assert resource("", "v1", "pods").subresources["eviction"] == SubresourceType("Eviction", "policy", "v1", ("create",))
    scale = SubresourceType("Scale", "autoscaling", "v1", ("get", "patch", "update"))
    for group, plural in (("apps", "deployments"), ("apps", "replicasets"), ("apps", "statefulsets"),
                          ("", "replicationcontrollers")):
        assert resource(group, "v1", plural).subresources["scale"] == scale
    assert resource("", "v1", "namespaces").subresources["finalize"].verbs == ("update",)
    assert set(resource("apiextensions.k8s.io", "v1", "customresourcedefinitions").subresources) == {"status"}
    assert resource("", "v1", "configmaps").subresources == {}


@pytest.mark.parametrize(("short_name", "group", "plural"), [
    ("po", "", "pods"), ("svc", "", "services"), ("deploy", "apps", "deployments"), ("cm", "", "configmaps"),
    ("ns", "", "namespaces"), ("no", "", "nodes"), ("sts", "apps", "statefulsets"), ("rs", "apps", "replicasets"),
    ("ds", "apps", "daemonsets"), ("ing", "networking.k8s.io", "ingresses"), ("pvc", "", "persistentvolumeclaims"),
    ("pv", "", "persistentvolumes"), ("sa", "", "serviceaccounts"), ("ev", "", "events"), ("ep", "", "endpoints"),
    ("cj", "batch", "cronjobs"), ("hpa", "autoscaling", "horizontalpodautoscalers"),
    ("pdb", "policy", "poddisruptionbudgets"), ("netpol", "networking.k8s.io", "networkpolicies"),
    ("crd", "apiextensions.k8s.io", "customresourcedefinitions"), ("sc", "storage.k8s.io", "storageclasses"),
    ("limits", "", "limitranges"), ("quota", "", "resourcequotas"), ("rc", "", "replicationcontrollers"),
    ("csr", "certificates.k8s.io", "certificatesigningrequests"), ("pc", "scheduling.k8s.io", "priorityclasses"),
])
def test_kubectl_short_names(short_name: str, group: str, plural: str) -> None:
    owners = {(resource_type.group, resource_type.plural) for resource_type in CATALOGUE.served()
              if short_name in resource_type.short_names}
    assert (group, plural) in owners


def test_category_all_is_kubectl_get_all() -> None:
    in_all = {(resource_type.group, resource_type.plural) for resource_type in CATALOGUE.served()
              if "all" in resource_type.categories}
    assert in_all == {
        ("", "pods"), ("", "services"), ("", "replicationcontrollers"), ("apps", "deployments"),
        ("apps", "replicasets"), ("apps", "statefulsets"), ("apps", "daemonsets"), ("batch", "jobs"),
        ("batch", "cronjobs"), ("autoscaling", "horizontalpodautoscalers"),
    }


def test_only_ga_versions_are_served() -> None:
    assert all(resource_type.version[0] == "v" and resource_type.version[1:].isdigit()
               for resource_type in CATALOGUE.served())
    groups = {g.name for g in CATALOGUE.group_versions()}
    assert not groups & {"storagemigration.k8s.io", "internal.apiserver.k8s.io", "lifecycle.k8s.io"}


def test_ga_apis_newer_than_the_target_release_are_not_served() -> None:
    assert TARGET_RELEASE == "1.35"
    # GA in lightkube-models' newer release, absent from 1.35
    assert CATALOGUE.lookup("certificates.k8s.io", "v1", "clustertrustbundles") is None
    assert CATALOGUE.lookup("admissionregistration.k8s.io", "v1", "mutatingadmissionpolicies") is None
    # GA by 1.35
    assert resource("resource.k8s.io", "v1", "resourceslices").namespaced is False
    assert resource("networking.k8s.io", "v1", "servicecidrs")


def test_preferred_versions() -> None:
    groups = CATALOGUE.group_versions()
    assert groups[0].name == "" and groups[0].versions == ("v1",)
    assert [g.name for g in groups[1:]] == sorted(g.name for g in groups[1:])
    autoscaling = next(g for g in groups if g.name == "autoscaling")
    assert autoscaling.versions == ("v2", "v1") and autoscaling.preferred_version == "v2"
    assert resource("autoscaling", "v1", "horizontalpodautoscalers").kind == "HorizontalPodAutoscaler"
    hpa = CATALOGUE.lookup_kind("autoscaling", "HorizontalPodAutoscaler")
    assert hpa is not None and hpa.version == "v2"
    assert CATALOGUE.lookup_kind("", "Nope") is None


def test_kube_aware_version_order() -> None:
    # the order CompareKubeAwareVersionStrings documents; other strings after, in reverse lexical order
    preferred_first = ["v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2", "foo1", "foo10"]
    for higher, lower in itertools.combinations(preferred_first, 2):
        assert compare_kube_aware_versions(higher, lower) > 0 > compare_kube_aware_versions(lower, higher)
    assert compare_kube_aware_versions("v1", "v1") == 0


@pytest.mark.parametrize(("group", "version", "plural", "prefix"), [
    ("", "v1", "pods", "/registry/pods/"),
    ("apps", "v1", "deployments", "/registry/deployments/"),
    ("", "v1", "nodes", "/registry/minions/"),
    ("", "v1", "services", "/registry/services/specs/"),
    ("", "v1", "endpoints", "/registry/services/endpoints/"),
    ("", "v1", "replicationcontrollers", "/registry/controllers/"),
    ("networking.k8s.io", "v1", "ingresses", "/registry/ingress/"),
    ("apiextensions.k8s.io", "v1", "customresourcedefinitions", "/registry/apiextensions.k8s.io/customresourcedefinitions/"),
    ("apiregistration.k8s.io", "v1", "apiservices", "/registry/apiregistration.k8s.io/apiservices/"),
    # one storage for a resource in all its versions and groups, as in etcd
    ("events.k8s.io", "v1", "events", "/registry/events/"),
    ("autoscaling", "v1", "horizontalpodautoscalers", "/registry/horizontalpodautoscalers/"),
    ("autoscaling", "v2", "horizontalpodautoscalers", "/registry/horizontalpodautoscalers/"),
])
def test_storage_prefixes(group: str, version: str, plural: str, prefix: str) -> None:
    assert resource(group, version, plural).storage_prefix == prefix


def test_create_only_resources_are_virtual() -> None:
    virtual = {(resource_type.group, resource_type.plural) for resource_type in CATALOGUE.served()
               if resource_type.virtual}
    assert virtual == {
        ("", "bindings"), ("authentication.k8s.io", "selfsubjectreviews"), ("authentication.k8s.io", "tokenreviews"),
        ("authorization.k8s.io", "localsubjectaccessreviews"), ("authorization.k8s.io", "selfsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectrulesreviews"), ("authorization.k8s.io", "subjectaccessreviews"),
    }
    assert all(not resource_type.stored and resource_type.storage_prefix == ""
               for resource_type in CATALOGUE.served() if resource_type.virtual)


def test_group_version_and_lookup() -> None:
    assert resource("", "v1", "pods").group_version == "v1"
    assert resource("apps", "v1", "deployments").group_version == "apps/v1"
    assert CATALOGUE.lookup("apps", "v1beta1", "deployments") is None
    assert default_catalogue() is CATALOGUE  # read once per process
