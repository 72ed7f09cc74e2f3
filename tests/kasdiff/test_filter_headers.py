"""The headers kube-apiserver's filters put on every answer, on fakeapi and on the real server:
``Cache-Control: no-cache, private`` (``WithCacheControl``) unless the handler sets its own (the
discovery and OpenAPI documents), and ``Audit-Id`` (``WithAuditInit``): a new UUID, or the
client's ``Audit-ID`` echoed. Reads, writes, errors, a watch, the health checks and the metrics;
the priority-and-fairness UIDs are left out (fakeapi does not classify requests into flow
schemas)."""

from __future__ import annotations

import re

import pytest
from differ import NAMESPACE, Pair

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

_REQUESTS = [
    ("GET", f"/api/v1/namespaces/{NAMESPACE}", None),
    ("POST", f"/api/v1/namespaces/{NAMESPACE}/configmaps", b'{"metadata":{"generateName":"headers-"}}'),
    ("GET", f"/api/v1/namespaces/{NAMESPACE}/configmaps/absent", None),
    ("POST", f"/api/v1/namespaces/{NAMESPACE}/configmaps", b"{not json"),
    ("GET", f"/api/v1/namespaces/{NAMESPACE}/configmaps?watch=true&timeoutSeconds=1", None),
    ("GET", "/healthz", None),
    ("GET", "/version", None),
    ("GET", "/api", None),
    ("GET", "/apis", None),
    ("GET", "/openapi/v3", None),
    ("GET", "/openapi/v3/apis/apps/v1", None),
    ("GET", "/no/such/path", None),
]


def _filter_headers(response: object, sent_audit_id: str | None) -> tuple[int, list[str], str]:
    headers = response.headers  # type: ignore[attr-defined]
    audit_ids = headers.get_list("audit-id")
    if sent_audit_id is None:
        audit = "uuid" if len(audit_ids) == 1 and _UUID.match(audit_ids[0]) else f"not one UUID: {audit_ids}"
    else:
        audit = "echoed" if audit_ids == [sent_audit_id] else f"not echoed: {audit_ids}"
    return response.status_code, headers.get_list("cache-control"), audit  # type: ignore[attr-defined]


@pytest.mark.parametrize("audit_id", [None, "a-client-chosen-id"])
@pytest.mark.parametrize(("method", "path", "body"), _REQUESTS, ids=[f"{m} {p}" for m, p, _ in _REQUESTS])
def test_every_answer_has_kubes_filter_headers(pair: Pair, method: str, path: str, body: bytes | None,
                                               audit_id: str | None) -> None:
    headers = {"Content-Type": "application/json"} if body else {}
    if audit_id:
        headers["Audit-ID"] = audit_id
    fake, real = (_filter_headers(client.request(method, path, content=body, headers=headers), audit_id)
                  for client in (pair.fake, pair.real))
    assert fake == real
