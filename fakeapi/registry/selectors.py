"""Label and field selectors, parsed once per request into matchers.

Label grammar (apimachinery ``labels.Parse``): requirements joined by ``,`` (AND), each one of
``k``, ``!k``, ``k=v``, ``k==v``, ``k!=v``, ``k in (v1,v2)``, ``k notin (v1,v2)``. Field grammar
(``fields.ParseSelector``): ``f=v``, ``f==v``, ``f!=v`` joined by ``,``, with ``\\`` escaping.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .status import bad_request

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_KEY = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?" + _NAME + "$")
_VALUE = re.compile(r"^(" + _NAME + ")?$")
_TOKEN = re.compile(r"\s*(\(|\)|,|==|=|!=|!|[^\s(),=!]+)")

Requirement = Callable[[Mapping[str, str]], bool]


@dataclass(frozen=True, slots=True)
class LabelSelector:
    requirements: tuple[Requirement, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(r(labels) for r in self.requirements)


def _label_error(selector: str, detail: str) -> Exception:
    return bad_request(f"unable to parse requirement: {detail}")


def parse_label_selector(selector: str) -> LabelSelector:
    tokens = [t for t in _TOKEN.findall(selector)]
    if "".join(tokens).strip() != re.sub(r"\s+", "", selector):
        raise _label_error(selector, f"found invalid characters in '{selector}'")
    reqs: list[Requirement] = []
    i = 0
    n = len(tokens)

    def check_key(key: str) -> str:
        if not _KEY.match(key) or len(key) > 316:
            raise _label_error(selector, f"invalid label key \"{key}\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")
        return key

    def check_value(value: str) -> str:
        if not _VALUE.match(value):
            raise _label_error(selector, f"invalid label value: \"{value}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")
        return value

    while i < n:
        tok = tokens[i]
        if tok == "!":
            if i + 1 >= n:
                raise _label_error(selector, "found '', expected: identifier")
            key = check_key(tokens[i + 1])
            reqs.append(lambda labels, k=key: k not in labels)
            i += 2
        else:
            key = check_key(tok)
            i += 1
            op = tokens[i] if i < n else ","
            if op == ",":
                reqs.append(lambda labels, k=key: k in labels)
            elif op in ("=", "==", "!="):
                value = check_value(tokens[i + 1] if i + 1 < n and tokens[i + 1] != "," else "")
                i += 1 if value == "" else 2
                if op == "!=":
                    reqs.append(lambda labels, k=key, v=value: labels.get(k) != v)
                else:
                    reqs.append(lambda labels, k=key, v=value: labels.get(k) == v)
            elif op in ("in", "notin"):
                if i + 1 >= n or tokens[i + 1] != "(":
                    raise _label_error(selector, f"found '{tokens[i + 1] if i + 1 < n else ''}', expected: '('")
                i += 2
                values: set[str] = set()
                while i < n and tokens[i] != ")":
                    if tokens[i] != ",":
                        values.add(check_value(tokens[i]))
                    i += 1
                if i >= n:
                    raise _label_error(selector, "found '', expected: ')'")
                i += 1
                if op == "in":
                    reqs.append(lambda labels, k=key, vs=frozenset(values): labels.get(k) in vs)
                else:
                    reqs.append(lambda labels, k=key, vs=frozenset(values): labels.get(k) not in vs)
            else:
                raise _label_error(selector, f"found '{op}', expected: in, notin, =, ==, !=, gt, lt, or ,")
        if i < n:
            if tokens[i] != ",":
                raise _label_error(selector, f"found '{tokens[i]}', expected: ',' or 'end of string'")
            i += 1
            if i >= n:
                raise _label_error(selector, "found '', expected: !, identifier, or 'end of string'")
    return LabelSelector(tuple(reqs))


@dataclass(frozen=True, slots=True)
class FieldSelector:
    terms: tuple[tuple[str, str, bool], ...] = ()  # (field, value, equal)

    @property
    def empty(self) -> bool:
        return not self.terms

    def matches(self, fields: Mapping[str, str]) -> bool:
        return all((fields.get(f, "") == v) == eq for f, v, eq in self.terms)


def _split_unescaped(text: str, sep: str) -> list[str]:
    parts, cur, i = [], [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            cur.append(text[i : i + 2])
            i += 2
            continue
        if c == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def parse_field_selector(rt: Any, selector: str) -> FieldSelector:
    if not selector.strip():
        return FieldSelector()
    supported = supported_fields(rt)
    terms = []
    for part in _split_unescaped(selector, ","):
        for op, eq in (("!=", False), ("==", True), ("=", True)):
            idx = _find_unescaped(part, op)
            if idx >= 0:
                field, value = part[:idx].strip(), _unescape(part[idx + len(op):])
                break
        else:
            raise bad_request(f"invalid selector: '{selector}'; can't understand '{part}'")
        if field not in supported:
            raise bad_request(f'field label not supported: {field}')
        terms.append((field, value, eq))
    return FieldSelector(tuple(terms))


def _find_unescaped(text: str, op: str) -> int:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(op, i):
            return i
        i += 1
    return -1


#: Per-resource selectable fields beyond metadata.name / metadata.namespace (each registry's
#: ``GetAttrs``/``ToSelectableFields`` in kubernetes/kubernetes ``pkg/registry``).
_EXTRA_FIELDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "pods"): ("spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
                   "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP",
                   "status.nominatedNodeName"),
    ("", "events"): ("involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                     "involvedObject.uid", "involvedObject.apiVersion",
                     "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
                     "reportingComponent", "source", "type"),
    ("", "secrets"): ("type",),
    ("", "namespaces"): ("status.phase",),
    ("", "nodes"): ("spec.unschedulable",),
    ("", "replicationcontrollers"): ("status.replicas",),
    ("", "persistentvolumeclaims"): (),
    ("batch", "jobs"): ("status.successful",),
    ("certificates.k8s.io", "certificatesigningrequests"): ("spec.signerName",),
}


def supported_fields(rt: Any) -> frozenset[str]:
    extra = _EXTRA_FIELDS.get((rt.group, rt.plural), ())
    return frozenset(("metadata.name", "metadata.namespace", *extra))


def _lookup(obj: Any, path: str) -> str:
    for part in path.split("."):
        if not isinstance(obj, dict):
            return ""
        obj = obj.get(part)
    if obj is None:
        return ""
    if isinstance(obj, bool):
        return "true" if obj else "false"
    return str(obj)


def selectable_fields(rt: Any, obj: dict[str, Any]) -> dict[str, str]:
    meta = obj.get("metadata") or {}
    fields = {"metadata.name": meta.get("name", ""), "metadata.namespace": meta.get("namespace", "")}
    for path in _EXTRA_FIELDS.get((rt.group, rt.plural), ()):
        if path == "source":
            fields[path] = _lookup(obj, "reportingComponent") or _lookup(obj, "source.component")
        else:
            fields[path] = _lookup(obj, path)
    return fields
