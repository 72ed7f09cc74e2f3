"""Writes ``bodies.yaml``: every malformed body below sent to every endpoint that decodes one.
Expectations already recorded in the file are kept; ``bad_requests.py --record`` fills in the
rest. Run: ``python tests/kasdiff/bad-requests/generate.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).parent
TARGET = HERE / "bodies.yaml"

CM = "/api/v1/namespaces/{ns}/configmaps"
WIDGETS = "/apis/kasdiff.example.com/v1/namespaces/{ns}/widgets"
#: name -> (method, path, query, content type, a valid body of the endpoint, cleanup). A valid
#: body changes nothing: creates are cleaned up, the update and patches repeat what is stored,
#: the delete and the apply are dry runs.
ENDPOINTS: dict[str, tuple[str, str, str | None, str, Any, str | None]] = {
    "create-cm": ("POST", CM, None, "application/json",
                  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gen"}, "data": {"a": "b"}}, f"{CM}/gen"),
    "update-cm": ("PUT", f"{CM}/cm", None, "application/json",
                  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "labels": {"app": "x"}},
                   "data": {"a": "b"}}, None),
    "create-widget": ("POST", WIDGETS, None, "application/json",
                      {"apiVersion": "kasdiff.example.com/v1", "kind": "Widget", "metadata": {"name": "gen"},
                       "spec": {"size": 1}}, f"{WIDGETS}/gen"),
    "delete-cm": ("DELETE", f"{CM}/cm", "dryRun=All", "application/json",
                  {"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"]}, None),
    "merge-cm": ("PATCH", f"{CM}/cm", None, "application/merge-patch+json", {"data": {"a": "b"}}, None),
    "strategic-cm": ("PATCH", f"{CM}/cm", None, "application/strategic-merge-patch+json", {"data": {"a": "b"}}, None),
    "jsonpatch-cm": ("PATCH", f"{CM}/cm", None, "application/json-patch+json",
                     [{"op": "test", "path": "/data/a", "value": "b"}], None),
    "apply-cm": ("PATCH", f"{CM}/cm", "fieldManager=corpus&dryRun=All", "application/apply-patch+yaml",
                 {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "b"}}, None),
}

#: Bodies no decoder should take: name -> the text, ``{valid}`` standing for the endpoint's valid
#: body; or a dict: ``truncate`` the valid body by N characters, ``hex`` of bytes around it (``{valid}`` again), ``encode`` the valid body in
#: another encoding, ``gen`` (bad_requests.generate).
SYNTAX: dict[str, Any] = {
    "empty": "",
    "whitespace": "  \n\t ",
    "truncated": {"truncate": 3},
    "trailing-garbage": "{valid} xyz",
    "two-documents": "{valid}{valid}",
    "open-brace": "{",
    "close-brace": "}",
    "single-quotes": "{'metadata': {'name': 'gen'}}",
    "unquoted-keys": "{metadata: {name: gen}}",
    "trailing-comma": '{"metadata": {"name": "gen"},}',
    "comment": "// a comment\n{valid}",
    "nan": '{"metadata": {"name": "gen", "generation": NaN}}',
    "infinity": '{"metadata": {"name": "gen", "generation": Infinity}}',
    "control-character": {"hex": '7b226d65746164617461223a7b226e616d65223a2267016e227d7d'},  # {"metadata":{"name":"g\x01n"}}
    "nul-first": {"hex": "00{valid}"},
    "nul-inside": {"hex": '7b226d65746164617461223a007b7d7d'},  # {"metadata":\0{}}
    "bad-escape": '{"metadata": {"name": "g\\qn"}}',
    "short-unicode-escape": '{"metadata": {"name": "g\\u12"}}',
    "utf8-bom": {"hex": "efbbbf{valid}"},
    "utf16-le-bom": {"encode": "utf-16"},
    "utf16-be": {"encode": "utf-16-be"},
    "utf32": {"encode": "utf-32"},
    "latin1-outside-string": {"hex": "e9{valid}"},
    "deep-arrays": {"gen": {"nest": 10001, "open": "[", "close": "]"}},
    "deep-objects": {"gen": {"nest": 10001, "open": '{"a":', "close": "}", "inner": "1"}},
    "binary-garbage": {"hex": "8fa3ff00017f80c0"},
}
#: Well-formed JSON of the wrong shape, for the endpoints that decode objects.
SHAPE: dict[str, Any] = {
    "null": "null",
    "array": "[]",
    "string": '"hello"',
    "number": "42",
    "boolean": "true",
    "metadata-string": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": "gen"}',
    "metadata-array": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": []}',
    "name-number": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 5}}',
    "labels-list": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gen", "labels": ["a"]}}',
    "int-overflow": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gen", "generation": 99999999999999999999}}',
    "float-exponent": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gen", "generation": 1e999}}',
    "kind-number": '{"apiVersion": "v1", "kind": 5, "metadata": {"name": "gen"}}',
}
_OBJECT_ENDPOINTS = ("create-cm", "update-cm", "create-widget")
#: Bodies Go's decoder reads but Python's ``json`` does not read alike, for the object endpoints
#: under each ``fieldValidation`` (None: unset, Warn), whose strict check reads the body again:
#: invalid UTF-8 in a string (Go reads each bad byte as U+FFFD, a truncated sequence too, where
#: Python's "replace" puts one for the sequence), keys that only Go reads as one (two bad bytes,
#: two lone surrogates), nesting deeper than Python's recursion limit (in an unknown field; in a
#: field of another type: the decoding's type error, a custom resource's pruning and validation).
#: ``set`` replaces a top-level member of the endpoint's valid body (or adds it) with raw JSON:
#: ``hex`` bytes, ``text``, or built by ``gen`` (``data`` is a ConfigMap's map, unknown to a
#: Widget; ``spec`` the reverse). A write kube accepts is cleaned up, or is a dry run where it
#: would change a fixture.
DECODED: dict[str, Any] = {
    "invalid-utf8-data": {"set": "data", "hex": '7b2261223a22fffe227d'},  # {"a":"\xff\xfe"}
    "truncated-utf8-data": {"set": "data", "hex": '7b2261223a22e282227d'},  # {"a":"\xe2\x82"}: € cut short
    "invalid-utf8-spec": {"set": "spec", "hex": '7b226e6f7465223a22fffe227d'},  # {"note":"\xff\xfe"}
    "invalid-utf8-keys": {"set": "data", "hex": '7b22ff223a2231222c22fe223a2232227d'},  # {"\xff":"1","\xfe":"2"}
    "lone-surrogate-keys": {"set": "data", "text": '{"\\ud800":"1","\\udc00":"2"}'},
    "deep-data": {"set": "data", "gen": {"nest": 3000, "open": "[", "close": "]"}},
    "deep-spec": {"set": "spec", "gen": {"nest": 3000, "open": "[", "close": "]", "before": '{"deep":', "after": "}"}},
    "deep-spec-size": {"set": "spec", "gen": {"nest": 3000, "open": "[", "close": "]", "before": '{"size":', "after": "}"}},
    "deep-annotations": {"set": "metadata", "gen": {"nest": 3000, "open": "[", "close": "]",
                                                    "before": '{"name":"gen","annotations":', "after": "}"}},
}
#: The ``fieldValidation`` values ``DECODED`` is sent with (None: not sent, Warn).
FIELD_VALIDATION = (None, "Strict", "Ignore")


def _body(template: Any, valid: Any, content_type: str) -> dict[str, Any]:
    valid_text = yaml.safe_dump(valid) if "yaml" in content_type else json.dumps(valid, separators=(",", ":"))
    if isinstance(template, str):
        return {"body": template.replace("{valid}", valid_text)}
    if "hex" in template:
        return {"body_hex": template["hex"].replace("{valid}", valid_text.encode().hex())}
    if "truncate" in template:
        return {"body": valid_text[:-template["truncate"]]}
    if "encode" in template:
        return {"body_hex": valid_text.encode(template["encode"]).hex()}
    return {"body_gen": template["gen"]}


def _decoded_body(template: dict[str, Any], valid: Any) -> dict[str, Any]:
    """``valid`` with its member ``template["set"]`` replaced by raw JSON (``DECODED``)."""
    placeholder = "@raw@"
    before, after = json.dumps({**valid, template["set"]: placeholder}, separators=(",", ":")).split(f'"{placeholder}"')
    if "gen" in template:
        gen = template["gen"]
        return {"body_gen": {**gen, "before": before + gen.get("before", ""), "after": gen.get("after", "") + after}}
    raw = bytes.fromhex(template["hex"]) if "hex" in template else template["text"].encode()
    return {"body_hex": (before.encode() + raw + after.encode()).hex()}


def _decoded_cases() -> list[dict[str, Any]]:
    out = []
    for endpoint in _OBJECT_ENDPOINTS:
        method, path, query, content_type, valid, cleanup = ENDPOINTS[endpoint]
        for name, template in DECODED.items():
            for policy in FIELD_VALIDATION:
                case: dict[str, Any] = {"case": f"{endpoint}-{name}-{(policy or 'warn').lower()}", "method": method,
                                        "path": path}
                params = [query] if query else []
                params += [] if cleanup else ["dryRun=All"]
                params += [f"fieldValidation={policy}"] if policy else []
                if params:
                    case["query"] = "&".join(params)
                case["content_type"] = content_type
                case.update(_decoded_body(template, valid))
                if cleanup:
                    case["cleanup"] = cleanup
                out.append(case)
    return out


def cases() -> list[dict[str, Any]]:
    out = []
    for endpoint, (method, path, query, content_type, valid, cleanup) in ENDPOINTS.items():
        bodies = dict(SYNTAX)
        if endpoint in _OBJECT_ENDPOINTS:
            bodies.update(SHAPE)
        for name, template in bodies.items():
            case: dict[str, Any] = {"case": f"{endpoint}-{name}", "method": method, "path": path}
            if query:
                case["query"] = query
            case["content_type"] = content_type
            case.update(_body(template, valid, content_type))
            if cleanup:
                case["cleanup"] = cleanup
            out.append(case)
    return out + _decoded_cases()


def main() -> None:
    recorded = {}
    if TARGET.exists():
        recorded = {case["case"]: case["expect"] for case in yaml.safe_load(TARGET.read_text()) or [] if "expect" in case}
    lines = ["# Generated by generate.py (malformed bodies x endpoints that decode them); expect: recorded from",
             "# the real kube-apiserver by bad_requests.py --record. Edit generate.py, not this file.\n"]
    for case in cases():
        if case["case"] in recorded:
            case = {"case": case["case"], "expect": recorded[case["case"]], **case}
        text = yaml.safe_dump([case], sort_keys=False, width=200, allow_unicode=False)
        lines.append(text)
    TARGET.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
