"""The bad-request corpus (``bad-requests/*.yaml``): requests a client gets wrong, each sent to
fakeapi and to the real kube-apiserver by ``test_bad_requests.py``.

A corpus file is a YAML list of cases::

    - case: json-truncated            # unique across the corpus
      method: POST                    # default GET
      path: /api/v1/namespaces/{ns}/configmaps   # {ns}: the corpus' namespace on both servers
      query: limit=abc                # optional, sent as written (no re-encoding)
      headers: {Accept: text/html}    # optional
      content_type: application/json  # the Content-Type of a body (default JSON); null: none
      body: '{"metadata": {"name": "x"'   # text, or body_hex (bytes), or body_gen (below)
      encoding: utf-16-le             # how ``body`` becomes bytes (default utf-8; utf-8-sig adds a BOM)
      expect: 400 BadRequest          # kube-apiserver's status code and reason ("500" when it has none)
      cleanup: /api/v1/...            # a DELETE sent to both afterwards (a write kube accepts)

``body_gen`` builds bodies too large or too regular to write out: ``{nest: N, open: "[",
close: "]", inner: "1", before: A, after: B}`` (N levels around ``inner``, between A and B), ``{configmap: NAME, data_bytes: N}`` (a
ConfigMap whose one value has N bytes), ``{configmap: NAME, annotation_bytes: N}``,
``{pod: NAME, env: N, value_bytes: M}`` (N env vars of M bytes), ``{configmap: NAME, keys: N}``
(N empty data keys), ``{json_patch_ops: N}`` (N ``test`` operations), ``{repeat: TEXT, times:
N, before: A, after: B}`` (A + TEXT*N + B).

``expect`` is what the real kube-apiserver answered when the case was written down: the test
checks that it still does (else the corpus is stale) and that fakeapi answers exactly the same.
``python tests/kasdiff/bad_requests.py --record`` starts the real kube-apiserver and fills in
``expect`` where a case has none, editing the files in place (comments stay).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from differ import _parsed as parsed

CORPUS = Path(__file__).parent / "bad-requests"
#: The namespace the corpus works in, on both servers.
NAMESPACE = "bad-requests"
_KNOWN_KEYS = {"case", "method", "path", "query", "headers", "content_type", "body", "body_hex", "body_gen",
               "encoding", "expect", "cleanup", "comment"}


@dataclass
class BadRequest:
    case: str
    file: str
    method: str
    path: str
    headers: dict[str, str]
    body: bytes | None
    expect: tuple[int, str] | None
    cleanup: str | None = None
    spec: dict[str, Any] = field(default_factory=dict)

    @property
    def resource(self) -> str:
        """What the table groups the case under: the resource its path names (or the path)."""
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if "namespaces" in parts and len(parts) > parts.index("namespaces") + 2:
            return parts[parts.index("namespaces") + 2]
        return parts[-1] if len(parts) < 4 else parts[3] if parts[0] == "apis" else parts[2]


def load(directory: Path = CORPUS) -> list[BadRequest]:
    cases = []
    for path in sorted(directory.glob("*.yaml")):
        for spec in yaml.safe_load(path.read_text()) or []:
            unknown = set(spec) - _KNOWN_KEYS
            assert not unknown, f"{path.name}: {spec.get('case')}: unknown keys {sorted(unknown)}"
            cases.append(build(spec, path.name))
    names = [case.case for case in cases]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    assert not duplicates, f"case names must be unique: {duplicates}"
    return cases


def build(spec: dict[str, Any], file: str) -> BadRequest:
    path = spec["path"].replace("{ns}", NAMESPACE)
    if spec.get("query") is not None:
        path += "?" + str(spec["query"])
    headers = {str(k): str(v) for k, v in (spec.get("headers") or {}).items()}
    body = _body(spec)
    content_type = spec.get("content_type", "application/json")
    if body is not None and content_type is not None:
        headers.setdefault("Content-Type", content_type)
    expect = None
    if spec.get("expect") is not None:
        code, _, reason = str(spec["expect"]).partition(" ")
        expect = (int(code), reason)
    cleanup = spec.get("cleanup")
    return BadRequest(spec["case"], file, spec.get("method", "GET"), path, headers, body, expect,
                      cleanup.replace("{ns}", NAMESPACE) if cleanup else None, spec)


def _body(spec: dict[str, Any]) -> bytes | None:
    if "body_hex" in spec:
        return bytes.fromhex(re.sub(r"\s", "", spec["body_hex"]))
    if "body_gen" in spec:
        return generate(spec["body_gen"])
    body = spec.get("body")
    if body is None:
        return None
    text = body if isinstance(body, str) else json.dumps(body)
    encoding = spec.get("encoding", "utf-8")
    # surrogatepass: a lone surrogate written as \ud800 in the YAML reaches the wire as is.
    return text.encode(encoding, errors="surrogatepass" if encoding.startswith("utf") else "strict")


def generate(gen: dict[str, Any]) -> bytes:
    """The bodies ``body_gen`` describes (see the module docstring)."""
    if "nest" in gen:
        depth = gen["nest"]
        return (gen.get("before", "") + gen.get("open", "[") * depth + gen.get("inner", "") + gen.get("close", "]") * depth
                + gen.get("after", "")).encode()
    if "repeat" in gen:
        return (gen.get("before", "") + gen["repeat"] * gen["times"] + gen.get("after", "")).encode()
    if "json_patch_ops" in gen:
        return json.dumps([{"op": "test", "path": "/metadata/name", "value": "cm"}] * gen["json_patch_ops"]).encode()
    if "pod" in gen:
        env = [{"name": f"E{i}", "value": "v" * gen["value_bytes"]} for i in range(gen["env"])]
        return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": gen["pod"]},
                           "spec": {"containers": [{"name": "c", "image": "busybox", "env": env}]}}).encode()
    meta: dict[str, Any] = {"name": gen["configmap"]}
    data: dict[str, str] = {}
    if "data_bytes" in gen:
        data["a"] = "x" * gen["data_bytes"]
    if "keys" in gen:
        data.update((f"key-{i:07d}", "") for i in range(gen["keys"]))
    if "annotation_bytes" in gen:
        meta["annotations"] = {"a": "x" * gen["annotation_bytes"]}
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}).encode()


#: What the corpus' requests refer to, created on both servers first: a namespace, a ConfigMap
#: ``cm``, a Pod ``pod``, a Deployment ``deploy``, the CRD of ``widgets.kasdiff.example.com`` and
#: a Widget ``widget``.
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.kasdiff.example.com"},
    "spec": {
        "group": "kasdiff.example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [{
            "name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"size": {"type": "integer", "minimum": 0},
                                                          "color": {"type": "string", "enum": ["red", "blue"]},
                                                          "note": {"type": "string"}}},
                "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
            }}},
        }],
    },
}
FIXTURES = (
    ("/api/v1/namespaces", {"metadata": {"name": NAMESPACE}}),
    (f"/api/v1/namespaces/{NAMESPACE}/configmaps", {"metadata": {"name": "cm", "labels": {"app": "x"}}, "data": {"a": "b"}}),
    (f"/api/v1/namespaces/{NAMESPACE}/pods", {"metadata": {"name": "pod"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}),
    (f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments", {
        "metadata": {"name": "deploy"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
                 "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}},
    }),
)
WIDGETS = f"/apis/kasdiff.example.com/v1/namespaces/{NAMESPACE}/widgets"


def create_fixtures(client: Any) -> None:
    """The corpus' objects on one server (an ``httpx.Client``); waits for the CRD to serve."""
    import time

    for path, body in FIXTURES:
        response = client.post(path, json=body)
        assert response.status_code in (201, 409), f"{path}: {response.status_code} {response.text}"
    response = client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD)
    assert response.status_code in (201, 409), response.text
    deadline = time.monotonic() + 60
    while True:
        response = client.post(WIDGETS, json={"apiVersion": "kasdiff.example.com/v1", "kind": "Widget",
                                              "metadata": {"name": "widget"}, "spec": {"size": 1}})
        if response.status_code in (201, 409):
            return
        assert time.monotonic() < deadline, f"the Widget CRD is not served: {response.status_code} {response.text}"
        time.sleep(0.1)


