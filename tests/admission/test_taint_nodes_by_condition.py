"""TaintNodesByCondition as kube's ``plugin/pkg/admission/nodetaint``: a created Node gets the
``node.kubernetes.io/not-ready:NoSchedule`` taint after its own, unless it has one of that key
and effect (``MatchTaint``: value and time do not matter); updates and subresources are left
alone."""

from __future__ import annotations

import pytest
from admission_objects import NOTHING_STORED, Json, new

from fakeapi.admission.taint_nodes_by_condition import taint_new_node_not_ready

NOT_READY = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


def taints(*given: Json, old: Json | None = None, subresource: str | None = None) -> list[Json] | None:
    node = new("v1", "Node", "node-1", None, spec={"taints": list(given)} if given else {})
    taint_new_node_not_ready(NOTHING_STORED, node, old, subresource)
    return node["spec"].get("taints")


def test_a_new_node_is_not_ready_until_seen_ready() -> None:
    assert taints() == [NOT_READY]


def test_the_nodes_own_taints_come_first() -> None:
    own = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
    assert taints(own) == [own, NOT_READY]


@pytest.mark.parametrize("given", [
    NOT_READY,
    {"key": "node.kubernetes.io/not-ready", "value": "x", "effect": "NoSchedule", "timeAdded": "2026-01-01T00:00:00Z"},
], ids=["same", "with-value-and-time"])
def test_a_node_tainted_already_is_left_alone(given: Json) -> None:
    assert taints(given) == [given]


def test_a_not_ready_taint_of_another_effect_does_not_count() -> None:
    no_execute = {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}
    assert taints(no_execute) == [no_execute, NOT_READY]


def test_updates_and_subresources_are_left_alone() -> None:
    assert taints(old=new("v1", "Node", "node-1", None)) is None
    assert taints(subresource="status") is None
