"""The bad-request corpus (``bad-requests/*.yaml``, see ``bad_requests.py``) against fakeapi and
the real kube-apiserver: every case must get the same answer from both (status code, reason,
message, causes, body, ``Warning`` headers, the media type and ``Retry-After`` of the answer),
kube's answer must still be the one the corpus recorded, and a request fakeapi refuses must
leave its store's revision where it was. fakeapi never answers a client's mistake with a 500
kube does not send itself.

The store's revision is read from a consistent LIST (its resourceVersion is the store's current
revision), on fakeapi only: kube-apiserver's own writers (its identity Lease, endpoint
reconcilers) move the oracle's."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from bad_requests import NAMESPACE, BadRequest, create_fixtures, load
from differ import Outcome, Pair, known_differences

CASES = load()
#: Headers whose values must match besides the body (the media type only, without parameters).
_COMPARED_HEADERS = ("content-type", "retry-after")


@pytest.fixture(scope="module")
def corpus_pair(pair: Pair) -> Iterator[Pair]:
    for client in (pair.fake, pair.real):
        create_fixtures(client)
    yield pair
    for client in (pair.fake, pair.real):  # the fixtures go, the Widget CRD too (other modules read discovery)
        client.delete(f"/api/v1/namespaces/{NAMESPACE}")
        client.delete("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.kasdiff.example.com")


def store_revision(client: httpx.Client) -> int:
    response = client.get("/api/v1/namespaces", params={"limit": 1})
    assert response.status_code == 200, response.text
    return int(response.json()["metadata"]["resourceVersion"])


def _header(outcome: Outcome, name: str) -> tuple[str | None, str | None]:
    def value(headers: httpx.Headers) -> str | None:
        text = headers.get(name)
        return text.split(";")[0].strip().lower() if text is not None and name == "content-type" else text

    return value(outcome.fake.headers), value(outcome.real.headers)


def test_corpus_size() -> None:
    """The issue asks for at least 300 bad requests."""
    assert len(CASES) >= 300, len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.case for case in CASES])
def test_bad_request(corpus_pair: Pair, case: BadRequest) -> None:
    pair = corpus_pair
    before = store_revision(pair.fake)
    outcome = pair.send(case.case, case.resource, case.method.lower(), case.method, case.path, body=case.body,
                        content_type=None, headers=case.headers)
    if case.cleanup:
        for client in (pair.fake, pair.real):
            client.delete(case.cleanup)
    for name in _COMPARED_HEADERS:
        fake, real = _header(outcome, name)
        if fake != real:
            outcome.differences.append(f"{name} header: fakeapi {fake!r} != kube {real!r}")
    real_reason = outcome.real.body.get("reason", "") if isinstance(outcome.real.body, dict) else ""
    assert case.expect is not None, f"{case.case}: no expect (run bad_requests.py --record)"
    assert (outcome.real.status, real_reason) == case.expect, (
        f"{case.case} ({case.file}): kube-apiserver now answers {outcome.real.status} {real_reason}, "
        f"the corpus says {case.expect}: update the corpus")
    found = [f"{outcome.verb}: {d}" for d in outcome.differences]
    known = known_differences().get(case.case, [])
    unexpected = [d for d in found if d not in known]
    gone = [d for d in known if d not in found]
    # Both answers whole: a difference the differ shortens (lists of other lengths) is read here.
    assert not unexpected, (f"{case.case} ({case.file}) differs from kube-apiserver:\n" + "\n".join(unexpected)
                            + f"\nfakeapi answered {outcome.fake.body!r}\nkube answered {outcome.real.body!r}")
    assert not gone, f"{case.case}: known differences no longer happen, remove them:\n" + "\n".join(gone)
    if outcome.fake.status >= 400 and not case.cleanup:
        assert store_revision(pair.fake) == before, f"{case.case}: refused, but fakeapi's store changed"
