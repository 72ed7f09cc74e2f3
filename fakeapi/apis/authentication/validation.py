"""``pkg/apis/authentication/validation``."""

from __future__ import annotations

from typing import Any

from ...machinery.status import FieldError, invalid_error

#: ``MinTokenAgeSec``: ten minutes.
MIN_TOKEN_AGE_SECONDS = 10 * 60
MAX_TOKEN_AGE_SECONDS = 1 << 32


def validate_token_request(request: dict[str, Any]) -> list[FieldError]:
    """``ValidateTokenRequest``."""
    seconds = request["spec"]["expirationSeconds"]
    errors = []
    if seconds < MIN_TOKEN_AGE_SECONDS:
        errors.append(invalid_error("spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes"))
    if seconds > MAX_TOKEN_AGE_SECONDS:
        errors.append(invalid_error("spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"))
    return errors
