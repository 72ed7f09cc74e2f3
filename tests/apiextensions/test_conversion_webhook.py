"""CRD conversion webhooks on fakeapi alone, where the differential suite
(tests/kasdiff/test_conversion_webhooks.py) cannot put the real kube-apiserver beside it: a slow
conversion webhook costs only the requests that read through it while the event loop serves the
others, a webhook reached through a Service's ready endpoint, and a version's cache that gives
up on a conversion sooner than kube's 30 s."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import httpx
import orjson
import pytest
from webhook_server import WebhookServer, conversion_crd

from fakeapi.apiextensions.conversion_metrics import (
    CALL_FAILURE,
    INVALID_CONVERTED_OBJECT,
    MALFORMED_RESPONSE,
    PARTIAL_RESPONSE,
    ConversionMetrics,
)
from fakeapi.apiextensions.conversion_webhook import ConversionFailed, ConversionWebhook
from fakeapi.apis.webhook_client import WebhookClients
from fakeapi.registry import webhook_converted
from fakeapi.testing import FakeAPI
from fakeapi.testing.eventually import eventually

GROUP = "conversion.test.dev"
NAMESPACE = "converted"
SERVICE_HOST = f"converter.{NAMESPACE}.svc"
Json = Any


def _definition(client_config: Json) -> Json:
    return conversion_crd(GROUP, "widgets", "Widget", client_config)


def _widget(name: str, **labels: str) -> Json:
    return {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": name, "labels": labels},
            "spec": {"size": 3}}


def _served(http: httpx.Client, hooks: WebhookServer) -> str:
    """The test's CRD defined, its webhook the test's server: the path of its v1 objects once served."""
    assert http.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}}).status_code == 201
    crd = _definition({"url": hooks.url("/fake/convert"), "caBundle": hooks.ca_bundle})
    assert http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd).status_code == 201
    widgets = f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/widgets"
    eventually(lambda: http.get(widgets).status_code == 200, "the CRD served")
    return widgets


@pytest.fixture
def hooks() -> Any:
    with WebhookServer(names=(SERVICE_HOST,)) as server:
        yield server


def test_a_slow_conversion_webhook_costs_only_the_reads_through_it(fakeapi: FakeAPI, hooks: WebhookServer) -> None:
    http = fakeapi.http
    widgets = _served(http, hooks)
    assert http.post(widgets, json=_widget("slow", conversion="slow")).status_code == 201
    answers: list[httpx.Response] = []
    reader = threading.Thread(target=lambda: answers.append(
        http.get(f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/widgets/slow")))
    reader.start()
    eventually(lambda: any(review["request"]["desiredAPIVersion"] == f"{GROUP}/v2" for _, review in hooks.records),
               "the slow conversion")
    # While the webhook holds that read (3 s), other writes and reads are served.
    assert http.post(widgets, json=_widget("other")).status_code == 201
    assert http.get(f"{widgets}/other").status_code == 200
    assert http.get("/api/v1/namespaces").status_code == 200
    assert reader.is_alive() and not answers
    reader.join()
    assert answers[0].status_code == 200, answers[0].text
    assert answers[0].json()["spec"] == {"replicas": 3}
    assert answers[0].json()["apiVersion"] == f"{GROUP}/v2"


def test_a_conversion_that_fails_stops_the_version_until_it_lists_again(
        fakeapi: FakeAPI, hooks: WebhookServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The version's cache stops at an event it cannot convert (its watch gets nothing more, a
    list at 0 answers it as it was); it gives up after ``RETRY_FOR`` (shortened here): its
    watch ends, its lists are 429s naming the conversion's error, and once the webhook converts
    again it lists again, at a revision a watch from before it cannot start from (410)."""
    monkeypatch.setattr(webhook_converted, "RETRY_FOR", 1.0)
    monkeypatch.setattr(webhook_converted, "RELIST_PERIOD", 0.2)
    http = fakeapi.http
    widgets = _served(http, hooks)
    served = f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/widgets"
    assert http.post(widgets, json=_widget("a")).status_code == 201
    before = http.get(served).json()["metadata"]["resourceVersion"]
    watched: list[httpx.Response] = []
    watcher = threading.Thread(target=lambda: watched.append(http.get(
        served, params={"watch": "1", "resourceVersion": before, "timeoutSeconds": "20"})))
    watcher.start()
    hooks.refused_conversions.add("b")
    try:
        assert http.post(widgets, json=_widget("b")).status_code == 201
        assert http.post(widgets, json=_widget("c")).status_code == 201
        stopped = http.get(served, params={"resourceVersion": "0"})
        assert [item["metadata"]["name"] for item in stopped.json()["items"]] == ["a"]
        assert stopped.json()["metadata"]["resourceVersion"] == before
        eventually(lambda: http.get(served).status_code == 429, "the version listing again")
        refused = http.get(served)
        assert refused.json()["message"] == (
            f"storage is (re)initializing: failed to list {GROUP}/v2, Kind=Widget: conversion webhook for "
            f"{GROUP}/v1, Kind=Widget failed: the test refuses to convert"), refused.text
        assert refused.headers["retry-after"] == "1"
        watcher.join(5)
        assert watched and watched[0].text == ""  # ended with nothing more
    finally:
        hooks.refused_conversions.discard("b")
    eventually(lambda: http.get(served).status_code == 200, "the version listed again")
    assert [item["metadata"]["name"] for item in http.get(served).json()["items"]] == ["a", "b", "c"]
    resumed = http.get(served, params={"watch": "1", "resourceVersion": before, "timeoutSeconds": "1"})
    assert orjson.loads(resumed.text)["object"]["reason"] == "Expired"


