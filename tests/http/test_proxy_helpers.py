"""The aggregator's pure parts, each as its kube source has it: the query as Go's
``url.Values.Encode`` writes it, ``X-Forwarded-Uri`` as ``path.Join`` cleans it, the
authenticating proxy's headers, and a legacy ``APIResourceList`` converted for the aggregated
discovery document (``ConvertGroupVersionIntoToDiscovery``). The differential test
(``tests/kasdiff/test_aggregation.py``) compares the common cases with the real server; these
are the corners it does not reach."""

from __future__ import annotations

import pytest

from fakeapi.auth.authentication import UserInfo
from fakeapi.http.aggregated_discovery import convert_group_version
from fakeapi.http.proxy import auth_proxy_headers, forwarded_uri, go_query_encode


def test_the_query_is_sorted_by_key_and_escaped_as_go_escapes_it() -> None:
    pairs = [("watch", "true"), ("labelSelector", "a in (b, c)"), ("fieldSelector", "x=y"), ("labelSelector", "~_.-")]
    assert go_query_encode(pairs) == "fieldSelector=x%3Dy&labelSelector=a+in+%28b%2C+c%29&labelSelector=~_.-&watch=true"
    assert go_query_encode([]) == ""


@pytest.mark.parametrize(("path", "uri"), [
    ("/apis/g/v1/namespaces/n/flunders", "/apis/g/v1/namespaces/n/flunders"),
    ("/apis/g/v1/", "/apis/g/v1/"),
    ("/apis/g//v1/./flunders/../things", "/apis/g/v1/things"),
    ("//apis/g/v1", "/apis/g/v1"),
])
def test_the_forwarded_uri_is_the_cleaned_path_with_its_trailing_slash(path: str, uri: str) -> None:
    assert forwarded_uri(path) == uri


def test_the_proxy_headers_name_the_user_its_groups_and_extras() -> None:
    user = UserInfo("alice", "u-1", ("wardens", "system:authenticated"), {"acme.example/team": ("blue", "red")})
    assert auth_proxy_headers(user) == [
        ("X-Remote-User", "alice"), ("X-Remote-Uid", "u-1"), ("X-Remote-Group", "wardens"),
        ("X-Remote-Group", "system:authenticated"), ("X-Remote-Extra-acme.example%2Fteam", "blue"),
        ("X-Remote-Extra-acme.example%2Fteam", "red")]
    assert auth_proxy_headers(UserInfo("bob")) == [("X-Remote-User", "bob")]  # no uid, no groups


def test_a_subresource_without_its_parent_gets_an_empty_one() -> None:
    entries = convert_group_version([
        {"name": "things/scale", "namespaced": True, "group": "autoscaling", "version": "v1", "kind": "Scale",
         "verbs": ["get"]},
        {"name": "things/log", "namespaced": True, "kind": "", "verbs": ["get"]},
    ])
    assert entries == [{
        "resource": "things", "responseKind": {"group": "", "version": "", "kind": ""}, "scope": "Namespaced",
        "singularResource": "", "verbs": None, "subresources": [
            {"subresource": "scale", "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
             "verbs": ["get"]},
            {"subresource": "log", "responseKind": {"group": "", "version": "", "kind": ""}, "verbs": ["get"]}]}]


def test_a_resource_keeps_its_names_and_categories_only_when_it_has_some() -> None:
    [entry] = convert_group_version([{"name": "widgets", "singularName": "widget", "namespaced": False,
                                      "kind": "Widget", "verbs": ["list"], "shortNames": ["wd"], "categories": []}])
    assert entry == {"resource": "widgets", "responseKind": {"group": "", "version": "", "kind": "Widget"},
                     "scope": "Cluster", "singularResource": "widget", "verbs": ["list"], "shortNames": ["wd"]}


def test_a_subresource_of_another_scope_than_its_parent_fails_the_conversion() -> None:
    with pytest.raises(ValueError, match="scope do not match"):
        convert_group_version([{"name": "widgets", "namespaced": False, "kind": "Widget", "verbs": []},
                               {"name": "widgets/status", "namespaced": True, "kind": "Widget", "verbs": []}])
