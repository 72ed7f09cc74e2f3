"""A CustomResourceDefinition's conversion strategy ``Webhook``, as apiextensions-apiserver's
``webhookConverter`` calls it (``pkg/apiserver/conversion/webhook_converter.go``): an object not
yet in the desired version sent in a ConversionReview (the first of the definition's
``conversionReviewVersions`` kube speaks, v1beta1 or v1) with a fresh uid, over
``webhook_client`` (``clientConfig.url`` or ``clientConfig.service``, ``caBundle``, 30 s), and
the answer checked as kube checks it: the review's kind and uid (v1 only), its result, the number
of objects, each object's group, version and kind, its name, namespace and uid; of its metadata
only labels and annotations are taken (validated if changed), the rest restored from the
original (``restoreObjectMeta``).

Every failure is a ``ConversionFailed`` with kube's text (``conversion webhook for <group>/<version>,
Kind=<kind> failed: ...``); a request answers it as kube's handlers answer an error that is not a
Status: a 500 without a reason (``ConversionWebhook.convert_object``)."""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Callable
from typing import Any

import orjson

from ..apis.conversion import Conversion
from ..apis.webhook_client import WebhookCallFailed, WebhookClients, server_response_error
from ..machinery.status import field_errors_message, unclassified_error
from ..machinery.validation import validate_annotations, validate_labels
from ..runtime import wait_for
from .conversion_metrics import CALL_FAILURE, INVALID_CONVERTED_OBJECT, MALFORMED_RESPONSE, PARTIAL_RESPONSE, \
    ConversionMetrics

Json = dict[str, Any]

#: kube's conversion webhook client sets no timeout of its own: its requests end when the
#: rest client's 30 s do (the default timeout of ``k8s.io/apiserver/pkg/util/webhook``).
CONVERSION_TIMEOUT_SECONDS = 30
REVIEW_GROUP = "apiextensions.k8s.io"
#: The ConversionReview versions kube speaks: it sends the first of a definition's it knows.
_REVIEW_VERSIONS = ("v1beta1", "v1")


class ConversionFailed(Exception):
    """The webhook could not convert: kube's error text."""


def group_version_kind(api_version: str, kind: str) -> str:
    """``schema.GroupVersionKind``'s ``String()``: ``<group>/<version>, Kind=<kind>``."""
    return f"{api_version}, Kind={kind}"