def test_a_service_conversion_webhook_is_called_at_a_ready_endpoint(hooks: WebhookServer) -> None:
    """The call itself, below the API (kube, as fakeapi, refuses a loopback address in an
    EndpointSlice): a Service whose slice names the test's webhook server on 127.0.0.1."""
    objects = {("", "Service", NAMESPACE, "converter"): {
        "metadata": {"name": "converter"}, "spec": {"ports": [{"name": "https", "port": 443}]}}}
    slices = [{"metadata": {"name": "converter-1", "labels": {"kubernetes.io/service-name": "converter"}},
               "ports": [{"name": "https", "port": hooks.port}],
               "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}]}]
    clients = WebhookClients(lambda group, kind, namespace, name: objects.get((group, kind, namespace, name)),
                             lambda group, kind, namespace: slices if kind == "EndpointSlice" else [])
    service = {"namespace": NAMESPACE, "name": "converter", "path": "/fake/svc", "port": 443}
    metrics = ConversionMetrics()
    webhook = ConversionWebhook(_definition({"service": service, "caBundle": hooks.ca_bundle}), clients, metrics)
    stored = {**_widget("w"), "metadata": {"name": "w", "namespace": NAMESPACE, "uid": "u", "resourceVersion": "7"}}

    async def convert() -> Json:
        try:
            return await webhook.convert_object(stored, f"{GROUP}/v2")
        finally:
            await clients.aclose()

    converted = asyncio.run(convert())
    assert converted == {"apiVersion": f"{GROUP}/v2", "kind": "Widget", "spec": {"replicas": 3},
                         "metadata": {"name": "w", "namespace": NAMESPACE, "uid": "u", "resourceVersion": "7"}}
    assert metrics.requests == {("success", ""): 1}
    assert list(metrics.conversions) == [(f"widgets.{GROUP}", "v1", "v2", "true")]
    path, review = hooks.records[-1]
    assert path == "/fake/svc"
    # What kube's storage sends: the object as etcd holds it, without a resourceVersion.
    assert review["request"]["objects"] == [{**stored, "metadata": {"name": "w", "namespace": NAMESPACE, "uid": "u"}}]


def test_a_watch_of_the_converted_version_sees_each_event_converted(fakeapi: FakeAPI, hooks: WebhookServer) -> None:
    http = fakeapi.http
    widgets = _served(http, hooks)
    listed = http.get(f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/widgets").json()
    watched: list[httpx.Response] = []
    watcher = threading.Thread(target=lambda: watched.append(http.get(
        f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/widgets",
        params={"watch": "1", "resourceVersion": listed["metadata"]["resourceVersion"], "timeoutSeconds": "2"})))
    watcher.start()
    assert http.post(widgets, json=_widget("live")).status_code == 201
    assert http.patch(f"{widgets}/live", json={"spec": {"size": 4}},
                      headers={"Content-Type": "application/merge-patch+json"}).status_code == 200
    assert http.delete(f"{widgets}/live").status_code == 200
    watcher.join()
    events = [orjson.loads(line) for line in watched[0].text.splitlines()]
    assert [(event["type"], event["object"]["apiVersion"], event["object"]["spec"]) for event in events] == [
        ("ADDED", f"{GROUP}/v2", {"replicas": 3}), ("MODIFIED", f"{GROUP}/v2", {"replicas": 4}),
        ("DELETED", f"{GROUP}/v2", {"replicas": 4})]


def test_each_failure_is_counted_where_kube_counts_it(hooks: WebhookServer) -> None:
    """The failure types kube-apiserver v1.35.4 counted for the same answers of the same webhook
    (read from its /metrics in a differential run): a Failure result or another uid is a
    malformed response, no object a partial one, a renamed object or one of another version an
    invalid converted object, a webhook that is down a call failure."""
    clients = WebhookClients(lambda *key: None, lambda *key: [])
    metrics = ConversionMetrics()
    up = ConversionWebhook(_definition({"url": hooks.url("/fake/convert"), "caBundle": hooks.ca_bundle}), clients,
                           metrics)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead_port = sock.getsockname()[1]
    down = ConversionWebhook(_definition({"url": f"https://127.0.0.1:{dead_port}/dead"}), clients, metrics)

    async def convert(webhook: ConversionWebhook, wrong: str) -> str:
        widget = {**_widget("w"), "metadata": {"name": "w", "namespace": NAMESPACE, "uid": "u",
                                                "labels": {"conversion": wrong}}}
        try:
            await webhook.convert(widget, f"{GROUP}/v2")
        except ConversionFailed as err:
            return str(err)
        return ""

    async def run() -> dict[str, str]:
        try:
            errors = {wrong: await convert(up, wrong)
                      for wrong in ("none", "failure", "bad-uid", "drop", "rename", "wrong-version")}
            errors["down"] = await convert(down, "none")
            return errors
        finally:
            await clients.aclose()

    errors = asyncio.run(run())
    assert errors["none"] == ""
    gvk = f"{GROUP}/v1, Kind=Widget"
    assert errors["failure"] == f"conversion webhook for {gvk} failed: the test refuses to convert"
    assert errors["drop"] == f"conversion webhook for {gvk} returned 0 objects, expected 1"
    assert errors["rename"] == (f"conversion webhook for {gvk} returned invalid object: "
                                "must have the same name: w != w-renamed")
    assert errors["down"].startswith(f'conversion webhook for {gvk} failed: Post "https://127.0.0.1:{dead_port}/dead')
    assert metrics.requests == {("success", ""): 1, ("failure", MALFORMED_RESPONSE): 2,
                                ("failure", PARTIAL_RESPONSE): 1, ("failure", INVALID_CONVERTED_OBJECT): 2,
                                ("failure", CALL_FAILURE): 1}
    assert {key: sum(counts.counts) for key, counts in metrics.conversions.items()} == {
        (f"widgets.{GROUP}", "v1", "v2", "true"): 1, (f"widgets.{GROUP}", "v1", "v2", "false"): 6}


def test_a_list_converts_what_the_version_no_longer_keeps(fakeapi: FakeAPI, hooks: WebhookServer,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A list that meets objects whose conversions were not kept (or never made: a relisted
    cache sends no events) converts each once, then lists again. One kept conversion: the
    list's own conversions evict each other as they are made, and the list still ends."""
    monkeypatch.setattr(webhook_converted, "KEPT_CONVERSIONS", 1)
    http = fakeapi.http
    widgets = _served(http, hooks)
    for name in ("a", "b", "c"):
        assert http.post(widgets, json=_widget(name)).status_code == 201
    served = f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/widgets"
    eventually(lambda: len(hooks.records) >= 3, "the conversions of the creates")
    start = len(hooks.records)
    listed = http.get(served)
    assert listed.status_code == 200, listed.text
    assert [(item["metadata"]["name"], item["spec"]) for item in listed.json()["items"]] == [
        ("a", {"replicas": 3}), ("b", {"replicas": 3}), ("c", {"replicas": 3})]
    assert sorted(review["request"]["objects"][0]["metadata"]["name"] for _, review in hooks.records[start:]) == [
        "a", "b", "c"]


def test_a_write_of_the_crd_that_changes_no_version_converts_nothing_again(fakeapi: FakeAPI,
                                                                          hooks: WebhookServer) -> None:
    """kube builds a CRD's storage (its versions' watch caches, their conversions) again only
    when its spec or accepted names change: a label on the CRD calls the webhook for nothing."""
    http = fakeapi.http
    widgets = _served(http, hooks)
    assert http.post(widgets, json=_widget("kept")).status_code == 201
    eventually(lambda: len(hooks.records) >= 1, "the conversion of the create")
    start = len(hooks.records)
    assert http.patch(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{GROUP}",
                      json={"metadata": {"labels": {"touched": "yes"}}},
                      headers={"Content-Type": "application/merge-patch+json"}).status_code == 200
    assert http.get(f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/widgets").status_code == 200
    assert hooks.records[start:] == []
