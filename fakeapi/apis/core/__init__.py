"""The core (legacy, ``v1``) group's rules: kube's ``pkg/apis/core`` (defaulting in
``defaults.py``, validation in ``validation*.py``) and ``pkg/registry/core`` (strategies).

What other groups call for the pod templates they embed (as kube's apps and batch validation
call core's), stable names:

* ``set_defaults_pod_template_spec(template)``: the defaults of a ``PodTemplateSpec``, in place
  (may raise ``QuantityError``; wrap the kind's defaulting in ``decoding(kind)`` for kube's 400);
* ``validate_pod_template_spec(template, path, options)``: ``ValidatePodTemplateSpec``;
* ``pod_template_validation_options(template, old_template)``:
  ``GetValidationOptionsFromPodTemplate`` (old_template None on create), giving a
  ``PodValidationOptions``;
* ``set_defaults_persistent_volume_claim_spec(spec)`` and
  ``validate_persistent_volume_claim_spec(spec, path, claim_validation_options(None))`` for
  StatefulSet volume claim templates.
"""

from .defaults import (
    decoding,
    set_defaults_persistent_volume_claim_spec,
    set_defaults_pod_spec,
    set_defaults_pod_template_spec,
)
from .validation import (
    pod_template_validation_options,
    pod_validation_options,
    validate_pod_spec,
    validate_pod_specific_annotations,
    validate_pod_template_spec,
)
from .validation_claims import (
    ClaimSpecValidationOptions,
    claim_validation_options,
    validate_persistent_volume_claim_spec,
)
from .validation_common import PodValidationOptions

__all__ = [
    "ClaimSpecValidationOptions", "PodValidationOptions", "claim_validation_options", "decoding",
    "pod_template_validation_options", "pod_validation_options", "set_defaults_persistent_volume_claim_spec",
    "set_defaults_pod_spec", "set_defaults_pod_template_spec", "validate_persistent_volume_claim_spec",
    "validate_pod_spec", "validate_pod_specific_annotations", "validate_pod_template_spec",
]

from ...machinery.delete_options import ORPHAN
from ..rules import register
from . import defaults as _defaults
from . import strategy as _strategy
from .validation import (
    validate_replication_controller_status_update as _validate_rc_status,
)


def _decoded(kind: str, default):  # type: ignore[no-untyped-def]
    """A kind's defaulting, run as kube decodes: quantity errors are the decoder's 400."""
    def run(obj: dict) -> None:
        with decoding(kind):
            default(obj)
    return run


register("", "v1", "Pod",
         default=_decoded("Pod", _defaults.set_defaults_pod),
         prepare_for_create=_strategy.prepare_pod_for_create,
         prepare_for_status_update=_strategy.prepare_pod_for_status_update,
         validate=_strategy.validate_pod,
         validate_update=_strategy.validate_pod_update_strategy,
         validate_status_update=_strategy.validate_pod_status_update_strategy,
         warnings_on_create=_strategy.pod_warnings_on_create,
         graceful_delete_period=_strategy.pod_grace_period)
register("", "v1", "PodTemplate",
         default=_decoded("PodTemplate", _defaults.set_defaults_pod_template),
         prepare_for_create=_strategy.prepare_pod_template_for_create,
         prepare_for_update=_strategy.prepare_pod_template_for_update,
         validate=_strategy.validate_pod_template_strategy,
         validate_update=_strategy.validate_pod_template_update_strategy,
         warnings_on_create=_strategy.pod_template_warnings_on_create,
         warnings_on_update=_strategy.pod_template_warnings_on_update)
register("", "v1", "ReplicationController",
         default=_decoded("ReplicationController", _defaults.set_defaults_replication_controller),
         prepare_for_create=_strategy.prepare_replication_controller_for_create,
         validate=_strategy.validate_replication_controller_strategy,
         validate_update=_strategy.validate_replication_controller_update_strategy,
         validate_status_update=_validate_rc_status,
         warnings_on_create=_strategy.replication_controller_warnings_on_create,
         warnings_on_update=_strategy.replication_controller_warnings_on_update,
         # rcStrategy.DefaultGarbageCollectionPolicy: core/v1 orphans, for compatibility.
         default_propagation_policy=ORPHAN)

from . import validation_claims as _claims  # noqa: E402
from . import validation_cluster as _cluster  # noqa: E402
from . import validation_config as _config  # noqa: E402
from . import validation_service as _service  # noqa: E402
from . import validation_storage as _storage  # noqa: E402

