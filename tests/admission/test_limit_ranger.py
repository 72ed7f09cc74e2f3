"""LimitRanger as kube's ``plugin/pkg/admission/limitranger``, for each LimitRange of the
object's namespace. On a pod's create: its containers and init containers get the ``default``
limits and ``defaultRequest`` requests of ``Container`` items they lack, noted in the
``kubernetes.io/limit-ranger`` annotation (mutating); then each container and the pod as a whole
must fit the ``min``, ``max`` and ``maxLimitRequestRatio`` of ``Container`` and ``Pod`` items
(validating, 403 with every violation). A claim's storage request must fit the
``PersistentVolumeClaim`` items on create and update, unless the claim is being deleted. Pod
updates and subresources are not looked at (a pod's resources cannot change there)."""

from __future__ import annotations

from typing import Any

import pytest
from admission_objects import Json, Objects, new, pod

from fakeapi.admission.limit_ranger import limit_ranger_claim_limits, limit_ranger_defaults, limit_ranger_pod_limits
from fakeapi.machinery.status import StatusError

ANNOTATION = "kubernetes.io/limit-ranger"


def limit_range(name: str, *items: Json, namespace: str = "ns") -> Json:
    return new("v1", "LimitRange", name, namespace, spec={"limits": list(items)})


def container(name: str, requests: Json | None = None, limits: Json | None = None) -> Json:
    resources = {key: value for key, value in (("requests", requests), ("limits", limits)) if value is not None}
    return {"name": name, "image": "nginx", **({"resources": resources} if resources else {})}


def defaulted(objects: Objects, obj: Json, old: Json | None = None, subresource: str | None = None) -> Json:
    limit_ranger_defaults(objects.admission, obj, old, subresource)
    return obj


def violations(objects: Objects, obj: Json, old: Json | None = None, subresource: str | None = None) -> str | None:
    """The 403's message of the pod's or claim's LimitRange check, or None if it fits."""
    check = limit_ranger_pod_limits if obj["kind"] == "Pod" else limit_ranger_claim_limits
    try:
        check(objects.admission, obj, old, subresource)
    except StatusError as err:
        assert err.code == 403
        return err.message
    return None


# ----------------------------------------------------------------- defaults


def test_missing_container_resources_are_defaulted_and_noted(objects: Objects) -> None:
    objects.add(limit_range("defaults", {"type": "Container", "default": {"cpu": "500m", "memory": "128Mi"},
                                         "defaultRequest": {"cpu": "100m"}}))
    web = defaulted(objects, pod("web", containers=[container("app"), container("own", limits={"cpu": "1"})],
                                 initContainers=[container("setup", requests={"cpu": "50m"})]))
    assert [c["resources"] for c in web["spec"]["containers"]] == [
        {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "100m"}},
        {"limits": {"cpu": "1", "memory": "128Mi"}, "requests": {"cpu": "100m"}}]
    assert web["spec"]["initContainers"][0]["resources"] == {"requests": {"cpu": "50m"},
                                                             "limits": {"cpu": "500m", "memory": "128Mi"}}
    assert web["metadata"]["annotations"] == {ANNOTATION: (
        "LimitRanger plugin set: cpu request for container app; cpu, memory limit for container app; "
        "cpu request for container own; memory limit for container own; cpu, memory limit for init container setup")}


