"""The apiregistration.k8s.io group (kube-aggregator's ``pkg/apis/apiregistration`` and
``pkg/registry/apiservice``): APIServices, the aggregated API servers a kube-apiserver serves
(or its own groups, "local" ones without a service)."""

from __future__ import annotations

from ..decoding import decoder
from ..rules import register
from . import defaults, strategy, validation

register("apiregistration.k8s.io", "v1", "APIService",
         default=decoder("APIService", defaults.set_defaults_api_service),
         prepare_for_create=strategy.prepare_for_create,
         validate=validation.validate_api_service, validate_update=validation.validate_api_service_update,
         validate_status_update=validation.validate_api_service_status_update,
         allow_unconditional_update=False, status_reset_fields=(("spec",), ("metadata",)))
