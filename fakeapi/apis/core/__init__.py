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
    PodValidationOptions,
    pod_template_validation_options,
    pod_validation_options,
    validate_pod_spec,
    validate_pod_specific_annotations,
    validate_pod_template_spec,
)
from .validation_storage import (
    ClaimSpecValidationOptions,
    claim_validation_options,
    validate_persistent_volume_claim_spec,
)

__all__ = [
    "ClaimSpecValidationOptions", "PodValidationOptions", "claim_validation_options", "decoding",
    "pod_template_validation_options", "pod_validation_options", "set_defaults_persistent_volume_claim_spec",
    "set_defaults_pod_spec", "set_defaults_pod_template_spec", "validate_persistent_volume_claim_spec",
    "validate_pod_spec", "validate_pod_specific_annotations", "validate_pod_template_spec",
]
