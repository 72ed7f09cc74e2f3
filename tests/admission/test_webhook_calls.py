"""Admission webhooks on fakeapi alone, where the differential suite (tests/kasdiff/test_webhooks.py)
cannot put the real kube-apiserver beside it: a webhook reached through a Service and its
EndpointSlice (kube-apiserver resolves a Service to its endpoints with
``--enable-aggregator-routing``, which the suite's oracle does not run with), and a slow webhook
costing only the requests it matches while the event loop serves the others."""

from __future__ import annotations

import asyncio
import base64
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from https_server import QuietHandler, https_server
from webhook_server import WebhookServer

from fakeapi.apis.webhook_client import WebhookCallFailed, WebhookClients
from fakeapi.http.protobuf import MAGIC, MEDIA_TYPE, UNKNOWN, message_class
from fakeapi.testing import FakeAPI
from fakeapi.testing.eventually import eventually

NAMESPACE = "hooked"
SERVICE_HOST = f"webhooks.{NAMESPACE}.svc"


@pytest.fixture
def hooks() -> Iterator[WebhookServer]:
    with WebhookServer(names=(SERVICE_HOST,)) as server:
        yield server


def _configure(http: httpx.Client, client_config: dict, behaviour_label: str, timeout: int = 10,
               operations: tuple[str, ...] = ("CREATE",)) -> None:
    response = http.post("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", json={
        "metadata": {"name": f"hooks-{behaviour_label}"},
        "webhooks": [{
            "name": f"{behaviour_label}.test.dev", "clientConfig": client_config,
            "rules": [{"operations": list(operations), "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}},
            "objectSelector": {"matchLabels": {"hook": behaviour_label}},
            "sideEffects": "None", "admissionReviewVersions": ["v1"], "timeoutSeconds": timeout,
        }],
    })
    assert response.status_code == 201, response.text


def _create(http: httpx.Client, name: str, namespace: str = NAMESPACE, hook: str = "") -> httpx.Response:
    return http.post(f"/api/v1/namespaces/{namespace}/configmaps",
                     json={"metadata": {"name": name, "labels": {"hook": hook} if hook else {}}})


def test_a_service_webhook_without_endpoints_fails_closed(fakeapi: FakeAPI, hooks: WebhookServer) -> None:
    http = fakeapi.http
    assert http.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}}).status_code == 201
    assert http.post(f"/api/v1/namespaces/{NAMESPACE}/services", json={
        "metadata": {"name": "webhooks"}, "spec": {"ports": [{"name": "https", "port": 443, "targetPort": 9443}]},
    }).status_code == 201
    service = {"namespace": NAMESPACE, "name": "webhooks", "path": "/fake/svc/deny", "port": 443}
    _configure(http, {"service": service, "caBundle": hooks.ca_bundle}, "deny")
    refused = eventually(lambda: (r := _create(http, "early", hook="deny")).status_code == 500 and r, "the webhook")
    assert refused.json()["message"] == (
        'Internal error occurred: failed calling webhook "deny.test.dev": failed to call webhook: '
        f'Post "https://{SERVICE_HOST}:443/fake/svc/deny?timeout=10s": no endpoints available for service "webhooks"')


def test_a_service_webhook_is_called_at_a_ready_endpoint(hooks: WebhookServer) -> None:
    """The call itself, below the API: kube (as fakeapi) refuses loopback addresses in an
    EndpointSlice, so a slice naming the test's webhook server on 127.0.0.1 is made here."""
    objects = {
        ("", "Service", NAMESPACE, "webhooks"): {
            "metadata": {"name": "webhooks"}, "spec": {"ports": [{"name": "https", "port": 443}]}},
    }
    slices = [
        {"metadata": {"name": "other", "labels": {"kubernetes.io/service-name": "other"}},
         "ports": [{"name": "https", "port": 1}], "endpoints": [{"addresses": ["127.0.0.1"]}]},
        {"metadata": {"name": "webhooks-1", "labels": {"kubernetes.io/service-name": "webhooks"}},
         "ports": [{"name": "https", "port": hooks.port}],
         "endpoints": [{"addresses": ["127.0.0.2"], "conditions": {"ready": False}},
                       {"addresses": ["127.0.0.1"], "conditions": {"ready": True}}]},
    ]
    clients = WebhookClients(lambda group, kind, namespace, name: objects.get((group, kind, namespace, name)),
                             lambda group, kind, namespace: slices if kind == "EndpointSlice" else [])
    review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
              "request": {"uid": "u-1", "object": None}}
    config = {"service": {"namespace": NAMESPACE, "name": "webhooks", "path": "/fake/svc/allow", "port": 443},
              "caBundle": hooks.ca_bundle}
    async def call() -> tuple[int, Any, str]:
        try:
            return await clients.post(config, orjson.dumps(review), 10)
        finally:
            await clients.aclose()

    code, answer, _ = asyncio.run(call())
    # verified against the Service's name (the certificate has no other name matching the slice's)
    assert code == 200 and answer["response"] == {"uid": "u-1", "allowed": True}
    assert hooks.records[-1][0] == "/fake/svc/allow"


