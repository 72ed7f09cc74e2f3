"""``serviceaccounts/token`` (kube's ``TokenREST``, ``pkg/registry/core/serviceaccount/storage/
token.go``): a signed token for a service account, optionally bound to a pod (and its node), a
secret or a node, valid for ``spec.expirationSeconds`` (default an hour, at least ten minutes)
for ``spec.audiences`` (default the API audiences). ``kubectl create token`` calls it.

As kube-apiserver's default ``--service-account-extend-token-expiration`` does, a pod-bound token
asked for kubelet's 3607 seconds for the API audiences is valid a year and warns after 3607 s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ..admission import Lookup
from ..apis.authentication.validation import validate_token_request
from ..machinery import metadata
from ..machinery.managed_fields import format_time
from ..machinery.status import bad_request, conflict, invalid, invalid_error, not_found
from ..auth.serviceaccount_tokens import (
    EXTENDED_EXPIRATION_SECONDS,
    WARN_ONLY_EXPIRATION_SECONDS,
    TokenSigner,
)
from .create_only import BodyType, CreateOnly, CreateRequest

Json = dict[str, Any]

_GROUP = "authentication.k8s.io"


class ServiceAccountTokens(CreateOnly):
    """``serviceaccounts/token``."""

    body_type = BodyType(_GROUP, ("v1",), "TokenRequest")
    answers_request = True
    keeps_system_fields = True
    zero_object = {"metadata": {"creationTimestamp": None}, "spec": {"audiences": None, "boundObjectRef": None},
                   "status": {"token": "", "expirationTimestamp": None}}

    def __init__(self, signer: TokenSigner, lookup: Lookup, api_audiences: tuple[str, ...],
                 clock: Callable[[], float] = time.time) -> None:
        self._signer = signer
        self._lookup = lookup
        self._api_audiences = api_audiences
        self._clock = clock

    def create(self, request: CreateRequest) -> Json:
        token_request = request.body
        meta = token_request["metadata"]
        name, namespace = request.name or "", request.namespace or ""
        if meta.get("name") and meta["name"] != name:
            raise invalid(_GROUP, "TokenRequest", name, [invalid_error(
                "metadata.name", meta["name"], "must match the service account name if specified")])
        account = self._lookup("", "ServiceAccount", namespace, name)
        if account is None:
            raise not_found("", "serviceaccounts", name)
        account_uid = account["metadata"].get("uid", "")
        if meta.get("uid") and meta["uid"] != account_uid:
            raise conflict(_GROUP, "TokenRequest", name, f"the UID in the token request ({meta['uid']}) does not "
                           f"match the UID of the service account ({account_uid})")
        spec = token_request["spec"]
        if not spec.get("audiences"):
            spec["audiences"] = list(self._api_audiences)
        now = self._clock()
        meta.update(name=name, namespace=namespace, uid=account_uid, creationTimestamp=_time(now))
        token_request["metadata"] = metadata.go_object_meta(meta)
        errors = validate_token_request(token_request)
        if errors:
            raise invalid(_GROUP, "TokenRequest", "", errors)
        pod, secret, node = self._bound_objects(spec.get("boundObjectRef"), name, namespace)
        expiration = spec["expirationSeconds"]
        warn_after = 0
        if pod is not None and expiration == WARN_ONLY_EXPIRATION_SECONDS and \
                all(audience in self._api_audiences for audience in spec["audiences"]):
            warn_after, expiration = expiration, EXTENDED_EXPIRATION_SECONDS
        claims = self._signer.claims(namespace=namespace, service_account=account, audiences=spec["audiences"],
                                     now=int(now), expiration_seconds=expiration, warn_after_seconds=warn_after,
                                     pod=pod, secret=secret, node=node)
        token_request["spec"] = {"audiences": spec["audiences"], "expirationSeconds": spec["expirationSeconds"],
                                 "boundObjectRef": spec.get("boundObjectRef")}
        token_request["status"] = {"token": self._signer.sign(claims),
                                   "expirationTimestamp": _time(now + spec["expirationSeconds"])}
        return token_request

    def _bound_objects(self, ref: Json | None, name: str, namespace: str) -> tuple[Json | None, Json | None, Json | None]:
        """The pod (and its node), secret or node a token is bound to, checked as kube checks them."""
        if ref is None:
            return None, None, None
        group, _, version = str(ref.get("apiVersion", "")).rpartition("/")
        kind, ref_name = ref.get("kind", ""), ref.get("name", "")
        pod = secret = node = None
        if group == "" and kind == "Pod":
            pod = self._get("Pod", "pods", namespace, ref_name)
            if name != (pod.get("spec") or {}).get("serviceAccountName"):
                raise bad_request(f'cannot bind token for serviceaccount "{name}" to pod running with different '
                                  "serviceaccount name.")
            bound = pod
            node_name = (pod.get("spec") or {}).get("nodeName")
            if node_name:
                # A node that is gone is still named, without a uid.
                node = self._lookup("", "Node", None, node_name) or {"metadata": {"name": node_name}}
        elif group == "" and kind == "Node":
            node = bound = self._get("Node", "nodes", None, ref_name)
        elif group == "" and kind == "Secret":
            secret = bound = self._get("Secret", "secrets", namespace, ref_name)
        else:
            raise bad_request(f"cannot bind token to object of type {group}/{version}, Kind={kind}")
        if ref.get("uid") and ref["uid"] != bound["metadata"].get("uid"):
            raise conflict(group, kind, ref_name, f"the UID in the bound object reference ({ref['uid']}) does not match "
                           "the UID in record. The object might have been deleted and then recreated")
        return pod, secret, node

    def _get(self, kind: str, resource: str, namespace: str | None, name: str) -> Json:
        found = self._lookup("", kind, namespace, name)
        if found is None:
            raise not_found("", resource, name)
        return found


def _time(seconds: float) -> str:
    """A Unix time as ``metav1.Time`` writes it."""
    return format_time(datetime.fromtimestamp(seconds, UTC))
