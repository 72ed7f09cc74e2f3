"""The differ's normalisation of generated names: a name kube generated from the generateName a
request sent compares equal to fakeapi's whatever its random suffix, wherever it appears (a
Status refusing the object has no metadata to find the prefix in); a name of another shape, or
two different names where kube has one, still differ."""

from __future__ import annotations

from typing import Any

import pytest
from differ import Normaliser, differences

_REQUEST = b'{"kind": "Widget", "metadata": {"generateName": "Bad_"}}'


def _refused(name: str, named_again: str | None = None) -> dict[str, Any]:
    """kube's 422 for an invalid generated name, naming it in the message and the details."""
    again = named_again or name
    return {"kind": "Status", "status": "Failure", "reason": "Invalid", "code": 422,
            "message": f'Widget.kasdiff.example.com "{name}" is invalid: [metadata.generateName: Invalid value: '
                       f'"Bad_": x, metadata.name: Invalid value: "{again}": y]',
            "details": {"name": again, "causes": [{"field": "metadata.name", "message": f'Invalid value: "{again}": y'}]}}


def _compare(fake: dict[str, Any], real: dict[str, Any], request: bytes = _REQUEST) -> list[str]:
    fake_normaliser, real_normaliser = Normaliser(), Normaliser()
    fake_normaliser.requested(request)
    real_normaliser.requested(request)
    return list(differences(fake_normaliser(fake), real_normaliser(real)))


def test_generated_names_compare_equal_whatever_their_suffix() -> None:
    assert _compare(_refused("Bad_qjnxv"), _refused("Bad_d2wrc")) == []


@pytest.mark.parametrize("fake_name", [
    "Bad_abcde",  # vowels: not kube's alphabet
    "Bad_qjnx",  # four characters
    "Bad_qjnxvv",  # six
    "xBad_qjnxv",  # another prefix
])
def test_names_kube_would_not_generate_still_differ(fake_name: str) -> None:
    found = _compare(_refused(fake_name), _refused("Bad_d2wrc"))
    assert f"details.name: fakeapi {fake_name!r} != kube 'generated1'" in found, found


def test_two_generated_names_where_kube_has_one_differ() -> None:
    found = _compare(_refused("Bad_qjnxv", named_again="Bad_zzzzz"), _refused("Bad_d2wrc"))
    assert "details.name: fakeapi 'generated2' != kube 'generated1'" in found, found


def test_without_a_requested_generate_name_nothing_is_a_generated_name() -> None:
    found = _compare(_refused("Bad_qjnxv"), _refused("Bad_d2wrc"), request=b'{"metadata": {"name": "x"}}')
    assert "details.name: fakeapi 'Bad_qjnxv' != kube 'Bad_d2wrc'" in found, found
