"""Legacy service-account tokens (issuer ``kubernetes/serviceaccount``: the tokens
kube-controller-manager's token controller writes into ``kubernetes.io/service-account-token``
Secrets), on fakeapi and on a real kube-apiserver given the same key files: kube's
``legacyValidator`` with ``--service-account-lookup``, and its last-used tracking.

The two servers share one etcd (kube stores JSON, fakeapi runs with ``--etcd-servers``), so the
ServiceAccount and each token's Secret are one object on both. The test signs each token with
the servers' service-account key as the token controller does (``LegacyClaims``); each case's
Secret holds its token. Compared: TokenReviews of a token accepted and of every refusal the
validator words (a claim missing, the subject not the account, the Secret gone or holding
another token, the account gone or another, the Secret marked invalid, an audience not the
API's); the warning a token of a Secret the account lists (an auto-generated one) earns on a
request it authenticates; the ``kubernetes.io/legacy-token-last-used`` label each server writes
on a Secret whose token it accepted, with its managed fields (kube-apiserver's loopback patch).
"""

from __future__ import annotations

import base64
import datetime
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from fakeapi.cluster.control_plane import Etcd, KubeAPIServer
from fakeapi.testing import ServerProcess
from fakeapi.testing.eventually import eventually

Json = dict[str, Any]
NS = "legacy-tokens"
REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
SECRETS = f"/api/v1/namespaces/{NS}/secrets"
ACCOUNTS = f"/api/v1/namespaces/{NS}/serviceaccounts"
AUTO_GENERATED_WARNING = ('299 - "Use tokens from the TokenRequest API or manually created secret-based tokens '
                          'instead of auto-generated secret-based tokens."')


class Servers:
    def __init__(self, fake: httpx.Client, real: httpx.Client, signing_key: Path, account_uid: str) -> None:
        self.fake = fake
        self.real = real
        self.signing_key = signing_key
        self.account_uid = account_uid

    def token(self, secret: str, **claims: Any) -> str:
        """A legacy token of the account ``robot`` naming ``secret`` (``LegacyClaims``), with
        ``claims`` changed (None: left out), signed as go-jose signs (RS256)."""
        payload: Json = {
            "iss": "kubernetes/serviceaccount", "sub": f"system:serviceaccount:{NS}:robot",
            "kubernetes.io/serviceaccount/namespace": NS, "kubernetes.io/serviceaccount/secret.name": secret,
            "kubernetes.io/serviceaccount/service-account.name": "robot",
            "kubernetes.io/serviceaccount/service-account.uid": self.account_uid,
        }
        payload.update(claims)
        payload = {key: value for key, value in sorted(payload.items()) if value is not None}
        key = serialization.load_pem_private_key(self.signing_key.read_bytes(), password=None)
        assert isinstance(key, rsa.RSAPrivateKey)
        signing_input = ".".join(base64.urlsafe_b64encode(json.dumps(part, separators=(",", ":")).encode())
                                 .rstrip(b"=").decode() for part in ({"alg": "RS256"}, payload))
        signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        return f"{signing_input}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"

    def secret(self, name: str, token: str, labels: dict[str, str] | None = None) -> None:
        """A token Secret holding ``token`` (created on kube, awaited on fakeapi)."""
        metadata: Json = {"name": name, "annotations": {"kubernetes.io/service-account.name": "robot"}}
        if labels:
            metadata["labels"] = labels
        response = self.real.post(SECRETS, json={
            "metadata": metadata, "type": "kubernetes.io/service-account-token",
            "data": {"token": base64.b64encode(token.encode()).decode()}})
        assert response.status_code == 201, response.text
        eventually(lambda: self.fake.get(f"{SECRETS}/{name}").status_code == 200, f"fakeapi sees Secret {name}")


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    workdir = tmp_path_factory.mktemp("legacy-tokens")
    with Etcd(workdir / "etcd") as etcd, \
            KubeAPIServer(workdir / "apiserver", etcd.client_url, "--storage-media-type=application/json") as real:
        files = real.certificates
        with ServerProcess(workdir / "fakeapi", "--controllers", "", "--etcd-servers", etcd.client_url,
                           "--service-account-issuer", real.url,
                           "--service-account-signing-key-file", str(files.service_account_key),
                           "--service-account-key-file", str(files.service_account_public_key)) as fake:
            assert real.http.post("/api/v1/namespaces", json={"metadata": {"name": NS}}).status_code == 201
            response = real.http.post(ACCOUNTS, json={"metadata": {"name": "robot"}})
            assert response.status_code == 201, response.text
            eventually(lambda: fake.http.get(f"{ACCOUNTS}/robot").status_code == 200, "fakeapi sees the account")
            yield Servers(fake.http, real.http, files.service_account_key, response.json()["metadata"]["uid"])


def _review(client: httpx.Client, token: str, **spec: Any) -> Json:
    response = client.post(REVIEWS, json={"spec": {"token": token, **spec}})
    assert response.status_code == 201, response.text
    return response.json()["status"]  # type: ignore[no-any-return]


