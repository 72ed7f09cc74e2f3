"""The order of groups of equal priority in discovery, on fakeapi and on the real kube-apiserver:
three CRD groups at the CRD APIServices' priority (1000) whose group names and APIService names
(``<version>.<group>``) sort differently, in ``/apis`` (by APIService name, kube-aggregator's
sort) and in the aggregated discovery document (by group name)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from differ import Pair

SUFFIX = ".order.kasdiff.example.com"
#: Group -> its one version: by group name a, b, c; by APIService name v1.b, v1beta1.c, v2.a.
GROUPS = {f"a{SUFFIX}": "v2", f"b{SUFFIX}": "v1", f"c{SUFFIX}": "v1beta1"}
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


def _crd(group: str, version: str) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"things.{group}"},
            "spec": {"group": group, "scope": "Namespaced",
                     "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
                     "versions": [{"name": version, "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": {"type": "object"}}}]}}


def _order(client: httpx.Client, accept: str) -> list[str]:
    """The groups of this test in the order ``/apis`` lists them."""
    response = client.get("/apis", headers={"Accept": accept})
    assert response.status_code == 200, response.text
    body = response.json()
    names = [group["name"] for group in body.get("groups") or ()] or \
        [group["metadata"]["name"] for group in body.get("items") or ()]
    return [name for name in names if name.endswith(SUFFIX)]


def _listed(client: httpx.Client, accept: str) -> list[str]:
    """The groups' order once every one is listed (kube's aggregator learns of a CRD a moment
    after it is established, its aggregated document later still)."""
    deadline = time.monotonic() + 60
    while len(order := _order(client, accept)) < len(GROUPS) and time.monotonic() < deadline:
        time.sleep(0.2)
    return order


@pytest.fixture(scope="module")
def installed(pair: Pair) -> Iterator[Pair]:
    for client in (pair.fake, pair.real):
        for group, version in GROUPS.items():
            response = client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=_crd(group, version))
            assert response.status_code == 201, response.text
    yield pair
    for client in (pair.fake, pair.real):
        for group in GROUPS:
            client.delete(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.{group}")


def test_groups_of_equal_priority_are_ordered_as_kube_orders_them(installed: Pair) -> None:
    for accept in ("application/json", AGGREGATED):
        fake, real = _listed(installed.fake, accept), _listed(installed.real, accept)
        assert sorted(real) == sorted(GROUPS)
        assert fake == real, accept
