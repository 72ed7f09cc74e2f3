"""The authorization.k8s.io reviews (kube's ``pkg/registry/authorization``), answered as
kube-apiserver answers them with ``--authorization-mode=AlwaysAllow`` — the mode fakeapi serves
in: every request is allowed, so every access review is ``allowed`` and a rules review lists
``*`` on everything. ``kubectl auth can-i`` (with ``--list``: the rules review) calls them.

What is not a yes or no is kube's still: validation (``pkg/apis/authorization/validation``), the
namespace rules of the local review, and the ``evaluationError`` a selector that does not parse
earns (the authorizer is asked with what could be parsed).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..apis.authorization import validation
from ..machinery.selectors import FieldSelector, label_selector_as_selector, parse_label_selector
from ..machinery.status import FieldError, StatusError, bad_request, invalid
from .virtual import BodyType, CreateOnly, CreateRequest

Json = dict[str, Any]

_GROUP = "authorization.k8s.io"
#: ``alwaysAllowAuthorizer.RulesFor``.
_ALL_RULES: Json = {
    "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
    "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
    "incomplete": False,
}
_FIELD_OPERATORS = ("In", "NotIn")
_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def _allowed(review: Json) -> Json:
    """The review answered: allowed, with the selector parse errors kube reports."""
    status: Json = {"allowed": True}
    resource = (review.get("spec") or {}).get("resourceAttributes")
    error = _evaluation_error(resource) if resource is not None else ""
    if error:
        status["evaluationError"] = error
    review["status"] = status
    return review


def _evaluation_error(resource: Json) -> str:
    """``BuildEvaluationError`` for an authorizer that never errs: the selectors that did not
    parse (``partially ignored`` when some of their requirements did)."""
    errors = []
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
    object, as kube's internal objects have no kind), then allowed."""

    answers_request = True
    zero_object = {"metadata": {"creationTimestamp": None}, "spec": {}, "status": {"allowed": False}}
    validate: Callable[[Json], list[FieldError]]

    def create(self, request: CreateRequest) -> Json:
        review = request.body
        errors = self.validate(review)
        if errors:
            raise invalid(_GROUP, "", "", errors)
        self._check_namespace(review, request.namespace)
        return _allowed(review)

    def _check_namespace(self, review: Json, namespace: str | None) -> None:
        """Refuse a review that does not fit the request's namespace."""


class SubjectAccessReviews(_AccessReviews):
    body_type = BodyType(_GROUP, ("v1",), "SubjectAccessReview")
    validate = staticmethod(validation.validate_subject_access_review)


class SelfSubjectAccessReviews(_AccessReviews):
    body_type = BodyType(_GROUP, ("v1",), "SelfSubjectAccessReview")
    validate = staticmethod(validation.validate_self_subject_access_review)


class LocalSubjectAccessReviews(_AccessReviews):
    body_type = BodyType(_GROUP, ("v1",), "LocalSubjectAccessReview")
    validate = staticmethod(validation.validate_local_subject_access_review)
    namespace_lifecycle = False

    def _check_namespace(self, review: Json, namespace: str | None) -> None:
        resource = (review.get("spec") or {}).get("resourceAttributes")
        if resource is not None and resource.get("namespace", "") != namespace:
            raise bad_request(f"spec.resourceAttributes.namespace must match namespace: {namespace}")


class SelfSubjectRulesReviews(CreateOnly):
    """``selfsubjectrulesreviews``: a new object with the rules alone (the request's spec is not
    echoed)."""

    body_type = BodyType(_GROUP, ("v1",), "SelfSubjectRulesReview")

    def create(self, request: CreateRequest) -> Json:
        if not (request.body.get("spec") or {}).get("namespace"):
            raise bad_request("no namespace on request")
        return {"kind": "SelfSubjectRulesReview", "apiVersion": f"{_GROUP}/v1", "metadata": {}, "spec": {},
                "status": copy.deepcopy(_ALL_RULES)}
