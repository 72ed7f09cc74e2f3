"""DefaultStorageClass as kube's ``plugin/pkg/admission/storage/storageclass/setdefault``: a
claim created without a class (neither ``spec.storageClassName``, even empty, nor the beta
annotation) gets the default class, the newest of those annotated ``is-default-class: "true"``
(alpha or beta annotation), by name among equally new ones (``GetDefaultClass``)."""

from __future__ import annotations

from typing import Any

import pytest
from admission_objects import Json, Objects, new

from fakeapi.admission.default_storage_class import default_storage_class

DEFAULT = "storageclass.kubernetes.io/is-default-class"
BETA_DEFAULT = "storageclass.beta.kubernetes.io/is-default-class"


def storage_class(name: str, created: str = "2026-01-01T00:00:00Z", **annotations: str) -> Json:
    return new("storage.k8s.io/v1", "StorageClass", name, None, provisioner="example.com/disk",
               metadata={"creationTimestamp": created, "annotations": annotations})


def claim(name: str = "data", annotations: dict[str, str] | None = None, **spec: Any) -> Json:
    return new("v1", "PersistentVolumeClaim", name, metadata={"annotations": annotations} if annotations else {},
               spec={"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec})


def admitted(objects: Objects, obj: Json, old: Json | None = None, subresource: str | None = None) -> Json:
    default_storage_class(objects.admission, obj, old, subresource)
    return obj


def test_a_claim_without_a_class_gets_the_default(objects: Objects) -> None:
    objects.add(storage_class("slow"), storage_class("fast", **{DEFAULT: "true"}))
    assert admitted(objects, claim())["spec"]["storageClassName"] == "fast"


def test_the_beta_annotation_marks_a_default_too_and_only_true_counts(objects: Objects) -> None:
    objects.add(storage_class("maybe", **{DEFAULT: "True"}), storage_class("no", **{DEFAULT: "false"}))
    assert "storageClassName" not in admitted(objects, claim())["spec"]
    objects.add(storage_class("beta", **{BETA_DEFAULT: "true"}))
    assert admitted(objects, claim())["spec"]["storageClassName"] == "beta"


def test_the_newest_default_wins_then_the_first_by_name(objects: Objects) -> None:
    objects.add(storage_class("old", "2026-01-01T00:00:00Z", **{DEFAULT: "true"}),
                storage_class("newer-b", "2026-02-01T00:00:00Z", **{DEFAULT: "true"}),
                storage_class("newer-a", "2026-02-01T00:00:00Z", **{BETA_DEFAULT: "true"}))
    assert admitted(objects, claim())["spec"]["storageClassName"] == "newer-a"


@pytest.mark.parametrize(("spec", "annotations"), [
    ({"storageClassName": "gold"}, None),
    ({"storageClassName": ""}, None),  # an empty class asks for no class (static binding)
    ({}, {"volume.beta.kubernetes.io/storage-class": "gold"}),
], ids=["named", "empty", "beta-annotation"])
def test_a_claim_that_names_a_class_keeps_it(objects: Objects, spec: Json, annotations: dict[str, str] | None) -> None:
    objects.add(storage_class("fast", **{DEFAULT: "true"}))
    assert admitted(objects, claim(annotations=annotations, **spec))["spec"] == claim(**spec)["spec"]


def test_without_a_default_the_claim_is_left_alone(objects: Objects) -> None:
    objects.add(storage_class("slow"))
    assert admitted(objects, claim()) == claim()


def test_only_a_create_of_the_claim_itself_is_defaulted(objects: Objects) -> None:
    objects.add(storage_class("fast", **{DEFAULT: "true"}))
    assert admitted(objects, claim(), old=claim()) == claim()
    assert admitted(objects, claim(), subresource="status") == claim()
