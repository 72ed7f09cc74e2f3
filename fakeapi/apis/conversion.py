"""Conversions between the versions of a resource served over one storage prefix, as pure
functions of JSON objects (kube-apiserver converts through the internal type of the group).

* core/v1 ``Event`` <-> events.k8s.io/v1 ``Event`` (``pkg/apis/events/v1/conversion.go``, via
  the internal ``core.Event``): ``involvedObject`` <-> ``regarding``, ``message`` <-> ``note``,
  ``reportingComponent`` <-> ``reportingController``, ``source`` <-> ``deprecatedSource``,
  ``firstTimestamp``/``lastTimestamp``/``count`` <-> ``deprecated*``; the other fields keep
  their names.
* autoscaling/v2 <-> autoscaling/v1 ``HorizontalPodAutoscaler``
  (``pkg/apis/autoscaling/v1/conversion.go``): v1's ``targetCPUUtilizationPercentage`` is a
  v2 ``Resource`` metric on ``cpu`` with an ``averageUtilization`` target; every other metric,
  the current metrics, the conditions and the behavior travel through v1 in the
  ``autoscaling.alpha.kubernetes.io/*`` annotations (``annotations.go``,
  ``DropRoundTripHorizontalPodAutoscalerAnnotations``).
* custom resources, conversion strategy ``None``: only ``apiVersion`` changes.

Converted objects carry the fields the target Go type always serialises (struct fields and
fields without ``omitempty``: an event's ``regarding``, ``eventTime``), as kube's encoder writes
them; fields absent from the source and optional in the target stay absent.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

Json = dict[str, Any]
Convert = Callable[[Json], Json]
#: A conversion that calls out (a CRD's conversion webhook), awaited.
AsyncConvert = Callable[[Json], Awaitable[Json]]

CORE_EVENT = "v1"
EVENTS_V1 = "events.k8s.io/v1"
AUTOSCALING_V1 = "autoscaling/v1"
AUTOSCALING_V2 = "autoscaling/v2"


@dataclass(frozen=True, slots=True)
class Conversion:
    """From a resource's storage version to one other served version and back. A conversion
    that calls out (``served_async`` set: a CRD's conversion webhook) waits for its answer in
    ``to_served`` and ``to_storage`` with ``runtime.wait_for``: they are called where the code
    runs under ``runtime.run_awaiting`` (a request's handler, admission), and a raised
    ``StatusError`` is what the request answers."""

    to_served: Convert
    to_storage: Convert
    #: ``to_served`` awaited, for code on the event loop (a watch's events, a cache's objects).
    served_async: AsyncConvert | None = None

    @property
    def waits(self) -> bool:
        return self.served_async is not None


# ----------------------------------------------------------------------------- helpers


def _renamed(obj: Mapping[str, Any], api_version: str, renames: Mapping[str, str],
             always: Mapping[str, Any]) -> Json:
    """``obj`` at ``api_version`` with its top-level fields renamed by ``renames``, and the
    fields of ``always`` (target names) set to their zero value when absent."""
    out: Json = {}
    for key, value in obj.items():
        out[renames.get(key, key)] = copy.deepcopy(value)
    out["apiVersion"] = api_version
    for key, zero in always.items():
        if out.get(key) is None:
            out[key] = copy.deepcopy(zero)
    return out


def with_api_version(api_version: str) -> Convert:
    """A custom resource's conversion with strategy ``None``: the object with its
    ``apiVersion`` set (apiextensions-apiserver's ``nopConverter``)."""
    def convert(obj: Json) -> Json:
        out = copy.deepcopy(obj)
        out["apiVersion"] = api_version
        return out
    return convert


# ----------------------------------------------------------------------------- events

#: core/v1 field -> events.k8s.io/v1 field (``Convert_core_Event_To_v1_Event``).
_EVENT_FIELDS_TO_EVENTS_V1 = {
    "involvedObject": "regarding",
    "message": "note",
    "reportingComponent": "reportingController",
    "source": "deprecatedSource",
    "firstTimestamp": "deprecatedFirstTimestamp",
    "lastTimestamp": "deprecatedLastTimestamp",
    "count": "deprecatedCount",
}
_EVENT_FIELDS_TO_CORE = {v1: core for core, v1 in _EVENT_FIELDS_TO_EVENTS_V1.items()}
#: Fields each Event type always serialises: structs, times, and strings without omitempty.
_EVENTS_V1_ALWAYS = {"eventTime": None, "regarding": {}, "deprecatedSource": {},
                     "deprecatedFirstTimestamp": None, "deprecatedLastTimestamp": None}
_CORE_EVENT_ALWAYS = {"involvedObject": {}, "source": {}, "firstTimestamp": None, "lastTimestamp": None,
                      "eventTime": None, "reportingComponent": "", "reportingInstance": ""}


#: events.k8s.io/v1 fields with ``omitempty`` whose core/v1 fields have none (a core Event
#: always serialises its reporting component and instance, empty or not).
_EVENTS_V1_OMITTED_EMPTY = ("reportingController", "reportingInstance")


def event_to_events_v1(event: Json) -> Json:
    """A core/v1 Event as events.k8s.io/v1 shows it (``Convert_core_Event_To_v1_Event``)."""
    converted = _renamed(event, EVENTS_V1, _EVENT_FIELDS_TO_EVENTS_V1, _EVENTS_V1_ALWAYS)
    for key in _EVENTS_V1_OMITTED_EMPTY:
        if converted.get(key) == "":
            del converted[key]
    return converted


def events_v1_to_event(event: Json) -> Json:
    """An events.k8s.io/v1 Event as core/v1 stores it (``Convert_v1_Event_To_core_Event``)."""
    return _renamed(event, CORE_EVENT, _EVENT_FIELDS_TO_CORE, _CORE_EVENT_ALWAYS)


# ----------------------------------------------------------------------------- HPAs

#: ``autoscaling.MetricSpecsAnnotation`` and its siblings (``pkg/apis/autoscaling/annotations.go``).
METRIC_SPECS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics"
METRIC_STATUSES_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior"
#: What ``DropRoundTripHorizontalPodAutoscalerAnnotations`` removes.
_ROUND_TRIP_ANNOTATIONS = (METRIC_SPECS_ANNOTATION, BEHAVIOR_ANNOTATION, METRIC_STATUSES_ANNOTATION,
                           CONDITIONS_ANNOTATION)
#: ``autoscaling.DefaultCPUUtilization``: v1's implicit target, explicit in v2.
DEFAULT_CPU_UTILIZATION = 80


def _go_json(value: Any) -> str:
    """``json.Marshal``'s compact text."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _present(obj: Mapping[str, Any] | None, key: str) -> dict[str, Any]:
    """``{key: obj[key]}`` if that optional field is set, else ``{}``."""
    return {} if obj is None or obj.get(key) is None else {key: obj[key]}


def _drop_round_trip_annotations(obj: Json) -> None:
    meta = obj.get("metadata") or {}
    annotations = meta.get("annotations")
    if not isinstance(annotations, dict):
        return
    for key in _ROUND_TRIP_ANNOTATIONS:
        annotations.pop(key, None)
    if not annotations:
        del meta["annotations"]


def _set_annotation(obj: Json, key: str, value: str) -> None:
    obj.setdefault("metadata", {}).setdefault("annotations", {})[key] = value


def _annotation_list(obj: Mapping[str, Any], key: str) -> list[Any] | None:
    """A JSON list in an annotation; None when absent or undecodable (kube ignores those)."""
    text = ((obj.get("metadata") or {}).get("annotations") or {}).get(key)
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    return value if isinstance(value, list) else None


def _reference(ref: Mapping[str, Any] | None) -> Json:
    """``CrossVersionObjectReference`` (kind and name always serialised)."""
    ref = ref or {}
    return {"kind": ref.get("kind", ""), "name": ref.get("name", ""), **_present(ref, "apiVersion")}


def _is_cpu_utilization(metric: Mapping[str, Any]) -> bool:
    resource = metric.get("resource") or {}
    return (metric.get("type") == "Resource" and resource.get("name") == "cpu"
            and (resource.get("target") or {}).get("averageUtilization") is not None)


def _identifier(v1_source: Mapping[str, Any], selector_key: str) -> Json:
    """A v2 ``MetricIdentifier`` from a v1 source's ``metricName`` and selector."""
    return {"name": v1_source.get("metricName", ""),
            **({"selector": v1_source[selector_key]} if v1_source.get(selector_key) is not None else {})}


def _identified(v2_source: Mapping[str, Any], selector_key: str) -> Json:
    """A v1 source's ``metricName`` and selector from a v2 ``MetricIdentifier``."""
    metric = v2_source.get("metric") or {}
    return {"metricName": metric.get("name", ""),
            **({selector_key: metric["selector"]} if metric.get("selector") is not None else {})}


def _resource_spec_to_v1(source: Mapping[str, Any]) -> Json:
    """``Convert_autoscaling_ResourceMetricSource_To_v1_ResourceMetricSource`` (and the container one)."""
    target = source.get("target") or {}
    return {"name": source.get("name", ""), **_renamed_present(target, {
        "averageUtilization": "targetAverageUtilization", "averageValue": "targetAverageValue"}),
        **_present(source, "container")}


def _resource_spec_to_v2(source: Mapping[str, Any]) -> Json:
    """``Convert_v1_ResourceMetricSource_To_autoscaling_ResourceMetricSource`` (and the container one)."""
    utilization = source.get("targetAverageUtilization")
    target = {"type": "AverageValue" if utilization is None else "Utilization",
              **_renamed_present(source, {"targetAverageValue": "averageValue",
                                          "targetAverageUtilization": "averageUtilization"})}
    return {"name": source.get("name", ""), **_present(source, "container"), "target": target}


def _renamed_present(obj: Mapping[str, Any], renames: Mapping[str, str]) -> Json:
    """The set fields of ``obj`` named in ``renames``, renamed."""
    return {new: obj[old] for old, new in renames.items() if obj.get(old) is not None}


def _metric_spec_to_v1(metric: Mapping[str, Any]) -> Json:
    """``Convert_autoscaling_MetricSpec_To_v1_MetricSpec`` and the per-source conversions."""
    out: Json = {"type": metric.get("type", "")}
    if (source := metric.get("object")) is not None:
        target = source.get("target") or {}
        out["object"] = {"target": _reference(source.get("describedObject")), **_identified(source, "selector"),
                         "targetValue": target.get("value", "0"), **_present(target, "averageValue")}
    if (source := metric.get("pods")) is not None:
        out["pods"] = {**_identified(source, "selector"),
                       "targetAverageValue": (source.get("target") or {}).get("averageValue", "0")}
    for key in ("resource", "containerResource"):
        if (source := metric.get(key)) is not None:
            out[key] = _resource_spec_to_v1(source)
    if (source := metric.get("external")) is not None:
        out["external"] = {**_identified(source, "metricSelector"), **_renamed_present(
            source.get("target") or {}, {"value": "targetValue", "averageValue": "targetAverageValue"})}
    return out


def _metric_spec_to_v2(metric: Mapping[str, Any]) -> Json:
    """``Convert_v1_MetricSpec_To_autoscaling_MetricSpec`` and the per-source conversions."""
    out: Json = {"type": metric.get("type", "")}
    if (source := metric.get("object")) is not None:
        out["object"] = {"describedObject": _reference(source.get("target")), "metric": _identifier(source, "selector"),
                         "target": {"type": "Value" if source.get("averageValue") is None else "AverageValue",
                                    "value": source.get("targetValue", "0"), **_present(source, "averageValue")}}
    if (source := metric.get("pods")) is not None:
        out["pods"] = {"metric": _identifier(source, "selector"),
                       "target": {"type": "AverageValue", "averageValue": source.get("targetAverageValue", "0")}}
    for key in ("resource", "containerResource"):
        if (source := metric.get(key)) is not None:
            out[key] = _resource_spec_to_v2(source)
    if (source := metric.get("external")) is not None:
        out["external"] = {"metric": _identifier(source, "metricSelector"), "target": {
            "type": "AverageValue" if source.get("targetValue") is None else "Value",
            **_renamed_present(source, {"targetValue": "value", "targetAverageValue": "averageValue"})}}
    return out


def _metric_status_to_v1(metric: Mapping[str, Any]) -> Json:
    """``Convert_autoscaling_MetricStatus_To_v1_MetricStatus`` and the per-source conversions."""
    out: Json = {"type": metric.get("type", "")}
    if (source := metric.get("object")) is not None:
        current = source.get("current") or {}
        out["object"] = {"target": _reference(source.get("describedObject")), **_identified(source, "selector"),
                         "currentValue": current.get("value", "0"), **_present(current, "averageValue")}
    if (source := metric.get("pods")) is not None:
        out["pods"] = {**_identified(source, "selector"),
                       "currentAverageValue": (source.get("current") or {}).get("averageValue", "0")}
    for key in ("resource", "containerResource"):
        if (source := metric.get(key)) is not None:
            current = source.get("current") or {}
            out[key] = {"name": source.get("name", ""),
                        **_renamed_present(current, {"averageUtilization": "currentAverageUtilization"}),
                        "currentAverageValue": current.get("averageValue", "0"), **_present(source, "container")}
    if (source := metric.get("external")) is not None:
        current = source.get("current") or {}
        out["external"] = {**_identified(source, "metricSelector"), "currentValue": current.get("value", "0"),
                           **_renamed_present(current, {"averageValue": "currentAverageValue"})}
    return out


def _metric_status_to_v2(metric: Mapping[str, Any]) -> Json:
    """``Convert_v1_MetricStatus_To_autoscaling_MetricStatus`` and the per-source conversions."""
    out: Json = {"type": metric.get("type", "")}
    if (source := metric.get("object")) is not None:
        out["object"] = {"metric": _identifier(source, "selector"), "current": {
            "value": source.get("currentValue", "0"), **_present(source, "averageValue")},
            "describedObject": _reference(source.get("target"))}
    if (source := metric.get("pods")) is not None:
        out["pods"] = {"metric": _identifier(source, "selector"),
                       "current": {"averageValue": source.get("currentAverageValue", "0")}}
    for key in ("resource", "containerResource"):
        if (source := metric.get(key)) is not None:
            out[key] = {"name": source.get("name", ""), **_present(source, "container"), "current": {
                "averageValue": source.get("currentAverageValue", "0"),
                **_renamed_present(source, {"currentAverageUtilization": "averageUtilization"})}}
    if (source := metric.get("external")) is not None:
        out["external"] = {"metric": _identifier(source, "metricSelector"), "current": {
            "value": source.get("currentValue", "0"),
            **_renamed_present(source, {"currentAverageValue": "averageValue"})}}
    return out


#: The internal ``HorizontalPodAutoscalerBehavior``'s Go field names by JSON name: kube marshals
#: the internal type, which has no json tags, into the behavior annotation.
_BEHAVIOR_GO_NAMES = {"scaleUp": "ScaleUp", "scaleDown": "ScaleDown"}
_RULES_GO_NAMES = {"stabilizationWindowSeconds": "StabilizationWindowSeconds", "selectPolicy": "SelectPolicy",
                   "policies": "Policies", "tolerance": "Tolerance"}
_POLICY_GO_NAMES = {"type": "Type", "value": "Value", "periodSeconds": "PeriodSeconds"}
_POLICY_ZEROS = {"type": "", "value": 0, "periodSeconds": 0}


def _behavior_to_annotation(behavior: Mapping[str, Any]) -> str:
    """``json.Marshal`` of the internal behavior: Go field names, nil pointers as null."""
    def rules(value: Mapping[str, Any] | None) -> Json | None:
        if value is None:
            return None
        out = {go: value.get(name) for name, go in _RULES_GO_NAMES.items()}
        if out["Policies"] is not None:
            out["Policies"] = [{go: p.get(name, _POLICY_ZEROS[name]) for name, go in _POLICY_GO_NAMES.items()}
                               for p in out["Policies"]]
        return out
    return _go_json({go: rules(behavior.get(name)) for name, go in _BEHAVIOR_GO_NAMES.items()})


def _go_field(obj: Mapping[str, Any], go_name: str) -> Any:
    """``encoding/json``'s case-insensitive match of a field name."""
    return next((v for k, v in obj.items() if k.lower() == go_name.lower()), None)


def _behavior_from_annotation(obj: Mapping[str, Any]) -> Json | None:
    """The behavior the annotation holds; None when absent, undecodable or empty."""
    text = ((obj.get("metadata") or {}).get("annotations") or {}).get(BEHAVIOR_ANNOTATION)
    try:
        decoded = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if not isinstance(decoded, dict):
        return None

    def rules(value: Any) -> Json | None:
        if not isinstance(value, dict):
            return None
        out = {name: _go_field(value, go) for name, go in _RULES_GO_NAMES.items()}
        if isinstance(out["policies"], list):
            out["policies"] = [{name: _go_field(p, go) for name, go in _POLICY_GO_NAMES.items()}
                               for p in out["policies"] if isinstance(p, dict)]
        return {k: v for k, v in out.items() if v is not None}

    behavior = {name: r for name, go in _BEHAVIOR_GO_NAMES.items() if (r := rules(_go_field(decoded, go))) is not None}
    return behavior or None


def hpa_v2_to_v1(hpa: Json) -> Json:
    """``Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler``: a stored
    autoscaling/v2 HPA as autoscaling/v1 shows it."""
    spec = hpa.get("spec") or {}
    status = hpa.get("status") or {}
    out = {k: copy.deepcopy(v) for k, v in hpa.items() if k not in ("spec", "status")}
    out["apiVersion"] = AUTOSCALING_V1
    out.setdefault("metadata", {})
    _drop_round_trip_annotations(out)
    metrics = spec.get("metrics") or []
    cpu = next((m for m in metrics if _is_cpu_utilization(m)), None)
    out["spec"] = {"scaleTargetRef": _reference(spec.get("scaleTargetRef")), **_present(spec, "minReplicas"),
                   "maxReplicas": spec.get("maxReplicas", 0)}
    if cpu is not None:
        out["spec"]["targetCPUUtilizationPercentage"] = cpu["resource"]["target"]["averageUtilization"]
    current_metrics = status.get("currentMetrics") or []
    out["status"] = {**_present(status, "observedGeneration"), **_present(status, "lastScaleTime"),
                     "currentReplicas": status.get("currentReplicas", 0),
                     "desiredReplicas": status.get("desiredReplicas", 0)}
    for metric in current_metrics:  # no break upstream: the last CPU utilization wins
        resource = metric.get("resource") or {}
        utilization = (resource.get("current") or {}).get("averageUtilization")
        if metric.get("type") == "Resource" and resource.get("name") == "cpu" and utilization is not None:
            out["status"]["currentCPUUtilizationPercentage"] = utilization
    other_metrics = [_metric_spec_to_v1(m) for m in metrics if not _is_cpu_utilization(m)]
    if other_metrics:
        _set_annotation(out, METRIC_SPECS_ANNOTATION, _go_json(other_metrics))
    if current_metrics:
        _set_annotation(out, METRIC_STATUSES_ANNOTATION, _go_json([_metric_status_to_v1(m) for m in current_metrics]))
    if status.get("conditions"):
        _set_annotation(out, CONDITIONS_ANNOTATION, _go_json(status["conditions"]))
    if spec.get("behavior") is not None:
        _set_annotation(out, BEHAVIOR_ANNOTATION, _behavior_to_annotation(spec["behavior"]))
    return out


def hpa_v1_to_v2(hpa: Json) -> Json:
    """``Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler``: an
    autoscaling/v1 HPA as autoscaling/v2 stores it, its round-trip annotations read and dropped."""
    spec = hpa.get("spec") or {}
    status = hpa.get("status") or {}
    out = {k: copy.deepcopy(v) for k, v in hpa.items() if k not in ("spec", "status")}
    out["apiVersion"] = AUTOSCALING_V2
    metrics = [] if spec.get("targetCPUUtilizationPercentage") is None else [{
        "type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": spec["targetCPUUtilizationPercentage"]}}}]
    other_metrics = _annotation_list(hpa, METRIC_SPECS_ANNOTATION)
    if other_metrics is not None:  # the CPU target, if any, goes after the others
        metrics = [_metric_spec_to_v2(m) for m in other_metrics if isinstance(m, dict)] + metrics
    if not metrics:
        metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}]
    out["spec"] = {"scaleTargetRef": _reference(spec.get("scaleTargetRef")), **_present(spec, "minReplicas"),
                   "maxReplicas": spec.get("maxReplicas", 0), "metrics": metrics}
    behavior = _behavior_from_annotation(hpa)
    if behavior is not None:
        out["spec"]["behavior"] = behavior
    out["status"] = _hpa_status_to_v2(hpa, status)
    _drop_round_trip_annotations(out)
    return out


