"""The apps group (kube's ``pkg/apis/apps``): Deployments, ReplicaSets, StatefulSets, DaemonSets,
ControllerRevisions."""

from __future__ import annotations

from functools import partial

from ..decoding import decoder
from ..rules import register
from ..strategies import no_generation
from . import defaults, strategy, validation, warnings

register("apps", "v1", "Deployment", default=decoder("Deployment", partial(strategy.check_annotation_fields, "Deployment"),
                                 defaults.set_defaults_deployment),
         prepare_for_create=strategy.prepare_for_create,
         prepare_for_update=strategy.prepare_deployment_for_update,
         validate=validation.validate_deployment, validate_update=validation.validate_deployment_update,
         validate_status_update=validation.validate_deployment_status_update,
         warnings_on_create=warnings.deployment_warnings_on_create,
         warnings_on_update=warnings.template_warnings_on_update,
         status_reset_fields=(("spec",), ("metadata", "labels")))
register("apps", "v1", "ReplicaSet", default=decoder("ReplicaSet", defaults.set_defaults_replica_set),
         prepare_for_create=strategy.prepare_for_create, prepare_for_update=strategy.prepare_for_update,
         validate=validation.validate_replica_set, validate_update=validation.validate_replica_set_update,
         validate_status_update=validation.validate_replica_set_status_update,
         warnings_on_create=warnings.deployment_warnings_on_create,
         warnings_on_update=warnings.template_warnings_on_update)
register("apps", "v1", "StatefulSet", default=decoder("StatefulSet", defaults.set_defaults_stateful_set),
         prepare_for_create=strategy.prepare_stateful_set_for_create,
         prepare_for_update=strategy.prepare_stateful_set_for_update,
         validate=validation.validate_stateful_set, validate_update=validation.validate_stateful_set_update,
         validate_status_update=validation.validate_stateful_set_status_update,
         warnings_on_create=warnings.stateful_set_warnings_on_create,
         warnings_on_update=warnings.stateful_set_warnings_on_update)
register("apps", "v1", "DaemonSet", default=decoder("DaemonSet", partial(strategy.check_annotation_fields, "DaemonSet"),
                                 defaults.set_defaults_daemon_set),
         prepare_for_create=strategy.prepare_daemon_set_for_create,
         prepare_for_update=strategy.prepare_daemon_set_for_update,
         validate=validation.validate_daemon_set, validate_update=validation.validate_daemon_set_update,
         validate_status_update=validation.validate_daemon_set_status_update,
         prepare_for_status_update=strategy.prepare_daemon_set_for_status_update,
         warnings_on_create=warnings.daemon_set_warnings_on_create,
         warnings_on_update=warnings.daemon_set_warnings_on_update)
register("apps", "v1", "ControllerRevision", prepare_for_create=no_generation,
         validate=validation.validate_controller_revision,
         validate_update=validation.validate_controller_revision_update)

