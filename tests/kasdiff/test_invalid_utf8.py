"""Strings a body held in invalid UTF-8, stored and read back, on fakeapi and on the real
kube-apiserver: Go's JSON decoding reads each bad byte as U+FFFD (the bad-request corpus checks
the write's answer; here the object it stored is read back, as JSON and as YAML, then deleted)."""

from __future__ import annotations

from differ import NAMESPACE, Pair, check

CONFIGMAP = f"/api/v1/namespaces/{NAMESPACE}/configmaps/invalid-utf8"
#: \xff\xfe: two bad bytes; \xe2\x82: a euro sign cut short (two U+FFFD in Go, one in Python's
#: "replace"); \xc0\xaf: an overlong '/'.
BODY = (b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"invalid-utf8",'
        b'"annotations":{"note":"\xc0\xaf"}},"data":{"a":"\xff\xfe","b":"x\xe2\x82y"}}')


def test_invalid_utf8_is_stored_as_go_reads_it(pair: Pair) -> None:
    start = len(pair.outcomes)
    try:
        created = pair.send("invalid-utf8", "ConfigMap", "create", "POST", CONFIGMAP.rpartition("/")[0], body=BODY)
        assert created.fake.status == 201, created.fake.body
        for accept in ("application/json", "application/yaml"):
            read = pair.send("invalid-utf8", "ConfigMap", f"get {accept}", "GET", CONFIGMAP, headers={"Accept": accept})
            assert read.fake.raw["data"] == {"a": "\ufffd\ufffd", "b": "x\ufffd\ufffdy"}, read.fake.raw
            assert read.real.raw["data"] == read.fake.raw["data"]
    finally:
        for client in (pair.fake, pair.real):
            client.delete(CONFIGMAP)
    check(pair, start)