def _hpa_status_to_v2(hpa: Mapping[str, Any], status: Mapping[str, Any]) -> Json:
    """``Convert_v1_HorizontalPodAutoscalerStatus_To_autoscaling_HorizontalPodAutoscalerStatus``,
    then the current metrics and conditions of the annotations (which win: more information)."""
    out: Json = {**_present(status, "observedGeneration"), **_present(status, "lastScaleTime"),
                 **({"currentReplicas": status["currentReplicas"]} if status.get("currentReplicas") else {}),
                 "desiredReplicas": status.get("desiredReplicas", 0)}
    if status.get("currentCPUUtilizationPercentage") is not None:
        out["currentMetrics"] = [{"type": "Resource", "resource": {"name": "cpu", "current": {
            "averageUtilization": status["currentCPUUtilizationPercentage"]}}}]
    current_metrics = _annotation_list(hpa, METRIC_STATUSES_ANNOTATION)
    if current_metrics is not None:
        out["currentMetrics"] = [_metric_status_to_v2(m) for m in current_metrics if isinstance(m, dict)]
    conditions = _annotation_list(hpa, CONDITIONS_ANNOTATION)
    if conditions is not None:
        out["conditions"] = conditions
    return {k: v for k, v in out.items() if v != []}


# ----------------------------------------------------------------------------- lookup

#: Built-in conversions by (storage apiVersion, served apiVersion, kind).
_BUILT_IN: dict[tuple[str, str, str], Conversion] = {
    (CORE_EVENT, EVENTS_V1, "Event"): Conversion(to_served=event_to_events_v1, to_storage=events_v1_to_event),
    (AUTOSCALING_V2, AUTOSCALING_V1, "HorizontalPodAutoscaler"): Conversion(
        to_served=hpa_v2_to_v1, to_storage=hpa_v1_to_v2),
}


def built_in_conversion(storage_api_version: str, served_api_version: str, kind: str) -> Conversion:
    """The conversion kube registers between two versions of a built-in kind; KeyError when it
    has none (fakeapi serves no other built-in kind in several versions)."""
    return _BUILT_IN[(storage_api_version, served_api_version, kind)]


def none_conversion(storage_api_version: str, served_api_version: str) -> Conversion:
    """A CRD's conversion strategy ``None``."""
    return Conversion(to_served=with_api_version(served_api_version), to_storage=with_api_version(storage_api_version))
