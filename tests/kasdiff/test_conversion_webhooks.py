"""CRD conversion webhooks against the real kube-apiserver: a CustomResourceDefinition with two
versions (v1 stores ``spec.size``, v2 serves it as ``spec.replicas``) converted by a webhook
(``webhook_server``'s ``conversion_answer``, TLS with its CA in ``caBundle``), defined in both
servers, the same requests sent to both in either version; the answers clients get and the
ConversionReviews each server sends (normalised: uids, resourceVersions, times) must be kube's.

The webhook misbehaves as an object's ``conversion`` label asks (a Failure result, another
request's uid, a changed name, a wrong count ...): objects are created in the storage version,
which needs no conversion, then read in the other. A second definition's webhook is down."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest
from differ import Answer, Outcome, Pair, check, compared_reviews, differences
from webhook_server import WebhookServer, conversion_crd

Json = Any

GROUP = "conversion.kasdiff.dev"
NAMESPACE = "conversion-webhooks"
_CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Conversions:
    """The definitions on both servers (each pointing at its own path of the webhook server) and
    the requests of the test, with the reviews each server sent for each."""

    def __init__(self, pair: Pair, hooks: WebhookServer) -> None:
        self.pair, self.hooks = pair, hooks
        dead = f"https://127.0.0.1:{_closed_port()}/dead"
        self.definitions = [("widgets", "Widget", "convert", ("v1",)),
                            ("gadgets", "Gadget", "convert-v1beta1", ("v1beta1", "v1")),
                            ("gizmos", "Gizmo", dead, ("v1",))]
        #: plural -> kind of every definition: a request's reviews are those of its own kind
        #: (kube's watch cache of another definition converts whenever its events come)
        self.kinds = {plural: kind for plural, kind, *_ in self.definitions}
        for server, client in (("fake", pair.fake), ("kube", pair.real)):
            response = client.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}})
            assert response.status_code in (201, 409), response.text
            for plural, kind, path, versions in self.definitions:
                url = path if path.startswith("https:") else hooks.url(f"/{server}/{path}")
                client.delete(f"{_CRDS}/{plural}.{GROUP}")
                self._wait_gone(client, plural)
                response = client.post(_CRDS, json=conversion_crd(GROUP, plural, kind,
                                                                  {"url": url, "caBundle": hooks.ca_bundle}, versions))
                assert response.status_code == 201, response.text
        for client in (pair.fake, pair.real):
            for plural, *_ in self.definitions:
                self._wait_served(client, plural)

    @staticmethod
    def _wait_gone(client: Any, plural: str) -> None:
        deadline = time.monotonic() + 30
        while client.get(f"{_CRDS}/{plural}.{GROUP}").status_code != 404:
            assert time.monotonic() < deadline, f"{plural} never went"
            time.sleep(0.2)

    @staticmethod
    def _wait_served(client: Any, plural: str) -> None:
        deadline = time.monotonic() + 30
        while any(client.get(f"/apis/{GROUP}/{version}/namespaces/{NAMESPACE}/{plural}").status_code != 200
                  for version in ("v1", "v2")):
            assert time.monotonic() < deadline, f"{plural} never served"
            time.sleep(0.2)

    def send(self, case: str, verb: str, method: str, version: str, path: str, body: Json = None,
             content_type: str = "application/json", *, reviews: bool = True) -> Outcome:
        """One request to both servers, in ``version`` (``body``: one, or a (fakeapi, kube)
        pair); with ``reviews`` the reviews each sent for it are compared too."""
        start = len(self.hooks.records)
        bodies = body if isinstance(body, tuple) else (body, body)
        outcome = self.pair.send(case, "Widget", f"{verb} ({version})", method,
                                 f"/apis/{GROUP}/{version}/namespaces/{NAMESPACE}/{path}",
                                 body=tuple(None if b is None else orjson.dumps(b) for b in bodies),
                                 content_type=content_type, rewrite=_same_paths)
        if not reviews:
            return outcome
        time.sleep(0.2)  # the conversions of the events a write made come just after its answer
        kind = self.kinds[path.partition("/")[0].partition("?")[0]]
        fake, kube = (self._reviews_of(kind, self.hooks.reviews(prefix, start)) for prefix in ("/fake/", "/kube/"))
        self.pair.outcomes.append(compared_reviews(case, "ConversionReview", f"{verb} ({version})", fake, kube,
                                                   per_server=True))
        return outcome

    @staticmethod
    def _reviews_of(kind: str, reviews: list[tuple[str, Json]]) -> list[tuple[str, Json]]:
        return [(path, review) for path, review in reviews
                if all(o.get("kind") == kind for o in review["request"].get("objects", ()))]

    def define(self, plural: str, crd_for: Callable[[WebhookServer, str], Json]) -> None:
        """A test's own definition, ``crd_for(webhook server, server's path prefix)``, on both
        servers once each serves both versions (a test deletes it with ``undefine``)."""
        for server, client in (("fake", self.pair.fake), ("kube", self.pair.real)):
            crd = crd_for(self.hooks, server)
            self.kinds[plural] = crd["spec"]["names"]["kind"]
            response = client.post(_CRDS, json=crd)
            assert response.status_code == 201, response.text
        for client in (self.pair.fake, self.pair.real):
            self._wait_served(client, plural)

    def wait_caught_up(self, plural: str) -> None:
        """Until the watch cache of v2 of ``plural`` has every change on both servers: a list
        not older than a consistent list's revision answers at once (a cache stopped at an
        object it cannot convert, as an earlier test leaves one for 30 s, waits 3 s for it and
        then answers a 504; one listing again a 429)."""
        collection = f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/{plural}"
        for client in (self.pair.fake, self.pair.real):
            deadline = time.monotonic() + 90
            while True:
                current = client.get(collection)
                if current.status_code == 200 and client.get(collection, params={
                        "resourceVersion": current.json()["metadata"]["resourceVersion"],
                        "resourceVersionMatch": "NotOlderThan"}).status_code == 200:
                    break
                assert time.monotonic() < deadline, f"the cache of {plural} never caught up: {current.text}"
                time.sleep(0.5)

    def undefine(self, plural: str) -> None:
        for client in (self.pair.fake, self.pair.real):
            client.delete(f"{_CRDS}/{plural}.{GROUP}")

    def close(self) -> None:
        for client in (self.pair.fake, self.pair.real):
            for plural, *_ in self.definitions:
                client.delete(f"{_CRDS}/{plural}.{GROUP}")


def _same_paths(answer: Json, is_fake: bool) -> Json:
    """The answer with fakeapi's webhook paths (in a failed call's message) as kube's."""
    return orjson.loads(orjson.dumps(answer).replace(b"/fake/", b"/kube/")) if is_fake else answer


