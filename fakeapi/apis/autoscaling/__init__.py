"""The autoscaling group (kube's ``pkg/apis/autoscaling``): HorizontalPodAutoscalers, stored as
autoscaling/v2 and served as v1 through a conversion."""

from __future__ import annotations

from ..rules import register
from ..strategies import keep_generation, no_generation
from . import defaults

register("autoscaling", "v1", "HorizontalPodAutoscaler", default=defaults.set_defaults_hpa_v1)
register("autoscaling", "v2", "HorizontalPodAutoscaler", default=defaults.set_defaults_hpa_v2,
         prepare_for_create=no_generation, prepare_for_update=keep_generation)
