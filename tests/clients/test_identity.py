"""Client names from User-Agents, as kube builds and reads them."""

from __future__ import annotations

from fakeapi.clients.identity import MAX_NAME_BYTES, identify, named

KCM = "kube-controller-manager/v1.35.4 (linux/amd64) kubernetes/8c1d2a3/statefulset-controller"


def test_the_controller_managers_controllers_are_told_apart() -> None:
    identity = identify(KCM)
    assert (identity.name, identity.version, identity.user_agent) == (
        "kube-controller-manager/statefulset-controller", "v1.35.4", KCM)
    assert identify(KCM.replace("statefulset", "garbage-collector")).name == \
        "kube-controller-manager/garbage-collector-controller"


def test_plain_client_go_kubectl_and_other_products_are_their_command() -> None:
    assert identify("kubectl/v1.35.4 (linux/amd64) kubernetes/8c1d2a3").name == "kubectl"
    assert identify("informer-harness/v0.0.0 (linux/amd64) kubernetes/$Format").name == "informer-harness"
    python_client = identify("OpenAPI-Generator/35.0.0/python")
    assert (python_client.name, python_client.version) == ("OpenAPI-Generator", "35.0.0")
    assert identify("curl/8.5.0").name == "curl"
    assert identify("").name == "unknown"


def test_names_keep_printable_characters_up_to_kubes_field_manager_limit() -> None:
    assert identify("bad\x00name\x7f/1").name == "badname"
    assert identify("x" * 500 + "/1").name == "x" * MAX_NAME_BYTES
    assert len(identify("é" * 100 + "/1").name.encode()) <= MAX_NAME_BYTES
    assert identify("y" * 5000).user_agent == "y" * 1024


def test_a_trusted_header_names_the_client_instead() -> None:
    identity = named("team-a/reconciler", KCM)
    assert (identity.name, identity.version, identity.user_agent) == ("team-a/reconciler", "", KCM)
