"""The pod template functions other groups call (``fakeapi.apis.core``): defaults and validation
as kube-apiserver v1.35.4 applies them (expected values are what it stored and answered)."""

from __future__ import annotations

import pytest

from fakeapi.apis.core import (
    decoding,
    pod_template_validation_options,
    set_defaults_pod_template_spec,
    validate_pod_template_spec,
)
from fakeapi.machinery.status import StatusError


def template(**container: object) -> dict:
    return {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx", **container}]}}


def test_template_defaults_are_kubes() -> None:
    value = template(resources={"requests": {"cpu": "0.5", "memory": "1.5Gi"}, "limits": {"cpu": "1"}},
                     livenessProbe={"httpGet": {"port": 80}}, ports=[{"containerPort": 80}])
    value["spec"]["volumes"] = [{"name": "v"}, {"name": "s", "secret": {"secretName": "x"}}]
    set_defaults_pod_template_spec(value)
    spec = value["spec"]
    assert spec["volumes"] == [{"name": "v", "emptyDir": {}},
                               {"name": "s", "secret": {"secretName": "x", "defaultMode": 420}}]
    assert spec["containers"][0] == {
        "name": "c", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}],
        "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "500m", "memory": "1536Mi"}},
        "livenessProbe": {"httpGet": {"path": "/", "port": 80, "scheme": "HTTP"}, "timeoutSeconds": 1,
                          "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
        "imagePullPolicy": "Always"}
    assert {k: spec[k] for k in ("restartPolicy", "terminationGracePeriodSeconds", "dnsPolicy", "securityContext",
                                 "schedulerName")} == {
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
        "securityContext": {}, "schedulerName": "default-scheduler"}
    assert "enableServiceLinks" not in spec  # a Pod's default, not a template's


@pytest.mark.parametrize("image, policy", [("nginx", "Always"), ("nginx:latest", "Always"), ("nginx:1.27", "IfNotPresent"),
                                           ("registry.k8s.io/pause:3.10", "IfNotPresent"),
                                           ("nginx@sha256:" + "a" * 64, "IfNotPresent"), ("Nginx", "IfNotPresent")])
def test_pull_policy_follows_the_tag(image: str, policy: str) -> None:
    value = template(image=image)
    set_defaults_pod_template_spec(value)
    assert value["spec"]["containers"][0]["imagePullPolicy"] == policy