def missing_fixtures(client: Any) -> list[str]:
    """The corpus' objects a server no longer has (a case must never delete one)."""
    paths = [f"{path}/{body['metadata']['name']}" for path, body in FIXTURES[1:]] + [f"{WIDGETS}/widget"]
    return [path for path in paths if client.get(path).status_code != 200]


def record(url_client: Any, directory: Path = CORPUS) -> int:
    """Fill in ``expect`` for every case without one from ``url_client``'s answers (the real
    kube-apiserver), editing each file's text: an ``expect:`` line goes after the case's
    ``case:`` line. Returns how many were filled."""
    filled = 0
    for path in sorted(directory.glob("*.yaml")):
        missing = [build(spec, path.name) for spec in yaml.safe_load(path.read_text()) or [] if "expect" not in spec]
        if not missing:
            continue
        lines = path.read_text().splitlines(keepends=True)
        for case in missing:
            response = url_client.request(case.method, case.path, content=case.body, headers=case.headers)
            answer = parsed(response)  # a Status in JSON or YAML, whatever its Content-Type
            reason = answer.get("reason", "") if isinstance(answer, dict) else ""
            if case.cleanup:
                url_client.delete(case.cleanup)
            missing = missing_fixtures(url_client)
            assert not missing, f"{case.case} changed the corpus' objects ({missing}): make it a dry run"
            marker = re.compile(rf"^(\s*)- case: {re.escape(case.case)}\s*$")
            for index, line in enumerate(lines):
                match = marker.match(line)
                if match:
                    indent = match.group(1) + "  "
                    lines.insert(index + 1, f"{indent}expect: {response.status_code}{' ' + reason if reason else ''}\n")
                    filled += 1
                    break
        path.write_text("".join(lines))
    return filled


def main() -> None:
    parser = argparse.ArgumentParser(description="fill in the corpus' expectations from the real kube-apiserver")
    parser.add_argument("--record", action="store_true", required=True)
    args = parser.parse_args()
    del args
    import tempfile

    from fakeapi.cluster.control_plane import real_apiserver

    with tempfile.TemporaryDirectory() as workdir, real_apiserver(Path(workdir)) as server:
        create_fixtures(server.http)
        print(f"filled {record(server.http)} expectations")


if __name__ == "__main__":
    main()
