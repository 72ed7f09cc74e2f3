"""The resource.k8s.io group (kube's ``pkg/apis/resource``): dynamic resource allocation's
DeviceClasses, ResourceClaims, ResourceClaimTemplates and ResourceSlices."""

from __future__ import annotations

from ..fields import Json
from ..rules import register
from ..strategies import first_generation, generation_on_change, keep_generation, no_generation
from . import defaults, strategy, validation

GROUP = "resource.k8s.io"


def _prepare_device_class_for_create(device_class: Json) -> None:
    first_generation(device_class)
    strategy.drop_disabled_device_class_fields(device_class, None)


def _prepare_device_class_for_update(new: Json, old: Json) -> None:
    strategy.drop_disabled_device_class_fields(new, old)
    generation_on_change("spec")(new, old)


def _prepare_resource_claim_for_create(claim: Json) -> None:
    no_generation(claim)
    strategy.prepare_resource_claim_for_create(claim)


def _prepare_resource_claim_for_update(new: Json, old: Json) -> None:
    keep_generation(new, old)
    strategy.prepare_resource_claim_for_update(new, old)


def _prepare_resource_slice_for_create(resource_slice: Json) -> None:
    first_generation(resource_slice)
    strategy.drop_disabled_resource_slice_fields(resource_slice, None)


def _prepare_resource_slice_for_update(new: Json, old: Json) -> None:
    strategy.drop_disabled_resource_slice_fields(new, old)
    generation_on_change("spec")(new, old)


register(GROUP, "v1", "DeviceClass",
         prepare_for_create=_prepare_device_class_for_create,
         prepare_for_update=_prepare_device_class_for_update,
         validate=validation.validate_device_class, validate_update=validation.validate_device_class_update)
register(GROUP, "v1", "ResourceClaim", default=defaults.set_defaults_resource_claim,
         prepare_for_create=_prepare_resource_claim_for_create, prepare_for_update=_prepare_resource_claim_for_update,
         prepare_for_status_update=strategy.prepare_resource_claim_for_status_update,
         validate=validation.validate_resource_claim, validate_update=validation.validate_resource_claim_update,
         validate_status_update=validation.validate_resource_claim_status_update,
         status_reset_fields=(("metadata",), ("spec",)))
register(GROUP, "v1", "ResourceClaimTemplate", default=defaults.set_defaults_resource_claim_template,
         prepare_for_create=strategy.prepare_resource_claim_template_for_create,
         prepare_for_update=strategy.prepare_resource_claim_template_for_update,
         validate=validation.validate_resource_claim_template,
         validate_update=validation.validate_resource_claim_template_update)
register(GROUP, "v1", "ResourceSlice", default=defaults.set_defaults_resource_slice,
         prepare_for_create=_prepare_resource_slice_for_create, prepare_for_update=_prepare_resource_slice_for_update,
         validate=validation.validate_resource_slice, validate_update=validation.validate_resource_slice_update)