@pytest.fixture(scope="module")
def conversions(pair: Pair) -> Iterator[Conversions]:
    with WebhookServer() as hooks:
        opened = Conversions(pair, hooks)
        try:
            yield opened
        finally:
            opened.close()


def _widget(name: str, version: str, size: int, **labels: str) -> Json:
    field = "size" if version == "v1" else "replicas"
    return {"apiVersion": f"{GROUP}/{version}", "kind": "Widget", "metadata": {"name": name, "labels": labels},
            "spec": {field: size}}


#: The conversions each CRD's webhook made, by versions and outcome. (kube's
#: apiserver_conversion_webhook_request_total also counts the converter's invocations that had no
#: object to convert, which call no webhook: fakeapi counts calls only.)
_CONVERSION_SERIES = re.compile(
    r'^(apiserver_crd_conversion_webhook_duration_seconds_count)\{([^}]*)\} (\S+)$', re.MULTILINE)


def _conversion_calls(client: Any) -> dict[str, float]:
    """The server's conversion webhook call counters, by series."""
    text = client.get("/metrics").text
    return {f"{name}{{{labels}}}": float(value) for name, labels, value in _CONVERSION_SERIES.findall(text)}


def test_reads_and_writes_in_either_version(conversions: Conversions) -> None:
    start = len(conversions.pair.outcomes)
    case = "conversion-reads-writes"
    send = conversions.send
    pair = conversions.pair
    before = [_conversion_calls(client) for client in (pair.fake, pair.real)]
    created = send(case, "create", "POST", "v1", "widgets", _widget("stored", "v1", 3))
    assert created.real.status == 201, created.real.body
    send(case, "get", "GET", "v2", "widgets/stored")
    send(case, "create", "POST", "v2", "widgets", _widget("served", "v2", 2, app="w"))
    send(case, "get", "GET", "v1", "widgets/served")
    send(case, "list", "GET", "v2", "widgets")
    send(case, "list", "GET", "v1", "widgets")
    send(case, "list by label", "GET", "v2", "widgets?labelSelector=app%3Dnone")
    served = send(case, "get", "GET", "v2", "widgets/served")
    send(case, "update", "PUT", "v2", "widgets/served",
         ({**served.fake.raw, "spec": {"replicas": 5}}, {**served.real.raw, "spec": {"replicas": 5}}))
    send(case, "update, stale", "PUT", "v2", "widgets/served",
         ({**served.fake.raw, "spec": {"replicas": 6}}, {**served.real.raw, "spec": {"replicas": 6}}))
    send(case, "merge patch", "PATCH", "v2", "widgets/served", {"spec": {"replicas": 7}},
         "application/merge-patch+json")
    send(case, "apply", "PATCH", "v2", "widgets/applied?fieldManager=test",
         _widget("applied", "v2", 4), "application/apply-patch+yaml")
    send(case, "status merge patch", "PATCH", "v2", "widgets/served/status", {"status": {"ready": True}},
         "application/merge-patch+json")
    send(case, "watch from 0", "GET", "v2", "widgets?watch=1&resourceVersion=0&timeoutSeconds=1")
    send(case, "delete", "DELETE", "v2", "widgets/served")
    send(case, "delete", "DELETE", "v2", "widgets/applied")
    send(case, "delete", "DELETE", "v1", "widgets/stored")
    # The calls each server counted (its metrics), as many as the reviews the webhook received.
    counted = []
    for client, earlier in zip((pair.fake, pair.real), before):
        now = _conversion_calls(client)
        counted.append({series: value - earlier.get(series, 0.0) for series, value in now.items()
                        if value != earlier.get(series, 0.0)})
    outcome = Outcome(case, "metrics", "conversion webhook calls", Answer(200, counted[0], []),
                      Answer(200, counted[1], []))
    outcome.differences.extend(differences(counted[0], counted[1]))
    pair.outcomes.append(outcome)
    assert counted[1], "kube counted no conversion webhook call"
    check(pair, start)


