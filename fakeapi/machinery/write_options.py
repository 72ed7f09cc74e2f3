"""The options of a create, update or patch from its query (``CreateOptions``, ``UpdateOptions``,
``PatchOptions``), checked as the handlers check them right after reading the body
(``ValidateCreateOptions`` / ``ValidateUpdateOptions`` / ``ValidatePatchOptions``): every error
in one 422 named after the options' kind."""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from .field_validation import FieldValidation, OptionsKind, field_validation_error
from .status import invalid
from .validation import validate_field_manager

APPLY_PATCH = "application/apply-patch+yaml"
#: ``allowedDryRunValues``.
_DRY_RUN_VALUES = ("All",)


def validate_write_options(kind: OptionsKind, query: Mapping[str, str] | object, *,
                           patch_type: str | None = None) -> tuple[FieldValidation, bool]:
    """``fieldValidation`` and whether the write is a dry run; a patch's ``force`` and apply's
    required ``fieldManager`` too. ``query`` is the request's query parameters (a Starlette
    ``QueryParams``: ``getlist`` gives every ``dryRun``)."""
    get = query.get  # type: ignore[attr-defined]
    manager = get("fieldManager") or ""
    errors: list[tuple[str, str, str]] = []
    if patch_type is not None:
        if patch_type != APPLY_PATCH and "force" in query:  # type: ignore[operator]
            errors.append(("force", "FieldValueForbidden", "Forbidden: may not be specified for non-apply patch"))
        if patch_type == APPLY_PATCH and not manager:
            errors.append(("fieldManager", "FieldValueRequired", "Required value: is required for apply patch"))
    errors += validate_field_manager(manager, "fieldManager")
    dry_run: list[str] = query.getlist("dryRun")  # type: ignore[attr-defined]
    if any(value not in _DRY_RUN_VALUES for value in dry_run):
        errors.append(("dryRun", "FieldValueNotSupported", f"Unsupported value: {orjson.dumps(dry_run).decode()}: "
                                                           'supported values: "All"'))
    policy = get("fieldValidation")
    policy_error = field_validation_error(policy)
    if policy_error is not None:
        errors.append(policy_error)
    if errors:
        raise invalid("meta.k8s.io", kind, "", errors)
    return FieldValidation(policy or FieldValidation.WARN), bool(dry_run)
