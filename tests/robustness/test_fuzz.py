"""Property-based fuzzing of the HTTP API with hypothesis: requests built from the shapes kube
clients send, with every part of them (method, path segments, query parameters, Content-Type,
Accept, body) drawn from valid values, near misses and garbage. Whatever comes in:

* the answer is never a 5xx, except the 500s kube-apiserver answers itself for those inputs
  (etcd refusing a too-large write, a resourceVersion that is not a number on a GET, a watch or an
  update) and the 504 of an expired ``timeout``;
* nothing hangs (every request has a client timeout; a watch must start streaming, and the client
  then leaves it);
* the server keeps serving (``/healthz``) and never drops a connection it should answer;
* a refused request (4xx) leaves the store's revision where it was.

Bounded by ``FAKEAPI_FUZZ_EXAMPLES`` (default 150, about ten seconds; e.g. 20000 for a long run);
hypothesis prints the failing request, shrunk, and how to reproduce it."""

from __future__ import annotations

import json
import os
import string
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakeapi.testing import ServerProcess

EXAMPLES = int(os.environ.get("FAKEAPI_FUZZ_EXAMPLES", "150"))
NS = "fuzz"
#: The 500s kube-apiserver itself answers for client input (see the module doc).
KUBE_500_MESSAGES = ("etcdserver: request is too large", "strconv.ParseUint")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("fuzz")) as srv:
        http = srv.http
        assert http.post("/api/v1/namespaces", json={"metadata": {"name": NS}}).status_code == 201
        for path, body in (
            (f"/api/v1/namespaces/{NS}/configmaps", {"metadata": {"name": "cm", "labels": {"a": "b"}}, "data": {"k": "v"}}),
            (f"/api/v1/namespaces/{NS}/pods", {"metadata": {"name": "pod"},
                                               "spec": {"containers": [{"name": "c", "image": "busybox"}]}}),
        ):
            assert http.post(path, json=body).status_code == 201
        yield srv


# ----------------------------------------------------------------------------- strategies

garbage = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
tokens = st.text(alphabet=string.ascii_letters + string.digits + "-._~/%=,!()<>:", max_size=20)
names = st.one_of(st.sampled_from(["cm", "pod", "nothere", "", "..", "A_B", "a" * 300]), tokens)
resources = st.sampled_from(["configmaps", "pods", "secrets", "services", "deployments", "events", "leases",
                             "serviceaccounts", "nodes", "gizmos"])
subresources = st.one_of(st.none(), st.sampled_from(["status", "scale", "binding", "eviction", "log", "x"]), tokens)


@st.composite
def paths(draw: st.DrawFn) -> str:
    root = draw(st.sampled_from(["/api/v1", "/apis/apps/v1", "/apis/coordination.k8s.io/v1", "/apis/x.example.com/v1",
                                 "/api/v2", "/apis", "/api", "/version", "/nothing"]))
    if root in ("/apis", "/api", "/version", "/nothing"):
        return root
    parts = [root]
    if draw(st.booleans()):
        parts += ["namespaces", draw(st.one_of(st.just(NS), names))]
    parts.append(draw(resources))
    if draw(st.booleans()):
        parts.append(draw(names))
        sub = draw(subresources)
        if sub is not None:
            parts.append(sub)
    return "/".join(parts)


QUERY_NAMES = ("labelSelector", "fieldSelector", "resourceVersion", "resourceVersionMatch", "limit", "continue",
               "watch", "allowWatchBookmarks", "sendInitialEvents", "timeoutSeconds", "timeout", "dryRun",
               "fieldManager", "fieldValidation", "force", "propagationPolicy", "gracePeriodSeconds",
               "orphanDependents", "includeObject", "pretty")
query_values = st.one_of(st.sampled_from(["", "0", "1", "-1", "true", "false", "All", "Strict", "a=b", "a in (b)",
                                          "metadata.name=cm", "1ns", "5s", "Exact", "NotOlderThan", "Orphan",
                                          "99999999999999999999", "Object"]), garbage)
queries = st.dictionaries(st.one_of(st.sampled_from(QUERY_NAMES), tokens), query_values, max_size=5)
content_types = st.one_of(st.none(), st.sampled_from([
    "application/json", "application/yaml", "application/vnd.kubernetes.protobuf", "application/merge-patch+json",
    "application/strategic-merge-patch+json", "application/json-patch+json", "application/apply-patch+yaml",
    "text/plain", "*/*", ";;;", "application/json; charset=utf-16"]), tokens)