class ConversionWebhook:
    """One CustomResourceDefinition's conversion webhook."""

    def __init__(self, crd: Json, clients: WebhookClients, metrics: ConversionMetrics) -> None:
        webhook = ((crd.get("spec") or {}).get("conversion") or {}).get("webhook") or {}
        self.crd_name = crd["metadata"]["name"]
        self.client_config: Json = webhook.get("clientConfig") or {}
        self.review_versions: tuple[str, ...] = tuple(webhook.get("conversionReviewVersions") or ())
        self._clients = clients
        self._metrics = metrics

    def conversion(self, storage_api_version: str, served_api_version: str) -> Conversion:
        """The ``Conversion`` between the storage version and a served one through this webhook."""
        async def to_served(obj: Json) -> Json:
            return await self.convert_object(obj, served_api_version)

        def waiting(api_version: str) -> Callable[[Json], Json]:
            def convert(obj: Json) -> Json:
                return wait_for(self.convert_object(obj, api_version))
            return convert

        return Conversion(to_served=waiting(served_api_version), to_storage=waiting(storage_api_version),
                          served_async=to_served)

    async def convert_object(self, obj: Json, api_version: str) -> Json:
        """One object in ``api_version``, as kube's storage converts what it decodes from etcd or
        encodes for it: sent without its resourceVersion (etcd's bytes carry none; kube sets it
        after decoding), which the result then carries again. A failure is kube's 500."""
        meta = obj.get("metadata") or {}
        resource_version = meta.get("resourceVersion")
        sent = obj
        if resource_version is not None:
            sent = {**obj, "metadata": {key: value for key, value in meta.items() if key != "resourceVersion"}}
        try:
            converted = await self.convert(sent, api_version)
        except ConversionFailed as err:
            raise unclassified_error(str(err)) from None
        if resource_version is not None:
            converted.setdefault("metadata", {})["resourceVersion"] = resource_version
        return converted

    async def convert(self, obj: Json, api_version: str) -> Json:
        """``obj`` in ``api_version`` (as it is if it is in it already: no call). kube's storage
        converts one object at a time (a list's items are decoded each on its own), so its
        errors name the object's own group, version and kind. The call is counted (``metrics``)."""
        if obj.get("apiVersion") == api_version:
            return obj
        review_version = next((v for v in self.review_versions if v in _REVIEW_VERSIONS), None)
        if review_version is None:
            raise ConversionFailed("no supported conversion review versions")
        source_version = obj.get("apiVersion") or ""
        began = time.perf_counter()
        failure_type = CALL_FAILURE
        try:
            converted, failure_type = await self._converted(obj, api_version, review_version), ""
            return converted
        except _Failed as failed:
            failure_type = failed.failure_type
            raise ConversionFailed(f"conversion webhook for {group_version_kind(source_version, obj.get('kind') or '')}"
                                   f"{failed.text}") from None
        finally:
            self._metrics.observe(self.crd_name, source_version.rpartition("/")[2], api_version.rpartition("/")[2],
                                  time.perf_counter() - began, failure_type)

    async def _converted(self, obj: Json, api_version: str, review_version: str) -> Json:
        """The webhook's conversion of ``obj`` in a review of ``review_version``; raises
        ``_Failed`` with the rest of kube's text (after ``conversion webhook for <gvk>``) and
        where it failed."""
        uid = str(uuid.uuid4())
        review = {"kind": "ConversionReview", "apiVersion": f"{REVIEW_GROUP}/{review_version}",
                  "request": {"uid": uid, "desiredAPIVersion": api_version, "objects": [obj]},
                  "response": {"uid": "", "convertedObjects": None, "result": {"metadata": {}}}}
        try:
            code, answer, text = await self._clients.post(self.client_config, orjson.dumps(review),
                                                          CONVERSION_TIMEOUT_SECONDS)
        except WebhookCallFailed as err:
            raise _Failed(f" failed: {err}", CALL_FAILURE) from None
        if not 200 <= code <= 206:
            raise _Failed(f" failed: {server_response_error(code, answer, text)}", CALL_FAILURE)
        try:
            returned = _converted_objects(uid, review_version, answer)
        except ConversionFailed as err:
            raise _Failed(f" failed: {err}", MALFORMED_RESPONSE) from None
        if len(returned) != 1:
            raise _Failed(f" returned {len(returned)} objects, expected 1", PARTIAL_RESPONSE)
        try:
            return _checked(obj, returned[0], api_version)
        except ConversionFailed as err:
            raise _Failed(f" {err}", INVALID_CONVERTED_OBJECT) from None


class _Failed(Exception):
    """A call that failed: kube's text after ``conversion webhook for <gvk>``, and the
    ``failure_type`` kube counts it under."""

    def __init__(self, text: str, failure_type: str) -> None:
        super().__init__(text)
        self.text = text
        self.failure_type = failure_type


