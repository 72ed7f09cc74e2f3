"""The diff kube-apiserver shows when it refuses an update that changes an immutable spec
(``ValidatePodUpdate``: ``diff.Diff(oldPod.Spec, mungedPodSpec)``; PersistentVolumeClaims alike).

kube diffs its *internal* ``core.PodSpec`` values: ``json.MarshalIndent(spec, "", " ")`` of
structs without JSON tags (so Go field names, every field, zero values and ``null`` included),
then a unified diff with 3 lines of context (go-difflib, a port of Python's ``difflib``, whose
output is the same). ``internal_layout.json.gz`` (``scripts/gen-core-internal-layout.py``) holds
the internal types' field order and where each field sits in the v1 object; this module builds
the internal JSON from the v1 spec with it.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from ...machinery.quantity import decode

Json = dict[str, Any]

#: Fields of the internal ``PodSecurityContext`` that v1 keeps on the ``PodSpec``.
_POD_SPEC_HOST_FIELDS = {"HostNetwork": "hostNetwork", "HostPID": "hostPID", "HostIPC": "hostIPC",
                         "ShareProcessNamespace": "shareProcessNamespace", "HostUsers": "hostUsers"}


@cache
def _layouts() -> dict[str, list[list[Any]]]:
    # here, with difflib in _unified_diff: loaded by the first refused update, not by a start
    import gzip
    from importlib import resources

    data = resources.files(__package__).joinpath("internal_layout.json.gz").read_bytes()
    return json.loads(gzip.decompress(data))


def _zero(kind: Any) -> Any:
    if kind == "string":
        return ""
    if kind == "bool":
        return False
    if kind in ("int", "intstr"):
        return 0
    if kind == "float":
        return 0.0
    if kind == "quantity":
        return "0"
    if isinstance(kind, str) and "." in kind:
        return _struct(kind, {}, None)
    return None  # pointers, slices, maps, time, bytes


def _value(kind: Any, value: Any) -> Any:
    """A v1 JSON value as the internal Go value marshals."""
    if value is None:
        return _zero(kind)
    if isinstance(kind, dict):
        (form, inner), = kind.items()
        if form == "ptr":
            return _value(inner, value)
        if form == "slice":
            return [_value(inner, item) for item in value]
        return {name: _value(inner, value[name]) for name in sorted(value)}
    if kind == "quantity":
        return str(decode(value))
    if isinstance(kind, str) and "." in kind:
        return _struct(kind, value, None)
    return value


def _struct(name: str, obj: Json, pod_spec: Json | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for go_name, v1_name, kind, flags in _layouts()[name]:
        if "i" in flags:  # an embedded struct: its fields sit in this object, in both forms
            out.update(_struct(kind, obj, None))
            continue
        if v1_name is None and pod_spec is not None and go_name in _POD_SPEC_HOST_FIELDS:
            value = _value(kind, pod_spec.get(_POD_SPEC_HOST_FIELDS[go_name]))
        else:
            value = _value(kind, obj.get(v1_name if v1_name is not None else go_name))
        if "o" in flags and value in (None, "", 0, False, [], {}):
            continue
        out[go_name] = value
    return out


def internal_value(type_name: str, value: Any) -> Any:
    """A v1 value (a struct, or a list of them) as the internal type ``type_name`` marshals:
    what kube prints of a bad value that is an internal struct (``Invalid value: {"Name":...}``)."""
    if isinstance(value, list):
        return [_struct(type_name, item or {}, None) for item in value]
    return None if value is None else _struct(type_name, value, None)


def internal_pod_spec(spec: Json) -> dict[str, Any]:
    """The internal ``core.PodSpec`` of a (defaulted) v1 pod spec, as Go marshals it."""
    internal = _struct("core.PodSpec", spec, None)
    # Conversion always makes a security context, holding the v1 spec's host namespace fields.
    internal["SecurityContext"] = _struct("core.PodSecurityContext", spec.get("securityContext") or {}, spec)
    return internal


def _marshal_indent(value: Any) -> str:
    """``json.MarshalIndent(v, "", " ")``: HTML characters escaped, non-ASCII kept."""
    text = json.dumps(value, indent=1, ensure_ascii=False, separators=(",", ": "))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def pod_spec_diff(old_spec: Json, new_spec: Json) -> str:
    """``diff.Diff(old, new)`` of two pod specs (v1 JSON, defaulted)."""
    return _unified_diff(internal_pod_spec(old_spec), internal_pod_spec(new_spec))


def internal_diff(type_name: str, old: Json, new: Json) -> str:
    """``diff.Diff(old, new)`` of two values of an internal type (``core.PersistentVolumeClaimSpec``)."""
    return _unified_diff(_struct(type_name, old, None), _struct(type_name, new, None))


def _unified_diff(old: Any, new: Any) -> str:
    import difflib

    old_lines = _marshal_indent(old).splitlines(keepends=True)
    new_lines = _marshal_indent(new).splitlines(keepends=True)
    for lines in (old_lines, new_lines):  # difflib.SplitLines ends the last line too
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
    diff = list(difflib.unified_diff(old_lines, new_lines, n=3))
    return "".join(diff[2:])  # go-difflib writes no ---/+++ header without file names
