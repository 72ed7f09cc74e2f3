"""The ClusterRole aggregation controller (kube-controller-manager's ``clusterrole-aggregation``,
``pkg/controller/clusterroleaggregation``): a ClusterRole with an ``aggregationRule`` gets, as its
``rules``, the rules of every other ClusterRole its selectors match (by name, each rule once), by
server-side apply as the field manager ``clusterrole-aggregation-controller``. The bootstrap
policy's ``admin``, ``edit`` and ``view`` are aggregated this way: without it they grant nothing,
as on a kube-apiserver without its controller-manager.

As kube's, any change to any ClusterRole makes every aggregated one be looked at again.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import orjson

from ..cacher import DELETED, CacheEvent, CachedObject
from ..machinery.selectors import LabelSelector, label_selector_as_selector
from ..registry.registry import Registry
from .workqueue import WorkQueue

MANAGER = "clusterrole-aggregation-controller"
_RULE_FIELDS = ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")


#: A rule as ``equality.Semantic.DeepEqual`` compares it.
RuleKey = tuple[tuple[str, ...], ...]


def _rule_key(rule: dict[str, Any]) -> RuleKey:
    """A rule as ``equality.Semantic.DeepEqual`` compares it (absent and empty lists alike)."""
    return tuple(tuple(rule.get(name) or ()) for name in _RULE_FIELDS)


def _matchers(role: dict[str, Any]) -> list[LabelSelector] | None:
    """The selectors of an aggregated ClusterRole; None when one does not convert (kube's
    controller errs and retries; validation keeps such selectors out)."""
    selectors = (role.get("aggregationRule") or {}).get("clusterRoleSelectors") or ()
    try:
        return [label_selector_as_selector(selector) for selector in selectors]
    except ValueError:
        return None


class ClusterRoleAggregation:
    def __init__(self, registry: Registry) -> None:
        self.cluster_roles = registry.resources[("rbac.authorization.k8s.io", "v1", "clusterroles")].storage
        self.queue = WorkQueue(MANAGER, self._process)
        #: By ClusterRole name: the stored bytes last decoded, and their rules (``_rules_of``).
        self._rules: dict[str, tuple[bytes, list[tuple[RuleKey, dict[str, Any]]]]] = {}
        self.cluster_roles.cacher.listeners.append(self._observe)

    def start(self) -> None:
        self._enqueue_aggregated()
        self.queue.start()

    async def stop(self) -> None:
        await self.queue.stop()

    def _observe(self, event: CacheEvent) -> None:
        if event.type == DELETED:
            self._rules.pop(event.obj.name, None)
        self._enqueue_aggregated()

    def _enqueue_aggregated(self) -> None:
        """Queue every aggregated ClusterRole, each after the aggregated ones it takes rules
        from: the bootstrap's ``view`` feeds ``edit``, which feeds ``admin``; in name order
        ``admin`` and ``edit`` would be applied twice at every start."""
        aggregated = {cached.name: cached for cached in self.cluster_roles.cacher.cache.objects.values()
                      if b'"aggregationRule"' in cached.raw}
        matchers = {name: _matchers(orjson.loads(cached.raw)) or [] for name, cached in aggregated.items()}
        sources = {name: [source for source, other in aggregated.items() if source != name
                          and any(matcher.matches(other.labels) for matcher in matchers[name])]
                   for name in aggregated}
        order: dict[str, None] = {}

        def visit(name: str, path: frozenset[str]) -> None:
            if name in order or name in path:  # queued, or a cycle: its order is then any
                return
            for source in sources[name]:
                visit(source, path | {name})
            order[name] = None

        for name in aggregated:
            visit(name, frozenset())
        for name in order:
            self.queue.add(name)

    def _rules_of(self, member: CachedObject) -> list[tuple[RuleKey, dict[str, Any]]]:
        """A ClusterRole's rules, each with its key and as the aggregated role carries it (its
        non-empty fields); decoded once per version: every aggregated role that takes rules
        from it asks again whenever any ClusterRole changes."""
        known = self._rules.get(member.name)
        if known is not None and known[0] is member.raw:
            return known[1]
        rules = [(_rule_key(rule), {field: rule[field] for field in _RULE_FIELDS if rule.get(field)})
                 for rule in orjson.loads(member.raw).get("rules") or ()]
        self._rules[member.name] = (member.raw, rules)
        return rules

    def _process(self, key: Hashable) -> None:
        name = str(key)
        objects = self.cluster_roles.cacher.cache.objects
        cached = objects.get(self.cluster_roles.key(None, name))
        role = orjson.loads(cached.raw) if cached is not None else None
        if role is None or role.get("aggregationRule") is None:
            return
        matchers = _matchers(role)
        if matchers is None:
            return
        rules: list[dict[str, Any]] = []
        keys: list[RuleKey] = []
        seen: set[RuleKey] = set()
        for matcher in matchers:
            for member in sorted((c for c in objects.values() if c.name != name and matcher.matches(c.labels)),
                                 key=lambda c: c.name):
                for rule_key, rule in self._rules_of(member):
                    if rule_key not in seen:
                        seen.add(rule_key)
                        keys.append(rule_key)
                        rules.append(rule)
        if keys == [_rule_key(r) for r in role.get("rules") or ()]:
            return
        applied = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name},
                   "rules": rules}
        self.cluster_roles.apply(None, name, orjson.dumps(applied), manager=MANAGER, force=True)