def test_v1beta1_reviews(conversions: Conversions) -> None:
    start = len(conversions.pair.outcomes)
    case = "conversion-v1beta1"
    gadget = {**_widget("g", "v1", 1), "kind": "Gadget"}
    send = conversions.send
    send(case, "create", "POST", "v1", "gadgets", gadget)
    send(case, "get", "GET", "v2", "gadgets/g")
    send(case, "delete", "DELETE", "v2", "gadgets/g")
    check(conversions.pair, start)


@pytest.mark.parametrize("wrong", ["failure", "bad-uid", "drop", "rename", "relabel", "bad-label", "wrong-version",
                                   "wrong-kind"])
def test_a_webhook_answering_wrong(conversions: Conversions, wrong: str) -> None:
    """The answers only: the watch cache of v2 stops at an object whose conversion fails and
    tries it again over and over (a 30 s window, then it lists again: see
    ``test_a_webhook_failing_mid_watch``), so the reviews it sends meanwhile are timing's. Each
    case has a definition of its own: one case's stopped cache does not meet the next's."""
    start = len(conversions.pair.outcomes)
    case = f"conversion-{wrong}"
    plural = wrong.replace("-", "") + "s"
    kind = plural[:-1].capitalize()
    name = f"w-{wrong}"

    def send(verb: str, method: str, version: str, path: str, body: Json = None) -> Outcome:
        return conversions.send(case, verb, method, version, path, body, reviews=False)

    def wrongly_converted(name: str, version: str) -> Json:
        return {**_widget(name, version, 1, conversion=wrong), "kind": kind}

    conversions.define(plural, lambda hooks, server: conversion_crd(
        GROUP, plural, kind, {"url": hooks.url(f"/{server}/convert"), "caBundle": hooks.ca_bundle}))
    try:
        send("create", "POST", "v1", plural, wrongly_converted(name, "v1"))
        read = send("get", "GET", "v2", f"{plural}/{name}")
        assert read.real.status == (200 if wrong == "relabel" else 500), read.real.body
        send("list", "GET", "v2", f"{plural}?labelSelector=conversion%3D{wrong}")
        send("create", "POST", "v2", plural, wrongly_converted(f"{name}-v2", "v2"))
        send("delete", "DELETE", "v1", f"{plural}/{name}")
        send("delete", "DELETE", "v1", f"{plural}/{name}-v2")
    finally:
        conversions.undefine(plural)
    check(conversions.pair, start)


