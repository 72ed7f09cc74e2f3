"""A test's server can start seeded, with faults, or with another config: through the
``fakeapi`` marker or an indirect parameter of the ``fakeapi`` fixture."""

from __future__ import annotations

import pytest
from plugin_manifests import CONFIGMAP, WIDGET, WIDGET_CRD


def test_markers_seed_and_set_faults(pytester: pytest.Pytester) -> None:
    (pytester.path / "widgets.yaml").write_text(f"{WIDGET_CRD}---\n{WIDGET}")
    pytester.makepyfile(test_user=f'''
        from pathlib import Path

        import pytest

        CONFIGMAP = {CONFIGMAP!r}
        HERE = Path(__file__).parent


        @pytest.mark.fakeapi(seed=CONFIGMAP)
        def test_seeded_with_yaml_text(fakeapi):
            assert fakeapi.get("configmaps", "settings")["data"] == {{"mode": "fast"}}


        @pytest.mark.fakeapi(seed=HERE / "widgets.yaml")
        def test_seeded_with_a_file_holding_a_crd_and_a_custom_resource(fakeapi):
            assert fakeapi.get("widgets.example.com", "w1")["spec"] == {{"size": 3}}


        @pytest.mark.fakeapi(seed=lambda fakeapi: fakeapi.apply(CONFIGMAP, namespace="kube-public"))
        def test_seeded_by_a_callable(fakeapi):
            assert fakeapi.list("configmaps", "kube-public")[0]["metadata"]["name"] == "settings"


        @pytest.mark.fakeapi(seed={{"namespaces": 3, "pods": 12, "deployments": 2}})
        def test_seeded_with_a_synthetic_cluster(fakeapi):
            assert len(fakeapi.list("pods")) == 12
            assert len(fakeapi.list("deployments.apps")) == 2
            assert {{"ns-0", "ns-1", "ns-2"}} <= {{ns["metadata"]["name"] for ns in fakeapi.list("namespaces")}}


        @pytest.mark.fakeapi(faults=[
            {{"type": "error", "verb": "list", "resource": "configmaps", "code": 429, "count": 1}},
            "error:verb=create,resource=secrets,code=500",
            lambda faults: faults.inject_latency(verb="get", resource="configmaps", seconds=0.01),
        ])
        def test_faults_in_three_forms(fakeapi, faults):
            first = fakeapi.http.get("/api/v1/namespaces/default/configmaps")
            assert (first.status_code, first.headers["retry-after"]) == (429, "1")
            assert fakeapi.http.get("/api/v1/namespaces/default/configmaps").status_code == 200
            assert fakeapi.http.post("/api/v1/namespaces/default/secrets",
                                     json={{"metadata": {{"name": "s"}}}}).status_code == 500
            assert sorted(f["type"] for f in faults.snapshot()["faults"]) == ["error", "error", "latency"]


        @pytest.mark.fakeapi(seed=CONFIGMAP, faults=[{{"type": "error", "resource": "configmaps", "code": 503}}])
        def test_seeding_runs_under_the_faults(fakeapi):
            pass


        @pytest.mark.parametrize("fakeapi", [{{"seed": CONFIGMAP}}, {{"config": {{"event_ttl": 5}}}}], indirect=True)
        def test_indirect_parameters(fakeapi):
            ttl = fakeapi.server_call(lambda server: server.config.event_ttl)
            assert ttl == 5 or fakeapi.get("configmaps", "settings")


        @pytest.mark.fakeapi(sede=CONFIGMAP)
        def test_a_misspelt_option_is_an_error(fakeapi):
            pass
    ''')
    result = pytester.runpytest()
    result.assert_outcomes(passed=7, errors=2)
    result.stdout.fnmatch_lines([
        "*ERROR at setup of test_seeding_runs_under_the_faults*",
        "*ApiError: 503*",
        "*ERROR at setup of test_a_misspelt_option_is_an_error*",
        "*unknown options ?'sede'?*",  # fnmatch: [ ] would be a character class
    ])
