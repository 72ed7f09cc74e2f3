"""DefaultTolerationSeconds as kube's ``plugin/pkg/admission/defaulttolerationseconds``: on a
pod's create and update (not its subresources), each of the NoExecute taints ``not-ready`` and
``unreachable`` the pod does not tolerate is tolerated for 300 s, appended after the pod's own
tolerations. A toleration counts when its key is the taint's or empty (every key) and its
effect is NoExecute or empty (every effect)."""

from __future__ import annotations

import pytest
from admission_objects import NOTHING_STORED, Json, pod

from fakeapi.admission.default_toleration_seconds import default_toleration_seconds

NOT_READY = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300}
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
               "tolerationSeconds": 300}


def tolerations(*given: Json, old: Json | None = None, subresource: str | None = None) -> list[Json] | None:
    admitted = pod("web", tolerations=list(given)) if given else pod("web")
    default_toleration_seconds(NOTHING_STORED, admitted, old, subresource)
    return admitted["spec"].get("tolerations")


def test_a_pod_without_tolerations_gets_both() -> None:
    assert tolerations() == [NOT_READY, UNREACHABLE]


def test_an_update_gets_them_too() -> None:
    assert tolerations(old=pod("web")) == [NOT_READY, UNREACHABLE]


def test_the_pods_own_come_first_and_are_kept() -> None:
    own = {"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"}
    assert tolerations(own) == [own, NOT_READY, UNREACHABLE]


@pytest.mark.parametrize(("given", "added"), [
    # The pod's own period is kept; only the other taint is added.
    ({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
     [UNREACHABLE]),
    ({"key": "node.kubernetes.io/unreachable", "operator": "Exists"}, [NOT_READY]),  # any effect
    ({"operator": "Exists", "effect": "NoExecute"}, []),  # any key
    ({"operator": "Exists"}, []),  # everything
    ({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}, [NOT_READY, UNREACHABLE]),
], ids=["not-ready-60s", "unreachable-any-effect", "any-key", "everything", "another-effect"])
def test_what_the_pod_tolerates_already_is_not_added(given: Json, added: list[Json]) -> None:
    assert tolerations(given) == [given, *added]


def test_subresources_are_left_alone() -> None:
    assert tolerations(subresource="status") is None