def test_a_webhook_that_is_down(conversions: Conversions) -> None:
    """The answers only, as for a webhook answering wrong."""
    start = len(conversions.pair.outcomes)
    case = "conversion-down"
    gizmo = {**_widget("z", "v1", 1), "kind": "Gizmo"}

    def send(verb: str, method: str, version: str, path: str, body: Json = None) -> Outcome:
        return conversions.send(case, verb, method, version, path, body, reviews=False)

    send("create", "POST", "v1", "gizmos", gizmo)
    send("get", "GET", "v2", "gizmos/z")
    send("list", "GET", "v2", "gizmos")
    send("create", "POST", "v2", "gizmos", {**gizmo, "apiVersion": f"{GROUP}/v2", "metadata": {"name": "z2"}})
    send("delete", "DELETE", "v1", "gizmos/z")
    check(conversions.pair, start)


def test_a_conversion_that_failed_is_made_again(conversions: Conversions) -> None:
    """An object written while the webhook refuses it, read once the webhook converts it again
    (a manager whose conversion webhook server starts after its informers list, as
    controller-runtime's manager integration suite has it): kube's watch cache of v2 stops at
    the object while its conversion fails, and goes on once it converts; a read while it is
    refused fails alike. The answers only, as above."""
    start = len(conversions.pair.outcomes)
    case = "conversion-made-again"
    name = "w-made-again"

    def send(verb: str, method: str, version: str, path: str, body: Json = None) -> Outcome:
        return conversions.send(case, verb, method, version, path, body, reviews=False)

    conversions.wait_caught_up("widgets")  # past what the tests before left it stopped at
    conversions.hooks.refused_conversions.add(name)
    try:
        send("create", "POST", "v1", "widgets", _widget(name, "v1", 1, conversion="made-again"))
        # a GET reads etcd on kube: it converts now (a list's answer meanwhile is the cache's timing)
        refused = send("get refused", "GET", "v2", f"widgets/{name}")
        assert refused.real.status == 500, refused.real.body
    finally:
        conversions.hooks.refused_conversions.discard(name)
    conversions.wait_caught_up("widgets")
    listed = send("list", "GET", "v2", "widgets?labelSelector=conversion%3Dmade-again")
    assert listed.real.status == 200, listed.real.body
    send("get", "GET", "v2", f"widgets/{name}")
    send("delete", "DELETE", "v1", f"widgets/{name}")
    check(conversions.pair, start)


def _sizers_crd(hooks: WebhookServer, server: str) -> Json:
    """A CRD converted by the webhook whose versions select by their own name of the size:
    ``spec.size`` in v1 (stored), ``spec.replicas`` in v2 (as the conformance spec's versions
    select by fields the webhook makes)."""
    crd = conversion_crd(GROUP, "sizers", "Sizer", {"url": hooks.url(f"/{server}/convert"), "caBundle": hooks.ca_bundle})
    for version in crd["spec"]["versions"]:  # each a schema of its own (they share one)
        field = "size" if version["name"] == "v1" else "replicas"
        free = version["schema"]["openAPIV3Schema"]["properties"]["status"]
        version["schema"] = {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {field: {"type": "integer"}}}, "status": free}}}
        version["selectableFields"] = [{"jsonPath": f".spec.{field}"}]
    return crd


