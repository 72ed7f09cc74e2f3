"""``pkg/apis/authentication/v1/defaults.go``."""

from __future__ import annotations

from typing import Any

#: ``SetDefaults_TokenRequestSpec``: a token lives an hour unless asked otherwise.
DEFAULT_EXPIRATION_SECONDS = 60 * 60


def default_token_request(obj: dict[str, Any]) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    if spec.get("expirationSeconds") is None:
        spec["expirationSeconds"] = DEFAULT_EXPIRATION_SECONDS