def _converted_objects(uid: str, review_version: str, answer: Any) -> list[Any]:
    """``getConvertedObjectsFromResponse``: the converted objects of a successful answer."""
    if not isinstance(answer, dict):
        raise ConversionFailed("no response provided")
    if review_version == "v1":  # v1beta1's answers were never checked: kube keeps it so
        got_version, got_kind = answer.get("apiVersion") or "", answer.get("kind") or ""
        if (got_version, got_kind) != (f"{REVIEW_GROUP}/v1", "ConversionReview"):
            expected, got = group_version_kind(f"{REVIEW_GROUP}/v1", "ConversionReview"), group_version_kind(
                got_version, got_kind)
            raise ConversionFailed(f"expected webhook response of {expected}, got {got}")
    response = answer.get("response")
    if not isinstance(response, dict):
        raise ConversionFailed("no response provided")
    if review_version == "v1" and (response.get("uid") or "") != uid:
        raise ConversionFailed(f'expected response.uid="{uid}", got "{response.get("uid") or ""}"')
    result = response.get("result") or {}
    if result.get("status") != "Success":
        raise ConversionFailed(result.get("message")
                               or f"response.result.status was '{result.get('status') or ''}', not 'Success'")
    return list(response.get("convertedObjects") or ())


def _checked(original: Json, converted: Any, api_version: str) -> Json:
    """The converted object as kube takes it, or its error (the text after the webhook's name)."""
    if not isinstance(converted, dict):
        converted = {}  # a JSON value that is no object: refused as an empty one (kube's decoding error aside)
    got_version = str(converted.get("apiVersion") or "")
    if got_version != api_version:
        raise ConversionFailed(f"returned invalid object at index 0: invalid groupVersion "
                               f"(expected {api_version}, received {got_version})")
    if converted.get("kind") != original.get("kind"):
        raise ConversionFailed(f"returned invalid object at index 0: invalid kind "
                               f"(expected {original.get('kind')}, received {converted.get('kind') or ''})")
    problem = _changed_identity(original, converted)
    if problem:
        raise ConversionFailed(f"returned invalid object: {problem}")
    try:
        return _restored_metadata(original, converted)
    except ConversionFailed as err:
        raise ConversionFailed(f"returned invalid metadata: {err}") from None


def _changed_identity(original: Json, converted: Json) -> str:
    """``validateConvertedObject``: what of kind, name, namespace and uid changed."""
    before, after = original.get("metadata") or {}, converted.get("metadata") or {}
    if not isinstance(after, dict):
        after = {}
    checks = (("kind", original.get("kind"), converted.get("kind")),
              ("name", before.get("name"), after.get("name")),
              ("namespace", before.get("namespace"), after.get("namespace")),
              ("UID", before.get("uid"), after.get("uid")))
    for what, expected, got in checks:
        if (expected or "") != (got or ""):
            return f"must have the same {what}: {expected or ''} != {got or ''}"
    return ""


def _restored_metadata(original: Json, converted: Json) -> Json:
    """``restoreObjectMeta``: ``converted`` with the original's metadata, but the labels and
    annotations the webhook answered (validated where they changed)."""
    answered = converted.get("metadata")
    if answered is None:
        raise ConversionFailed("missing metadata in converted object")
    if not isinstance(answered, dict):
        raise ConversionFailed(f"invalid metadata of type {_go_type(answered)} in converted object")
    out = dict(converted)
    metadata = copy.deepcopy(original.get("metadata") or {})
    for field in ("labels", "annotations"):
        value = answered.get(field)
        if value is None:
            metadata.pop(field, None)
            continue
        if not isinstance(value, dict):
            raise ConversionFailed(f"invalid metadata.{field} of type {_go_type(value)} in converted object")
        for key, item in value.items():
            if not isinstance(item, str):
                raise ConversionFailed(f"metadata.{field}[{key}] must be a string, but is {_go_type(item)} "
                                       "in converted object")
        if value != (metadata.get(field) or {}):
            errors = (validate_labels(value, "metadata.labels") if field == "labels"
                      else validate_annotations(value, "metadata.annotation"))
            if errors:
                raise ConversionFailed(field_errors_message(errors))
        metadata[field] = value
    out["metadata"] = metadata
    return out


def _go_type(value: Any) -> str:
    """The Go type ``%T`` names for a decoded JSON value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "float64" if isinstance(value, float) else "int64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    return "map[string]interface {}"
