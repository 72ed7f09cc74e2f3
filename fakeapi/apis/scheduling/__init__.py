"""The scheduling.k8s.io group (kube's ``pkg/apis/scheduling``): PriorityClasses."""

from __future__ import annotations

from ..decoding import decoder
from ..rules import register
from ..strategies import first_generation, keep_generation
from . import defaults, validation

register("scheduling.k8s.io", "v1", "PriorityClass", default=decoder("PriorityClass", defaults.set_defaults_priority_class),
         prepare_for_create=first_generation, prepare_for_update=keep_generation,
         validate=validation.validate_priority_class, validate_update=validation.validate_priority_class_update)
