"""The conversions between versions served over one storage prefix (``apis/conversion.py``)."""

from __future__ import annotations

import json

from fakeapi.apis.conversion import (
    BEHAVIOR_ANNOTATION,
    CONDITIONS_ANNOTATION,
    METRIC_SPECS_ANNOTATION,
    METRIC_STATUSES_ANNOTATION,
    event_to_events_v1,
    events_v1_to_event,
    hpa_v1_to_v2,
    hpa_v2_to_v1,
    none_conversion,
)

CORE_EVENT = {
    "kind": "Event", "apiVersion": "v1",
    "metadata": {"name": "web.1", "namespace": "default", "resourceVersion": "7"},
    "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web", "uid": "u1", "apiVersion": "v1"},
    "reason": "Scheduled", "message": "Assigned default/web to node-1",
    "source": {"component": "default-scheduler", "host": "node-1"},
    "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:01:00Z", "count": 3,
    "type": "Normal", "eventTime": "2026-01-01T00:00:00.000001Z",
    "series": {"count": 2, "lastObservedTime": "2026-01-01T00:01:00.000000Z"},
    "action": "Binding", "related": {"kind": "Node", "name": "node-1"},
    "reportingComponent": "default-scheduler", "reportingInstance": "default-scheduler-node-1",
}


def test_core_event_to_events_v1_field_by_field() -> None:
    converted = event_to_events_v1(CORE_EVENT)
    assert converted == {
        "kind": "Event", "apiVersion": "events.k8s.io/v1",
        "metadata": CORE_EVENT["metadata"],
        "regarding": CORE_EVENT["involvedObject"],
        "reason": "Scheduled", "note": "Assigned default/web to node-1",
        "deprecatedSource": {"component": "default-scheduler", "host": "node-1"},
        "deprecatedFirstTimestamp": "2026-01-01T00:00:00Z", "deprecatedLastTimestamp": "2026-01-01T00:01:00Z",
        "deprecatedCount": 3, "type": "Normal", "eventTime": "2026-01-01T00:00:00.000001Z",
        "series": CORE_EVENT["series"], "action": "Binding", "related": {"kind": "Node", "name": "node-1"},
        "reportingController": "default-scheduler", "reportingInstance": "default-scheduler-node-1",
    }
    assert events_v1_to_event(converted) == CORE_EVENT


def test_events_carry_the_fields_their_go_type_always_writes() -> None:
    minimal = {"kind": "Event", "apiVersion": "v1", "metadata": {"name": "e"}, "involvedObject": {"kind": "Pod"},
               "message": "m"}
    assert event_to_events_v1(minimal) == {
        "kind": "Event", "apiVersion": "events.k8s.io/v1", "metadata": {"name": "e"}, "regarding": {"kind": "Pod"},
        "note": "m", "eventTime": None, "deprecatedSource": {}, "deprecatedFirstTimestamp": None,
        "deprecatedLastTimestamp": None,
    }
    new = {"kind": "Event", "apiVersion": "events.k8s.io/v1", "metadata": {"name": "e"},
           "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "c", "reportingInstance": "i",
           "action": "A", "reason": "R"}
    assert events_v1_to_event(new) == {
        "kind": "Event", "apiVersion": "v1", "metadata": {"name": "e"}, "eventTime": "2026-01-01T00:00:00.000000Z",
        "reportingComponent": "c", "reportingInstance": "i", "action": "A", "reason": "R",
        "involvedObject": {}, "source": {}, "firstTimestamp": None, "lastTimestamp": None,
    }


def test_conversions_do_not_share_state_with_their_input() -> None:
    converted = event_to_events_v1(CORE_EVENT)
    converted["regarding"]["name"] = "changed"
    assert CORE_EVENT["involvedObject"]["name"] == "web"


V2_CPU = {"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v2",
          "metadata": {"name": "web", "namespace": "default"},
          "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
                   "minReplicas": 1, "maxReplicas": 5,
                   "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                       "type": "Utilization", "averageUtilization": 50}}}]},
          "status": {"desiredReplicas": 0}}