def test_reviews(servers: Servers) -> None:
    """Each case's review on both servers, equal, and kube's words (or user) as written here."""
    invalid_since = "kubernetes.io/legacy-token-invalid-since"
    cases: dict[str, tuple[str, dict[str, Any], Json]] = {
        # case: (the token's changed claims, the review's spec beyond the token, what kube answers)
        "accepted": ({}, {}, {"username": f"system:serviceaccount:{NS}:robot"}),
        "no-subject": ({"sub": None}, {}, {"error": "[invalid bearer token, sub claim is missing]"}),
        "no-namespace": ({"kubernetes.io/serviceaccount/namespace": None}, {},
                         {"error": "[invalid bearer token, namespace claim is missing]"}),
        "no-account-uid": ({"kubernetes.io/serviceaccount/service-account.uid": ""}, {},
                           {"error": "[invalid bearer token, serviceAccountUID claim is missing]"}),
        "other-subject": ({"sub": f"system:serviceaccount:{NS}:other"}, {},
                          {"error": "[invalid bearer token, sub claim is invalid]"}),
        "other-account-uid": ({"kubernetes.io/serviceaccount/service-account.uid": "0000"}, {},
                              {"error": f"[invalid bearer token, ServiceAccount UID ({servers.account_uid}) does not "
                                        "match claim (0000)]"}),
        "absent-account": ({"sub": f"system:serviceaccount:{NS}:ghost",
                            "kubernetes.io/serviceaccount/service-account.name": "ghost"}, {},
                           {"error": '[invalid bearer token, serviceaccounts "ghost" not found]'}),
        "other-audience": ({}, {"audiences": ["https://other.example.com"]},
                           {"error": "[invalid bearer token, token audiences [\"" + "%s" + "\"] is invalid for the "
                                     "target audiences [\"https://other.example.com\"]]"}),
        "marked-invalid": ({}, {}, {"error": f"[invalid bearer token, the token in secret {NS}/marked-invalid for "
                                             f"service account {NS}/robot has been marked invalid. Use tokens from "
                                             "the TokenRequest API or manually created secret-based tokens, or "
                                             f"remove the '{invalid_since}' label from the secret to temporarily "
                                             "allow use of this token]"}),
    }
    tokens = {}
    for case, (claims, _, _) in cases.items():
        tokens[case] = servers.token(case, **claims)
        servers.secret(case, tokens[case], {invalid_since: "2026-01-01"} if case == "marked-invalid" else None)
    # The Secret gone, or holding another token than the one presented.
    tokens["absent-secret"] = servers.token("absent-secret")
    tokens["other-token"] = servers.token("other-token")
    servers.secret("other-token", servers.token("other-token", jti="another"))
    cases["absent-secret"] = ({}, {}, {"error": "[invalid bearer token, Token has been invalidated]"})
    cases["other-token"] = ({}, {}, {"error": "[invalid bearer token, Token does not match server's copy]"})
    api_audience = servers.real.base_url.scheme + "://" + servers.real.base_url.netloc.decode()
    for case, (_, spec, expected) in cases.items():
        fake_review, real_review = _review(servers.fake, tokens[case], **spec), _review(servers.real, tokens[case], **spec)
        assert fake_review == real_review, case
        if "error" in expected:
            assert real_review.get("error") == expected["error"].replace("%s", api_audience), (case, real_review)
        else:
            assert real_review["authenticated"] is True, (case, real_review)
            assert real_review["user"] == {"username": expected["username"], "uid": servers.account_uid,
                                           "groups": ["system:serviceaccounts", f"system:serviceaccounts:{NS}",
                                                      "system:authenticated"]}, real_review


def _tracked(secret: Json) -> Json:
    """The Secret's labels and its managed fields without times (their order follows the times:
    kube sorts entries of one operation by time, then manager)."""
    entries = sorted(({key: value for key, value in entry.items() if key != "time"}
                      for entry in secret["metadata"].get("managedFields", ())), key=lambda entry: entry["manager"])
    return {"labels": secret["metadata"].get("labels"), "managedFields": entries}


def test_auto_generated_warning_and_last_used_label(servers: Servers) -> None:
    """A Secret the account lists (as the token controller lists the ones it made): a request
    its token authenticates earns kube's warning (on every request: kube's token cache replays
    it). Each server labels the Secret it accepted a token of with today's date (UTC), once."""
    for who in ("fake", "real"):
        servers.secret(f"auto-{who}", servers.token(f"auto-{who}"))
    account = servers.real.get(f"{ACCOUNTS}/robot").json()
    account["secrets"] = [{"name": "auto-fake"}, {"name": "auto-real"}]
    assert servers.real.put(f"{ACCOUNTS}/robot", json=account).status_code == 200
    eventually(lambda: len(servers.fake.get(f"{ACCOUNTS}/robot").json().get("secrets", ())) == 2,
               "fakeapi sees the account's Secrets")
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    for who, client in (("fake", servers.fake), ("real", servers.real)):
        token = servers.token(f"auto-{who}")
        for _ in range(2):
            response = client.get(f"{ACCOUNTS}/robot", headers={"Authorization": f"Bearer {token}"})
            assert response.status_code == 200, (who, response.text)
            assert response.headers.get_list("warning") == [AUTO_GENERATED_WARNING], (who, response.headers)
    def labelled(name: str) -> Json | None:
        secret: Json = servers.real.get(f"{SECRETS}/{name}").json()
        return secret if secret["metadata"].get("labels") else None

    fake_secret = eventually(lambda: labelled("auto-fake"), "kube sees fakeapi's label")
    real_secret = eventually(lambda: labelled("auto-real"), "kube's label")
    assert _tracked(fake_secret) == _tracked(real_secret)
    assert real_secret["metadata"]["labels"] == {"kubernetes.io/legacy-token-last-used": today}
    assert {"manager": "kube-apiserver", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:kubernetes.io/legacy-token-last-used": {}}}}} \
        in _tracked(real_secret)["managedFields"]
