"""authentication.k8s.io: TokenRequest (``serviceaccounts/token``), TokenReview and
SelfSubjectReview are never stored; TokenRequest's defaulting is registered for the decoding of
its bodies, its validation is called by its REST storage (``fakeapi.registry.token_request``)."""

from ..rules import register
from .defaults import default_token_request

register("authentication.k8s.io", "v1", "TokenRequest", default=default_token_request)
