"""CustomResourceDefinitions with kubectl and the Python client: established at once, served
and discoverable, schemas prune, default and validate, status and scale subresources, printer
columns, and deleting the CRD deletes its objects."""

from __future__ import annotations

import json
import time

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1}
              replicas: {type: integer}
              color: {type: string, enum: [red, blue], default: red}
          status:
            type: object
            properties:
              replicas: {type: integer}
              phase: {type: string}
"""
GADGET = """
apiVersion: example.com/v1
kind: Gadget
metadata: {name: %(name)s, namespace: default}
spec: {size: %(size)s, replicas: 1, unknown: 1}
"""


@pytest.fixture(scope="module")
def crd(kubectl):
    kubectl("apply", "-f", "-", input=CRD)
    kubectl("wait", "--for=condition=established", "crd/gadgets.example.com", "--timeout=5s")


@pytest.fixture
def custom(api_client):
    return client.CustomObjectsApi(api_client)


def test_crd_is_established_with_accepted_names(crd, kubectl):
    definition = json.loads(kubectl("get", "crd", "gadgets.example.com", "-o", "json"))
    conditions = {c["type"]: (c["status"], c["reason"]) for c in definition["status"]["conditions"]}
    assert conditions["NamesAccepted"] == ("True", "NoConflicts")
    assert conditions["Established"] == ("True", "InitialNamesAccepted")
    assert definition["status"]["acceptedNames"]["listKind"] == "GadgetList"
    assert definition["status"]["storedVersions"] == ["v1"]
    assert "gadgets" in kubectl("api-resources", "--api-group=example.com")


def test_custom_resources_are_pruned_defaulted_and_validated(crd, kubectl):
    # kubectl asks for strict field validation by default: the unknown field is refused, as
    # kube-apiserver refuses it (what pruning would drop is an unknown field).
    out = kubectl("apply", "-f", "-", input=GADGET % {"name": "g1", "size": 2}, check=False)
    assert 'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.unknown"' \
        in out
    out = kubectl("apply", "--validate=warn", "-f", "-", input=GADGET % {"name": "g1", "size": 2}, check=False)
    assert "gadget.example.com/g1 created" in out and 'Warning: unknown field "spec.unknown"' in out
    spec = json.loads(kubectl("get", "gd", "g1", "-o", "json"))["spec"]
    assert spec == {"size": 2, "replicas": 1, "color": "red"}
    out = kubectl("apply", "--validate=ignore", "-f", "-", input=GADGET % {"name": "g2", "size": 0}, check=False)
    assert "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1" in out
    assert "g1" in kubectl("get", "all", "-n", "default")


def test_custom_resource_status_and_scale(crd, kubectl, custom):
    kubectl("apply", "--validate=ignore", "-f", "-", input=GADGET % {"name": "g3", "size": 1})
    custom.patch_namespaced_custom_object_status("example.com", "v1", "default", "gadgets", "g3",
                                                 {"status": {"replicas": 1, "phase": "Up"}, "spec": {"size": 9}})
    gadget = custom.get_namespaced_custom_object("example.com", "v1", "default", "gadgets", "g3")
    assert gadget["status"] == {"replicas": 1, "phase": "Up"} and gadget["spec"]["size"] == 1
    assert gadget["metadata"]["generation"] == 1
    kubectl("scale", "gadget", "g3", "--replicas=4")
    scale = custom.get_namespaced_custom_object_scale("example.com", "v1", "default", "gadgets", "g3")
    assert scale["spec"]["replicas"] == 4 and scale["status"]["replicas"] == 1
    # A PUT of a custom resource without resourceVersion is refused.
    gadget = custom.get_namespaced_custom_object("example.com", "v1", "default", "gadgets", "g3")
    del gadget["metadata"]["resourceVersion"]
    with pytest.raises(ApiException) as err:
        custom.replace_namespaced_custom_object("example.com", "v1", "default", "gadgets", "g3", gadget)
    assert err.value.status == 422
    # Strategic merge patches are for built-in kinds only.
    out = kubectl("patch", "gadget", "g3", "-p", '{"spec":{"size":2}}', check=False)
    assert "UnsupportedMediaType" in out or "the body of the request was in an unknown format" in out


def test_deleting_the_crd_deletes_its_objects(crd, kubectl):
    kubectl("delete", "crd", "gadgets.example.com", "--timeout=10s")
    out = kubectl("get", "gadgets", "-A", check=False)
    assert "the server doesn't have a resource type" in out or "could not find the requested resource" in out
    # Recreated, it starts empty.
    kubectl("apply", "-f", "-", input=CRD)
    kubectl("wait", "--for=condition=established", "crd/gadgets.example.com", "--timeout=5s")
    deadline = time.monotonic() + 5
    while "No resources found" not in kubectl("get", "gadgets", "-A", check=False):
        assert time.monotonic() < deadline, "the recreated resource still lists objects"
        time.sleep(0.1)
