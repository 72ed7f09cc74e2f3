"""PodSecurity (kube's ``plugin/pkg/admission/security/podsecurity`` over
``k8s.io/pod-security-admission/admission``), with kube-apiserver's default configuration: every
mode defaults to ``privileged:latest`` and nothing is exempt (no namespace, user or RuntimeClass;
kube-system included). A namespace chooses its policy with labels:
``pod-security.kubernetes.io/<mode>`` (a level) and ``.../<mode>-version`` (``latest`` or
``v1.N``), for the modes ``enforce``, ``warn`` and ``audit``.

- Pods (create, and an update that changes what the policy reads: an image, or the containers
  or ephemeral containers added; subresources too, but not the ones that cannot change the spec,
  such as ``status`` and ``binding``): the ``enforce`` policy refuses (403), else the ``warn``
  policy adds a ``would violate PodSecurity`` warning.
- Pod templates (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
  ReplicationController, PodTemplate; not their subresources): ``warn`` only; never refused.
- Namespaces: labels that do not parse are refused (422) on create, and on an update that changes
  them; an update that tightens ``enforce`` warns about the existing pods the new level refuses.

``audit`` only adds annotations to audit events, which fakeapi does not write: nothing of it
reaches a client, so it is not evaluated here. A namespace without PodSecurity labels costs the
lookup of the namespace and a scan of its label keys."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..machinery import warning
from ..machinery.golang import go_quote
from ..machinery.status import FieldError, forbidden, invalid, invalid_error
from . import Admission, Json, validating
from .pod_security_policy import BASELINE, NEWEST_MINOR, RESTRICTED, Violation, violations

PRIVILEGED = "privileged"
LATEST = "latest"
LABEL_PREFIX = "pod-security.kubernetes.io/"
_LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)
_VERSION = re.compile(r"v1\.([0-9]|[1-9][0-9]*)")
_MAX_INT64 = 2**63 - 1
#: Pod subresources whose writes cannot change what the policy reads (``ignoredPodSubresources``).
_IGNORED_POD_SUBRESOURCES = frozenset({"exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"})
#: kube checks at most this many pods when a namespace's enforce level tightens.
NAMESPACE_MAX_PODS_TO_CHECK = 3000


@dataclass(frozen=True)
class LevelVersion:
    """A mode's level at a policy version (``"latest"`` or ``"v1.N"``, as the label spells it)."""
    level: str
    version: str = LATEST

    def __str__(self) -> str:
        return f"{self.level}:{self.version}"

    def violations(self, meta: Json, spec: Json) -> list[Violation]:
        """The checks a pod fails at this level (none at privileged)."""
        if self.level == PRIVILEGED:
            return []
        minor = NEWEST_MINOR if self.version == LATEST else int(self.version[len("v1."):])
        return violations(self.level, minor, meta, spec)


_DEFAULT = LevelVersion(PRIVILEGED)


@dataclass(frozen=True)
class Policy:
    enforce: LevelVersion = _DEFAULT
    audit: LevelVersion = _DEFAULT
    warn: LevelVersion = _DEFAULT


def _level_rank(level: str) -> int:
    return _LEVELS.index(level)


def _parse_version(text: str) -> str | None:
    """``ParseVersion``: the version, or None when it is neither latest nor v1.N (in int64)."""
    if text == LATEST:
        return text
    match = _VERSION.fullmatch(text)
    return text if match and int(match.group(1)) <= _MAX_INT64 else None


def policy_of(labels: dict[str, str]) -> tuple[Policy, list[FieldError]]:
    """``PolicyToEvaluate`` over the defaults: the namespace's policy and its labels' errors, in
    kube's order. A level that does not parse is restricted for enforce (fail closed) and
    privileged for audit and warn (fail open); a version that does not parse is latest. Without
    its own warn label, warn is at least the enforce level (and its version)."""
    errors: list[FieldError] = []
    modes: dict[str, LevelVersion] = {}
    for mode, fallback_level in (("enforce", RESTRICTED), ("audit", PRIVILEGED), ("warn", PRIVILEGED)):
        level = labels.get(LABEL_PREFIX + mode)
        version = labels.get(f"{LABEL_PREFIX}{mode}-version")
        parsed_level = PRIVILEGED if level is None else level if level in _LEVELS else fallback_level
        parsed_version = LATEST if version is None else _parse_version(version)
        if level is not None and level not in _LEVELS:
            errors.append(invalid_error(f"metadata.labels[{LABEL_PREFIX}{mode}]", level,
                                        "must be one of " + ", ".join(_LEVELS)))
        if parsed_version is None:
            errors.append(invalid_error(f"metadata.labels[{LABEL_PREFIX}{mode}-version]", version,
                                        'must be "latest" or "v1.x"'))
        modes[mode] = LevelVersion(parsed_level, parsed_version or LATEST)
    enforce, warn = modes["enforce"], modes["warn"]
    enforce_level = labels.get(LABEL_PREFIX + "enforce")
    if (LABEL_PREFIX + "warn" not in labels and enforce_level in _LEVELS
            and _level_rank(enforce.level) > _level_rank(warn.level)):
        own_version = LABEL_PREFIX + "warn-version" in labels
        modes["warn"] = LevelVersion(enforce.level, warn.version if own_version else enforce.version)
    return Policy(**modes), errors


