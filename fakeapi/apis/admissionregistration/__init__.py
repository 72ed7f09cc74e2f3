"""The admissionregistration.k8s.io group (kube's ``pkg/apis/admissionregistration``): webhook
configurations, ValidatingAdmissionPolicies and their bindings."""

from __future__ import annotations

from ..rules import register
from ..strategies import first_generation, generation_on_change
from . import defaults, validation

GROUP = "admissionregistration.k8s.io"
register(GROUP, "v1", "ValidatingWebhookConfiguration",
         default=defaults.set_defaults_validating_webhook_configuration,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("webhooks"),
         validate=validation.validate_validating_webhook_configuration,
         validate_update=validation.validate_validating_webhook_configuration_update)
register(GROUP, "v1", "MutatingWebhookConfiguration", default=defaults.set_defaults_mutating_webhook_configuration,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("webhooks"),
         validate=validation.validate_mutating_webhook_configuration,
         validate_update=validation.validate_mutating_webhook_configuration_update)
register(GROUP, "v1", "ValidatingAdmissionPolicy", default=defaults.set_defaults_validating_admission_policy,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"),
         validate=validation.validate_validating_admission_policy,
         validate_update=validation.validate_validating_admission_policy_update,
         validate_status_update=validation.validate_validating_admission_policy_status_update,
         status_reset_fields=(("spec",), ("metadata",)))
register(GROUP, "v1", "ValidatingAdmissionPolicyBinding",
         default=defaults.set_defaults_validating_admission_policy_binding,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"),
         validate=validation.validate_validating_admission_policy_binding,
         validate_update=lambda new, old: validation.validate_validating_admission_policy_binding(new))
