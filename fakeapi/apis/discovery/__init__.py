"""The discovery.k8s.io group (kube's ``pkg/apis/discovery``): EndpointSlices."""

from __future__ import annotations

from ..decoding import decoder
from ..rules import register
from . import defaults, strategy, validation

register("discovery.k8s.io", "v1", "EndpointSlice",
         default=decoder("EndpointSlice", defaults.set_defaults_endpoint_slice),
         prepare_for_create=strategy.prepare_for_create, prepare_for_update=strategy.prepare_for_update,
         validate=validation.validate_endpoint_slice, validate_update=validation.validate_endpoint_slice_update,
         warnings_on_create=validation.warnings_on_create, warnings_on_update=validation.warnings_on_update)
