"""What the workload groups (apps, batch) use of the core group's rules for the pod templates
and volume claim templates they embed: kube's ``pkg/apis/core/v1`` defaulting,
``pkg/apis/core/validation`` and ``pkg/api/pod`` (validation options), plus the name warning
their strategies share."""

from __future__ import annotations

from typing import Any

from ..machinery.status import FieldError
from ..machinery.validation import is_dns1123_label
from .core import (
    PodValidationOptions,
    claim_validation_options,
    pod_template_validation_options,
    set_defaults_pod_template_spec,
    validate_persistent_volume_claim_spec,
    validate_pod_specific_annotations,
    validate_pod_template_spec,
)
from .core.defaults import set_defaults_persistent_volume_claim
from .core.warnings import claim_spec_warnings, warnings_for_pod_template

Json = dict[str, Any]

__all__ = [
    "PodValidationOptions",
    "claim_spec_warnings",
    "pod_template_validation_options",
    "set_defaults_persistent_volume_claim",
    "set_defaults_pod_template_spec",
    "validate_claim_template_spec",
    "validate_pod_specific_annotations",
    "validate_pod_template_spec",
    "warnings_for_pod_template",
]


def validate_claim_template_spec(spec: Json, path: str) -> list[FieldError]:
    """A StatefulSet's volume claim template: ``ValidatePersistentVolumeClaimSpec`` with the
    options of a new claim (``ValidationOptionsForPersistentVolumeClaimCreate``)."""
    return validate_persistent_volume_claim_spec(spec, path, claim_validation_options(None))


def name_warnings(name: str) -> list[str]:
    """``WarningsOnCreate`` of the controllers whose name starts their pods' names."""
    problems = is_dns1123_label(name)
    if not problems:
        return []
    return ["metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; "
            f"a DNS label is recommended: [{' '.join(problems)}]"]