def _labels(obj: Json) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _has_policy_labels(labels: Iterable[str]) -> bool:
    return any(key.startswith(LABEL_PREFIX) for key in labels)


def _namespace_policy(admission: Admission, obj: Json) -> tuple[Policy, list[FieldError]] | None:
    """The policy of the object's namespace, or None when it has no PodSecurity labels (the
    defaults: privileged everywhere, nothing to evaluate)."""
    namespace = admission.lookup("", "Namespace", None, (obj.get("metadata") or {}).get("namespace") or "")
    labels = _labels(namespace) if namespace is not None else {}
    return policy_of(labels) if _has_policy_labels(labels) else None


def _detail(found: list[Violation]) -> str:
    """``ForbiddenDetail``: each reason, with its detail in parentheses."""
    return ", ".join(f"{reason} ({detail})" if detail else reason for reason, detail in found)


def _evaluate(policy: Policy, pod: Json, meta: Json, spec: Json, enforce: bool) -> None:
    """``EvaluatePod``: refuse what the enforce policy forbids (when ``enforce``), else warn
    about what the warn policy would forbid (the enforce result reused at the same level)."""
    enforced: list[Violation] | None = None
    if enforce:
        enforced = policy.enforce.violations(meta, spec)
        if enforced:
            raise forbidden("", "pods", (pod.get("metadata") or {}).get("name") or "",
                            f"violates PodSecurity {_quote(policy.enforce)}: {_detail(enforced)}")
    found = enforced if enforced is not None and policy.warn == policy.enforce else policy.warn.violations(meta, spec)
    if found:
        warning.add(f"would violate PodSecurity {_quote(policy.warn)}: {_detail(found)}")


def _quote(level_version: LevelVersion) -> str:
    return f'"{level_version}"'  # levels and versions are plain ASCII: Go's %q adds no escapes


def _containers_changed(containers: list[Json], old_containers: list[Json]) -> bool:
    return len(containers) != len(old_containers) or any(
        new.get("image") != old.get("image") for new, old in zip(containers, old_containers, strict=True))


def _significant_update(pod: Json, old: Json) -> bool:
    """``isSignificantPodUpdate``: the containers or init containers changed in number or image,
    or an ephemeral container was added or changed its image."""
    spec, old_spec = pod.get("spec") or {}, old.get("spec") or {}
    if any(_containers_changed(spec.get(field) or [], old_spec.get(field) or [])
           for field in ("containers", "initContainers")):
        return True
    old_images = {c.get("name"): c.get("image") for c in reversed(old_spec.get("ephemeralContainers") or ())}
    return any(c.get("name") not in old_images or old_images[c.get("name")] != c.get("image")
               for c in spec.get("ephemeralContainers") or ())


@validating("", "Pod")
def pod_security_of_pod(admission: Admission, pod: Json, old: Json | None, subresource: str | None) -> None:
    """``ValidatePod``."""
    if subresource in _IGNORED_POD_SUBRESOURCES:
        return
    found = _namespace_policy(admission, pod)
    if found is None:
        return
    policy, errors = found
    if not errors and policy.enforce.level == policy.warn.level == policy.audit.level == PRIVILEGED:
        return
    if old is not None and not _significant_update(pod, old):
        return
    _evaluate(policy, pod, pod.get("metadata") or {}, pod.get("spec") or {}, enforce=True)


def _template_at(*path: str) -> Callable[[Json], Json | None]:
    def template(obj: Json) -> Json | None:
        node: Json | None = obj
        for field in path:
            node = (node or {}).get(field)
        return node
    return template


