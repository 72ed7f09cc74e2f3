"""The flowcontrol.apiserver.k8s.io group (kube's ``pkg/apis/flowcontrol``): FlowSchemas and
PriorityLevelConfigurations."""

from __future__ import annotations

from ..rules import register
from ..strategies import first_generation, generation_on_change
from . import defaults, validation

GROUP = "flowcontrol.apiserver.k8s.io"
register(GROUP, "v1", "FlowSchema", default=defaults.set_defaults_flow_schema,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"),
         validate=validation.validate_flow_schema,
         validate_update=lambda new, old: validation.validate_flow_schema(new),
         validate_status_update=validation.validate_flow_schema_status_update,
         status_reset_fields=(("metadata",), ("spec",)))
register(GROUP, "v1", "PriorityLevelConfiguration", default=defaults.set_defaults_priority_level_configuration,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"),
         validate=validation.validate_priority_level_configuration,
         validate_update=lambda new, old: validation.validate_priority_level_configuration(new),
         validate_status_update=validation.validate_priority_level_configuration_status_update,
         status_reset_fields=(("spec",), ("metadata",)))