def test_selectable_fields_of_a_converted_version(conversions: Conversions) -> None:
    """Lists, watches and a collection delete of v2 select by the fields the webhook gives its
    objects (``spec.replicas``, v1's ``spec.size``), labels too; v1 by its own."""
    pair = conversions.pair
    start = len(pair.outcomes)
    case = "conversion-selectable-fields"
    conversions.define("sizers", _sizers_crd)
    try:
        send = conversions.send

        def sizer(name: str, size: int, **labels: str) -> Json:
            return {"apiVersion": f"{GROUP}/v1", "kind": "Sizer", "metadata": {"name": name, "labels": labels},
                    "spec": {"size": size}}

        for name, size in (("a", 1), ("b", 2), ("c", 1)):
            send(case, "create", "POST", "v1", "sizers", sizer(name, size, app=name), reviews=False)
        for version, selector in (("v2", "fieldSelector=spec.replicas%3D1"), ("v2", "fieldSelector=spec.replicas%21%3D1"),
                                  ("v2", "fieldSelector=spec.replicas%3D1&labelSelector=app%3Dc"),
                                  ("v2", "fieldSelector=spec.size%3D1"), ("v1", "fieldSelector=spec.size%3D1"),
                                  ("v1", "fieldSelector=spec.replicas%3D1")):
            send(case, "list", "GET", version, f"sizers?{selector}", reviews=False)
        collection = f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/sizers"
        revisions = tuple(client.get(collection).json()["metadata"]["resourceVersion"] for client in (pair.fake, pair.real))
        send(case, "patch", "PATCH", "v1", "sizers/a", {"spec": {"size": 2}}, "application/merge-patch+json", reviews=False)
        send(case, "patch", "PATCH", "v1", "sizers/b", {"spec": {"size": 1}}, "application/merge-patch+json", reviews=False)
        send(case, "patch", "PATCH", "v1", "sizers/b", {"metadata": {"labels": {"x": "y"}}},
             "application/merge-patch+json", reviews=False)
        send(case, "delete", "DELETE", "v1", "sizers/c", reviews=False)
        watch = f"{collection}?watch=1&timeoutSeconds=1&fieldSelector=spec.replicas%3D1"
        pair.send(case, "Sizer", "watch from a revision (v2)", "GET",
                  (f"{watch}&resourceVersion={revisions[0]}", f"{watch}&resourceVersion={revisions[1]}"))
        pair.send(case, "Sizer", "watch from 0 (v2)", "GET", f"{watch}&resourceVersion=0")
        pair.send(case, "Sizer", "watch list (v2)", "GET",
                  f"{watch}&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
        send(case, "delete collection", "DELETE", "v2", "sizers?fieldSelector=spec.replicas%3D1", reviews=False)
        send(case, "list", "GET", "v1", "sizers", reviews=False)
    finally:
        conversions.undefine("sizers")
    check(pair, start)


def _scalers_crd(hooks: WebhookServer, server: str) -> Json:
    """A CRD converted by the webhook whose versions scale by their own name of the size:
    ``spec.size`` in v1 (stored), ``spec.replicas`` in v2 (which also has a label selector), both
    with ``status.ready`` as their status replicas."""
    crd = conversion_crd(GROUP, "scalers", "Scaler", {"url": hooks.url(f"/{server}/convert"), "caBundle": hooks.ca_bundle})
    for version in crd["spec"]["versions"]:
        if version["name"] == "v1":
            version["subresources"]["scale"] = {"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.ready"}
        else:
            version["subresources"]["scale"] = {"specReplicasPath": ".spec.replicas",
                                                "statusReplicasPath": ".status.ready",
                                                "labelSelectorPath": ".status.selector"}
    return crd


def test_scale_of_a_converted_version(conversions: Conversions) -> None:
    """``/scale`` of v2 reads and writes the object as the webhook converts it to v2, at v2's
    paths (``spec.replicas``, the stored object's ``spec.size``): a GET converts the object, a
    write converts it to v1 and back as an update does; the ConversionReviews each server sends
    are compared. A Scale of an object the webhook refuses to convert is the conversion's 500."""
    pair = conversions.pair
    start = len(pair.outcomes)
    case = "conversion-scale"
    conversions.define("scalers", _scalers_crd)
    try:
        send = conversions.send

        def scaler(name: str, size: int, **labels: str) -> Json:
            return {"apiVersion": f"{GROUP}/v1", "kind": "Scaler", "metadata": {"name": name, "labels": labels},
                    "spec": {"size": size}}

        def replicas(count: int) -> Json:
            return {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "s"},
                    "spec": {"replicas": count}}

        send(case, "create", "POST", "v1", "scalers", scaler("s", 2))
        send(case, "status", "PATCH", "v1", "scalers/s/status", {"status": {"ready": 1, "selector": "app=s"}},
             "application/merge-patch+json")
        send(case, "get scale", "GET", "v2", "scalers/s/scale")
        send(case, "get scale", "GET", "v1", "scalers/s/scale")
        send(case, "put scale", "PUT", "v2", "scalers/s/scale?fieldManager=putter", replicas(3))
        send(case, "merge scale", "PATCH", "v2", "scalers/s/scale?fieldManager=merger", {"spec": {"replicas": 4}},
             "application/merge-patch+json")
        # an update that fails: kube reads etcd's object again before it answers its error
        send(case, "put scale, stale", "PUT", "v2", "scalers/s/scale",
             {**replicas(6), "metadata": {"name": "s", "resourceVersion": "1"}})
        # kube applies a custom resource's Scale with the custom resource's converter: a 500
        send(case, "apply scale", "PATCH", "v2", "scalers/s/scale?fieldManager=applier&force=true", replicas(5),
             "application/apply-patch+yaml")
        send(case, "get object", "GET", "v1", "scalers/s")
        send(case, "get object", "GET", "v2", "scalers/s")
        send(case, "delete", "DELETE", "v1", "scalers/s")
        # refused: the v2 caches of both servers then cannot hold it (the answers only)
        send(case, "create refused", "POST", "v1", "scalers", scaler("s", 2, conversion="failure"), reviews=False)
        send(case, "get scale refused", "GET", "v2", "scalers/s/scale", reviews=False)
        send(case, "put scale refused", "PUT", "v2", "scalers/s/scale", replicas(3), reviews=False)
        send(case, "merge scale refused", "PATCH", "v2", "scalers/s/scale", {"spec": {"replicas": 4}},
             "application/merge-patch+json", reviews=False)
        send(case, "get scale refused", "GET", "v1", "scalers/s/scale", reviews=False)
        send(case, "delete refused", "DELETE", "v1", "scalers/s", reviews=False)
    finally:
        conversions.undefine("scalers")
    check(pair, start)


