"""Label selectors against apimachinery's ``labels.Parse``.

The error messages below are what ``labels.Parse`` (apimachinery v0.35.4) returns for each input;
kube-apiserver sends them as a 400 BadRequest.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakeapi.machinery.selectors import parse_label_selector
from fakeapi.machinery.status import StatusError

NAME_RULE = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
             "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
VALUE_RULE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
              "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
              "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
SUBDOMAIN_RULE = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
                  "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
REQ = "unable to parse requirement: "

LABELS = {"app": "web", "tier": "front", "in": "in", "replicas": "3", "example.com/team": "a", "empty": ""}


@pytest.mark.parametrize(("selector", "matches"), [
    ("", True),
    ("   ", True),
    ("app=web", True),
    ("app==web", True),
    ("app = web", True),
    ("\tapp\n==\rweb ", True),
    ("app!=web", False),
    ("app!=db", True),
    ("missing!=x", True),  # != and notin also match objects without the key
    ("app in (web,db)", True),
    ("app in(db)", False),
    ("app notin (db)", True),
    ("missing notin (x)", True),
    ("app", True),
    ("missing", False),
    ("!missing", True),
    ("!app", False),
    ("empty=", True),
    ("empty in ()", True),  # "()" is the set of the empty value
    ("empty in (,x)", True),
    ("in in (in)", True),  # keywords are identifiers where a key or a value is expected
    ("replicas>2", True),
    ("replicas<3", False),
    ("app>2", False),  # a label that is not an integer never compares
    ("example.com/team=a", True),
    ("app=web,tier=front", True),
    ("app=web,tier=back", False),
    ("app=web , !missing , tier in (front)", True),
])
def test_matching(selector: str, matches: bool) -> None:
    assert parse_label_selector(selector).matches(LABELS) is matches


def test_empty_selects_everything() -> None:
    assert parse_label_selector("").empty and parse_label_selector(" ").empty
    assert not parse_label_selector("a").empty


@pytest.mark.parametrize(("selector", "message"), [
    ("a in (", REQ + "found '', expected: ',', ')' or identifier"),
    ("!", REQ + "found '', expected: identifier"),
    ("a==b==c", "found '==', expected: ',' or 'end of string'"),
    ("a,", "found '', expected: identifier after ','"),
    ("a=b,,c", "found ',', expected: identifier after ','"),
    (",a", "found ',', expected: !, identifier, or 'end of string'"),
    ("(a)", "found '(', expected: !, identifier, or 'end of string'"),
    ("a b", REQ + "found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("a ! b", REQ + "found '!', expected: in, notin, =, ==, !=, gt, lt"),
    ("a in b", REQ + "found 'b' expected: '('"),
    ("a notin", REQ + "found '' expected: '('"),
    ("a in (b c)", REQ + "found 'c', expected: ',' or ')'"),
    ("a in (b) c", "found 'c', expected: ',' or 'end of string'"),
    ("a=(", REQ + "found '(', expected: identifier"),
    ("!a=b", "found '=', expected: ',' or 'end of string'"),
    ("x/y/z", REQ + '<nil>: Invalid value: "x/y/z": a valid label key ' + NAME_RULE
     + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
    ("/a", REQ + '<nil>: Invalid value: "/a": prefix part must be non-empty'),
    ("a/", REQ + '<nil>: Invalid value: "a/": name part must be non-empty; name part ' + NAME_RULE),
    ("Ab_c.d/x", REQ + '<nil>: Invalid value: "Ab_c.d/x": prefix part ' + SUBDOMAIN_RULE),
    ("app: nginx", REQ + '<nil>: Invalid value: "app:": name part ' + NAME_RULE),
    ("k" * 64, REQ + f'<nil>: Invalid value: "{"k" * 64}": name part must be no more than 63 bytes'),
    ("p" * 254 + "/a", REQ + f'<nil>: Invalid value: "{"p" * 254}/a": prefix part must be no more than 253 bytes'),
    ("a=b@", REQ + 'values[0][a]: Invalid value: "b@": ' + VALUE_RULE),
    ("a=" + "v" * 64, REQ + f'values[0][a]: Invalid value: "{"v" * 64}": must be no more than 63 bytes'),
    ("a in (y@,x@)", REQ + f'[values[0][a]: Invalid value: "x@": {VALUE_RULE}, values[1][a]: Invalid value: "y@": {VALUE_RULE}]'),
    ("a>b", REQ + "values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer"),
    ("a<", REQ + "values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer"),
    ("a>-3", REQ + 'values[0][a]: Invalid value: "-3": ' + VALUE_RULE),
])
def test_parse_errors_are_upstreams(selector: str, message: str) -> None:
    with pytest.raises(StatusError) as err:
        parse_label_selector(selector)
    assert (err.value.code, err.value.reason, err.value.message) == (400, "BadRequest", message)


NAMES = st.text(string.ascii_letters + string.digits, min_size=1, max_size=8)
KEYS = st.builds(lambda prefix, name: f"{prefix}/{name}" if prefix else name,
                 st.sampled_from(["", "example.com", "k8s.io"]), NAMES)
VALUES = st.one_of(st.just(""), NAMES)


Predicate = Callable[[Mapping[str, str]], bool]


@st.composite
def requirements(draw: st.DrawFn) -> tuple[str, Predicate]:
    """A requirement as text, with the predicate it stands for."""
    key = draw(KEYS)
    kind = draw(st.sampled_from(["=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt"]))
    if kind in ("=", "==", "!="):
        value = draw(VALUES)
        equal = kind != "!="
        return f"{key}{kind}{value}", lambda labels: (labels.get(key) == value) == equal
    if kind in ("in", "notin"):
        values = draw(st.lists(NAMES, min_size=1, max_size=3))
        inside = kind == "in"
        return (f"{key} {kind} ({','.join(values)})",
                lambda labels: (key in labels and labels[key] in values) if inside else labels.get(key) not in values)
    if kind in ("exists", "!"):
        present = kind == "exists"
        return ("" if present else "!") + key, lambda labels: (key in labels) == present
    bound = draw(st.integers(0, 99))
    greater = kind == "gt"
    return (f"{key}{'>' if greater else '<'}{bound}",
            lambda labels: labels.get(key, "x").isdigit() and (int(labels[key]) > bound if greater else int(labels[key]) < bound))


@given(st.lists(requirements(), max_size=4), st.dictionaries(KEYS, st.one_of(VALUES, st.integers(0, 99).map(str)), max_size=5))
def test_selectors_mean_the_and_of_their_requirements(reqs: list[tuple[str, Predicate]], labels: dict[str, str]) -> None:
    selector = parse_label_selector(" , ".join(text for text, _ in reqs))
    assert selector.matches(labels) == all(predicate(labels) for _, predicate in reqs)


@given(st.text(max_size=30))
def test_any_text_parses_or_is_a_bad_request(text: str) -> None:
    try:
        parse_label_selector(text)
    except StatusError as err:
        assert err.code == 400
