"""An admission webhook server for tests: HTTPS on 127.0.0.1 with a certificate of its own CA
(``ca_bundle`` is what a configuration's ``caBundle`` names), answering each review as its
path's last segment says, and recording every review it is sent under its path's first
segment (a test points fakeapi at ``/fake/...`` and kube-apiserver at ``/kube/...``).

A path is ``/<prefix>/.../<behaviour>``. Behaviours: ``allow``; ``deny`` (a message and code 403), ``deny-bare`` (no status at all),
``deny-invalid`` (code 422, reason Invalid, with causes); ``warn`` (allowed, two warnings);
``label`` (a JSON patch adding the label ``webhook: <name of the webhook's path>``, once);
``label-first``/``label-second`` (each adds its own label, to show reinvocation); ``slow``
(answers after 3 s), ``slow-if-annotated`` (so, for an object annotated ``slow: "yes"``); ``error`` (HTTP 500, text); ``bad-uid`` (answers another request's uid);
``patch-in-validating`` (allowed with a patch, which a validating webhook may not return).

A ConversionReview (a CRD's conversion webhook, any path) is answered by ``conversion_answer``."""

from __future__ import annotations

import base64
import json
import threading
import time
from typing import Any

from https_server import QuietHandler, https_server

Json = Any


class WebhookServer:
    """``names``: more host names its certificate is for (a Service's ``<name>.<namespace>.svc``)."""

    def __init__(self, names: tuple[str, ...] = ()) -> None:
        #: (path, review) of every review received, in order.
        self.records: list[tuple[str, Json]] = []
        #: Names of objects whose conversion is refused (result Failure) while they are here: a
        #: webhook that fails for a time, then converts the same objects.
        self.refused_conversions: set[str] = set()
        self._lock = threading.Lock()
        server = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                path = self.path.split("?")[0]
                behaviour = path.rsplit("/", 1)[-1]
                review = json.loads(body)
                with server._lock:
                    server.records.append((path, review))
                if review.get("kind") == "ConversionReview":
                    refused = any(obj["metadata"]["name"] in server.refused_conversions
                                  for obj in review["request"]["objects"])
                    self.send(200, json.dumps(conversion_answer(review, refused)).encode(), "application/json")
                    return
                annotations = ((review["request"].get("object") or {}).get("metadata") or {}).get("annotations") or {}
                if behaviour == "slow" or behaviour == "slow-if-annotated" and annotations.get("slow") == "yes":
                    time.sleep(3)
                if behaviour == "error":
                    self.send(500, b"boom", "text/plain")
                    return
                self.send(200, json.dumps(answer(behaviour, review)).encode(), "application/json")

        self._httpd, ca = https_server(Handler, "webhook-test-ca", ["127.0.0.1", "localhost", *names])
        self.ca_bundle = base64.b64encode(ca.certificate_pem).decode()
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def reviews(self, prefix: str, start: int = 0) -> list[tuple[str, Json]]:
        """The (path, review) pairs received since record ``start`` on paths under ``prefix``."""
        with self._lock:
            return [(p, review) for p, review in self.records[start:] if p.startswith(prefix)]

    def __enter__(self) -> WebhookServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _label_patch(review: Json, key: str, value: str) -> list[Json] | None:
    if review["request"].get("object") is None:
        return None  # a delete: nothing to patch
    labels = (review["request"]["object"].get("metadata") or {}).get("labels")
    if labels is None:
        return [{"op": "add", "path": "/metadata/labels", "value": {key: value}}]
    if labels.get(key) == value:
        return None
    return [{"op": "add", "path": "/metadata/labels/" + key.replace("~", "~0").replace("/", "~1"), "value": value}]


