"""The networking.k8s.io group (kube's ``pkg/apis/networking``): Ingresses, IngressClasses,
NetworkPolicies, IPAddresses, ServiceCIDRs."""

from __future__ import annotations

from ..decoding import decoder
from ..rules import register
from ..strategies import first_generation, generation_on_change
from . import defaults, validation

GROUP = "networking.k8s.io"
register(GROUP, "v1", "Ingress", prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"),
         validate=validation.validate_ingress, validate_update=validation.validate_ingress_update,
         validate_status_update=validation.validate_ingress_status_update,
         warnings_on_create=validation.ingress_warnings_on_create)
register(GROUP, "v1", "NetworkPolicy", default=decoder("NetworkPolicy", defaults.set_defaults_network_policy),
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"),
         validate=validation.validate_network_policy, validate_update=validation.validate_network_policy_update,
         warnings_on_create=validation.network_policy_warnings, warnings_on_update=validation.network_policy_warnings)
register(GROUP, "v1", "IngressClass", default=decoder("IngressClass", defaults.set_defaults_ingress_class),
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"),
         validate=validation.validate_ingress_class, validate_update=validation.validate_ingress_class_update)
register(GROUP, "v1", "IPAddress", validate=validation.validate_ip_address,
         validate_update=validation.validate_ip_address_update)
# Its strategies' GetResetFields name the version "networking/v1", which no ServiceCIDR has
# ("networking.k8s.io/v1"): kube resets nothing, so a create's status and a status write's spec
# keep their managers.
register(GROUP, "v1", "ServiceCIDR", validate=validation.validate_service_cidr,
         validate_update=validation.validate_service_cidr_update,
         validate_status_update=validation.validate_service_cidr_status_update,
         reset_fields=(), status_reset_fields=())
