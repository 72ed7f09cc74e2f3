"""The networking.k8s.io group (kube's ``pkg/apis/networking``): Ingresses, IngressClasses,
NetworkPolicies, IPAddresses, ServiceCIDRs."""

from __future__ import annotations

from ..rules import register
from ..strategies import first_generation, generation_on_change
from . import defaults

GROUP = "networking.k8s.io"
register(GROUP, "v1", "Ingress", prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"))
register(GROUP, "v1", "NetworkPolicy", default=defaults.set_defaults_network_policy,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"))
register(GROUP, "v1", "IngressClass", default=defaults.set_defaults_ingress_class,
         prepare_for_create=first_generation, prepare_for_update=generation_on_change("spec"))
