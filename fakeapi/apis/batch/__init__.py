"""The batch group (kube's ``pkg/apis/batch``): Jobs and CronJobs."""

from __future__ import annotations

from ...machinery.delete_options import ORPHAN
from ..decoding import decoder
from ..rules import register
from . import defaults, strategy, validation

register("batch", "v1", "Job", default=decoder("Job", defaults.set_defaults_job),
         prepare_for_create=strategy.prepare_job_for_create, prepare_for_update=strategy.prepare_job_for_update,
         validate=validation.validate_job, validate_update=validation.validate_job_update,
         validate_status_update=validation.validate_job_status_update,
         warnings_on_create=strategy.job_warnings_on_create, warnings_on_update=strategy.job_warnings_on_update,
         # batch/v1 keeps Jobs' pods by default, for compatibility (job.Strategy's
         # DefaultGarbageCollectionPolicy), and says so (job/storage).
         default_propagation_policy=ORPHAN,
         first_update_writes=strategy.job_first_update_writes,
         default_propagation_warning=(
             "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to "
             "remove them or set propagationPolicy=Orphan to suppress this warning"))
register("batch", "v1", "CronJob", default=decoder("CronJob", defaults.set_defaults_cron_job),
         prepare_for_create=strategy.prepare_cron_job_for_create,
         prepare_for_update=strategy.prepare_cron_job_for_update,
         validate=validation.validate_cron_job, validate_update=validation.validate_cron_job_update,
         validate_status_update=validation.validate_cron_job_status_update,
         warnings_on_create=strategy.cron_job_warnings_on_create,
         warnings_on_update=strategy.cron_job_warnings_on_update)
