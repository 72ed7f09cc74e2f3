"""flowcontrol.apiserver.k8s.io/v1 defaulting (``pkg/apis/flowcontrol/v1/defaults.go``)."""

from __future__ import annotations

from ..fields import Json, default, default_empty, get, struct

#: ``FlowSchemaDefaultMatchingPrecedence`` and ``PriorityLevelConfigurationDefault*``.
DEFAULT_MATCHING_PRECEDENCE = 1000
DEFAULT_HAND_SIZE = 8
DEFAULT_QUEUES = 64
DEFAULT_QUEUE_LENGTH_LIMIT = 50
DEFAULT_NOMINAL_CONCURRENCY_SHARES = 30


def set_defaults_flow_schema(obj: Json) -> None:
    default_empty(struct(obj, "spec"), "matchingPrecedence", DEFAULT_MATCHING_PRECEDENCE)


def set_defaults_priority_level_configuration(obj: Json) -> None:
    spec = struct(obj, "spec")
    limited = spec.get("limited")
    if isinstance(limited, dict):
        default(limited, "nominalConcurrencyShares", DEFAULT_NOMINAL_CONCURRENCY_SHARES)
        default(limited, "lendablePercent", 0)
        queuing = get(limited, "limitResponse", "queuing")
        if isinstance(queuing, dict):
            default_empty(queuing, "handSize", DEFAULT_HAND_SIZE)
            default_empty(queuing, "queues", DEFAULT_QUEUES)
            default_empty(queuing, "queueLengthLimit", DEFAULT_QUEUE_LENGTH_LIMIT)
    exempt = spec.get("exempt")
    if isinstance(exempt, dict):
        default(exempt, "nominalConcurrencyShares", 0)
        default(exempt, "lendablePercent", 0)