def _failers_crd(hooks: WebhookServer, server: str) -> Json:
    """A definition of its own for the test whose webhook fails mid-watch (its v2 cache stays
    down a while: no other test's reads should meet it)."""
    return conversion_crd(GROUP, "failers", "Failer", {"url": hooks.url(f"/{server}/convert"), "caBundle": hooks.ca_bundle})


#: Revisions in a message (``Too large resource version: 80, current: 76``, ``too old resource
#: version: 76 (88)``): each server's own numbers.
_REVISIONS = re.compile(r"\b\d+\b")


def _same_revisions(answer: Json, is_fake: bool) -> Json:
    """A watch's answer (one event, or a list of them) with the revisions in its error events'
    messages blanked."""
    if isinstance(answer, list):
        return [_same_revisions(event, is_fake) for event in answer]
    if isinstance(answer, dict) and answer.get("type") == "ERROR":
        return {**answer, "object": {**answer["object"], "message": _REVISIONS.sub("N", answer["object"]["message"])}}
    return answer


class _Watch:
    """A watch of v2 on both servers at once, each in a thread: the events each server sent
    (type, name, spec; an ERROR's Status) and when its stream ended (seconds from ``began``)."""

    def __init__(self, pair: Pair, paths: tuple[str, str]) -> None:
        self.began = time.monotonic()
        self.events: dict[str, list[Json]] = {"fake": [], "kube": []}
        self.ended: dict[str, float] = {}
        self._threads = [threading.Thread(target=self._follow, args=(server, client, path), daemon=True)
                         for server, client, path in (("fake", pair.fake, paths[0]), ("kube", pair.real, paths[1]))]
        for thread in self._threads:
            thread.start()

    def _follow(self, server: str, client: Any, path: str) -> None:
        with client.stream("GET", path, timeout=120) as response:
            for line in response.iter_lines():
                if line:
                    event = orjson.loads(line)
                    obj = event["object"]
                    self.events[server].append(
                        (event["type"], obj) if event["type"] == "ERROR" else
                        (event["type"], obj["metadata"]["name"], obj.get("spec")))
        self.ended[server] = time.monotonic() - self.began

    def join(self, timeout: float) -> None:
        for thread in self._threads:
            thread.join(timeout)


