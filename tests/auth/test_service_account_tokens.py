"""Service-account tokens over time, which the differential suite cannot wait for: expiry, the
leeway, the 10 s success cache (``fakeapi.auth.authentication``)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.auth.authentication import SUCCESS_CACHE_SECONDS, Authenticator, UserInfo
from fakeapi.auth.authorization import AlwaysAllow
from fakeapi.auth.impersonation import impersonate
from fakeapi.auth.serviceaccount_tokens import LEEWAY_SECONDS, TokenSigner

ISSUER = "https://kubernetes.default.svc.cluster.local"
ACCOUNT = {"metadata": {"name": "robot", "namespace": "ns", "uid": "robot-uid"}}


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def objects() -> dict[tuple[str, str | None, str], Any]:
    return {("ServiceAccount", "ns", "robot"): ACCOUNT}


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def authenticator(objects: dict[tuple[str, str | None, str], Any], clock: Clock) -> Authenticator:
    def lookup(group: str, kind: str, namespace: str | None, name: str) -> Any:
        return objects.get((kind, namespace, name))
    return Authenticator(TokenSigner((ISSUER,)), lookup, (ISSUER,), clock=clock)


def _token(authenticator: Authenticator, clock: Clock, seconds: int = 600) -> str:
    signer = authenticator.signer
    return signer.sign(signer.claims(namespace="ns", service_account=ACCOUNT, audiences=[ISSUER], now=int(clock.now),
                                     expiration_seconds=seconds))


def test_a_token_expires_after_its_lifetime_and_the_leeway(authenticator: Authenticator, clock: Clock) -> None:
    token = _token(authenticator, clock)
    clock.now += 600 + LEEWAY_SECONDS
    found = authenticator.authenticate_token(token)
    assert found.user is not None and found.user.name == "system:serviceaccount:ns:robot"
    clock.now += SUCCESS_CACHE_SECONDS + 1  # past the cache, and past the leeway
    assert authenticator.authenticate_token(token).error == "[invalid bearer token, service account token has expired]"


def test_a_token_from_the_future_is_not_valid_yet(authenticator: Authenticator, clock: Clock) -> None:
    clock.now += LEEWAY_SECONDS + 5
    token = _token(authenticator, clock)
    clock.now -= LEEWAY_SECONDS + 5
    assert authenticator.authenticate_token(token).error == "[invalid bearer token, service account token is not valid yet]"


def test_success_is_remembered_for_ten_seconds(authenticator: Authenticator, clock: Clock,
                                               objects: dict[tuple[str, str | None, str], Any]) -> None:
    token = _token(authenticator, clock)
    assert authenticator.authenticate_token(token).user is not None
    del objects[("ServiceAccount", "ns", "robot")]
    clock.now += SUCCESS_CACHE_SECONDS - 1
    assert authenticator.authenticate_token(token).user is not None
    clock.now += 2
    assert authenticator.authenticate_token(token).error == '[invalid bearer token, serviceaccounts "robot" not found]'


def test_a_recreated_account_does_not_accept_old_tokens(authenticator: Authenticator, clock: Clock,
                                                         objects: dict[tuple[str, str | None, str], Any]) -> None:
    token = _token(authenticator, clock)
    objects[("ServiceAccount", "ns", "robot")] = {"metadata": {**ACCOUNT["metadata"], "uid": "new-uid"}}
    assert authenticator.authenticate_token(token).error == \
        "[invalid bearer token, service account UID (new-uid) does not match claim (robot-uid)]"


def test_impersonating_keeps_extra_in_header_order() -> None:
    admin = UserInfo("admin", "admin-uid", ("system:masters", "system:authenticated"))
    user = impersonate(admin, [("impersonate-user", "jane"), ("impersonate-extra-scopes", "b"),
                                ("impersonate-extra-scopes", "a"), ("impersonate-extra-example.com%2fteam", "x")], AlwaysAllow())
    assert user.to_json() == {"username": "jane", "groups": ["system:authenticated"],
                              "extra": {"example.com/team": ["x"], "scopes": ["b", "a"]}}
    assert impersonate(admin, [("accept", "*/*")], AlwaysAllow()) is admin
