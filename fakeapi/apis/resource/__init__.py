"""The resource.k8s.io group (kube's ``pkg/apis/resource``): dynamic resource allocation's
DeviceClasses, ResourceClaims, ResourceClaimTemplates and ResourceSlices."""

from __future__ import annotations

from ..rules import register
from ..strategies import first_generation, generation_on_change, keep_generation, no_generation
from . import defaults

GROUP = "resource.k8s.io"
register(GROUP, "v1", "DeviceClass", prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"))
register(GROUP, "v1", "ResourceClaim", default=defaults.set_defaults_resource_claim,
         prepare_for_create=no_generation, prepare_for_update=keep_generation)
register(GROUP, "v1", "ResourceClaimTemplate", default=defaults.set_defaults_resource_claim_template)
register(GROUP, "v1", "ResourceSlice", default=defaults.set_defaults_resource_slice,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"))