def test_each_limit_range_fills_what_the_ones_before_left(objects: Objects) -> None:
    objects.add(limit_range("a", {"type": "Container", "defaultRequest": {"cpu": "100m"}}),
                limit_range("b", {"type": "Container", "defaultRequest": {"cpu": "300m", "memory": "64Mi"}}),
                limit_range("other-namespace", {"type": "Container", "default": {"cpu": "9"}}, namespace="other"))
    web = defaulted(objects, pod("web"))
    assert web["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "100m", "memory": "64Mi"}}
    assert web["metadata"]["annotations"][ANNOTATION] == "LimitRanger plugin set: memory request for container app"


def test_nothing_defaulted_nothing_noted(objects: Objects) -> None:
    objects.add(limit_range("limits-only", {"type": "Container", "max": {"cpu": "1"}},
                            {"type": "Pod", "max": {"cpu": "2"}}),
                limit_range("covered", {"type": "Container", "default": {"cpu": "1"}}))
    given = pod("web", metadata={"annotations": {"team": "a"}}, containers=[container("app", limits={"cpu": "2"})])
    assert defaulted(objects, given) == pod("web", metadata={"annotations": {"team": "a"}},
                                           containers=[container("app", limits={"cpu": "2"})])


def test_updates_and_subresources_are_not_defaulted(objects: Objects) -> None:
    objects.add(limit_range("defaults", {"type": "Container", "default": {"cpu": "1"}}))
    assert defaulted(objects, pod("web"), old=pod("web")) == pod("web")
    assert defaulted(objects, pod("web"), subresource="status") == pod("web")


# ----------------------------------------------------------------- pod limits


@pytest.mark.parametrize(("item", "resources", "message"), [
    ({"max": {"cpu": "1"}}, {"limits": {"cpu": "2"}}, "maximum cpu usage per Container is 1, but limit is 2"),
    ({"max": {"cpu": "1"}}, {"requests": {"cpu": "1500m"}, "limits": {"cpu": "1"}},
     "maximum cpu usage per Container is 1, but request is 1500m"),
    ({"max": {"cpu": "1"}}, {"requests": {"cpu": "1"}}, "maximum cpu usage per Container is 1.  No limit is specified"),
    ({"min": {"memory": "64Mi"}}, {"requests": {"memory": "32Mi"}},
     "minimum memory usage per Container is 64Mi, but request is 32Mi"),
    ({"min": {"memory": "64Mi"}}, {"requests": {"memory": "64Mi"}, "limits": {"memory": "100M"}}, None),
    ({"min": {"memory": "64Mi"}}, {}, "minimum memory usage per Container is 64Mi.  No request is specified"),
    ({"maxLimitRequestRatio": {"memory": "2"}}, {"requests": {"memory": "100Mi"}, "limits": {"memory": "300Mi"}},
     "memory max limit to request ratio per Container is 2, but provided ratio is 3.000000"),
    ({"maxLimitRequestRatio": {"memory": "2"}}, {"requests": {"memory": "100Mi"}, "limits": {"memory": "200Mi"}},
     None),
    ({"maxLimitRequestRatio": {"cpu": "1500m"}}, {"requests": {"cpu": "300m"}, "limits": {"cpu": "500m"}},
     "cpu max limit to request ratio per Container is 1500m, but provided ratio is 1.666667"),
    ({"maxLimitRequestRatio": {"cpu": "2"}}, {"limits": {"cpu": "1"}},
     "cpu max limit to request ratio per Container is 2, but no request is specified or request is 0"),
    ({"maxLimitRequestRatio": {"cpu": "2"}}, {"requests": {"cpu": "1"}, "limits": {"cpu": "0"}},
     "cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0"),
], ids=["max-limit", "max-request", "max-no-limit", "min-request", "min-fits", "min-no-request", "ratio", "ratio-fits",
        "ratio-milli", "ratio-no-request", "ratio-zero-limit"])
def test_a_container_must_fit_every_container_item(objects: Objects, item: Json, resources: Json,
                                                   message: str | None) -> None:
    objects.add(limit_range("limits", {"type": "Container", **item}))
    web = pod("web", containers=[{"name": "app", "image": "nginx", "resources": resources}])
    assert violations(objects, web) == (None if message is None else f'pods "web" is forbidden: {message}')


def test_init_containers_are_checked_too(objects: Objects) -> None:
    objects.add(limit_range("limits", {"type": "Container", "max": {"cpu": "1"}}))
    web = pod("web", containers=[container("app", limits={"cpu": "1"})],
              initContainers=[container("setup", limits={"cpu": "3"})])
    assert violations(objects, web) == 'pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 3'


def test_the_pod_item_takes_the_containers_together(objects: Objects) -> None:
    objects.add(limit_range("limits", {"type": "Pod", "max": {"cpu": "1"}, "min": {"memory": "100Mi"}}))
    web = pod("web", containers=[container("a", {"cpu": "400m", "memory": "60Mi"}, {"cpu": "600m"}),
                                 container("b", {"cpu": "400m", "memory": "60Mi"}, {"cpu": "600m"})])
    assert violations(objects, web) == 'pods "web" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m'
    fits = pod("web", containers=[container("a", {"cpu": "400m", "memory": "60Mi"}, {"cpu": "500m"}),
                                  container("b", {"cpu": "400m", "memory": "60Mi"}, {"cpu": "500m"})])
    assert violations(objects, fits) is None


def test_every_violation_is_named_at_once(objects: Objects) -> None:
    objects.add(limit_range("limits", {"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "100m"}}))
    web = pod("web", containers=[container("big", {"cpu": "2"}, {"cpu": "2"}), container("small", {"cpu": "10m"})])
    assert violations(objects, web) == (
        'pods "web" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, '
        'minimum cpu usage per Container is 100m, but request is 10m, '
        'maximum cpu usage per Container is 1.  No limit is specified]')


def test_pod_updates_and_subresources_are_not_checked(objects: Objects) -> None:
    objects.add(limit_range("limits", {"type": "Container", "max": {"cpu": "1"}}))
    too_big = pod("web", containers=[container("app", limits={"cpu": "2"})])
    assert violations(objects, too_big, old=too_big) is None
    assert violations(objects, too_big, subresource="resize") is None


# ----------------------------------------------------------------- claims


def claim(storage: str | None, deleting: bool = False, **resources: Any) -> Json:
    requests = {"storage": storage} if storage is not None else {}
    meta = {"deletionTimestamp": "2026-01-01T00:00:00Z"} if deleting else {}
    return new("v1", "PersistentVolumeClaim", "data", metadata=meta,
               spec={"accessModes": ["ReadWriteOnce"], "resources": {"requests": requests, **resources}})


@pytest.mark.parametrize(("storage", "message"), [
    ("500Mi", "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi"),
    ("10Gi", "maximum storage usage per PersistentVolumeClaim is 5Gi, but request is 10Gi"),
    (None, "[minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, "
           "maximum storage usage per PersistentVolumeClaim is 5Gi.  No request is specified]"),
    ("5Gi", None),
])
def test_a_claims_storage_request_must_fit(objects: Objects, storage: str | None, message: str | None) -> None:
    objects.add(limit_range("storage", {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"},
                                        "max": {"storage": "5Gi"}}, {"type": "Container", "max": {"storage": "1"}}))
    expected = None if message is None else f'persistentvolumeclaims "data" is forbidden: {message}'
    assert violations(objects, claim(storage)) == expected
    assert violations(objects, claim(storage), old=claim("1Gi")) == expected  # a resize is checked too


def test_a_claims_limits_do_not_count(objects: Objects) -> None:
    objects.add(limit_range("storage", {"type": "PersistentVolumeClaim", "max": {"storage": "5Gi"}}))
    assert violations(objects, claim("1Gi", limits={"storage": "50Gi"})) is None


def test_a_claim_being_deleted_and_subresources_are_not_checked(objects: Objects) -> None:
    objects.add(limit_range("storage", {"type": "PersistentVolumeClaim", "max": {"storage": "5Gi"}}))
    assert violations(objects, claim("10Gi", deleting=True), old=claim("10Gi", deleting=True)) is None
    assert violations(objects, claim("10Gi"), subresource="status") is None
