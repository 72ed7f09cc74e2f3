"""The authorization.k8s.io reviews (kube's ``pkg/registry/authorization``), answered by the
server's authorizer (``fakeapi.registry.authorization``: AlwaysAllow, or RBAC) exactly as it
decides requests: an access review asks it about the attributes in its spec (for the requester,
or the user it names), a rules review lists the rules it resolves for the requester in a
namespace. ``kubectl auth can-i`` (with ``--list``: the rules review) calls them.

Around the decision, kube's rules: validation (``pkg/apis/authorization/validation``), the
namespace rules of the local review, an empty version meaning every version, and the
``evaluationError`` a selector that does not parse earns (the authorizer is asked with what could
be parsed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..apis.authorization import validation
from ..machinery.selectors import FieldSelector, label_selector_as_selector, parse_label_selector
from ..machinery.status import FieldError, StatusError, bad_request, invalid
from ..auth.authentication import UserInfo
from ..auth.authorization import Attributes, Authorizer, Decision
from .create_only import BodyType, CreateOnly, CreateRequest

Json = dict[str, Any]

_GROUP = "authorization.k8s.io"
_FIELD_OPERATORS = ("In", "NotIn")
_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def _answered(review: Json, user: UserInfo, authorizer: Authorizer) -> Json:
    """The review with the authorizer's answer about its attributes for ``user`` as status."""
    spec = review.get("spec") or {}
    resource = spec.get("resourceAttributes")
    if resource is not None:
        attributes = Attributes(
            user, resource.get("verb", ""), True, api_group=resource.get("group", ""),
            api_version=resource.get("version") or "*", namespace=resource.get("namespace", ""),
            resource=resource.get("resource", ""), subresource=resource.get("subresource", ""),
            name=resource.get("name", ""))
    else:
        non_resource = spec.get("nonResourceAttributes") or {}
        attributes = Attributes(user, non_resource.get("verb", ""), False, path=non_resource.get("path", ""))
    verdict = authorizer.authorize(attributes)
    status: Json = {"allowed": verdict.decision is Decision.ALLOW}
    if verdict.decision is Decision.DENY:
        status["denied"] = True
    if verdict.reason:
        status["reason"] = verdict.reason
    error = _evaluation_error(verdict.error, resource) if resource is not None else verdict.error
    if error:
        status["evaluationError"] = error
    review["status"] = status
    return review


def _evaluation_error(error: str, resource: Json) -> str:
    """``BuildEvaluationError``: the authorizer's error, then the selectors that did not parse
    (``partially ignored`` when some of their requirements did)."""
    errors = [error] if error else []
    for name, parse in (("fieldSelector", _field_requirements), ("labelSelector", _label_requirements)):
        selector = resource.get(name)
        if selector is None:
            continue
        parsed, failed = parse(selector)
        if failed:
            errors.append(f"spec.resourceAttributes.{name} {'partially ' if parsed else ''}ignored due to parse error")
    return "; ".join(errors)


def _field_requirements(selector: Json) -> tuple[int, bool]:
    """How many requirements of a field selector parse, and whether any failed (the raw
    selector wins over requirements only when it is given alone: requirements override it)."""
    requirements = selector.get("requirements") or []
    if requirements:
        parsed = sum(1 for r in requirements if r.get("operator") in _FIELD_OPERATORS and len(r.get("values") or ()) == 1)
        return parsed, parsed < len(requirements)
    try:
        FieldSelector.parse(selector.get("rawSelector", ""))
    except StatusError:
        return 0, True
    return 0, False


def _label_requirements(selector: Json) -> tuple[int, bool]:
    requirements = selector.get("requirements") or []
    if requirements:
        parsed = 0
        for requirement in requirements:
            if requirement.get("operator") not in _LABEL_OPERATORS:
                continue
            try:
                label_selector_as_selector({"matchExpressions": [requirement]})
            except ValueError:
                continue
            parsed += 1
        return parsed, parsed < len(requirements)
    try:
        parse_label_selector(selector.get("rawSelector", ""))
    except StatusError:
        return 0, True
    return 0, False


class _AccessReviews(CreateOnly):
    """An access review storage: validated (422 Invalid of a kind-less ``authorization.k8s.io``
    object, as kube's internal objects have no kind), then answered by the authorizer."""

    answers_request = True
    zero_object = {"metadata": {"creationTimestamp": None}, "spec": {}, "status": {"allowed": False}}
    validate: Callable[[Json], list[FieldError]]

    def __init__(self, authorizer: Authorizer) -> None:
        self._authorizer = authorizer

    def create(self, request: CreateRequest) -> Json:
        review = request.body
        errors = self.validate(review)
        if errors:
            raise invalid(_GROUP, "", "", errors)
        self._check_namespace(review, request.namespace)
        return _answered(review, self._subject(review, request), self._authorizer)

    def _subject(self, review: Json, request: CreateRequest) -> UserInfo:
        """Whom the review asks about: the user its spec names (``AuthorizationAttributesFrom``)."""
        spec = review.get("spec") or {}
        extra = spec.get("extra") or {}
        return UserInfo(spec.get("user", ""), spec.get("uid", ""), tuple(spec.get("groups") or ()),
                        {key: tuple(values or ()) for key, values in extra.items()})

    def _check_namespace(self, review: Json, namespace: str | None) -> None:
        """Refuse a review that does not fit the request's namespace."""


class SubjectAccessReviews(_AccessReviews):
    body_type = BodyType(_GROUP, ("v1",), "SubjectAccessReview")
    validate = staticmethod(validation.validate_subject_access_review)


class SelfSubjectAccessReviews(_AccessReviews):
    body_type = BodyType(_GROUP, ("v1",), "SelfSubjectAccessReview")
    validate = staticmethod(validation.validate_self_subject_access_review)

    def _subject(self, review: Json, request: CreateRequest) -> UserInfo:
        return request.user()


class LocalSubjectAccessReviews(_AccessReviews):
    body_type = BodyType(_GROUP, ("v1",), "LocalSubjectAccessReview")
    validate = staticmethod(validation.validate_local_subject_access_review)
    namespace_lifecycle = False

    def _check_namespace(self, review: Json, namespace: str | None) -> None:
        resource = (review.get("spec") or {}).get("resourceAttributes")
        if resource is not None and resource.get("namespace", "") != namespace:
            raise bad_request(f"spec.resourceAttributes.namespace must match namespace: {namespace}")


class SelfSubjectRulesReviews(CreateOnly):
    """``selfsubjectrulesreviews``: a new object with the requester's rules in the namespace
    alone (the request's spec is not echoed)."""

    body_type = BodyType(_GROUP, ("v1",), "SelfSubjectRulesReview")

    def __init__(self, authorizer: Authorizer) -> None:
        self._authorizer = authorizer

    def create(self, request: CreateRequest) -> Json:
        namespace = (request.body.get("spec") or {}).get("namespace")
        if not namespace:
            raise bad_request("no namespace on request")
        rules = self._authorizer.rules_for(request.user(), namespace)
        status: Json = {"resourceRules": [rule.to_json() for rule in rules.resource],
                        "nonResourceRules": [rule.to_json() for rule in rules.non_resource],
                        "incomplete": rules.incomplete}
        if rules.error:
            status["evaluationError"] = rules.error
        return {"kind": "SelfSubjectRulesReview", "apiVersion": f"{_GROUP}/v1", "metadata": {}, "spec": {},
                "status": status}
