"""The autoscaling group (kube's ``pkg/apis/autoscaling``): HorizontalPodAutoscalers, stored as
autoscaling/v2 and served as v1 through a conversion (the storage version's rules validate both)."""

from __future__ import annotations

from ..decoding import decoder
from ..rules import register
from ..strategies import keep_generation, no_generation
from . import defaults, validation

HPA = "HorizontalPodAutoscaler"
register("autoscaling", "v1", HPA, default=decoder(HPA, defaults.set_defaults_hpa_v1))
register("autoscaling", "v2", HPA,
         default=decoder(HPA, defaults.canonical_hpa_v2_quantities, defaults.set_defaults_hpa_v2, version="v2"),
         prepare_for_create=no_generation, prepare_for_update=keep_generation,
         validate=validation.validate_hpa, validate_update=validation.validate_hpa_update,
         validate_status_update=validation.validate_hpa_status_update)