def test_a_webhook_failing_mid_watch(conversions: Conversions) -> None:
    """The webhook refuses an object while v2 is watched (the watch cache of v2 converts each
    event as it arrives): a short refusal only delays the watch's events; a long one stops the
    cache where it was (its watchers get nothing more; a list at resourceVersion 0 answers it
    as it stopped, one without waits 3 s and reads etcd: the conversion's 500; a watch from now
    waits as long: a 504 in the stream), and after 30 s the cache gives up: its watchers' streams
    end, every list and watch is a 429 until the webhook converts the object again, and the
    cache then starts at the revision it listed again (a watch from before is 410). As
    kube-apiserver v1.35.4 does, on both servers at once; the answers and the watch's events are
    compared (how many times each server calls the webhook meanwhile is its timing's)."""
    pair, hooks = conversions.pair, conversions.hooks
    start = len(pair.outcomes)
    case = "conversion-failing-mid-watch"
    conversions.define("failers", _failers_crd)
    failers = f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/failers"

    def failer(name: str, size: int) -> Json:
        return {"apiVersion": f"{GROUP}/v1", "kind": "Failer", "metadata": {"name": name}, "spec": {"size": size}}

    def send(verb: str, method: str, version: str, path: str, body: Json = None) -> Outcome:
        return conversions.send(case, verb, method, version, path, body, reviews=False)

    try:
        send("create", "POST", "v1", "failers", failer("a", 1))
        revisions = tuple(client.get(failers).json()["metadata"]["resourceVersion"] for client in (pair.fake, pair.real))
        watch = _Watch(pair, tuple(f"{failers}?watch=1&resourceVersion={rv}&timeoutSeconds=90" for rv in revisions))
        # a short refusal: the event comes once the webhook converts it
        hooks.refused_conversions.add("short")
        send("create refused for a while", "POST", "v1", "failers", failer("short", 2))
        time.sleep(2)
        hooks.refused_conversions.discard("short")
        # a long one
        hooks.refused_conversions.add("long")
        refused_at = time.monotonic()
        try:
            send("create refused", "POST", "v1", "failers", failer("long", 3))
            send("create after", "POST", "v1", "failers", failer("after", 4))
            time.sleep(1)
            stale = send("list at 0 while stopped", "GET", "v2", "failers?resourceVersion=0")
            assert [item["metadata"]["name"] for item in stale.real.body["items"]] == ["a", "short"], stale.real.body
            assert send("list while stopped", "GET", "v2", "failers").real.status == 500
            send("get while stopped", "GET", "v2", "failers/after")
            from_now = pair.send(case, "Failer", "watch from now while stopped (v2)", "GET",
                                 f"{failers}?watch=1&timeoutSeconds=5", rewrite=_same_revisions)
            assert from_now.real.body["object"]["code"] == 504, from_now.real.body
            time.sleep(max(0.0, refused_at + 34 - time.monotonic()))  # kube gives up after 30 s, ends its watchers 1 s on
            assert send("list while listing again", "GET", "v2", "failers").real.status == 429
            assert send("watch while listing again", "GET", "v2", "failers?watch=1&timeoutSeconds=1").real.status == 429
        finally:
            hooks.refused_conversions.discard("long")
        watch.join(15)
        # kube's: the short refusal's event late, nothing of the long one's, the stream ended
        assert watch.events["kube"] == [("ADDED", "short", {"replicas": 2})] and "kube" in watch.ended, watch.events
        outcome = Outcome(case, "Failer", "watch from before (v2)",
                          Answer(200, {"events": watch.events["fake"], "ended": "fake" in watch.ended}, []),
                          Answer(200, {"events": watch.events["kube"], "ended": "kube" in watch.ended}, []))
        outcome.differences.extend(differences(outcome.fake.body, outcome.real.body))
        pair.outcomes.append(outcome)
        for client in (pair.fake, pair.real):
            deadline = time.monotonic() + 15
            while client.get(failers).status_code == 429:
                assert time.monotonic() < deadline, "v2 never listed again"
                time.sleep(0.2)
        send("list once converted", "GET", "v2", "failers")
        pair.send(case, "Failer", "watch from before the list (v2)", "GET",
                  tuple(f"{failers}?watch=1&resourceVersion={rv}&timeoutSeconds=1" for rv in revisions),
                  rewrite=_same_revisions)
    finally:
        conversions.undefine("failers")
    check(pair, start)
    for server, ended in watch.ended.items():
        assert ended >= refused_at - watch.began + 25, f"{server}'s watch ended before its cache gave up: {ended}"


