"""The admissionregistration.k8s.io group (kube's ``pkg/apis/admissionregistration``): webhook
configurations, ValidatingAdmissionPolicies and their bindings."""

from __future__ import annotations

from ..rules import register
from ..strategies import first_generation, generation_on_change
from . import defaults

GROUP = "admissionregistration.k8s.io"
register(GROUP, "v1", "ValidatingWebhookConfiguration",
         default=defaults.set_defaults_validating_webhook_configuration,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("webhooks"))
register(GROUP, "v1", "MutatingWebhookConfiguration", default=defaults.set_defaults_mutating_webhook_configuration,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("webhooks"))
register(GROUP, "v1", "ValidatingAdmissionPolicy", default=defaults.set_defaults_validating_admission_policy,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"))
register(GROUP, "v1", "ValidatingAdmissionPolicyBinding",
         default=defaults.set_defaults_validating_admission_policy_binding,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"))
