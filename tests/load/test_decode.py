"""The load client's partial decoding (``loadtests/kubeload/decode.py``) reads what a whole
decode reads, on fakeapi's own LIST bodies and watch lines, and on layouts other servers
could write."""

from __future__ import annotations

import time

import httpx
import msgspec
import orjson
import pytest

from fakeapi.testing import ServerProcess
from kubeload.decode import list_head, list_names, read_list_head, watch_event

STAMP = "load.fakeapi.dev/written-at"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    with ServerProcess(tmp_path_factory.mktemp("decode"), "--seed", "namespaces=3,pods=40,deployments=4,seed=3",
                       "--bookmark-interval", "1s") as process:
        yield process


@pytest.mark.parametrize("params", [
    {"resourceVersion": "0"}, {}, {"limit": "7"}, {"labelSelector": "app=nothing-has-this"},
    {"resourceVersion": "0", "labelSelector": "app"},
], ids=["rv0", "consistent", "paged", "empty", "selector"])
def test_list_head_is_the_lists_metadata(server: ServerProcess, params: dict[str, str]) -> None:
    body = server.http.get("/api/v1/pods", params=params).content
    meta = orjson.loads(body)["metadata"]
    head = list_head(body)
    assert head.resourceVersion == meta["resourceVersion"]
    assert head.continue_ == meta.get("continue", "")
    assert bool(head.continue_) == (params == {"limit": "7"})


def test_paging_with_the_head_walks_every_item(server: ServerProcess) -> None:
    names, params = [], {"limit": "7"}
    while True:
        body = server.http.get("/api/v1/pods", params=params).content
        names += list_names(body)
        token = list_head(body).continue_
        if not token:
            break
        params = {"limit": "7", "continue": token}
    whole = orjson.loads(server.http.get("/api/v1/pods").content)["items"]
    assert names == [(pod["metadata"]["namespace"], pod["metadata"]["name"]) for pod in whole]
    assert len(names) == 40


@pytest.mark.parametrize(("body", "resource_version", "token"), [
    # metadata after items (another encoder's order): the decode that skips items
    (b'{"kind":"PodList","items":[{"metadata":{"resourceVersion":"3"}}],"metadata":{"resourceVersion":"9"}}', "9", ""),
    # "items" as a key inside metadata: the prefix does not close, so it is not taken
    (b'{"metadata":{"x":{"items":1},"resourceVersion":"5","continue":"c"},"items":[]}', "5", "c"),
    # "items": inside a string is escaped
    (b'{"metadata":{"continue":"a\\"items\\":b","resourceVersion":"6"},"items":[{"a":"\\"items\\":"}]}', "6",
     'a"items":b'),
    (b'{"apiVersion":"v1", "metadata": {"resourceVersion": "7"} ,\n "items": [ ]}', "7", ""),
])
def test_list_head_of_other_layouts(body: bytes, resource_version: str, token: str) -> None:
    head = list_head(body)
    assert (head.resourceVersion, head.continue_) == (resource_version, token)


class Body:
    """A response body read the way geventhttpclient's response reads it."""

    def __init__(self, content: bytes) -> None:
        self.rest = content

    def read(self, size: int | None = None) -> bytes:
        size = len(self.rest) if size is None else size
        block, self.rest = self.rest[:size], self.rest[size:]
        return block


@pytest.mark.parametrize("block_size", [7, 64, 65536])
def test_read_list_head_keeps_what_list_head_reads(server: ServerProcess, block_size: int) -> None:
    body = server.http.get("/api/v1/pods", params={"resourceVersion": "0"}).content
    head, length = read_list_head(Body(body).read, block_size)
    assert length == len(body)
    assert len(head) < body.index(b'"items":') + len(b'"items":') + block_size  # not a block past the items
    assert list_head(head) == list_head(body)
    assert list_head(head).resourceVersion == orjson.loads(body)["metadata"]["resourceVersion"]


@pytest.mark.parametrize("body", [
    b'{"kind":"PodList","items":[{"metadata":{"resourceVersion":"3"}}],"metadata":{"resourceVersion":"9"}}',
    b'{"kind":"PodList","metadata":{"resourceVersion":"4"}}',
])
def test_read_list_head_keeps_bodies_in_other_orders_whole(body: bytes) -> None:
    assert read_list_head(Body(body).read, 5) == (body, len(body))


def test_a_body_that_is_no_list_raises() -> None:
    for body in (b"not json", b'{"items": []}', b"[]", b'{"kind":"PodList","items":[]'):
        with pytest.raises(msgspec.DecodeError):
            list_head(body)


def _watch_lines(server: ServerProcess, params: dict[str, str], until: int, seconds: float = 10) -> list[bytes]:
    lines: list[bytes] = []
    deadline = time.monotonic() + seconds
    with httpx.stream("GET", f"{server.url}/api/v1/pods", params={"watch": "true", **params},
                      timeout=seconds) as response:
        for line in response.iter_lines():
            lines.append(line.encode())
            if len(lines) >= until or time.monotonic() > deadline:
                break
    return lines


def test_watch_lines_decode_to_the_fields_used(server: ServerProcess) -> None:
    pods = orjson.loads(server.http.get("/api/v1/pods").content)
    namespace, name = pods["items"][0]["metadata"]["namespace"], pods["items"][0]["metadata"]["name"]
    patched = server.http.patch(f"/api/v1/namespaces/{namespace}/pods/{name}",
                                headers={"Content-Type": "application/merge-patch+json"},
                                content=orjson.dumps({"metadata": {"annotations": {STAMP: "1700000000.25"}}}))
    assert patched.status_code == 200
    # Every seeded pod ADDED (one stamped), then a BOOKMARK within the 1 s interval.
    lines = _watch_lines(server, {"resourceVersion": "0", "allowWatchBookmarks": "true"}, until=41)
    kinds = set()
    for line in lines:
        whole = orjson.loads(line)
        event = watch_event(line)
        kinds.add(event.type)
        assert event.type == whole["type"]
        assert event.object.metadata.resourceVersion == whole["object"]["metadata"]["resourceVersion"]
        assert event.object.metadata.annotations == whole["object"]["metadata"].get("annotations")
    assert kinds == {"ADDED", "BOOKMARK"}
    assert sum(1 for line in lines if STAMP.encode() in line) == 1


def test_an_error_event_decodes_without_its_object(server: ServerProcess) -> None:
    server.compact()
    server.http.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"generateName": "c-"}})
    server.compact()
    line, = _watch_lines(server, {"resourceVersion": "1"}, until=1)
    assert watch_event(line).type == "ERROR"
    assert orjson.loads(line)["object"]["code"] == 410
