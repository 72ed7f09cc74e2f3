"""The flowcontrol.apiserver.k8s.io group (kube's ``pkg/apis/flowcontrol``): FlowSchemas and
PriorityLevelConfigurations."""

from __future__ import annotations

from ..rules import register
from ..strategies import first_generation, generation_on_change
from . import defaults

GROUP = "flowcontrol.apiserver.k8s.io"
register(GROUP, "v1", "FlowSchema", default=defaults.set_defaults_flow_schema,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"))
register(GROUP, "v1", "PriorityLevelConfiguration", default=defaults.set_defaults_priority_level_configuration,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"))
