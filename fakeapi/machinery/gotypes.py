"""The Go types of Kubernetes' API objects, as protobuf descriptors plus the facts of the Go
structs the proto messages are generated from: each message's Go fields in declaration order, with
their ``json`` names and whether each is a pointer, ``omitempty``, ``omitzero`` or ``inline``, and
their Go names (which gogo-protobuf's ``Unmarshal`` errors name).

Both come from ``scripts/gen-protobuf-descriptors.py``: ``k8s_protobuf.desc.gz`` (a compiled
``FileDescriptorSet`` of k8s.io/api and friends) and ``k8s_gofields.json.gz``, package data beside
this module, loaded on first use, not at import (nor protobuf's descriptor machinery). What Go's ``encoding/json`` makes of a decoded
object (``gostruct``) and the protobuf wire form (``fakeapi.http.protobuf``) both read them.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from functools import cache
from importlib import resources

import orjson
from typing import TYPE_CHECKING

from .schema import definition_name

if TYPE_CHECKING:
    from google.protobuf import descriptor_pool
    from google.protobuf.message import Message

UNKNOWN = "k8s.io.apimachinery.pkg.runtime.Unknown"

GoField = tuple[str, str, str]
"""A Go struct field: (proto field name, json name, flags): ``p`` pointer, ``o`` omitempty,
``z`` omitzero, ``i`` inline."""


@dataclass(frozen=True, slots=True)
class GoTypes:
    """The compiled Kubernetes proto files and the Go fields of their messages."""

    pool: descriptor_pool.DescriptorPool
    #: Proto package by OpenAPI package: ``io.k8s.api.core.v1`` -> ``k8s.io.api.core.v1``.
    packages: dict[str, str]
    #: Go fields by message name; ``"items"`` for a message standing for a Go slice.
    go_fields: dict[str, list[GoField] | str]
    #: The Go name of each field by message and proto field name (``metadata``: ``ObjectMeta``).
    go_names: dict[str, dict[str, str]]

    def message_class(self, name: str) -> type[Message]:
        from google.protobuf import message_factory

        return message_factory.GetMessageClass(self.pool.FindMessageTypeByName(name))


def _openapi_package(go_package: str) -> str:
    """kube-openapi's definition namespace for a Go package: its host reversed,
    ``k8s.io/api/core/v1`` -> ``io.k8s.api.core.v1``."""
    host, _, path = go_package.partition("/")
    return ".".join([*reversed(host.split(".")), *path.split("/")])


@cache
def types() -> GoTypes:
    # protobuf's descriptor machinery is imported here, at the first use: ~8 ms of every start.
    from google.protobuf import descriptor_pb2, descriptor_pool

    data = resources.files(__package__)
    files = descriptor_pb2.FileDescriptorSet.FromString(
        gzip.decompress(data.joinpath("k8s_protobuf.desc.gz").read_bytes())).file
    pool = descriptor_pool.DescriptorPool()
    for file in files:  # protoc --include_imports writes dependencies first
        pool.Add(file)
    packages = {_openapi_package(file.options.go_package): file.package for file in files}
    facts = orjson.loads(gzip.decompress(data.joinpath("k8s_gofields.json.gz").read_bytes()))
    go_fields: dict[str, list[GoField] | str] = {}
    go_names: dict[str, dict[str, str]] = {}
    for name, fields in facts.items():
        if fields == "items":
            go_fields[name] = fields
            continue
        go_fields[name] = [(proto, json_name, flags) for proto, json_name, flags, _go in fields]
        go_names[name] = {proto: go for proto, _json, _flags, go in fields}
    return GoTypes(pool, packages, go_fields, go_names)


@cache
def message_class(name: str) -> type[Message]:
    """The class of a Kubernetes message, by proto name (``k8s.io.api.core.v1.ConfigMap``).
    Kept: the pool's descriptor objects, and the class protobuf hangs on one, die with the last
    reference to them, and making the class again cost ~40 µs and a cycle per body decoded."""
    return types().message_class(name)


def message_name(api_version: str, kind: str) -> str | None:
    """The proto message of a built-in kind (``apps/v1``, ``Deployment``), or None."""
    group, _, version = api_version.rpartition("/")
    definition = definition_name(group, version, kind)
    if definition is None:
        return None
    package, _, name = definition.rpartition(".")
    proto_package = types().packages.get(package)
    return None if proto_package is None else f"{proto_package}.{name}"


