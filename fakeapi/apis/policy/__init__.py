"""The policy group (kube's ``pkg/apis/policy``): PodDisruptionBudgets."""

from __future__ import annotations

from ..decoding import decoder
from ..rules import register
from ..strategies import first_generation, generation_on_change
from . import defaults, validation

register("policy", "v1", "PodDisruptionBudget",
         default=decoder("PodDisruptionBudget", defaults.strip_v1beta1_label),
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"),
         validate=validation.validate_pod_disruption_budget,
         validate_update=validation.validate_pod_disruption_budget_update,
         validate_status_update=validation.validate_pod_disruption_budget_status_update)
