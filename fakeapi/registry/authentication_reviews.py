"""The authentication.k8s.io APIs that say who one is: ``SelfSubjectReview`` and ``TokenReview``
(kube's ``pkg/registry/authentication``), answered by the server's authenticator."""

from __future__ import annotations

from typing import Any

from ..auth.authentication import Authenticator
from ..machinery import metadata
from ..machinery.status import bad_request
from .create_only import BodyType, CreateOnly, CreateRequest

Json = dict[str, Any]


class SelfSubjectReviews(CreateOnly):
    """``selfsubjectreviews``: the requester, as ``SelfSubjectReview`` status."""

    body_type = BodyType("authentication.k8s.io", ("v1",), "SelfSubjectReview")

    def create(self, request: CreateRequest) -> Json:
        return {
            "kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": metadata.now_rfc3339()},
            "status": {"userInfo": request.user().to_json()},
        }


class TokenReviews(CreateOnly):
    """``tokenreviews``: what the token authenticators say of ``spec.token``."""

    body_type = BodyType("authentication.k8s.io", ("v1",), "TokenReview")
    answers_request = True
    zero_object = {"metadata": {"creationTimestamp": None}, "spec": {}, "status": {"user": {}}}

    def __init__(self, authenticator: Authenticator) -> None:
        self._authenticator = authenticator

    def create(self, request: CreateRequest) -> Json:
        review = request.body
        spec = review.get("spec") or {}
        if not spec.get("token"):
            raise bad_request("token is required for TokenReview in authentication")
        found = self._authenticator.authenticate_token(spec["token"], spec.get("audiences") or ())
        status: Json = {}
        if found.user is not None:
            status["authenticated"] = True
        status["user"] = found.user.to_json() if found.user is not None else {}
        if found.user is not None:
            status["audiences"] = list(found.audiences)
        if found.error:
            status["error"] = found.error
        review["status"] = status
        return review
