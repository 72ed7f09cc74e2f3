"""The policy group (kube's ``pkg/apis/policy``): PodDisruptionBudgets."""

from __future__ import annotations

from ..rules import register
from ..strategies import first_generation, generation_on_change

register("policy", "v1", "PodDisruptionBudget", prepare_for_create=first_generation,
         prepare_for_update=generation_on_change("spec"))
