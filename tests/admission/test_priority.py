"""Priority as kube's ``plugin/pkg/admission/priority``. A created pod gets the value (and
preemption policy) of its PriorityClass; without one, of the global default class with the
lowest value (whose name it then carries); without any, 0 and PreemptLowerPriority. A missing
class, or a priority or policy other than the class's, is refused (403). An update keeps the
stored pod's priority fields when it leaves them out, and resolves nothing. A PriorityClass may
become the global default only while no other one is."""

from __future__ import annotations

import pytest
from admission_objects import Json, Objects, new, pod

from fakeapi.admission.priority import only_one_default, priority
from fakeapi.machinery.status import StatusError


def priority_class(name: str, value: int, default: bool = False, policy: str | None = "PreemptLowerPriority") -> Json:
    fields: Json = {"value": value, **({"globalDefault": True} if default else {})}
    if policy is not None:
        fields["preemptionPolicy"] = policy
    return new("scheduling.k8s.io/v1", "PriorityClass", name, None, **fields)


def admitted(objects: Objects, obj: Json, old: Json | None = None, subresource: str | None = None) -> Json:
    priority(objects.admission, obj, old, subresource)
    return obj["spec"]


def refused(objects: Objects, obj: Json) -> StatusError:
    with pytest.raises(StatusError) as raised:
        priority(objects.admission, obj, None, None)
    assert raised.value.code == 403
    return raised.value


def test_without_any_class_a_pod_gets_zero(objects: Objects) -> None:
    objects.add(priority_class("high", 1000))
    spec = admitted(objects, pod("web"))
    assert (spec["priority"], spec["preemptionPolicy"], "priorityClassName" in spec) == (0, "PreemptLowerPriority", False)


def test_the_lowest_global_default_is_named_and_used(objects: Objects) -> None:
    objects.add(priority_class("medium", 500, default=True, policy="Never"), priority_class("low", 100, default=True),
                priority_class("lowest", 1))
    spec = admitted(objects, pod("web"))
    assert (spec["priorityClassName"], spec["priority"], spec["preemptionPolicy"]) == ("low", 100,
                                                                                      "PreemptLowerPriority")


def test_a_named_class_gives_its_value_and_policy(objects: Objects) -> None:
    objects.add(priority_class("batch", 10, policy="Never"), priority_class("default", 1, default=True))
    spec = admitted(objects, pod("web", priorityClassName="batch"))
    assert (spec["priorityClassName"], spec["priority"], spec["preemptionPolicy"]) == ("batch", 10, "Never")


def test_a_class_without_a_policy_leaves_the_pods(objects: Objects) -> None:
    objects.add(priority_class("bare", 7, policy=None))
    assert admitted(objects, pod("web", priorityClassName="bare", preemptionPolicy="Never"))["preemptionPolicy"] == "Never"
    assert "preemptionPolicy" not in admitted(objects, pod("web", priorityClassName="bare"))


def test_the_classs_own_values_may_be_given(objects: Objects) -> None:
    objects.add(priority_class("batch", 10, policy="Never"))
    spec = admitted(objects, pod("web", priorityClassName="batch", priority=10, preemptionPolicy="Never"))
    assert (spec["priority"], spec["preemptionPolicy"]) == (10, "Never")


def test_a_missing_class_is_refused(objects: Objects) -> None:
    assert refused(objects, pod("web", priorityClassName="gold")).message == \
        'pods "web" is forbidden: no PriorityClass with name gold was found'


def test_a_refusal_names_the_generate_name_of_a_pod_without_a_name(objects: Objects) -> None:
    unnamed = pod("", metadata={"generateName": "web-"}, priorityClassName="gold")
    assert refused(objects, unnamed).message == 'pods "web-" is forbidden: no PriorityClass with name gold was found'


def test_another_priority_is_refused(objects: Objects) -> None:
    objects.add(priority_class("batch", 10))
    assert refused(objects, pod("web", priorityClassName="batch", priority=11)).message == (
        'pods "web" is forbidden: the integer value of priority (11) must not be provided in pod spec; priority '
        'admission controller computed 10 from the given PriorityClass name')
    assert refused(objects, pod("web", priority=5)).message == (
        'pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority '
        'admission controller computed 0 from the given PriorityClass name')


def test_another_preemption_policy_is_refused(objects: Objects) -> None:
    objects.add(priority_class("batch", 10, policy="Never"))
    assert refused(objects, pod("web", priorityClassName="batch", preemptionPolicy="PreemptLowerPriority")).message == (
        'pods "web" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in '
        'pod spec; priority admission controller computed Never from the given PriorityClass name')


def test_an_update_keeps_the_stored_priority_fields_it_leaves_out(objects: Objects) -> None:
    stored = pod("web", priorityClassName="gone", priority=10, preemptionPolicy="Never")
    spec = admitted(objects, pod("web", priorityClassName="gone"), old=stored)  # the class is not looked up
    assert (spec["priority"], spec["preemptionPolicy"]) == (10, "Never")
    assert admitted(objects, pod("web", priority=3), old=stored)["priority"] == 3  # validation's to refuse


def test_subresources_are_left_alone(objects: Objects) -> None:
    assert admitted(objects, pod("web", priorityClassName="gold"), subresource="status") == \
        pod("web", priorityClassName="gold")["spec"]


def check_default(objects: Objects, priority_class: Json, old: Json | None = None) -> None:
    only_one_default(objects.admission, priority_class, old, None)


def test_a_second_global_default_is_refused(objects: Objects) -> None:
    objects.add(priority_class("first", 100, default=True))
    with pytest.raises(StatusError) as raised:
        check_default(objects, priority_class("second", 200, default=True))
    assert (raised.value.code, raised.value.message) == (403, (
        'priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is already marked as default. '
        'Only one default can exist'))
    with pytest.raises(StatusError):  # an existing class made the default
        check_default(objects, priority_class("other", 1, default=True), old=priority_class("other", 1))


def test_the_default_itself_may_change_and_others_may_come(objects: Objects) -> None:
    objects.add(priority_class("first", 100, default=True))
    check_default(objects, priority_class("first", 100, default=True, policy="Never"),
                  old=priority_class("first", 100, default=True))
    check_default(objects, priority_class("second", 200))


def test_the_first_global_default_is_accepted(objects: Objects) -> None:
    objects.add(priority_class("plain", 100))
    check_default(objects, priority_class("first", 100, default=True))
