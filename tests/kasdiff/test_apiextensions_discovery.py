"""The discovery documents of apiextensions.k8s.io on fakeapi and on the real kube-apiserver, as
the conformance spec "should include custom resource definition resources in discovery
documents" reads them: the group's entry in ``/apis``, ``/apis/apiextensions.k8s.io`` and
``/apis/apiextensions.k8s.io/v1``, compared whole."""

from __future__ import annotations

from typing import Any

from differ import Pair, check

GROUP = "apiextensions.k8s.io"


def _group_entry(answer: Any, _is_fake: bool) -> Any:
    """``/apis``' entry of the group (the other groups are other cases')."""
    return [group for group in answer.get("groups") or () if group.get("name") == GROUP]


def test_apiextensions_discovery(pair: Pair) -> None:
    start = len(pair.outcomes)
    case = "apiextensions-discovery"
    pair.send(case, "discovery", "/apis", "GET", "/apis", rewrite=_group_entry)
    pair.send(case, "discovery", "group", "GET", f"/apis/{GROUP}")
    pair.send(case, "discovery", "group version", "GET", f"/apis/{GROUP}/v1")
    check(pair, start)
