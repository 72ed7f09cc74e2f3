"""The pytest side of the report, in a user's test session: ``fakeapi.report()``, and the
``forbid`` marker failing a test with the evidence when a detector fires for its clients."""

from __future__ import annotations

import pytest

USER_TESTS = '''
import pytest
from kubernetes import client


def hot_loop(k8s_client):
    core = client.CoreV1Api(k8s_client)
    core.create_namespaced_config_map("default", {"metadata": {"name": "flapping"}})
    for i in range(20):
        core.patch_namespaced_config_map("flapping", "default", {"data": {"i": str(i)}})


@pytest.mark.fakeapi(forbid=["hot-loop", "relist-storm"])
def test_a_hot_loop_fails_the_test(fakeapi, k8s_client):
    hot_loop(k8s_client)


@pytest.mark.fakeapi(forbid=["relist-storm"])
def test_detectors_not_forbidden_do_not(fakeapi, k8s_client):
    hot_loop(k8s_client)
    assert fakeapi.report().findings("hot-loop")


@pytest.mark.fakeapi(forbid=["hot-loop"])
def test_a_failing_body_keeps_its_own_error(fakeapi, k8s_client):
    hot_loop(k8s_client)
    assert 1 == 2, "the body's own failure"


@pytest.mark.parametrize("fakeapi", [{"forbid": ["hot-loop"]}], indirect=True)
def test_forbid_as_an_indirect_parameter(fakeapi, k8s_client):
    hot_loop(k8s_client)


@pytest.mark.fakeapi(forbid=["relist-storm", "hot-loop", "watch-churn"])
def test_a_quiet_test_passes_and_reads_its_report(fakeapi, k8s_client):
    core = client.CoreV1Api(k8s_client)
    core.create_namespaced_config_map("default", {"metadata": {"name": "once"}})
    report = fakeapi.report()
    assert report.client("OpenAPI-Generator")["totals"]["requests"] == 1
    assert "OpenAPI-Generator" in str(report)


@pytest.mark.fakeapi(forbid=["no-such-detector"])
def test_an_unknown_detector_is_a_usage_error(fakeapi):
    pass
'''


def test_the_forbid_marker_and_report_in_a_users_session(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=3, errors=1)
    output = result.stdout.str()
    failed = {line.split(" - ")[0].removeprefix("FAILED ") for line in output.splitlines() if line.startswith("FAILED")}
    assert failed == {"test_user.py::test_a_hot_loop_fails_the_test", "test_user.py::test_a_failing_body_keeps_its_own_error",
                      "test_user.py::test_forbid_as_an_indirect_parameter[fakeapi0]"}
    assert "AssertionError: fakeapi: hot-loop, relist-storm fired:" in output
    assert "hot-loop        OpenAPI-Generator on configmaps: 1x at " in output
    assert "rule='same object' object=default/flapping writes=20 windowSeconds=60.0" in output
    assert "e.g. PATCH /api/v1/namespaces/default/configmaps/flapping" in output
    assert "AssertionError: the body's own failure" in output
    assert "unknown detectors ['no-such-detector']" in output
