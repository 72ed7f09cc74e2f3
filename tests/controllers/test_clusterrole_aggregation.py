"""The ClusterRole aggregation controller over a registry, as kube-controller-manager's
``clusterrole-aggregation`` (``pkg/controller/clusterroleaggregation``): an aggregated
ClusterRole's rules are the rules of every other ClusterRole its selectors match, selector by
selector, members by name, each rule once (absent and empty fields alike), applied with force
by its field manager; they follow every member's create, change and delete, replace rules
written by hand, and an unchanged result writes nothing. The bootstrap ``view``, ``edit`` and
``admin`` are aggregated at start, each containing the one before."""

from __future__ import annotations

from typing import Any

from controller_harness import Json, create, read, resource, run, settle, until

from fakeapi.controllers.clusterrole_aggregation import MANAGER, ClusterRoleAggregation
from fakeapi.registry.registry import Registry

RBAC = "rbac.authorization.k8s.io"
TO_MONITORING = {"example.com/aggregate-to-monitoring": "true"}
TO_EXTRA = {"example.com/aggregate-to-extra": "true"}
READ_PODS = {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}
READ_NODES = {"verbs": ["get"], "apiGroups": [""], "resources": ["nodes"]}
METRICS = {"verbs": ["get"], "nonResourceURLs": ["/metrics"]}


def cluster_role(registry: Registry, name: str, rules: list[Json] | None = None, labels: dict[str, str] | None = None,
                 **fields: Any) -> None:
    meta: Json = {"name": name, **({"labels": labels} if labels else {})}
    create(registry, "clusterroles", {"apiVersion": f"{RBAC}/v1", "kind": "ClusterRole", "metadata": meta,
                                      **({"rules": rules} if rules is not None else {}), **fields},
           namespace=None, group=RBAC)


def aggregated(registry: Registry, name: str, *selectors: dict[str, str], rules: list[Json] | None = None) -> None:
    cluster_role(registry, name, rules, aggregationRule={"clusterRoleSelectors": [
        {"matchLabels": labels} for labels in selectors]})


def stored(registry: Registry, name: str) -> Json:
    role = read(registry, "clusterroles", name, namespace=None, group=RBAC)
    assert role is not None, f"no ClusterRole {name}"
    return role


def rules(registry: Registry, name: str) -> list[Json]:
    return stored(registry, name).get("rules") or []


def change(registry: Registry, name: str, **fields: Any) -> None:
    resource(registry, "clusterroles", RBAC).rewrite(None, name, lambda role: {**role, **fields})


def test_the_rules_of_the_members_by_name_each_rule_once() -> None:
    async def scenario(registry: Registry) -> None:
        aggregated(registry, "monitoring", TO_MONITORING)
        cluster_role(registry, "b-member", [READ_NODES, READ_PODS], TO_MONITORING)
        # The same rule with an empty list where b-member's has none.
        cluster_role(registry, "a-member", [{**READ_PODS, "resourceNames": []}, METRICS], TO_MONITORING)
        cluster_role(registry, "not-a-member", [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}])
        await until(lambda: rules(registry, "monitoring") == [READ_PODS, METRICS, READ_NODES], "the members' rules")
        managers = [entry["manager"] for entry in stored(registry, "monitoring")["metadata"]["managedFields"]]
        assert MANAGER in managers

    run(scenario, ClusterRoleAggregation)


def test_selectors_are_taken_in_order_and_a_role_is_not_its_own_member() -> None:
    async def scenario(registry: Registry) -> None:
        cluster_role(registry, "extra", [METRICS], TO_EXTRA)
        cluster_role(registry, "pods", [READ_PODS], TO_MONITORING)
        cluster_role(registry, "self-labelled", [METRICS], TO_MONITORING,
                     aggregationRule={"clusterRoleSelectors": [{"matchLabels": TO_MONITORING}]})
        aggregated(registry, "both", TO_EXTRA, TO_MONITORING)
        await until(lambda: rules(registry, "both") == [METRICS, READ_PODS], "both selectors' members")
        await until(lambda: rules(registry, "self-labelled") == [READ_PODS], "the other members only")

    run(scenario, ClusterRoleAggregation)


def test_the_rules_follow_their_members() -> None:
    async def scenario(registry: Registry) -> None:
        aggregated(registry, "monitoring", TO_MONITORING)
        cluster_role(registry, "pods", [READ_PODS], TO_MONITORING)
        await until(lambda: rules(registry, "monitoring") == [READ_PODS], "the first member")
        cluster_role(registry, "nodes", [READ_NODES], TO_MONITORING)
        await until(lambda: rules(registry, "monitoring") == [READ_NODES, READ_PODS], "a new member")
        change(registry, "nodes", rules=[METRICS])
        await until(lambda: rules(registry, "monitoring") == [METRICS, READ_PODS], "a member's new rules")
        change(registry, "pods", metadata={**stored(registry, "pods")["metadata"], "labels": {}})
        await until(lambda: rules(registry, "monitoring") == [METRICS], "a member no longer selected")
        resource(registry, "clusterroles", RBAC).delete(None, "nodes")
        await until(lambda: rules(registry, "monitoring") == [], "the last member deleted")

    run(scenario, ClusterRoleAggregation)


def test_rules_written_by_hand_are_replaced_and_an_unchanged_result_writes_nothing() -> None:
    async def scenario(registry: Registry) -> None:
        cluster_role(registry, "pods", [READ_PODS], TO_MONITORING)
        aggregated(registry, "monitoring", TO_MONITORING, rules=[METRICS])
        await until(lambda: rules(registry, "monitoring") == [READ_PODS], "the members' rules only")
        version = stored(registry, "monitoring")["metadata"]["resourceVersion"]
        cluster_role(registry, "unrelated", [READ_NODES])  # every aggregated role is looked at again
        change(registry, "pods", metadata={**stored(registry, "pods")["metadata"], "annotations": {"a": "b"}})
        await settle()
        assert stored(registry, "monitoring")["metadata"]["resourceVersion"] == version

    run(scenario, ClusterRoleAggregation)


def test_the_bootstrap_roles_are_aggregated_at_start() -> None:
    async def scenario(registry: Registry) -> None:
        def rule_set(name: str) -> set[str]:
            return {repr(sorted(rule.items())) for rule in rules(registry, name)}

        await until(lambda: rule_set("admin") and rule_set("edit") and rule_set("view"), "admin, edit and view")
        await settle()
        assert rule_set("view") < rule_set("edit") < rule_set("admin")
        assert rule_set("system:aggregate-to-view") <= rule_set("view")

    run(scenario, ClusterRoleAggregation)
