"""The Python ``kubernetes`` client: paging under writes, watch resume, 410s, SharedInformer."""

from __future__ import annotations

import threading
import time

import pytest
from kubernetes import client, watch
from kubernetes.client.exceptions import ApiException


def _cm(name: str, **labels: str) -> client.V1ConfigMap:
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels=labels or None), data={"k": name})


@pytest.fixture(scope="module")
def core(api_client):
    api = client.CoreV1Api(api_client)
    api.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py")))
    return api


def test_paged_list_is_consistent_while_writes_happen(core):
    for i in range(30):
        core.create_namespaced_config_map("py", _cm(f"page-{i:02d}", set="page"))
    first = core.list_namespaced_config_map("py", limit=7, label_selector="set=page")
    rv = first.metadata.resource_version
    names = [c.metadata.name for c in first.items]
    token = first.metadata._continue
    writes = 0
    while token:
        # Writes between pages must not show up in (or shift) a list pinned to the first page's RV.
        core.create_namespaced_config_map("py", _cm(f"page-new-{writes}", set="page"))
        core.delete_namespaced_config_map(f"page-{writes:02d}", "py")
        writes += 1
        page = core.list_namespaced_config_map("py", limit=7, label_selector="set=page", _continue=token)
        assert page.metadata.resource_version == rv
        names += [c.metadata.name for c in page.items]
        token = page.metadata._continue
    assert names == [f"page-{i:02d}" for i in range(30)]
    assert writes >= 4


def test_remaining_item_count_without_selector(core):
    """The count is of the page's snapshot: the whole LIST at that revision (a controller may
    add the namespace's kube-root-ca.crt at any moment after the namespace is created)."""
    page = core.list_namespaced_config_map("py", limit=5)
    whole = core.list_namespaced_config_map("py", resource_version=page.metadata.resource_version,
                                            resource_version_match="Exact")
    assert page.metadata.remaining_item_count == len(whole.items) - 5


def test_watch_from_returned_resource_version(core):
    listed = core.list_namespaced_config_map("py")
    rv = listed.metadata.resource_version
    core.create_namespaced_config_map("py", _cm("watched"))
    body = core.read_namespaced_config_map("watched", "py")
    body.data = {"k": "changed"}
    core.replace_namespaced_config_map("watched", "py", body)
    core.delete_namespaced_config_map("watched", "py")
    seen = []
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_config_map, "py", resource_version=rv, timeout_seconds=2):
        seen.append((event["type"], event["object"].metadata.name))
        if len(seen) == 3:
            w.stop()
    assert seen == [("ADDED", "watched"), ("MODIFIED", "watched"), ("DELETED", "watched")]


def test_stale_update_is_409_and_bad_name_is_422(core):
    cm = core.create_namespaced_config_map("py", _cm("stale"))
    cm.data = {"k": "1"}
    core.replace_namespaced_config_map("stale", "py", cm)
    cm.data = {"k": "2"}
    with pytest.raises(ApiException) as err:
        core.replace_namespaced_config_map("stale", "py", cm)  # still carries the old RV
    assert err.value.status == 409
    with pytest.raises(ApiException) as err:
        core.create_namespaced_config_map("py", _cm("Not_A_Name"))
    assert err.value.status == 422
    with pytest.raises(ApiException) as err:
        core.create_namespaced_config_map("no-such-ns", _cm("x"))
    assert err.value.status == 404 and 'namespaces \\"no-such-ns\\" not found' in err.value.body


def test_410_after_forced_compaction(core, server):
    for n in range(3):  # a first page with a continue token, whichever tests ran before
        core.create_namespaced_config_map("py", _cm(f"before-compaction-{n}"))
    first = core.list_namespaced_config_map("py", limit=2)
    old_rv = first.metadata.resource_version
    core.create_namespaced_config_map("py", _cm("after-compaction"))
    server.compact()
    with pytest.raises(ApiException) as err:
        core.list_namespaced_config_map("py", limit=2, _continue=first.metadata._continue)
    assert err.value.status == 410 and '"reason":"Expired"' in err.value.body
    with pytest.raises(ApiException) as err:
        core.list_namespaced_config_map("py", resource_version=old_rv, resource_version_match="Exact")
    assert err.value.status == 410


def test_shared_informer_syncs_and_sees_events(core):
    from kubernetes.informer import SharedInformer

    informer = SharedInformer(core.list_namespaced_config_map, namespace="py")
    events: list[tuple[str, str]] = []
    lock = threading.Lock()

    def record(kind):  # type: ignore[no-untyped-def]
        def handler(obj):  # type: ignore[no-untyped-def]
            with lock:
                events.append((kind, obj.metadata.name))
        return handler

    for kind in ("ADDED", "MODIFIED", "DELETED"):
        informer.add_event_handler(kind, record(kind))
    informer.start()
    try:
        deadline = time.time() + 10
        while time.time() < deadline and ("ADDED", "stale") not in events:
            time.sleep(0.05)
        core.create_namespaced_config_map("py", _cm("informed"))
        core.delete_namespaced_config_map("informed", "py")
        while time.time() < deadline and ("DELETED", "informed") not in events:
            time.sleep(0.05)
    finally:
        informer.stop()
    assert ("ADDED", "stale") in events
    assert events.index(("ADDED", "informed")) < events.index(("DELETED", "informed"))
    assert len(informer.cache.list()) == len(core.list_namespaced_config_map("py").items)