def test_a_version_served_after_objects_it_cannot_convert(conversions: Conversions) -> None:
    """A version the definition starts serving while an object is stored that the webhook
    refuses: the new watch cache of v2 lists first, and while that list fails its lists are
    kube's 429 naming the conversion's error; once the object is gone it serves them."""
    pair = conversions.pair
    start = len(pair.outcomes)
    case = "conversion-served-later"
    plural = "latecomers"

    def v1_only(hooks: WebhookServer, server: str) -> Json:
        crd = conversion_crd(GROUP, plural, "Latecomer", {"url": hooks.url(f"/{server}/convert"),
                                                         "caBundle": hooks.ca_bundle})
        crd["spec"]["versions"][1]["served"] = False
        return crd

    for server, client in (("fake", pair.fake), ("kube", pair.real)):
        response = client.post(_CRDS, json=v1_only(conversions.hooks, server))
        assert response.status_code == 201, response.text
    try:
        v1 = f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/{plural}"
        for client in (pair.fake, pair.real):
            deadline = time.monotonic() + 30
            while client.get(v1).status_code != 200:
                assert time.monotonic() < deadline, "v1 never served"
                time.sleep(0.2)
        conversions.send(case, "create refused", "POST", "v1", plural,
                         {**_widget("x", "v1", 1, conversion="failure"), "kind": "Latecomer"}, reviews=False)
        for client in (pair.fake, pair.real):
            crd = client.get(f"{_CRDS}/{plural}.{GROUP}").json()
            crd["spec"]["versions"][1]["served"] = True
            response = client.put(f"{_CRDS}/{plural}.{GROUP}", json=crd)
            assert response.status_code == 200, response.text
        v2 = f"/apis/{GROUP}/v2/namespaces/{NAMESPACE}/{plural}"
        for client in (pair.fake, pair.real):  # until its first list has failed
            deadline = time.monotonic() + 30
            while "failed to list" not in client.get(v2).text:
                assert time.monotonic() < deadline, "v2 never listed"
                time.sleep(0.2)
        listing = conversions.send(case, "list while listing", "GET", "v2", plural, reviews=False)
        assert listing.real.status == 429, listing.real.body
        conversions.send(case, "delete refused", "DELETE", "v1", f"{plural}/x", reviews=False)
        for client in (pair.fake, pair.real):
            deadline = time.monotonic() + 15
            while client.get(v2).status_code == 429:
                assert time.monotonic() < deadline, "v2 never listed"
                time.sleep(0.2)
        conversions.send(case, "list once listed", "GET", "v2", plural, reviews=False)
    finally:
        conversions.undefine(plural)
    check(pair, start)
