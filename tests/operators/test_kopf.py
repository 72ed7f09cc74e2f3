"""A kopf operator, run as its own process against a real fakeapi process: CRD discovery,
watches, merge patches of the object and its /status, finalizers, Events, deletion."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from fakeapi.testing import ServerProcess, eventually

HERE = Path(__file__).parent
FINALIZER = "kopf.zalando.org/KopfFinalizerMarker"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
        "versions": [{
            "name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            }}},
        }],
    },
}
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"


def test_kopf_operator_handles_a_custom_resource_lifecycle(tmp_path: Path) -> None:
    with ServerProcess(tmp_path) as server:
        http = server.http
        assert http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
        log = (tmp_path / "kopf.log").open("w")
        operator = subprocess.Popen(
            [sys.executable, "-m", "kopf", "run", "--standalone", "--namespace=default", "--verbose",
             str(HERE / "widget_operator.py")],
            env={"KUBECONFIG": str(server.kubeconfig), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
            stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            _exercise(http)
        except AssertionError as err:
            raise AssertionError(f"{err}\nkopf log:\n{(tmp_path / 'kopf.log').read_text()[-6000:]}") from None
        finally:
            operator.terminate()
            operator.wait(15)
            log.close()


def _exercise(http: httpx.Client) -> None:
    created = http.post(WIDGETS, json={"apiVersion": "example.com/v1", "kind": "Widget",
                                       "metadata": {"name": "w1"}, "spec": {"size": 3}})
    assert created.status_code == 201, created.text

    def handled() -> dict[str, Any] | None:
        widget = http.get(f"{WIDGETS}/w1").json()
        status = widget.get("status") or {}
        return widget if status.get("phase") == "Ready" and status.get("create_widget") == {"size": 3} else None

    widget = eventually(handled, "the create handler's status", timeout=20)
    assert FINALIZER in widget["metadata"]["finalizers"]
    events = eventually(lambda: [e for e in http.get("/api/v1/namespaces/default/events").json()["items"]
                                 if e["reason"] == "Building"], "the operator's Event", timeout=20)
    assert events[0]["involvedObject"]["name"] == "w1" and events[0]["message"] == "building widget of size 3"

    widget["spec"]["size"] = 5
    assert http.put(f"{WIDGETS}/w1", json=widget).status_code == 200
    eventually(lambda: (http.get(f"{WIDGETS}/w1").json().get("status") or {}).get("resizedFrom") == 3,
               "the update handler's status", timeout=20)

    assert http.delete(f"{WIDGETS}/w1").status_code == 200
    eventually(lambda: http.get(f"{WIDGETS}/w1").status_code == 404, "the widget deleted after its finalizer went",
               timeout=20)
    assert http.get("/api/v1/namespaces/default/configmaps/w1-deleted").json()["data"] == {"widget": "w1"}