def test_invalid_quantity_is_kubes_bad_request() -> None:
    with pytest.raises(StatusError) as err, decoding("Deployment"):
        set_defaults_pod_template_spec(template(resources={"requests": {"cpu": "abc"}}))
    assert (err.value.code, err.value.message) == (400, (
        'Deployment in version "v1" cannot be handled as a Deployment: quantities must match the regular '
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"))


def test_template_validation_is_kubes() -> None:
    value = template(resources={"requests": {"cpu": "500m"}, "limits": {"cpu": "1m"}})
    value["metadata"]["labels"] = {"app": "b c"}
    value["spec"]["containers"].append({"name": "c", "image": ""})
    set_defaults_pod_template_spec(value)
    errors = validate_pod_template_spec(value, "spec.template", pod_template_validation_options(value, None))
    assert errors == [
        ("spec.template.labels", "FieldValueInvalid",
         'Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, '
         "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
         "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
        ("spec.template.spec.containers[0].resources.requests", "FieldValueInvalid",
         'Invalid value: "500m": must be less than or equal to cpu limit of 1m'),
        ("spec.template.spec.containers[1].image", "FieldValueRequired", "Required value"),
        ("spec.template.spec.containers[1].name", "FieldValueDuplicate", 'Duplicate value: "c"'),
    ]


def test_pod_spec_answers_are_kept_per_spec_and_what_validation_reads_of_the_pod() -> None:
    """``validate_pod_spec`` answers a spec seen before from what it answered then, unless what
    it reads of the pod differs: here the pod's name, which names an ephemeral volume's claim."""
    from fakeapi.apis.core import validation

    options = validation.PodValidationOptions(resource_is_pod=True)
    claim = {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    spec = {"containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Always",
                            "terminationMessagePolicy": "File"}],
            "volumes": [{"name": "data", "ephemeral": {"volumeClaimTemplate": claim}}],
            "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": 30}
    assert validation.validate_pod_spec(spec, {"name": "p"}, "spec", options) == []
    long_name = {"name": "p" * 250}  # its claim, p...p-data, is longer than a name may be
    errors = validation.validate_pod_spec(spec, long_name, "spec", options)
    assert [path for path, _, _ in errors] == ["spec.volumes[0].name"] and "PVC name" in errors[0][2]
    errors.clear()  # the caller's copy
    assert validation.validate_pod_spec(spec, long_name, "spec", options) != []
    assert validation.validate_pod_spec(spec, {"name": "p"}, "spec", options) == []
    wrong = {**spec, "restartPolicy": "Sometimes"}
    assert [path for path, _, _ in validation.validate_pod_spec(wrong, {"name": "p"}, "spec", options)] == \
        ["spec.restartPolicy"]


@pytest.mark.parametrize("field", ["containers", "initContainers", "ephemeralContainers"])
def test_pod_spec_answers_are_shared_by_specs_that_differ_in_accepted_images(field: str) -> None:
    """Validation reads a container's image only to require it (and, for a pod's own
    containers, elsewhere, to refuse surrounding whitespace): specs that differ in accepted
    images share one kept answer, and another image is never answered from an accepted one's."""
    from fakeapi.apis.core import validation

    options = validation.PodValidationOptions(resource_is_pod=True)
    base = {"name": "c", "imagePullPolicy": "Always", "terminationMessagePolicy": "File"}
    extra = {"name": "debug", "image": "busybox", "imagePullPolicy": "Always", "terminationMessagePolicy": "File"}

    def spec(image: object) -> dict[str, object]:
        container = {**base, "image": image} if image is not None else dict(base)
        out: dict[str, object] = {"containers": [{**base, "name": "main", "image": "nginx"}],
                                  "restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
                                  "terminationGracePeriodSeconds": 30}
        out[field] = [*out.get(field, []), container, extra]  # type: ignore[list-item]
        return out

    def errors(image: object) -> list[tuple[str, str]]:
        return [(path, kind) for path, kind, _ in validation.validate_pod_spec(spec(image), {"name": "p"}, "spec",
                                                                               options)]
    accepted = errors("registry.example/web:1.0")
    for image in ("registry.example/web:1.1", "registry.example/web:1.2", "registry.example/web:1.1"):
        before = len(validation._POD_SPEC_ERRORS)
        assert errors(image) == accepted
    assert len(validation._POD_SPEC_ERRORS) == before  # one answer kept for them all
    at = len(spec(None)[field]) - 2  # type: ignore[arg-type]
    image_path = f"spec.{field}[{at}].image"
    for refused in ("", None):
        assert (image_path, "FieldValueRequired") in errors(refused)
    for image in (" web", "web ", "", None):  # keyed as they are, answered as validation does
        assert errors(image) == [(path, kind) for path, kind, _ in validation._validate_pod_spec(
            spec(image), {"name": "p"}, "spec", options)]


def test_pod_warnings_are_kept_per_spec_path_and_the_annotations_they_read() -> None:
    """``warnings_for_pod``/``_template`` answer a spec seen before from what they answered then,
    unless the annotations they look for, or the template's path, differ."""
    from fakeapi.apis.core import warnings

    spec = {"containers": [{"name": "c", "image": "nginx", "resources": {"limits": {"memory": "1.5"}}}]}
    pod = {"metadata": {"name": "p"}, "spec": spec}
    fractional = ["spec.containers[0].resources.limits[memory]: fractional byte value \"1500m\" is invalid, "
                  "must be an integer"]
    for _ in range(3):  # seen once, kept the second time, answered from it the third
        answer = warnings.warnings_for_pod(pod, None)
        assert answer == fractional
        answer.clear()  # the caller's copy
    seccomp = {"metadata": {"name": "p", "annotations": {"seccomp.security.alpha.kubernetes.io/pod": "x"}},
               "spec": spec}
    assert warnings.warnings_for_pod(seccomp, None) == [
        'metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the '
        '"seccompProfile" field instead'] + fractional
    unrelated = {"metadata": {"name": "q", "annotations": {"note": "x"}}, "spec": spec}
    assert warnings.warnings_for_pod(unrelated, None) == fractional
    assert warnings.warnings_for_pod_template("spec.template", pod, None) == \
        ["spec.template." + fractional[0]]
    whole = {"metadata": {"name": "p"}, "spec": {"containers": [{**spec["containers"][0],
                                                                 "resources": {"limits": {"memory": "2"}}}]}}
    assert warnings.warnings_for_pod(whole, None) == []


def test_pod_spec_defaults_are_kept_per_spec_and_handed_out_as_copies() -> None:
    """``set_defaults_pod`` defaults a spec seen before from what it made of it then: the same
    result each time, a copy the caller may change, another for another spec, and no answer kept
    for a spec whose defaulting fails."""
    import copy

    from fakeapi.apis.core import defaults

    spec = {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}],
                            "resources": {"limits": {"cpu": "0.5"}}}]}
    results = []
    for _ in range(3):  # seen once, kept the second time, answered from it the third
        pod = {"metadata": {"name": "p"}, "spec": copy.deepcopy(spec)}
        defaults.set_defaults_pod(pod)
        results.append(pod["spec"])
    assert results[0] == results[1] == results[2]
    assert results[2]["containers"][0]["resources"] == {"limits": {"cpu": "500m"}, "requests": {"cpu": "500m"}}
    results[2]["containers"][0]["image"] = "changed"  # the caller's copy
    again = {"metadata": {"name": "p"}, "spec": copy.deepcopy(spec)}
    defaults.set_defaults_pod(again)
    assert again["spec"] == results[0]
    host = {"metadata": {"name": "p"}, "spec": {**copy.deepcopy(spec), "hostNetwork": True}}
    defaults.set_defaults_pod(host)
    assert host["spec"]["containers"][0]["ports"][0]["hostPort"] == 80
    assert "hostPort" not in results[0]["containers"][0]["ports"][0]
    bad = {"containers": [{"name": "c", "image": "nginx", "resources": {"limits": {"cpu": "lots"}}}]}
    for _ in range(3):
        with pytest.raises(StatusError):
            decoding_pod = {"metadata": {"name": "p"}, "spec": copy.deepcopy(bad)}
            with decoding("Pod"):
                defaults.set_defaults_pod(decoding_pod)