def test_a_slow_webhook_costs_only_the_requests_it_matches(fakeapi: FakeAPI, hooks: WebhookServer) -> None:
    http = fakeapi.http
    assert http.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}}).status_code == 201
    _configure(http, {"url": hooks.url("/fake/slow/slow"), "caBundle": hooks.ca_bundle}, "slow")
    eventually(lambda: len(hooks.records) > 0 or _create(http, "probe", hook="slow") and False, "the webhook", 30)
    answers: list[int] = []
    slow = threading.Thread(target=lambda: answers.append(_create(http, "waits", hook="slow").status_code))
    slow.start()
    eventually(lambda: any(review["request"]["name"] == "waits" for _, review in hooks.records), "the slow call")
    # While the webhook holds that create (3 s), other writes and reads are served.
    assert _create(http, "unhooked").status_code == 201
    assert http.get(f"/api/v1/namespaces/{NAMESPACE}/configmaps/unhooked").status_code == 200
    assert slow.is_alive() and not answers
    slow.join()
    assert answers == [201]


def test_an_update_that_waited_starts_again_after_a_write_that_came_between(fakeapi: FakeAPI,
                                                                            hooks: WebhookServer) -> None:
    """kube's GuaranteedUpdate: the storage's compare-and-swap fails when another write came in
    while the webhook was asked, and the update is tried again on the object as it is now
    (admission included); a patch carrying a resourceVersion then conflicts, as it would have."""
    http = fakeapi.http
    assert http.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}}).status_code == 201
    response = http.post("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", json={
        "metadata": {"name": "hooks-slow-if-annotated"},
        "webhooks": [{
            "name": "slow.test.dev", "clientConfig": {"url": hooks.url("/fake/update/slow-if-annotated"),
                                                      "caBundle": hooks.ca_bundle},
            "rules": [{"operations": ["UPDATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
            "sideEffects": "None", "admissionReviewVersions": ["v1"], "timeoutSeconds": 10,
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NAMESPACE}},
        }],
    })
    assert response.status_code == 201, response.text
    created = _create(http, "shared")
    path = f"/api/v1/namespaces/{NAMESPACE}/configmaps/shared"
    merge = {"content-type": "application/merge-patch+json"}
    eventually(lambda: http.patch(path, content=b'{"data":{"probe":"1"}}', headers=merge).status_code == 200
               and hooks.records, "the webhook")
    answers: list[httpx.Response] = []

    def slow_patch(body: bytes) -> threading.Thread:
        thread = threading.Thread(target=lambda: answers.append(http.patch(path, content=body, headers=merge)))
        thread.start()
        eventually(lambda: any((review["request"].get("object") or {}).get("metadata", {}).get("annotations")
                               for _, review in hooks.records[-1:]), "the slow call")
        return thread

    thread = slow_patch(b'{"metadata":{"annotations":{"slow":"yes"}},"data":{"first":"1"}}')
    assert http.patch(path, content=b'{"data":{"second":"2"}}', headers=merge).status_code == 200
    thread.join()
    assert answers[-1].status_code == 200, answers[-1].text
    assert answers[-1].json()["data"] == {"probe": "1", "first": "1", "second": "2"}
    # The same with the object's resourceVersion as a precondition: the retry finds it stale.
    unmarked = http.patch(path, content=b'{"metadata":{"annotations":{"slow":null}}}', headers=merge)
    version = unmarked.json()["metadata"]["resourceVersion"]
    thread = slow_patch(b'{"metadata":{"resourceVersion":"%s","annotations":{"slow":"yes","again":"1"}}}'
                        % version.encode())
    assert http.patch(path, content=b'{"data":{"third":"3"}}', headers=merge).status_code == 200
    thread.join()
    assert answers[-1].status_code == 409 and answers[-1].json()["reason"] == "Conflict"
    assert created.status_code == 201


def test_a_protobuf_update_that_waited_starts_again_from_the_body_as_sent(fakeapi: FakeAPI,
                                                                         hooks: WebhookServer) -> None:
    """A protobuf body is decoded without a copy (it is already as its Go type prints it), so
    its first attempt changes it: an update that waited for a webhook while another write came
    in starts again from a copy of the body as sent, and the PUT, which names no
    resourceVersion, replaces the object as it is now with what was sent."""
    http = fakeapi.http
    assert http.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}}).status_code == 201
    _configure(http, {"url": hooks.url("/fake/update/slow-if-annotated"), "caBundle": hooks.ca_bundle},
               "slow-if-annotated", operations=("UPDATE",))
    assert _create(http, "replaced", hook="slow-if-annotated").status_code == 201
    path = f"/api/v1/namespaces/{NAMESPACE}/configmaps/replaced"
    config_map = message_class("k8s.io.api.core.v1.ConfigMap")()
    config_map.metadata.name = "replaced"
    config_map.metadata.annotations["slow"] = "yes"
    config_map.data["sent"] = "1"
    envelope = message_class(UNKNOWN)(raw=config_map.SerializeToString())
    envelope.typeMeta.apiVersion, envelope.typeMeta.kind = "v1", "ConfigMap"
    answers: list[httpx.Response] = []
    thread = threading.Thread(target=lambda: answers.append(http.put(
        path, content=MAGIC + envelope.SerializeToString(), headers={"Content-Type": MEDIA_TYPE})))
    thread.start()
    eventually(lambda: any((review["request"].get("object") or {}).get("metadata", {}).get("annotations")
                           for _, review in hooks.records[-1:]), "the slow call")
    between = http.patch(path, content=b'{"data":{"between":"1"}}',
                         headers={"content-type": "application/merge-patch+json"})
    assert between.status_code == 200, between.text
    thread.join()
    assert answers[-1].status_code == 200, answers[-1].text
    replaced = answers[-1].json()
    assert replaced["data"] == {"sent": "1"}
    assert int(replaced["metadata"]["resourceVersion"]) > int(between.json()["metadata"]["resourceVersion"])