accepts = st.one_of(st.none(), st.sampled_from([
    "application/json", "application/yaml", "application/vnd.kubernetes.protobuf", "*/*", "text/html",
    "application/json;as=Table;v=v1;g=meta.k8s.io", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
    "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", "application/json;q=0", ";;"]), tokens)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), garbage),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(garbage, inner, max_size=4)),
    max_leaves=20)


@st.composite
def objects(draw: st.DrawFn) -> Any:
    """A ConfigMap, Pod or patch-like object with some fields replaced by anything."""
    obj: dict[str, Any] = draw(st.sampled_from([
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fz"}, "data": {"a": "b"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fz"},
         "spec": {"containers": [{"name": "c", "image": "busybox"}]}},
        {"data": {"a": "b"}}, {"metadata": {"labels": {"x": "y"}}},
    ]))
    obj = json.loads(json.dumps(obj))
    for _ in range(draw(st.integers(0, 3))):
        target = obj
        path = draw(st.lists(st.sampled_from(["metadata", "name", "data", "spec", "labels", "kind", "apiVersion",
                                              "containers", "namespace", "resourceVersion", "a"]), min_size=1, max_size=3))
        for key in path[:-1]:
            nested = target.get(key) if isinstance(target, dict) else None
            if not isinstance(nested, dict):
                break
            target = nested
        if isinstance(target, dict):
            target[path[-1]] = draw(json_values)
    return obj


bodies = st.one_of(
    st.none(),
    st.binary(max_size=200),
    json_values.map(lambda value: json.dumps(value).encode()),
    objects().map(lambda value: json.dumps(value).encode()),
    st.lists(st.fixed_dictionaries({"op": st.sampled_from(["add", "remove", "replace", "test", "move", "copy", "x"]),
                                    "path": st.sampled_from(["/data/a", "/metadata/name", "", "/spec/containers/0",
                                                             "/x/y", "data"]),
                                    "value": json_values}), max_size=3).map(lambda ops: json.dumps(ops).encode()),
    garbage.map(str.encode),
)
methods = st.sampled_from(["GET", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])


# ----------------------------------------------------------------------------- the property


def _watching(query: dict[str, str]) -> bool:
    value = query.get("watch")
    return value is not None and value not in ("0", "f", "F", "false", "False", "FALSE")


def revision(http: httpx.Client) -> int:
    return int(http.get("/api/v1/namespaces", params={"limit": 1}).json()["metadata"]["resourceVersion"])


@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])
@given(method=methods, path=paths(), query=queries, content_type=content_types, accept=accepts, body=bodies)
def test_no_5xx_no_hang_no_change_on_refusal(server: ServerProcess, method: str, path: str, query: dict[str, str],
                                             content_type: str | None, accept: str | None, body: bytes | None) -> None:
    headers = {}
    if content_type is not None:
        headers["Content-Type"] = content_type
    if accept is not None:
        headers["Accept"] = accept
    http = server.http
    writes = method in ("POST", "PUT", "PATCH", "DELETE")
    before = revision(http) if writes else 0
    try:
        # Read as a stream: a watch answers its headers at once and is then left by the client.
        with http.stream(method, path, params=query, content=body, headers=headers, timeout=15) as response:
            if "json;stream=watch" not in response.headers.get("content-type", "") and not _watching(query):
                response.read()
    except httpx.TimeoutException:
        pytest.fail(f"{method} {path} {query}: no answer within 15 s")
    except httpx.RemoteProtocolError as err:
        pytest.fail(f"{method} {path} {query}: the connection was dropped ({err})")
    assert http.get("/healthz").status_code == 200, "the server stopped serving"
    status = response.status_code
    if status >= 500:
        text = response.text if response.is_stream_consumed else ""
        allowed = status == 504 or (status == 500 and any(m in text for m in KUBE_500_MESSAGES))
        assert allowed, f"{method} {path} {query} {headers} -> {status}: {text[:500]}"
    if status >= 400 and writes:
        assert revision(http) == before, f"{method} {path} {query} -> {status}, but the store changed"