register("", "v1", "Service",
         default=_defaults.set_defaults_service,
         prepare_for_create=_strategy.prepare_service_for_create,
         validate=_service.validate_service_create,
         validate_update=_service.validate_service_update,
         validate_status_update=_service.validate_service_status_update,
         warnings_on_create=_strategy.service_warnings,
         warnings_on_update=_strategy.service_warnings)
register("", "v1", "Endpoints",
         default=_defaults.set_defaults_endpoints,
         validate=_cluster.validate_endpoints,
         validate_update=_cluster.validate_endpoints_update,
         warnings_on_create=_strategy.endpoints_warnings,
         warnings_on_update=_strategy.endpoints_warnings)
register("", "v1", "Node",
         default=_decoded("Node", _defaults.set_defaults_node),
         prepare_for_status_update=_strategy.prepare_node_for_status_update,
         validate=_cluster.validate_node,
         validate_update=_cluster.validate_node_update,
         validate_status_update=_cluster.validate_node_update,
         warnings_on_create=_strategy.node_warnings,
         warnings_on_update=_strategy.node_warnings)
register("", "v1", "Namespace",
         default=_defaults.set_defaults_namespace,
         prepare_for_update=_strategy.prepare_namespace_for_update,
         validate=_cluster.validate_namespace,
         validate_update=_cluster.validate_namespace_update,
         validate_status_update=_cluster.validate_namespace_status_update)
register("", "v1", "ConfigMap",
         default=_decoded("ConfigMap", _defaults.set_defaults_config_map),
         validate=_config.validate_config_map,
         validate_update=_config.validate_config_map_update)
register("", "v1", "Secret",
         default=_decoded("Secret", _defaults.set_defaults_secret),
         validate=_config.validate_secret,
         validate_update=_config.validate_secret_update)
register("", "v1", "ServiceAccount",
         prepare_for_create=_strategy.clean_secret_references,
         prepare_for_update=_strategy.clean_secret_references,
         validate=_config.validate_service_account,
         validate_update=_config.validate_service_account_update,
         warnings_on_create=_strategy.service_account_warnings,
         warnings_on_update=_strategy.service_account_warnings)
register("", "v1", "PersistentVolume",
         default=_decoded("PersistentVolume", _defaults.set_defaults_persistent_volume),
         prepare_for_create=_strategy.prepare_persistent_volume_for_create,
         prepare_for_status_update=_strategy.prepare_persistent_volume_for_status_update,
         validate=_storage.validate_persistent_volume,
         validate_update=_storage.validate_persistent_volume_update,
         validate_status_update=_storage.validate_persistent_volume_status_update,
         warnings_on_create=_strategy.persistent_volume_warnings,
         warnings_on_update=_strategy.persistent_volume_warnings)
register("", "v1", "PersistentVolumeClaim",
         default=_decoded("PersistentVolumeClaim", _defaults.set_defaults_persistent_volume_claim),
         prepare_for_create=_strategy.prepare_persistent_volume_claim_for_create,
         prepare_for_update=_strategy.prepare_persistent_volume_claim_for_update,
         validate=_claims.validate_new_persistent_volume_claim,
         validate_update=_claims.validate_persistent_volume_claim_update,
         validate_status_update=_claims.validate_persistent_volume_claim_status_update,
         warnings_on_create=_strategy.persistent_volume_claim_warnings,
         warnings_on_update=_strategy.persistent_volume_claim_warnings,
         # kube stores the claim's status empty; its reads default the phase (Pending)
         first_update_writes=lambda _claim: True)
register("", "v1", "Event",
         validate=_cluster.validate_event,
         validate_update=_cluster.validate_event_update)
register("", "v1", "LimitRange",
         default=_decoded("LimitRange", _defaults.set_defaults_limit_range),
         validate=_cluster.validate_limit_range,
         validate_update=lambda new, old: _cluster.validate_limit_range(new))
register("", "v1", "ResourceQuota",
         default=_decoded("ResourceQuota", _defaults.set_defaults_resource_quota),
         prepare_for_create=_strategy.prepare_resource_quota_for_create,
         validate=_cluster.validate_resource_quota,
         validate_update=_cluster.validate_resource_quota_update,
         validate_status_update=_cluster.validate_resource_quota_status_update,
         warnings_on_create=_strategy.resource_quota_warnings)
