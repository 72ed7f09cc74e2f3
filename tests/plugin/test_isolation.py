"""Each test's fakeapi starts empty: whatever an earlier test left — objects, CRDs, open
watches, faults, config — is gone, while the URL and kubeconfig stay the same."""

from __future__ import annotations

import pytest
from plugin_manifests import CONFIGMAP, WIDGET, WIDGET_CRD

USER_TESTS = f'''
import threading

import httpx
import pytest

from fakeapi.testing import ApiError

CONFIGMAP = {CONFIGMAP!r}
WIDGET_CRD = {WIDGET_CRD!r}
WIDGET = {WIDGET!r}
seen = {{}}
watch_ended = threading.Event()


def watch_configmaps(url, opened):
    with httpx.stream("GET", url + "/api/v1/configmaps", params={{"watch": "1"}}, timeout=None) as response:
        opened.set()
        for _ in response.iter_lines():
            pass
    watch_ended.set()


@pytest.mark.fakeapi(config={{"event_ttl": 7}})
def test_1_leaves_everything_behind(fakeapi, faults):
    seen["url"], seen["kubeconfig"] = fakeapi.url, fakeapi.kubeconfig
    fakeapi.apply(CONFIGMAP + "---\\n" + WIDGET_CRD + "---\\n" + WIDGET)
    fakeapi.apply({{"apiVersion": "v1", "kind": "Namespace", "metadata": {{"name": "left-over"}}}})
    opened = threading.Event()
    threading.Thread(target=watch_configmaps, args=(fakeapi.url, opened), daemon=True).start()
    assert opened.wait(5)
    faults.inject_error(code=503, verb="list", resource="configmaps")
    assert fakeapi.http.get("/api/v1/namespaces/default/configmaps").status_code == 503
    assert fakeapi.server_call(lambda server: server.config.event_ttl) == 7


def test_2_starts_from_nothing(fakeapi, faults):
    assert (fakeapi.url, fakeapi.kubeconfig) == (seen["url"], seen["kubeconfig"])
    assert watch_ended.wait(5), "the watch opened in test 1 is still open"
    assert fakeapi.list("configmaps", "default") == []  # no object, and no 503 fault
    assert faults.snapshot()["faults"] == []
    assert fakeapi.http.get("/apis/example.com/v1").status_code == 404
    assert "left-over" not in {{ns["metadata"]["name"] for ns in fakeapi.list("namespaces")}}
    assert fakeapi.server_call(lambda server: server.config.event_ttl) == 3600
    with pytest.raises(ApiError) as err:
        fakeapi.get("configmaps", "settings")
    assert err.value.status == 404


def test_3_a_client_kept_from_an_earlier_test_gets_503_between_tests():
    response = httpx.get(seen["url"] + "/api/v1/namespaces")
    assert response.status_code == 503
    assert response.json()["reason"] == "ServiceUnavailable"
'''


def test_each_test_gets_a_fresh_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    pytester.runpytest().assert_outcomes(passed=3)


def test_the_session_fixture_shares_one_state(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=f'''
        CONFIGMAP = {CONFIGMAP!r}

        def test_a_writes(fakeapi_session):
            fakeapi_session.apply(CONFIGMAP)

        def test_b_reads(fakeapi_session):
            assert fakeapi_session.get("configmaps", "settings")["data"] == {{"mode": "fast"}}

        def test_c_per_test_server_is_another(fakeapi, fakeapi_session):
            assert fakeapi.url != fakeapi_session.url
            assert fakeapi.list("configmaps", "default") == []
            assert len(fakeapi_session.list("configmaps", "default")) == 1
    ''')
    pytester.runpytest().assert_outcomes(passed=3)