#: Where each kind with a pod template keeps it (kube's ``DefaultPodSpecExtractor``).
_TEMPLATES = {
    ("", "ReplicationController"): _template_at("spec", "template"),
    ("", "PodTemplate"): _template_at("template"),
    ("apps", "ReplicaSet"): _template_at("spec", "template"),
    ("apps", "Deployment"): _template_at("spec", "template"),
    ("apps", "StatefulSet"): _template_at("spec", "template"),
    ("apps", "DaemonSet"): _template_at("spec", "template"),
    ("batch", "Job"): _template_at("spec", "template"),
    ("batch", "CronJob"): _template_at("spec", "jobTemplate", "spec", "template"),
}


def _register_pod_controller(group: str, kind: str) -> None:
    template_of = _TEMPLATES[group, kind]

    @validating(group, kind)
    def pod_security_of_template(admission: Admission, obj: Json, old: Json | None, subresource: str | None) -> None:
        """``ValidatePodController``: warnings only, never a refusal."""
        if subresource is not None:
            return
        found = _namespace_policy(admission, obj)
        if found is None:
            return
        policy, errors = found
        if not errors and policy.warn.level == policy.audit.level == PRIVILEGED:
            return
        template = template_of(obj)
        if template is None:  # an optional template left out: nothing to evaluate
            return
        _evaluate(policy, obj, template.get("metadata") or {}, template.get("spec") or {}, enforce=False)


for _group, _kind in _TEMPLATES:
    _register_pod_controller(_group, _kind)


@validating("", "Namespace")
def pod_security_of_namespace(admission: Admission, namespace: Json, old: Json | None, subresource: str | None) -> None:
    """``ValidateNamespace``."""
    labels = _labels(namespace)
    old_labels = _labels(old) if old is not None else {}
    if subresource is not None or not (_has_policy_labels(labels) or _has_policy_labels(old_labels)):
        return
    name = namespace["metadata"].get("name") or ""
    policy, errors = policy_of(labels)
    if old is None:
        if errors:
            raise invalid("", "Namespace", name, errors)
        return
    old_policy, old_errors = policy_of(old_labels)
    if errors and errors != old_errors:  # labels that were already wrong the same way stay allowed
        raise invalid("", "Namespace", name, errors)
    new, previous = policy.enforce, old_policy.enforce
    if new == previous or new.level == PRIVILEGED or (
            new.version == previous.version and _level_rank(new.level) <= _level_rank(previous.level)):
        return
    for text in _existing_pod_warnings(admission.list("", "Pod", name), name, new):
        warning.add(text)


def _controller_uid(pod: Json) -> str | None:
    return next((ref.get("uid") for ref in (pod.get("metadata") or {}).get("ownerReferences") or ()
                 if ref.get("controller")), None)


def _existing_pod_warnings(pods: list[Json], namespace: str, enforce: LevelVersion) -> list[str]:
    """``EvaluatePodsInNamespace``: the pods the new enforce level would refuse, one line per set
    of reasons naming the lexically first such pod and how many others; one pod of each
    controller first (``prioritizePods``), at most ``NAMESPACE_MAX_PODS_TO_CHECK``."""
    first, repeats, seen = [], [], set()
    for pod in pods:
        uid = _controller_uid(pod)
        if uid is None or uid not in seen:
            first.append(pod)
            if uid is not None:
                seen.add(uid)
        else:
            repeats.append(pod)
    prioritized = first + repeats
    checked = prioritized[:NAMESPACE_MAX_PODS_TO_CHECK]
    by_reasons: dict[str, tuple[str, int]] = {}  # reasons -> (first pod name, pods)
    for pod in checked:
        found = enforce.violations(pod.get("metadata") or {}, pod.get("spec") or {})
        if found:
            reasons = ", ".join(reason for reason, _ in found)
            pod_name = (pod.get("metadata") or {}).get("name") or ""
            name, count = by_reasons.get(reasons, (pod_name, 0))
            by_reasons[reasons] = (min(name, pod_name), count + 1)
    warnings = []
    if len(checked) < len(prioritized):
        warnings.append(f"new PodSecurity enforce level only checked against the first {len(checked)} "
                        f"of {len(prioritized)} existing pods")
    if by_reasons:
        warnings.append(f"existing pods in namespace {go_quote(namespace)} violate the new PodSecurity enforce level "
                        f"{_quote(enforce)}")
    return warnings + sorted(f"{name}{_others(count)}: {reasons}" for reasons, (name, count) in by_reasons.items())


def _others(count: int) -> str:
    if count == 1:
        return ""
    return " (and 1 other pod)" if count == 2 else f" (and {count - 1} other pods)"
