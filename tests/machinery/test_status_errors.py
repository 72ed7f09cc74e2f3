"""Status errors against what kube-apiserver sends.

Every expected body below was produced by apimachinery v0.32.13's constructors (``errors.go``)
marshalled with Go's ``encoding/json``, after ``ErrorToAPIStatus`` set kind and apiVersion; they are
compared as JSON text, so key order and omitted empty fields count too.
"""

from __future__ import annotations

import json

import pytest

from fakeapi.machinery import status
from fakeapi.machinery.golang import go_quote
from fakeapi.machinery.status import StatusError

FAILURE = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'


def body(err: StatusError) -> str:
    return json.dumps(err.to_dict(), separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize(("err", "expected"), [
    (status.not_found("", "pods", "x"),
     FAILURE + '"message":"pods \\"x\\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}'),
    (status.not_found("apps", "deployments", "web"),
     FAILURE + '"message":"deployments.apps \\"web\\" not found","reason":"NotFound",'
     '"details":{"name":"web","group":"apps","kind":"deployments"},"code":404}'),
    (status.not_found("", "", ""),
     FAILURE + '"message":" \\"\\" not found","reason":"NotFound","details":{},"code":404}'),
    (status.not_found_path(),
     FAILURE + '"message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}'),
    (status.already_exists("apps", "deployments", "x"),
     FAILURE + '"message":"deployments.apps \\"x\\" already exists","reason":"AlreadyExists",'
     '"details":{"name":"x","group":"apps","kind":"deployments"},"code":409}'),
    (status.generate_name_conflict("", "pods", "x-abcde"),
     FAILURE + '"message":"pods \\"x-abcde\\" already exists, the server was not able to generate a unique name for '
     'the object","reason":"AlreadyExists","details":{"name":"x-abcde","kind":"pods","retryAfterSeconds":1},"code":409}'),
    (status.conflict("", "pods", "x", status.OPTIMISTIC_LOCK_MESSAGE),
     FAILURE + '"message":"Operation cannot be fulfilled on pods \\"x\\": the object has been modified; please apply '
     'your changes to the latest version and try again","reason":"Conflict","details":{"name":"x","kind":"pods"},"code":409}'),
    (status.bad_request("nope"), FAILURE + '"message":"nope","reason":"BadRequest","code":400}'),
    (status.method_not_supported("apps", "deployments", "create"),
     FAILURE + '"message":"create is not supported on resources of kind \\"deployments.apps\\"","reason":"MethodNotAllowed",'
     '"details":{"group":"apps","kind":"deployments"},"code":405}'),
    (status.forbidden("", "pods", "x", "no"),
     FAILURE + '"message":"pods \\"x\\" is forbidden: no","reason":"Forbidden","details":{"name":"x","kind":"pods"},"code":403}'),
    (status.forbidden("", "pods", "", "no"),
     FAILURE + '"message":"pods is forbidden: no","reason":"Forbidden","details":{"kind":"pods"},"code":403}'),
    (status.forbidden("", "", "", "no"),
     FAILURE + '"message":"forbidden: no","reason":"Forbidden","details":{},"code":403}'),
    (status.resource_expired("too old"), FAILURE + '"message":"too old","reason":"Expired","code":410}'),
    (status.timeout("slow", 3),
     FAILURE + '"message":"Timeout: slow","reason":"Timeout","details":{"retryAfterSeconds":3},"code":504}'),
    (status.too_many_requests("busy", 7),
     FAILURE + '"message":"busy","reason":"TooManyRequests","details":{"retryAfterSeconds":7},"code":429}'),
    (status.internal_error("boom"),
     FAILURE + '"message":"Internal error occurred: boom","reason":"InternalError","details":{"causes":[{"message":"boom"}]},'
     '"code":500}'),
    (status.request_entity_too_large("limit is 3145728"),
     FAILURE + '"message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}'),
])
def test_constructors_match_apimachinery(err: StatusError, expected: str) -> None:
    assert body(err) == expected


def test_names_are_quoted_like_go() -> None:
    err = status.not_found("apps", "deployments", 'we"ird\n\u00e9\x01')
    assert err.message == 'deployments.apps "we\\"ird\\n\u00e9\\x01" not found'
    assert go_quote("tab\there\u2028\U0001f600\x7f") == '"tab\\there\\u2028\U0001f600\\x7f"'


def test_invalid_aggregates_field_errors_like_new_invalid() -> None:
    one = status.invalid("", "Pod", "p", [("metadata.name", "FieldValueRequired", "Required value")])
    assert one.code == 422 and one.reason == "Invalid"
    assert one.message == 'Pod "p" is invalid: metadata.name: Required value'
    repeated = status.invalid("apps", "Deployment", "d", [
        ("a", "FieldValueRequired", "Required value"),
        ("a", "FieldValueRequired", "Required value"),
        ("b", "FieldValueForbidden", "Forbidden"),
    ])
    # repeats are dropped from the message but kept as causes, as upstream does
    assert body(repeated) == (
        FAILURE + '"message":"Deployment.apps \\"d\\" is invalid: [a: Required value, b: Forbidden]","reason":"Invalid",'
        '"details":{"name":"d","group":"apps","kind":"Deployment","causes":['
        '{"reason":"FieldValueRequired","message":"Required value","field":"a"},'
        '{"reason":"FieldValueRequired","message":"Required value","field":"a"},'
        '{"reason":"FieldValueForbidden","message":"Forbidden","field":"b"}]},"code":422}'
    )
    assert status.invalid("apps", "Deployment", "d", []).message == 'Deployment.apps "d" is invalid'


def test_too_large_resource_version_is_the_watch_caches_timeout() -> None:
    err = status.too_large_resource_version(12, 10)
    assert body(err) == (
        FAILURE + '"message":"Timeout: Too large resource version: 12, current: 10","reason":"Timeout",'
        '"details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],'
        '"retryAfterSeconds":1},"code":504}'
    )
    assert err.retry_after_seconds == 1


def test_negotiation_errors() -> None:
    unsupported = status.unsupported_media_type(accepted=("application/json", "application/yaml"))
    assert (unsupported.code, unsupported.reason) == (415, "UnsupportedMediaType")
    assert unsupported.message == (
        "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml"
    )
    not_acceptable = status.not_acceptable(accepted=("application/json",))
    assert (not_acceptable.code, not_acceptable.reason) == (406, "NotAcceptable")
    assert not_acceptable.message == "only the following media types are accepted: application/json"
    assert "details" not in unsupported.to_dict() and "details" not in not_acceptable.to_dict()


def test_continue_token_goes_in_metadata() -> None:
    err = status.resource_expired("The provided continue parameter is too old")
    err.continue_token = "abc"
    assert err.to_dict()["metadata"] == {"continue": "abc"}


def test_status_error_is_an_exception_with_its_message() -> None:
    err = status.bad_request("nope")
    assert str(err) == "nope" and err.code == 400 and err.retry_after_seconds == 0
    with pytest.raises(StatusError):
        raise err