def test_hpa_cpu_target_is_v1_target_cpu_utilization_percentage() -> None:
    v1 = hpa_v2_to_v1(V2_CPU)
    assert v1 == {"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v1",
                  "metadata": {"name": "web", "namespace": "default"},
                  "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
                           "minReplicas": 1, "maxReplicas": 5, "targetCPUUtilizationPercentage": 50},
                  "status": {"currentReplicas": 0, "desiredReplicas": 0}}
    assert hpa_v1_to_v2(v1) == V2_CPU


def test_hpa_v1_without_target_gets_kubes_explicit_default() -> None:
    v2 = hpa_v1_to_v2({"apiVersion": "autoscaling/v1", "metadata": {"name": "h"},
                       "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 3}})
    assert v2["spec"]["metrics"] == [{"type": "Resource", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 80}}}]


def test_hpa_v2_only_fields_round_trip_through_v1_annotations() -> None:
    v2 = {"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v2",
          "metadata": {"name": "web", "annotations": {"team": "a"}},
          "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5, "metrics": [
              {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "1Gi"}}},
              {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}},
              {"type": "Object", "object": {"describedObject": {"kind": "Ingress", "name": "i", "apiVersion": "networking.k8s.io/v1"},
                                            "metric": {"name": "rps"}, "target": {"type": "Value", "value": "100"}}},
              {"type": "External", "external": {"metric": {"name": "queue", "selector": {"matchLabels": {"q": "a"}}},
                                                "target": {"type": "AverageValue", "averageValue": "30"}}},
              {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
          ], "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300, "selectPolicy": "Max",
                                        "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}}},
          "status": {"currentReplicas": 2, "desiredReplicas": 3,
                     "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {
                         "averageUtilization": 40, "averageValue": "200m"}}}],
                     "conditions": [{"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale"}]}}
    v1 = hpa_v2_to_v1(v2)
    annotations = v1["metadata"]["annotations"]
    assert annotations["team"] == "a"
    assert v1["spec"]["targetCPUUtilizationPercentage"] == 60
    assert v1["status"] == {"currentReplicas": 2, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 40}
    assert json.loads(annotations[METRIC_SPECS_ANNOTATION])[0] == {
        "type": "Resource", "resource": {"name": "memory", "targetAverageValue": "1Gi"}}
    assert json.loads(annotations[METRIC_STATUSES_ANNOTATION]) == [{"type": "Resource", "resource": {
        "name": "cpu", "currentAverageUtilization": 40, "currentAverageValue": "200m"}}]
    assert json.loads(annotations[CONDITIONS_ANNOTATION]) == v2["status"]["conditions"]
    # The internal behavior type has no json tags: Go field names.
    assert json.loads(annotations[BEHAVIOR_ANNOTATION]) == {"ScaleUp": None, "ScaleDown": {
        "StabilizationWindowSeconds": 300, "SelectPolicy": "Max",
        "Policies": [{"Type": "Percent", "Value": 100, "PeriodSeconds": 15}], "Tolerance": None}}
    back = hpa_v1_to_v2(v1)
    assert back["metadata"] == {"name": "web", "annotations": {"team": "a"}}
    assert back["spec"] == v2["spec"]
    assert back["status"] == v2["status"]


def test_hpa_v1_drops_stale_round_trip_annotations() -> None:
    stale = {**V2_CPU, "metadata": {"name": "web", "annotations": {METRIC_SPECS_ANNOTATION: "[]"}}}
    assert "annotations" not in hpa_v2_to_v1(stale)["metadata"]
    undecodable = {"apiVersion": "autoscaling/v1", "metadata": {"name": "h", "annotations": {
        METRIC_SPECS_ANNOTATION: "nope"}}, "spec": {"maxReplicas": 3, "targetCPUUtilizationPercentage": 40}}
    v2 = hpa_v1_to_v2(undecodable)
    assert len(v2["spec"]["metrics"]) == 1 and "annotations" not in v2["metadata"]


def test_none_strategy_changes_api_version_only() -> None:
    conversion = none_conversion("example.com/v1", "example.com/v1beta1")
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}}
    served = conversion.to_served(obj)
    assert served == {**obj, "apiVersion": "example.com/v1beta1"}
    assert conversion.to_storage(served) == obj
