"""The registry: one ``ResourceStore`` per served resource, the default namespaces, and the
clock-driven work of the caches (bookmarks)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import orjson

from ..admission import Admission
from ..admission.webhook.request import ServedVersion
from ..apiextensions.conversion_metrics import ConversionMetrics
from ..apiextensions.crd import CustomResourceType
from ..apis.catalogue import Catalogue, ResourceType, default_catalogue
from ..cacher import DELETED, CacheEvent, CacherConfig
from ..cacher.cacher import BOOKMARK_TICK
from ..apis.conversion import Conversion, built_in_conversion, none_conversion
from ..cel.access import AccessCheck, AccessDecision
from ..machinery.status import StatusError
from ..store import StoreInterface
from ..runtime import cancel_and_wait
from .bootstrap import create_bootstrap_objects
from .access_reviews import (
    LocalSubjectAccessReviews,
    SelfSubjectAccessReviews,
    SelfSubjectRulesReviews,
    SubjectAccessReviews,
)
from ..auth.authentication import Authenticator, UserInfo
from .authentication_reviews import SelfSubjectReviews, TokenReviews
from ..auth.authorization import ALWAYS_ALLOW, RBAC, AccessControl, AlwaysAllow, Attributes, Authorizer, Union
from .binding import LegacyBindings, PodBindings
from . import scale
from .served_versions import ConvertingStore
from .custom_resources import (
    CustomResourceDefinitionStore,
    CustomResourceStore,
    is_established,
    selectable_union,
    served_definitions,
)
from .lease_manager import LeaseManager
from .namespaces import NamespaceStore
from .eviction import LOOPBACK_MANAGER, PodEvictions
from .pod_subresources import POD_SUBRESOURCE_STRATEGIES
from ..auth.rbac import RBACAuthorizer
from .rbac_storage import EscalationCheck, RBACStore
from .rest import Json, LeaseTTL, ResourceStore
from .services import ServiceStore
from ..auth.serviceaccount_tokens import SigningKeys, TokenSigner
from .token_request import ServiceAccountTokens
from .create_only import CreateOnly

if TYPE_CHECKING:
    from ..apis.webhook_client import WebhookClients

_log = logging.getLogger("fakeapi.registry")
#: A served resource: its storage version's store, or a conversion over it.
ServedStore = ResourceStore | ConvertingStore

#: kube-apiserver's ``--service-account-issuer`` as kubeadm, kind and minikube set it (kube
#: itself has no default); also the API audience.
DEFAULT_SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local"
#: kube-apiserver's --event-ttl: events are deleted an hour after their last write.
DEFAULT_EVENT_TTL = 3600
#: Resources whose storage has more semantics than the generic store's.
_STORE_CLASSES: dict[tuple[str, str], type[ResourceStore]] = {
    ("", "namespaces"): NamespaceStore,
    ("", "services"): ServiceStore,
    ("apiextensions.k8s.io", "customresourcedefinitions"): CustomResourceDefinitionStore,
    **{("rbac.authorization.k8s.io", plural): RBACStore
       for plural in ("roles", "clusterroles", "rolebindings", "clusterrolebindings")},
}


def servable_types(catalogue: Catalogue) -> list[ResourceType]:
    """The stored types served, every version of each: kube-apiserver serves some resources in
    several versions or groups over one etcd prefix (autoscaling v1 and v2
    horizontalpodautoscalers; core and events.k8s.io events), each but the storage version
    through a conversion (``storage_versions``)."""
    return sorted((resource_type for resource_type in catalogue.served() if resource_type.stored),
                  key=lambda resource_type: (resource_type.group, resource_type.version, resource_type.plural))


def storage_versions(catalogue: Catalogue, types: list[ResourceType]) -> dict[str, ResourceType]:
    """The type each storage prefix is stored as: the core group's if it has one (events are
    core/v1 in etcd: ``AddCohabitatingResources(api.Resource("events"), events.Resource("events"))``),
    else the group's preferred version (``DefaultResourceEncoding``; kube 1.35 has no override for
    the served GA kinds: HPAs are stored as autoscaling/v2)."""
    preference = {(g.name, v): i for g in catalogue.group_versions() for i, v in enumerate(g.versions)}
    chosen: dict[str, ResourceType] = {}
    for resource_type in types:
        rank = (resource_type.group != "", preference[(resource_type.group, resource_type.version)])
        best = chosen.get(resource_type.storage_prefix)
        if best is None or rank < (best.group != "", preference[(best.group, best.version)]):
            chosen[resource_type.storage_prefix] = resource_type
    return chosen


#: The kinds admission lists from the store rather than from the watch cache when there are any
#: (see ``_list``).
_LIVE_LISTS = frozenset({("", "ResourceQuota")})
#: How long a live lookup that found nothing is believed (kube's LimitRanger: 30 s).
LIVE_LOOKUP_TTL = 30.0


class Registry:
    def __init__(
        self,
        store: StoreInterface,
        catalogue: Catalogue | None = None,
        cacher_config: CacherConfig | None = None,
        *,
        garbage_collection: bool = True,
        event_ttl: int = DEFAULT_EVENT_TTL,
        advertise_port: int = 443,
        service_account_issuers: tuple[str, ...] = (DEFAULT_SERVICE_ACCOUNT_ISSUER,),
        service_account_keys: SigningKeys | None = None,
        access: AccessControl | None = None,
        admission_plugins: frozenset[str] = frozenset(),
        extension_authentication: dict[str, str] | None = None,
    ) -> None:
        self.store = store
        #: The port clients reach the server on: the ``kubernetes`` Service's target port.
        self.advertise_port = advertise_port
        #: ``kube-system/extension-apiserver-authentication``'s data, written at start.
        self.extension_authentication = extension_authentication or {}
        #: Whether a garbage collector runs, so DELETE may leave its finalizers (foreground,
        #: orphan) on owners: without one they would never go.
        self.garbage_collection = garbage_collection
        self.catalogue = catalogue or default_catalogue()
        self.cacher_config = cacher_config or CacherConfig()
        self.resources: dict[tuple[str, str, str], ServedStore] = {}
        self._by_kind: dict[tuple[str, str], ServedStore] = {}
        #: The admission chain (its plugins read other objects through ``_lookup``), with the
        #: plugins fakeapi runs only when enabled that ``admission_plugins`` names.
        self.admission = Admission(self._lookup, self._list, self._update_status, admission_plugins,
                                   self._authorizes, self._served_versions)
        #: ``_served_versions``' answers, until the served resources change (``_changed``).
        self._equivalents: dict[tuple[str, str], tuple[ServedVersion, ...]] = {}
        event_leases = LeaseTTL(event_ttl, LeaseManager(store, store.lessor.clock))
        types = servable_types(self.catalogue)
        storage: dict[str, ResourceStore] = {}
        for prefix, resource_type in storage_versions(self.catalogue, types).items():
            store_class = _STORE_CLASSES.get((resource_type.group, resource_type.plural), ResourceStore)
            ttl = event_leases if resource_type.kind == "Event" and event_ttl > 0 else None
            storage[prefix] = store_class(resource_type, store, self.cacher_config, self.namespace_phase, ttl,
                                          admission=self.admission)
        for resource_type in types:
            served: ServedStore = storage[resource_type.storage_prefix]
            if served.resource_type != resource_type:
                served = ConvertingStore(served, resource_type, built_in_conversion(
                    served.api_version, resource_type.group_version, resource_type.kind))
            self.resources[(resource_type.group, resource_type.version, resource_type.plural)] = served
            if self.catalogue.lookup_kind(resource_type.group, resource_type.kind) == resource_type:
                self._by_kind[(resource_type.group, resource_type.kind)] = served
        namespaces = self.resources[("", "v1", "namespaces")]
        assert isinstance(namespaces, NamespaceStore)
        self.namespaces = namespaces
        definitions = self.resources[("apiextensions.k8s.io", "v1", "customresourcedefinitions")]
        assert isinstance(definitions, CustomResourceDefinitionStore)
        self.definitions = definitions
        # A CRD written here is served at once (its write's hook); one written by another API
        # process sharing the store, when this process's cache sees it. Whichever comes second
        # for a revision is a no-op, and an older revision never undoes a newer one.
        definitions.on_change = self._definition_written
        definitions.cacher.listeners.append(self._definition_seen)
        self._definition_revisions: dict[str, int] = {}  # CRD name -> revision served
        #: (group, kind, namespace) -> until when admission takes "none" for an answer (``_list``).
        self._empty_until: dict[tuple[str, str, str | None], float] = {}
        services = self._by_kind[("", "Service")].storage
        assert isinstance(services, ServiceStore)
        services.endpoints = self._by_kind[("", "Endpoints")].storage
        self._custom: dict[str, CustomResourceStore] = {}  # by CRD name
        #: CRD name -> what of it is served (its spec and accepted names): kube's crdHandler
        #: builds a CRD's storage again only when these change, so another write of the CRD (its
        #: status) keeps the served versions, and a conversion webhook's conversions with them.
        self._custom_defined: dict[str, Json] = {}
        #: The clients of CRDs' conversion webhooks (``spec.conversion.strategy: Webhook``),
        #: made with the first such CRD (``_custom_conversion``), and what their calls cost and
        #: answered.
        self._conversion_clients: WebhookClients | None = None
        self.conversion_metrics = ConversionMetrics()
        self._serve_subresources(TokenSigner(service_account_issuers, service_account_keys), access or AccessControl())
        #: Called with each resource store added after start (custom resources): controllers
        #: subscribe to its cache.
        self.on_resource_added: list[Callable[[ResourceStore], None]] = []
        #: Called after the set of served resources changed (discovery, OpenAPI).
        self.on_resources_changed: list[Callable[[], None]] = []
        self._stopping: set[asyncio.Task[None]] = set()
        self._ticker: asyncio.Task[None] | None = None

    def _served_versions(self, group: str, resource: str) -> tuple[ServedVersion, ...]:
        """Admission's ``EquivalentResources``: every version served over the storage of
        ``group``/``resource`` (its storage version's store, or a conversion over it), in the
        order of the served resources (group, then version)."""
        versions = self._equivalents.get((group, resource))
        if versions is None:
            storage = next((served.storage for (g, _v, plural), served in self.resources.items()
                            if (g, plural) == (group, resource)), None)
            versions = self._equivalents[(group, resource)] = () if storage is None else tuple(
                _served_version(served) for served in self.resources.values() if served.storage is storage)
        return versions

    def _authorizes(self, user: Json, check: AccessCheck) -> AccessDecision:
        """Admission's authorizer (``Admission.authorize``): the server's (made after the
        admission chain, which asks it only while serving requests)."""
        verdict = self.authorizer.authorize(Attributes(
            UserInfo.from_json(user), check.verb, check.resource_request, path=check.path, api_group=check.group,
            api_version="*" if check.resource_request else "", namespace=check.namespace, resource=check.resource,
            subresource=check.subresource, name=check.name))
        return AccessDecision(verdict.decision.value, verdict.reason, verdict.error)

    def _serve_subresources(self, token_signer: TokenSigner, access: AccessControl) -> None:
        """The create-only storages: resources answered, never stored (``create_only``), and
        the create-only subresources of stored ones (``subresource_creaters``); the pods' spec
        subresources."""
        #: Service-account tokens: their signer, and the authenticator that knows them.
        self.token_signer = token_signer
        api_audiences = token_signer.issuers  # kube's --api-audiences default: the issuers
        self.authenticator = Authenticator(self.token_signer, self._lookup, api_audiences,
                                           static_tokens=access.static_tokens,
                                           unauthenticated=access.unauthenticated_user,
                                           label_secret=self._label_secret)
        self.authorizer = Union([self._mode_authorizer(mode) for mode in access.authorization_modes])
        rbac = next((a for a in self.authorizer.authorizers if isinstance(a, RBACAuthorizer)), None)
        if rbac is not None and not self.authorizer.always_allows:
            # Escalation prevention, as kube's RBAC storage (AlwaysAllow allows escalate and bind).
            roles = {plural: self.resources[("rbac.authorization.k8s.io", "v1", plural)].storage
                     for plural in ("roles", "clusterroles")}
            check = EscalationCheck(roles, self.authorizer, rbac)
            for plural in ("roles", "clusterroles", "rolebindings", "clusterrolebindings"):
                store = self.resources[("rbac.authorization.k8s.io", "v1", plural)].storage
                assert isinstance(store, RBACStore)
                store.escalation = check
        pods = self.resources[("", "v1", "pods")].storage
        pods.subresource_strategies = POD_SUBRESOURCE_STRATEGIES
        budgets = self.resources[("policy", "v1", "poddisruptionbudgets")].storage
        bindings = PodBindings(pods)
        self.create_only: dict[tuple[str, str, str], CreateOnly] = {
            ("", "v1", "bindings"): LegacyBindings(bindings),
            ("authentication.k8s.io", "v1", "selfsubjectreviews"): SelfSubjectReviews(),
            ("authentication.k8s.io", "v1", "tokenreviews"): TokenReviews(self.authenticator),
            ("authorization.k8s.io", "v1", "localsubjectaccessreviews"): LocalSubjectAccessReviews(self.authorizer),
            ("authorization.k8s.io", "v1", "selfsubjectaccessreviews"): SelfSubjectAccessReviews(self.authorizer),
            ("authorization.k8s.io", "v1", "selfsubjectrulesreviews"): SelfSubjectRulesReviews(self.authorizer),
            ("authorization.k8s.io", "v1", "subjectaccessreviews"): SubjectAccessReviews(self.authorizer),
        }
        #: By (group, version, resource, subresource).
        self.subresource_creaters: dict[tuple[str, str, str, str], CreateOnly] = {
            ("", "v1", "pods", "binding"): bindings,
            ("", "v1", "pods", "eviction"): PodEvictions(pods, budgets, gc_finalizers=self.garbage_collection),
            ("", "v1", "serviceaccounts", "token"): ServiceAccountTokens(self.token_signer, self._lookup, api_audiences),
        }

    def _mode_authorizer(self, mode: str) -> Authorizer:
        """The authorizer of one ``--authorization-mode``."""
        if mode == ALWAYS_ALLOW:
            return AlwaysAllow()
        if mode == RBAC:
            def cacher(plural: str):  # type: ignore[no-untyped-def]
                return self.resources[("rbac.authorization.k8s.io", "v1", plural)].storage.cacher
            return RBACAuthorizer(cacher("roles"), cacher("rolebindings"), cacher("clusterroles"),
                                  cacher("clusterrolebindings"))
        raise ValueError(f"unknown authorization mode {mode}")

    def start(self) -> None:
        """Create the default namespaces and kube-apiserver's bootstrap objects, start every cache
        (on the store's loop) and serve the custom resources of the CRDs already stored (a store
        loaded from disk or a snapshot)."""
        # the default namespaces and the system PriorityClasses among them
        create_bootstrap_objects(self.store, self.advertise_port, self.resource_for_kind,
                                 tuple(sorted(self.extension_authentication.items())))
        for resource_store in self.stores():
            resource_store.cacher.start()
        for crd in self.definitions.definitions():
            self._definition_changed(crd["metadata"]["name"], crd, int(crd["metadata"]["resourceVersion"]))
        self._ticker = asyncio.create_task(self._tick_bookmarks(), name="bookmarks")

    async def stop(self) -> None:
        await cancel_and_wait([self._ticker, *self._stopping])
        self._ticker = None
        for resource_store in self.stores():
            await resource_store.cacher.stop()
        await self.admission.aclose()
        if self._conversion_clients is not None:
            await self._conversion_clients.aclose()

    async def _tick_bookmarks(self) -> None:
        while True:
            await asyncio.sleep(BOOKMARK_TICK)
            for resource_store in self.stores():
                resource_store.cacher.send_due_bookmarks()

    def compacted(self, revision: int) -> None:
        """The apiserver's compactor compacted the store: the caches forget their snapshots
        before ``revision`` (kube's cacher learns it from its compactor)."""
        for resource_store in self.stores():
            resource_store.cacher.cache.compact(revision)

    def close_watches(self, group: str | None = None, resource: str | None = None,
                      namespace: str | None = None) -> int:
        """End the open watches of every resource, of one group, or of one resource, and of
        those only the ones scoped to ``namespace`` if given; returns how many were closed.
        Clients re-watch from the last resourceVersion they saw."""
        return sum(resource_store.cacher.terminate_all(namespace) for resource_store in self.stores_of(group, resource))

    def stores_of(self, group: str | None = None, resource: str | None = None) -> list[ResourceStore]:
        """The storage stores of every resource (None, None), of one group, or of one resource
        (once each, although a resource may be served in several versions)."""
        return list({id(served.storage): served.storage
                     for (served_group, _version, plural), served in self.resources.items()
                     if (group is None or group == served_group) and (resource is None or resource == plural)}.values())

    # ----------------------------------------------------------------- custom resources

    def _definition_written(self, crd_name: str, crd: Json | None) -> None:
        # A delete's revision is not in the object: the store's newest known is at least it.
        revision = int(crd["metadata"]["resourceVersion"]) if crd is not None else self.store.known_revision
        self._definition_changed(crd_name, crd, revision)

    def _definition_seen(self, event: CacheEvent) -> None:
        crd = None if event.type == DELETED else orjson.loads(event.obj.raw)
        self._definition_changed(event.obj.name, crd, event.rv)

    def _definition_changed(self, crd_name: str, crd: Json | None, revision: int) -> None:
        if revision <= self._definition_revisions.get(crd_name, 0):
            return
        self._definition_revisions[crd_name] = revision
        self._sync_custom_resources(crd_name, crd, revision)

    def _sync_custom_resources(self, crd_name: str, crd: Json | None, revision: int) -> None:
        """Serve what a CRD defines, from the write that established it until it is gone: the
        storage version from its store, every other served version through a conversion over it
        (strategy ``None``: objects change apiVersion only; ``Webhook``: its webhook converts).
        ``revision``: the CRD's write."""
        resource_store = self._custom.get(crd_name)
        if crd is None or not is_established(crd):
            if resource_store is not None:
                self._remove_custom(crd_name, resource_store)
            return
        defined = {"spec": crd.get("spec"), "acceptedNames": (crd.get("status") or {}).get("acceptedNames")}
        if resource_store is not None and self._custom_defined.get(crd_name) == defined:
            return
        storage, served = served_definitions(crd)
        if resource_store is not None and (
                resource_store.prefix != storage.resource_type().storage_prefix
                # the cached objects hold the fields selectors read and are decoded by the
                # storage version's schema (defaults from storage): other ones need another
                # cache, as kube makes a new storage for a changed CRD
                or resource_store.selection.selectable_fields != selectable_union(served)
                or resource_store.definition.openapi_schema != storage.openapi_schema):
            self._remove_custom(crd_name, resource_store)
            resource_store = None
        if resource_store is None:
            resource_store = CustomResourceStore(storage.resource_type(), self.store, self.cacher_config,
                                                 self.namespace_phase, admission=self.admission)
            resource_store.define(storage, served, revision)  # before its cache decodes a stored object
            resource_store.cacher.start()
            self._custom[crd_name] = resource_store
            for listener in self.on_resource_added:
                listener(resource_store)
        else:
            self._unregister_custom(resource_store)
            resource_store.define(storage, served, revision)
        resource_store.custom_schema = storage.schema
        resource_store.structural = storage.structural
        for definition in served:
            self.resources[(definition.group, definition.version, definition.plural)] = (
                resource_store if definition is storage else _custom_version(
                    resource_store, definition, self._custom_conversion(crd, resource_store, definition)))
        self._by_kind[(storage.group, storage.kind)] = resource_store
        self._custom_defined[crd_name] = defined
        self._changed()

    def _custom_conversion(self, crd: Json, resource_store: CustomResourceStore,
                           definition: CustomResourceType) -> Conversion:
        """The conversion of a CRD's storage version to another served one, by its strategy."""
        if ((crd.get("spec") or {}).get("conversion") or {}).get("strategy") == "Webhook":
            # the webhook client loads with the first CRD converted by a webhook
            from ..apiextensions.conversion_webhook import ConversionWebhook
            from ..apis.webhook_client import WebhookClients

            if self._conversion_clients is None:
                self._conversion_clients = WebhookClients(self._lookup, self._list)
            webhook = ConversionWebhook(crd, self._conversion_clients, self.conversion_metrics)
            return webhook.conversion(resource_store.api_version, definition.group_version)
        return none_conversion(resource_store.api_version, definition.group_version)

    def _unregister_custom(self, resource_store: ResourceStore) -> None:
        for key in [key for key, served in self.resources.items() if served.storage is resource_store]:
            served = self.resources.pop(key)
            if isinstance(served, ConvertingStore):
                served.close()
        self._by_kind = {key: served for key, served in self._by_kind.items() if served.storage is not resource_store}

    def _remove_custom(self, crd_name: str, resource_store: CustomResourceStore) -> None:
        self._unregister_custom(resource_store)
        del self._custom[crd_name]
        self._custom_defined.pop(crd_name, None)
        task = asyncio.get_running_loop().create_task(resource_store.cacher.stop())
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)
        self._changed()

    def _changed(self) -> None:
        self._equivalents.clear()
        for listener in self.on_resources_changed:
            listener()

    def stores(self) -> list[ResourceStore]:
        """Every storage store once (each owns the watch cache of its prefix)."""
        return self.stores_of()

    def namespace_phase(self, name: str) -> str | None:
        """The namespace's phase (``Active``, ``Terminating``); None if it does not exist."""
        return self.namespaces.phase(name)

    def resource_for_kind(self, group: str, kind: str) -> ServedStore | None:
        return self._by_kind.get((group, kind))

    def _lookup(self, group: str, kind: str, namespace: str | None, name: str) -> Json | None:
        """An object of a kind, in its storage version, or None: from the watch cache, from the
        store on a miss (``cached_or_stored``)."""
        served = self._by_kind.get((group, kind))
        if served is None:
            return None
        return served.storage.cached_or_stored(namespace, name)

    def _list(self, group: str, kind: str, namespace: str | None) -> list[Json]:
        """The objects of a kind (in one namespace, or all), in their storage version, as
        admission reads them: from the watch cache, as kube's plugins read their listers, but
        ResourceQuotas, when there are any, from the store (their usage is charged against the
        version read, which must be the current one: kube's quota evaluator re-reads on a
        conflict)."""
        served = self._by_kind.get((group, kind))
        if served is None:
            return []
        objects = served.storage.cached_objects(namespace)
        if objects and (group, kind) in _LIVE_LISTS:
            return served.storage.stored_objects(namespace)
        if objects or served.storage.cacher.cache.rv >= self.store.known_revision:
            return objects  # found, or the cache has seen every write this process knows of
        # kube's LimitRanger (and the plugins built like it) confirm an empty lister with a live
        # lookup, remembered for a while (liveLookupCache): an object created a moment ago is
        # found, and a namespace without any costs one store read per LIVE_LOOKUP_TTL.
        key = (group, kind, namespace)
        now = time.monotonic()
        if self._empty_until.get(key, 0.0) > now:
            return []
        objects = served.storage.stored_objects(namespace)
        if not objects:
            self._empty_until[key] = now + LIVE_LOOKUP_TTL
        return objects

    def _update_status(self, group: str, kind: str, namespace: str | None, name: str,
                       change: Callable[[Json], Json]) -> None:
        """Write an object's status as kube-apiserver's loopback client does (admission's
        ResourceQuota usage): ``change`` of the stored object, managed by "kube-apiserver"."""
        served = self._by_kind[(group, kind)]
        served.storage.rewrite(namespace, name, change, subresource="status", manager=LOOPBACK_MANAGER)

    def _label_secret(self, namespace: str, name: str, key: str, value: str) -> None:
        """kube-apiserver's loopback merge patch of one label of a Secret (the legacy token
        tracker's): an update managed by "kube-apiserver"; a failure only logged, as kube logs it."""
        def labelled(secret: Json) -> Json:
            metadata = secret["metadata"]
            metadata["labels"] = {**(metadata.get("labels") or {}), key: value}
            return secret

        try:
            self._by_kind[("", "Secret")].storage.rewrite(namespace, name, labelled, manager=LOOPBACK_MANAGER)
        except StatusError as err:
            _log.error("Failed to label legacy service account token %s/%s with last-used date, err: %s",
                       name, namespace, err.message)

    def resource_type(self, group: str, version: str, plural: str) -> ResourceType | None:
        served = self.resources.get((group, version, plural))
        return served.resource_type if served else None


def _custom_version(resource_store: CustomResourceStore, definition: CustomResourceType,
                    conversion: Conversion) -> ConvertingStore:
    """A served version of a custom resource other than its storage version, whose ``/scale``
    (if it has one) reads and writes its objects at its own paths."""
    scale_paths = scale.BUILT_IN if definition.scale is None else scale.custom_scale_paths(definition.scale)
    return ConvertingStore(resource_store, definition.resource_type(), conversion,
                           list_kind=definition.list_kind, custom_schema=definition.schema,
                           structural=definition.structural, printer_columns=definition.printer_columns,
                           scale_paths=scale_paths)


def _same(obj: Json) -> Json:
    return obj


def _served_version(served: ServedStore) -> ServedVersion:
    resource_type = served.resource_type
    if isinstance(served, ConvertingStore):
        return ServedVersion(resource_type.group, resource_type.version, resource_type.plural, resource_type.kind,
                             served.conversion.to_served, served.conversion.to_storage)
    return ServedVersion(resource_type.group, resource_type.version, resource_type.plural, resource_type.kind,
                         _same, _same)
