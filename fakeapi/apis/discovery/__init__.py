"""The discovery.k8s.io group (kube's ``pkg/apis/discovery``): EndpointSlices."""

from __future__ import annotations

from ..rules import register
from ..strategies import first_generation
from . import defaults, strategy

register("discovery.k8s.io", "v1", "EndpointSlice", default=defaults.set_defaults_endpoint_slice,
         prepare_for_create=first_generation, prepare_for_update=strategy.prepare_endpoint_slice_for_update)
