"""Create-only endpoints: the resources and subresources whose requests are answered, never
stored (kube's ``rest.Creater`` and ``rest.NamedCreater`` storages without a store of their own):
``pods/binding`` and ``bindings``, ``pods/eviction``, ``serviceaccounts/token``, the access and
token reviews.

``CreateOnly.handle`` is what kube's create handler (``handlers/create.go``) does between the
decoded body and the storage's ``Create``: the body becomes the endpoint's kind (kube's errors for
another kind or version), is defaulted, has its server-owned metadata wiped (unless the
subresource keeps it as preconditions: bindings and token requests), its namespace made the
request's, its fields recorded for the request's field manager (only where the answer is the
request's object, the only place they show; against the kind's Go zero value, as kube does), and goes through mutating admission; the storage's
``create`` then answers. Every answer is sent with 201, even a failure Status an eviction returns,
as kube does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from ..admission import Admission, WebhookTarget
from ..admission.webhook import request as webhook_request
from ..apis.rules import rules_for
from ..machinery import metadata
from ..machinery.field_manager import FieldManager
from ..machinery.schema import Schema, kind_schema
from ..machinery.status import bad_request
from .writes import check_namespace_accepts

if TYPE_CHECKING:
    from ..apiextensions.structural import StructuralSchema
    from ..auth.authentication import UserInfo

Json = dict[str, Any]

#: ``rest.WipeObjectMetaSystemFields``.
_SYSTEM_FIELDS = ("creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")
#: The Status a storage answers a successful create-only request with.
SUCCESS: Json = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


@dataclass(frozen=True, slots=True)
class BodyType:
    """The kind an endpoint decodes its bodies as, in ``versions`` of ``group`` (the first is
    the endpoint's; an eviction also takes policy/v1beta1)."""

    group: str
    versions: tuple[str, ...]
    kind: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.versions[0]}" if self.group else self.versions[0]

    @property
    def schema(self) -> Schema | None:
        return _schema(self.group, self.versions[0], self.kind)

    @property
    def custom(self) -> bool:
        return False

    @property
    def structural(self) -> StructuralSchema | None:
        return None


@cache
def _schema(group: str, version: str, kind: str) -> Schema | None:
    return kind_schema(group, version, kind)


@cache
def _field_manager(body_type: BodyType, subresource: str) -> FieldManager:
    """One field manager per endpoint, as kube keeps one per handler."""
    return FieldManager(body_type.api_version, body_type.kind, body_type.schema, subresource=subresource)


@dataclass(slots=True)
class CreateRequest:
    """A create-only request, decoded: ``name`` is the parent object's for a subresource;
    ``user`` resolves the requester when a storage needs it."""

    namespace: str | None
    name: str | None
    body: Json
    dry_run: bool
    user: Callable[[], UserInfo]

    def named(self) -> str:
        """The name in the URL, which a named subresource's body must carry too."""
        name = self.name or ""
        if name != self.body["metadata"].get("name", ""):
            raise bad_request(f"name in URL does not match name in {self.body['kind']} object")
        return name


def _as_decoded(obj: Json) -> Json:
    """A create-only body patched by a webhook, as its storage takes it (not decoded again)."""
    return obj


class CreateOnly:
    """A create-only storage: ``create`` answers a request (a JSON object)."""

    body_type: BodyType
    #: Whether the answer is the request's object, so that its managedFields show.
    answers_request = False
    #: ``rest.SubresourceObjectMetaPreserver``: uid and resourceVersion in the body are
    #: preconditions, not wiped.
    keeps_system_fields = False
    #: Whether NamespaceLifecycle admission applies: a namespaced request needs its namespace
    #: there and not terminating (local access reviews are exempt: they must not reveal it).
    namespace_lifecycle = True
    #: The Go zero value of the kind as its JSON shows it (fields without ``omitempty``): what
    #: kube's ``objectCreater.New`` gives, the object its field manager compares the request with
    #: on a create — so a field Go always writes (``spec``) is not owned as a whole.
    zero_object: Json = {}

    def create(self, request: CreateRequest) -> Json:
        raise NotImplementedError

    def handle(self, body: Any, *, resource: tuple[str, str], namespace: str | None, name: str | None,
               subresource: str, dry_run: bool, manager: str, user: Callable[[], UserInfo],
               admission: Admission | None, namespace_phase: Callable[[str], str | None], version: str = "") -> Json:
        """kube's create handler around ``create`` (see the module doc); ``resource`` is the
        (group, plural) the request names (``("", "pods")`` for ``pods/binding``), in ``version``."""
        body_type = self.body_type
        obj = metadata.with_metadata(body)  # decoded as ``body_type`` by ``machinery.serializer``
        rules = rules_for(body_type.group, obj["apiVersion"].rpartition("/")[2], body_type.kind)
        if rules.default is not None:
            rules.default(obj)
        meta = obj["metadata"]
        if not (self.keeps_system_fields and subresource):
            for key in _SYSTEM_FIELDS:
                meta.pop(key, None)
        if namespace is None:
            meta.pop("namespace", None)
        else:
            metadata.check_namespace(meta, namespace)
            meta["namespace"] = namespace
        if self.answers_request and manager:
            live = {"apiVersion": body_type.api_version, "kind": body_type.kind, **self.zero_object}
            obj = _field_manager(body_type, subresource).update(live, obj, manager, now=metadata.now_rfc3339())
        if namespace is not None and self.namespace_lifecycle:
            meta = obj["metadata"]
            check_namespace_accepts(namespace_phase, *resource, namespace,
                                    name or meta.get("name") or meta.get("generateName") or "Unknown")
        if admission is not None:
            meta = obj["metadata"]
            # Webhooks see the body as its kind (a policy/v1 Eviction) created at the resource
            # the request names (pods/eviction, v1), named as the URL names it.
            target = None if webhook_request.current.get() is None else WebhookTarget(
                "CREATE", version, resource[1], namespace or "", name or meta.get("name") or "", _as_decoded,
                resource_group=resource[0], kind_version=obj["apiVersion"].rpartition("/")[2])
            admission.admit(body_type.group, body_type.kind, obj, None, subresource or None, target)
            admission.validate_by_webhooks(body_type.group, body_type.kind, obj, None, subresource or None, target)
        return self.create(CreateRequest(namespace, name, obj, dry_run, user))
