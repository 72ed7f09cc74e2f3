"""``--authorization-mode=RBAC``: kube's RBAC authorizer (``plugin/pkg/auth/authorizer/rbac``,
``pkg/registry/rbac/validation/rule.go``) over the watch caches of Roles, ClusterRoles,
RoleBindings and ClusterRoleBindings, as kube's reads its informers' listers.

A request is allowed when a rule of a role bound to the user (by name, by one of its groups, or
as a service account) matches it: ClusterRoleBindings everywhere, RoleBindings in their namespace
(a ClusterRole they reference then grants in that namespace only). Rules match as
``rbacv1helpers`` matches them: ``*`` verbs, groups and resources, ``*/subresource``, names
(``resourceNames``), non-resource URLs with a trailing ``*``. A binding that references a role
which does not exist is an evaluation error, reported after the 403 message (``RBAC: ...``) and in
access reviews, as kube does. Aggregated ClusterRoles carry the rules the aggregation controller
(``fakeapi.controllers.clusterrole_aggregation``) wrote into them, as in kube.

Fast path: evaluation is indexed and cached, never a scan per request.

* Bindings are indexed by subject (user name, group, service-account user name; RoleBindings per
  namespace), so finding a user's bindings is a few dict lookups.
* The rules a user has (in a namespace) are resolved once and remembered, and so is each
  decision; both are forgotten when any RBAC object changes. The index is rebuilt lazily on the
  next request after a change, re-decoding only the objects that changed (the cache keeps the
  same ``CachedObject`` for an unchanged object).

The order kube visits bindings in is its informer's (a Go map's, so random); here it is by name,
cluster-wide bindings first, so answers are reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from ..machinery.golang import go_aggregate, go_quote
from .authentication import UserInfo
from .authorization import (
    Attributes,
    Decision,
    NonResourceRule,
    ResourceRule,
    Rules,
    Verdict,
)
from .serviceaccount_tokens import make_username

if TYPE_CHECKING:
    from ..cacher import Cacher

GROUP = "rbac.authorization.k8s.io"
#: How many decisions are remembered before the memo starts over (bounds memory for servers
#: that see many distinct users or names).
DECISION_CACHE_SIZE = 65536


@dataclass(frozen=True, slots=True)
class PolicyRule:
    """``rbacv1.PolicyRule``, with sets for matching."""

    verbs: tuple[str, ...]
    api_groups: tuple[str, ...]
    resources: tuple[str, ...]
    resource_names: tuple[str, ...]
    non_resource_urls: tuple[str, ...]

    @classmethod
    def from_json(cls, rule: dict[str, Any]) -> PolicyRule:
        return cls(*(tuple(rule.get(name) or ()) for name in
                     ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")))

    def allows(self, attributes: Attributes) -> bool:
        """``RuleAllows``."""
        verbs = self.verbs
        if "*" not in verbs and attributes.verb not in verbs:
            return False
        if not attributes.resource_request:
            return _url_matches(self.non_resource_urls, attributes.path)
        if "*" not in self.api_groups and attributes.api_group not in self.api_groups:
            return False
        subresource = attributes.subresource
        combined = f"{attributes.resource}/{subresource}" if subresource else attributes.resource
        if not any(resource == "*" or resource == combined or (subresource and resource == f"*/{subresource}")
                   for resource in self.resources):
            return False
        return not self.resource_names or attributes.name in self.resource_names


def _url_matches(rule_urls: Iterable[str], path: str) -> bool:
    """``NonResourceURLMatches``."""
    for url in rule_urls:
        if url == "*" or url == path or (url.endswith("*") and path.startswith(url.rstrip("*"))):
            return True
    return False


@dataclass(frozen=True, slots=True)
class Subject:
    kind: str
    name: str
    namespace: str

    def describe(self, binding_namespace: str) -> str:
        """``describeSubject``."""
        if self.kind == "ServiceAccount":
            return f"{self.kind} {go_quote(self.name + '/' + (self.namespace or binding_namespace))}"
        return f"{self.kind} {go_quote(self.name)}"

    def index_key(self, binding_namespace: str) -> tuple[str, str] | None:
        """Where the subject index files a binding of this subject: ("user", name), ("group",
        name), or ("user", the service account's user name); None for a subject that matches
        nobody (a ServiceAccount of a ClusterRoleBinding without a namespace, an unknown kind)."""
        if self.kind == "User":
            return "user", self.name
        if self.kind == "Group":
            return "group", self.name
        if self.kind == "ServiceAccount":
            namespace = self.namespace or binding_namespace
            return ("user", make_username(namespace, self.name)) if namespace else None
        return None


@dataclass(frozen=True, slots=True)
class Binding:
    """A RoleBinding (``namespace`` set) or ClusterRoleBinding."""

    name: str
    namespace: str
    role_kind: str
    role_name: str
    subjects: tuple[Subject, ...]

    def subject_for(self, user: UserInfo) -> Subject | None:
        """``appliesTo``: the first subject that is this user."""
        for subject in self.subjects:
            key = subject.index_key(self.namespace)
            if key is not None and (user.name == key[1] if key[0] == "user" else key[1] in user.groups):
                return subject
        return None

    def describe(self, subject: Subject) -> str:
        """``clusterRoleBindingDescriber`` / ``roleBindingDescriber``."""
        if self.namespace:
            return (f"RoleBinding {go_quote(self.name + '/' + self.namespace)} of {self.role_kind} "
                    f"{go_quote(self.role_name)} to {subject.describe(self.namespace)}")
        return (f"ClusterRoleBinding {go_quote(self.name)} of {self.role_kind} {go_quote(self.role_name)} "
                f"to {subject.describe('')}")


def _binding(obj: dict[str, Any]) -> Binding:
    meta = obj.get("metadata") or {}
    ref = obj.get("roleRef") or {}
    subjects = tuple(Subject(s.get("kind", ""), s.get("name", ""), s.get("namespace", ""))
                     for s in obj.get("subjects") or ())
    return Binding(meta.get("name", ""), meta.get("namespace", ""), ref.get("kind", ""), ref.get("name", ""), subjects)


def _rules(obj: dict[str, Any]) -> tuple[PolicyRule, ...]:
    return tuple(PolicyRule.from_json(rule) for rule in obj.get("rules") or ())


#: A rule with the description of the binding that grants it (for "allowed by").
Granted = tuple[str, PolicyRule]


@dataclass(slots=True)
class _Resolved:
    """The rules a user has in one scope and the errors met resolving them."""

    rules: list[Granted]
    errors: list[str]


class _Indexed:
    """One resource's objects decoded, kept in step with its watch cache: an object is decoded
    again only when the cache holds a new ``CachedObject`` for it."""

    def __init__(self, cacher: Cacher, decode: Callable[[dict[str, Any]], Any]) -> None:
        self.cacher = cacher
        self._decode = decode
        self._seen: dict[str, tuple[object, Any]] = {}  # key -> (cached object, decoded)

    def refresh(self) -> dict[tuple[str, str], Any]:
        """(namespace, name) -> decoded object, for what the cache holds now."""
        seen: dict[str, tuple[object, Any]] = {}
        out: dict[tuple[str, str], Any] = {}
        previous = self._seen
        for key, cached in self.cacher.cache.objects.items():
            known = previous.get(key)
            decoded = known[1] if known is not None and known[0] is cached else self._decode(orjson.loads(cached.raw))
            seen[key] = (cached, decoded)
            out[(cached.namespace, cached.name)] = decoded
        self._seen = seen
        return out


class RBACAuthorizer:
    """kube's ``RBACAuthorizer`` and its ``DefaultRuleResolver`` over the four caches."""

    def __init__(self, roles: Cacher, role_bindings: Cacher, cluster_roles: Cacher,
                 cluster_role_bindings: Cacher) -> None:
        self._roles = _Indexed(roles, _rules)
        self._cluster_roles = _Indexed(cluster_roles, _rules)
        self._role_bindings = _Indexed(role_bindings, _binding)
        self._cluster_role_bindings = _Indexed(cluster_role_bindings, _binding)
        self._cachers = (roles, role_bindings, cluster_roles, cluster_role_bindings)
        for cacher in self._cachers:
            cacher.listeners.append(self._changed)
        self._dirty = True
        self._caches_seen: tuple[object, ...] = ()
        self._role_rules: dict[tuple[str, str], tuple[PolicyRule, ...]] = {}
        self._cluster_role_rules: dict[str, tuple[PolicyRule, ...]] = {}
        #: ("user"|"group", name) -> ClusterRoleBindings, by name.
        self._cluster_index: dict[tuple[str, str], list[Binding]] = {}
        #: namespace -> ("user"|"group", name) -> RoleBindings, by name.
        self._namespace_index: dict[str, dict[tuple[str, str], list[Binding]]] = {}
        self._resolved: dict[tuple[tuple[str, tuple[str, ...]], str], _Resolved] = {}
        self._decisions: dict[tuple[Any, ...], Verdict] = {}

    def _changed(self, _event: object) -> None:
        self._dirty = True

    def _current(self) -> None:
        """Rebuild the index if an RBAC object changed (an event, or a cache refilled by a relist)."""
        roles, role_bindings, cluster_roles, cluster_role_bindings = self._cachers
        seen = self._caches_seen
        if (not self._dirty and seen and roles.cache.objects is seen[0] and role_bindings.cache.objects is seen[1]
                and cluster_roles.cache.objects is seen[2] and cluster_role_bindings.cache.objects is seen[3]):
            return
        caches = tuple(cacher.cache.objects for cacher in self._cachers)
        self._dirty = False
        self._caches_seen = caches
        self._role_rules = self._roles.refresh()
        self._cluster_role_rules = {name: rules for (_, name), rules in self._cluster_roles.refresh().items()}
        cluster_index: dict[tuple[str, str], list[Binding]] = {}
        for _, binding in sorted(self._cluster_role_bindings.refresh().items()):
            _file(cluster_index, binding)
        namespace_index: dict[str, dict[tuple[str, str], list[Binding]]] = {}
        for (namespace, _), binding in sorted(self._role_bindings.refresh().items()):
            _file(namespace_index.setdefault(namespace, {}), binding)
        self._cluster_index, self._namespace_index = cluster_index, namespace_index
        self._resolved.clear()
        self._decisions.clear()

    # ------------------------------------------------------------------ rule resolution

    def _role_reference_rules(self, binding: Binding) -> tuple[tuple[PolicyRule, ...], str]:
        """``GetRoleReferenceRules``: the rules, or the error of a missing role."""
        if binding.role_kind == "Role":
            rules = self._role_rules.get((binding.namespace, binding.role_name))
            if rules is None:
                return (), f"role.{GROUP} {go_quote(binding.role_name)} not found"
            return rules, ""
        if binding.role_kind == "ClusterRole":
            rules = self._cluster_role_rules.get(binding.role_name)
            if rules is None:
                return (), f"clusterrole.{GROUP} {go_quote(binding.role_name)} not found"
            return rules, ""
        return (), f"unsupported role reference kind: {go_quote(binding.role_kind)}"

    def _resolve(self, user: UserInfo, namespace: str) -> _Resolved:
        """The rules of the bindings that apply to ``user`` in ``namespace`` ("": cluster-wide
        only), remembered until RBAC changes."""
        key = ((user.name, user.groups), namespace)
        resolved = self._resolved.get(key)
        if resolved is not None:
            return resolved
        if namespace:
            cluster = self._resolve(user, "")
            resolved = _Resolved(list(cluster.rules), list(cluster.errors))
            index = self._namespace_index.get(namespace, {})
        else:
            resolved = _Resolved([], [])
            index = self._cluster_index
        for binding in _bindings_of(index, user):
            subject = binding.subject_for(user)
            assert subject is not None  # the index found it by one of its subjects
            rules, error = self._role_reference_rules(binding)
            if error:
                resolved.errors.append(error)
                continue
            description = binding.describe(subject)
            resolved.rules.extend((description, rule) for rule in rules)
        self._resolved[key] = resolved
        return resolved

    # ------------------------------------------------------------------ the authorizer

    def authorize(self, attributes: Attributes) -> Verdict:
        """``RBACAuthorizer.Authorize``: allowed by the first rule that matches, else no opinion
        with the resolution errors as the reason."""
        self._current()
        user = attributes.user
        key = (user.name, user.groups, attributes.verb, attributes.resource_request, attributes.path,
               attributes.api_group, attributes.namespace, attributes.resource, attributes.subresource,
               attributes.name)
        verdict = self._decisions.get(key)
        if verdict is not None:
            return verdict
        resolved = self._resolve(user, attributes.namespace)
        verdict = None
        for description, rule in resolved.rules:
            if rule.allows(attributes):
                verdict = Verdict(Decision.ALLOW, f"RBAC: allowed by {description}")
                break
        if verdict is None:
            verdict = Verdict(Decision.NO_OPINION, f"RBAC: {go_aggregate(resolved.errors)}" if resolved.errors else "")
        if len(self._decisions) >= DECISION_CACHE_SIZE:
            self._decisions.clear()
        self._decisions[key] = verdict
        return verdict

    def rules_for(self, user: UserInfo, namespace: str) -> Rules:
        """``RBACAuthorizer.RulesFor``: every rule the user has in ``namespace``."""
        self._current()
        resolved = self._resolve(user, namespace)
        resource = tuple(ResourceRule(rule.verbs, rule.api_groups, rule.resources, rule.resource_names)
                         for _, rule in resolved.rules if rule.resources)
        non_resource = tuple(NonResourceRule(rule.verbs, rule.non_resource_urls)
                             for _, rule in resolved.rules if rule.non_resource_urls)
        return Rules(resource, non_resource, False, go_aggregate(resolved.errors))


def _file(index: dict[tuple[str, str], list[Binding]], binding: Binding) -> None:
    """File ``binding`` under each of its subjects (once per distinct subject)."""
    for key in dict.fromkeys(k for k in (s.index_key(binding.namespace) for s in binding.subjects) if k is not None):
        index.setdefault(key, []).append(binding)


def _bindings_of(index: dict[tuple[str, str], list[Binding]], user: UserInfo) -> list[Binding]:
    """The bindings of ``index`` that apply to ``user``, each once, by name."""
    found: dict[str, Binding] = {}
    for key in (("user", user.name), *(("group", group) for group in user.groups)):
        for binding in index.get(key, ()):
            found.setdefault(binding.name, binding)
    return [found[name] for name in sorted(found)]


# ---------------------------------------------------------------------- escalation prevention

#: ``fullAuthority``: what an aggregated ClusterRole may grant, so what its writer must hold.
FULL_AUTHORITY = (PolicyRule(("*",), ("*",), ("*",), (), ()), PolicyRule(("*",), (), (), (), ("*",)))


def _breakdown(rule: PolicyRule) -> list[PolicyRule]:
    """``BreakdownRule``: one rule per group, resource, verb (and name), and per URL and verb."""
    subrules = [PolicyRule((verb,), (group,), (resource,), (name,) if name else (), ())
                for group in rule.api_groups for resource in rule.resources for verb in rule.verbs
                for name in (rule.resource_names or ("",))]
    subrules += [PolicyRule((verb,), (), (), (), (url,)) for url in rule.non_resource_urls for verb in rule.verbs]
    return subrules


def _resources_cover(owner: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    """``resourceCoversAll``: ``*``, every resource, or ``*/subresource`` for a subresource."""
    if "*" in owner or all(r in owner for r in wanted):
        return True
    return all(r in owner or ("/" in r and "*/" + r.split("/", 1)[1] in owner) for r in wanted)


def _rule_covers(owner: PolicyRule, sub: PolicyRule) -> bool:
    """``ruleCovers``."""
    return (("*" in owner.verbs or all(v in owner.verbs for v in sub.verbs))
            and ("*" in owner.api_groups or all(g in owner.api_groups for g in sub.api_groups))
            and _resources_cover(owner.resources, sub.resources)
            and all(_url_matches(owner.non_resource_urls, url) for url in sub.non_resource_urls)
            and (not owner.resource_names if not sub.resource_names
                 else not owner.resource_names or all(n in owner.resource_names for n in sub.resource_names)))


def uncovered(owner_rules: Iterable[PolicyRule], servant_rules: Iterable[PolicyRule]) -> list[PolicyRule]:
    """``Covers``: what of ``servant_rules`` no owner rule covers (broken down)."""
    owners = list(owner_rules)
    return [sub for rule in servant_rules for sub in _breakdown(rule) if not any(_rule_covers(o, sub) for o in owners)]


def _compact(rules: list[PolicyRule]) -> list[PolicyRule]:
    """``CompactRules``: simple rules (one group, one resource, at most one name) merged by
    resource, their verbs joined."""
    compacted: list[PolicyRule] = []
    simple: dict[tuple[str, str, tuple[str, ...]], PolicyRule] = {}
    for rule in rules:
        if len(rule.resource_names) > 1 or rule.non_resource_urls or len(rule.api_groups) != 1 or len(rule.resources) != 1:
            compacted.append(rule)
            continue
        key = (rule.api_groups[0], rule.resources[0], rule.resource_names)
        known = simple.get(key)
        simple[key] = rule if known is None else PolicyRule(known.verbs + rule.verbs, known.api_groups,
                                                            known.resources, known.resource_names, ())
    return compacted + list(simple.values())


def _go_strings(values: tuple[str, ...]) -> str:
    return "[" + " ".join(go_quote(v) for v in values) + "]"


def compact_string(rule: PolicyRule) -> str:
    """``rbacv1helpers.CompactString``."""
    parts = [f"{label}:{_go_strings(values)}" for label, values in (
        ("APIGroups", rule.api_groups), ("Resources", rule.resources), ("NonResourceURLs", rule.non_resource_urls),
        ("ResourceNames", rule.resource_names), ("Verbs", rule.verbs)) if values]
    return "{" + ", ".join(parts) + "}"


def escalation_error(authorizer: RBACAuthorizer, user: UserInfo, namespace: str,
                     rules: Iterable[PolicyRule]) -> str:
    """``ConfirmNoEscalation``: "" when the user holds every rule in ``namespace``, else kube's
    message listing what it lacks."""
    authorizer._current()
    resolved = authorizer._resolve(user, namespace)
    missing = uncovered((rule for _, rule in resolved.rules), rules)
    if not missing:
        return ""
    described = sorted({compact_string(rule) for rule in _compact(missing)})
    message = (f"user {go_quote(user.name)} (groups={_go_strings(user.groups)}) is attempting to grant RBAC "
               f"permissions not currently held:\n" + "\n".join(described))
    if resolved.errors:
        message += f"; resolution errors: [{go_aggregate(resolved.errors)}]"
    return message