def test_webhook_calls_are_counted_as_kube_counts_them(fakeapi: FakeAPI, hooks: WebhookServer) -> None:
    http = fakeapi.http
    assert http.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}}).status_code == 201
    _configure(http, {"url": hooks.url("/fake/metrics/deny"), "caBundle": hooks.ca_bundle}, "deny")
    eventually(lambda: _create(http, "refused", hook="deny").status_code == 403, "the webhook")
    scraped = http.get("/metrics").text
    series = 'name="deny.test.dev",operation="CREATE",rejected="true",type="validating"'
    assert f"apiserver_admission_webhook_admission_duration_seconds_count{{{series}}}" in scraped
    # kube's name as it is: a counter not ending in _total
    assert ('apiserver_admission_webhook_rejection_count{error_type="no_error",name="deny.test.dev",'
            'operation="CREATE",rejection_code="403",type="validating"} 1.0') in scraped
    assert ('apiserver_admission_webhook_request_total{code="403",name="deny.test.dev",operation="CREATE",'
            'rejected="true",type="validating"}') in scraped


class _ConnectionHandler(QuietHandler):
    """Answers by the path's last segment, as servers end connections: ``close-after`` answers with
    a length and closes (no ``Connection: close``: the client finds out on its next call),
    ``until-eof`` answers without a length, its body ending with the connection, ``hang-up``
    closes without answering; ``temporary`` redirects to ``keep`` (307: posted again),
    ``see-other`` to ``/got`` (303: got)."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send(200, orjson.dumps({"got": self.path}), "application/json")

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("content-length") or 0))
        behaviour = self.path.split("?")[0].rsplit("/", 1)[-1]
        if behaviour == "hang-up":
            self.close_connection = True
            return
        if behaviour in ("temporary", "see-other"):
            self.send_response(307 if behaviour == "temporary" else 303)
            self.send_header("Location", "keep?from=temporary" if behaviour == "temporary" else "/got")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = orjson.dumps({"behaviour": behaviour})
        if behaviour == "until-eof":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True
            return
        self.send(200, body, "application/json")
        self.close_connection = behaviour == "close-after"


def test_the_client_reads_answers_however_the_server_ends_its_connection() -> None:
    """The webhooks' own HTTP/1.1 client: a kept connection the server closed is not used again
    (the call goes out on a new one, as Go's transport retries a request no answer began for),
    a body delimited by the connection's end is read whole, redirects are followed as Go's
    client follows them, and a server hanging up without an answer reads as Go's ``EOF``."""
    server, ca = https_server(_ConnectionHandler, "client-test-ca", ["127.0.0.1"])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    clients = WebhookClients(lambda *key: None, lambda *key: [])
    ca_bundle = base64.b64encode(ca.certificate_pem).decode()
    url = f"https://127.0.0.1:{server.server_address[1]}"

    async def call(path: str) -> tuple[int, Any, str]:
        return await clients.post({"url": url + path, "caBundle": ca_bundle}, b"{}", 10)

    async def calls() -> list[Any]:
        try:
            answers = [(await call("/close-after"))[1] for _ in range(3)]
            answers.append((await call("/until-eof"))[1])
            answers.append((await call("/keep"))[1])
            answers.append((await call("//redirects/temporary"))[1])
            answers.append((await call("/redirects/see-other"))[1])
            try:
                await call("/hang-up")
            except WebhookCallFailed as err:
                answers.append(str(err))
            return answers
        finally:
            await clients.aclose()

    try:
        answers = asyncio.run(calls())
    finally:
        server.shutdown()
        server.server_close()
    assert answers == [{"behaviour": "close-after"}] * 3 + [
        {"behaviour": "until-eof"}, {"behaviour": "keep"}, {"behaviour": "keep"}, {"got": "/got"},
        f'Post "{url}/hang-up?timeout=10s": EOF']