def answer(behaviour: str, review: Json) -> Json:
    request = review["request"]
    response: Json = {"uid": request["uid"], "allowed": True}
    if behaviour == "deny":
        response = {"uid": request["uid"], "allowed": False, "status": {"message": "no thanks", "code": 403}}
    elif behaviour == "deny-bare":
        response = {"uid": request["uid"], "allowed": False}
    elif behaviour == "deny-invalid":
        response = {"uid": request["uid"], "allowed": False, "status": {
            "status": "Failure", "message": "spec is wrong", "reason": "Invalid", "code": 422,
            "details": {"causes": [{"reason": "FieldValueInvalid", "message": "wrong", "field": "data.x"}]}}}
    elif behaviour == "warn":
        response["warnings"] = ["first warning", "second \"quoted\" warning"]
    elif behaviour in ("label", "label-first", "label-second", "patch-in-validating"):
        patch = _label_patch(review, "webhook-" + behaviour, "yes")
        if patch is not None:
            response["patchType"] = "JSONPatch"
            response["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
    elif behaviour == "bad-uid":
        response["uid"] = "not-" + request["uid"]
    # status is the v1 field's JSON name (result in Go)
    return {"apiVersion": review.get("apiVersion", "admission.k8s.io/v1"), "kind": "AdmissionReview",
            "response": response}


#: A test CRD's versions: v1 names the field ``spec.size``, every other version ``spec.replicas``.
_SIZE_FIELDS = {"v1": "size"}


def conversion_crd(group: str, plural: str, kind: str, client_config: Json,
                   review_versions: tuple[str, ...] = ("v1",)) -> Json:
    """A namespaced CRD converted by a webhook (``conversion_answer``'s): v1 stored, v2 served
    too, both with a status subresource and schemas that keep any ``spec`` and ``status``."""
    free = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    schema = {"type": "object", "properties": {"spec": free, "status": free}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group, "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"},
            "versions": [{"name": name, "served": True, "storage": name == "v1", "schema": {"openAPIV3Schema": schema},
                          "subresources": {"status": {}}} for name in ("v1", "v2")],
            "conversion": {"strategy": "Webhook", "webhook": {
                "clientConfig": client_config, "conversionReviewVersions": list(review_versions)}},
        },
    }


def _converted(obj: Json, api_version: str) -> Json:
    """``obj`` in ``api_version``: its ``spec`` field renamed, what its ``conversion`` label
    asks done wrong."""
    out = json.loads(json.dumps(obj))
    spec = out.get("spec") or {}
    source = _SIZE_FIELDS.get(obj["apiVersion"].rsplit("/", 1)[-1], "replicas")
    target = _SIZE_FIELDS.get(api_version.rsplit("/", 1)[-1], "replicas")
    if source in spec:
        spec[target] = spec.pop(source)
    out["apiVersion"] = api_version
    wrong = (out["metadata"].get("labels") or {}).get("conversion")
    if wrong == "rename":
        out["metadata"]["name"] += "-renamed"
    elif wrong == "relabel":
        out["metadata"]["labels"]["converted"] = "yes"
        out["metadata"]["resourceVersion"] = "1"  # kube restores every other metadata field
    elif wrong == "bad-label":
        out["metadata"]["labels"]["converted"] = "not a valid label value"
    elif wrong == "wrong-version":
        out["apiVersion"] = obj["apiVersion"]
    elif wrong == "wrong-kind":
        out["kind"] = "Other"
    return out


def conversion_answer(review: Json, refused: bool = False) -> Json:
    """A conversion webhook's answer: each object converted to the desired version (``spec.size``
    in v1 is ``spec.replicas`` elsewhere), unless ``refused`` (result Failure) or an object's
    ``conversion`` label says what to do wrong: ``failure`` (result Failure), ``bad-uid`` (another request's uid), ``drop`` (no
    objects returned), ``slow`` (answers after 3 s), ``rename``, ``relabel`` (a new label: kube
    keeps it), ``bad-label``, ``wrong-version``, ``wrong-kind``."""
    request = review["request"]
    wrongs = {(obj["metadata"].get("labels") or {}).get("conversion") for obj in request["objects"]}
    if "slow" in wrongs:
        time.sleep(3)
    response: Json = {"uid": request["uid"], "result": {"status": "Success"},
                      "convertedObjects": [_converted(obj, request["desiredAPIVersion"]) for obj in request["objects"]]}
    if "failure" in wrongs or refused:
        response = {"uid": request["uid"], "result": {"status": "Failure", "message": "the test refuses to convert"}}
    elif "bad-uid" in wrongs:
        response["uid"] = "not-" + request["uid"]
    elif "drop" in wrongs:
        response["convertedObjects"] = []
    return {"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": response}
