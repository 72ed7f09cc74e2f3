"""The admission plugins of kube-apiserver that change what is stored (mutating admission; kube's
``plugin/pkg/admission/<plugin>``), one module each in this package, run where kube runs them:
after the field manager recorded the request's fields (so what a plugin sets is owned by nobody,
as in kube) and before the strategy's validation. Validating admission (``validating``; a
plugin for every kind with ``validating_all``) runs after the strategy's validation, as kube's
``createValidation``/``updateValidation``.

fakeapi's oracle is kube-apiserver with its default plugins except ``ServiceAccount`` (see
``fakeapi.cluster.control_plane``), so fakeapi runs that one only where it is enabled
(``OFF_BY_DEFAULT``; ``Admission(enabled=...)``, ``fakeapi serve --enable-admission-plugins``):
a plugin registered with ``plugin=`` names it. A plugin is a function registered for a kind with
``mutating``; it gets the ``Admission`` of the registry, the object, the stored object (None on
create) and the subresource written (None for the main resource). ``Admission.lookup`` reads
another object (a PriorityClass), ``Admission.list`` the objects of a kind (the default
StorageClass, a namespace's LimitRanges). A plugin refuses a write by raising a
``StatusError``. ``Admission.update_status`` writes another object's status (ResourceQuota
usage); ``Admission.dry_run`` says whether the write being admitted is a dry run;
``Admission.authorize`` asks the server's authorizer (who may approve or sign for a signer).

Admission webhooks (``webhook``) run where kube's chain has them: the mutating ones after every
built-in mutating plugin (and, when one changed the object, the chain once more: kube's
reinvocation), the validating ones after the kinds' validating plugins and before the plugins
of every kind (ResourceQuota, kube's last: a quota is charged only for a write every webhook
let through). ValidatingAdmissionPolicies (``policy``) are enforced right before the validating
webhooks, as kube's chain runs its ValidatingAdmissionPolicy plugin. A write the HTTP layer
serves names its target (``WebhookTarget``); others (controllers' writes inside the server) are
not sent to webhooks nor checked by policies (``Admission.configured`` tells the HTTP layer
whether a write needs its request's attributes).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..apis.admissionregistration import GROUP as ADMISSION_GROUP
from ..cel.access import Authorize, always_allow
from ..machinery.status import StatusError, forbidden
from .webhook import request as webhook_request
from .webhook.metrics import WebhookMetrics

if TYPE_CHECKING:
    from .policy.dispatch import PolicyDispatcher
    from .webhook.dispatch import Decoder, WebhookDispatcher

Json = dict[str, Any]


class Lookup(Protocol):
    def __call__(self, group: str, kind: str, namespace: str | None, name: str) -> Json | None: ...


class Lister(Protocol):
    def __call__(self, group: str, kind: str, namespace: str | None) -> list[Json]: ...


class StatusWriter(Protocol):
    def __call__(self, group: str, kind: str, namespace: str | None, name: str,
                 change: Callable[[Json], Json]) -> None: ...


def _no_equivalents(group: str, resource: str) -> tuple[webhook_request.ServedVersion, ...]:
    return ()


#: (admission, new object, stored object or None on create, subresource or None).
Plugin = Callable[["Admission", Json, Json | None, str | None], None]

#: kube-apiserver's admission plugins (by kube's names) that fakeapi runs only when enabled:
#: kube runs them by default, but neither fakeapi's oracle nor envtest does.
OFF_BY_DEFAULT = frozenset({"ServiceAccount"})
#: kube-apiserver's plugins on by default (``DefaultOffAdmissionPlugins``' complement) that fakeapi
#: always runs, or has no part of its own in (webhooks and policies answer only when configured):
#: naming them in ``--enable-admission-plugins`` asks for nothing more.
ALWAYS_ON = frozenset({
    "NamespaceLifecycle", "LimitRanger", "DefaultStorageClass", "PersistentVolumeClaimResize",
    "DefaultTolerationSeconds", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook", "ResourceQuota",
    "StorageObjectInUseProtection", "Priority", "TaintNodesByCondition", "RuntimeClass", "CertificateApproval",
    "CertificateSigning", "ClusterTrustBundleAttest", "CertificateSubjectRestriction", "DefaultIngressClass",
    "PodSecurity", "PodTopologyLabels", "MutatingAdmissionPolicy", "ValidatingAdmissionPolicy",
})
#: The ``OFF_BY_DEFAULT`` plugins that may wait for an object to appear (``Admission.may_wait``).
_PLUGINS_THAT_WAIT = frozenset({"ServiceAccount"})
#: The plugin modules in the order of kube's chain (``AllOrderedPlugins``), which a kind's plugins
#: run in whatever order their modules were imported: of two plugins that would refuse an object,
#: the first one's error is the answer. Plugins of other modules run after them.
_CHAIN_ORDER = ("limit_ranger", "service_account", "taint_nodes_by_condition", "pod_security", "priority",
                "default_toleration_seconds", "default_storage_class", "storage_object_in_use_protection",
                "persistent_volume_claim_resize", "runtime_class", "certificate_signers",
                "certificate_subject_restriction", "default_ingress_class", "pod_topology_labels", "resource_quota")

_plugins: dict[tuple[str, str], list[Plugin]] = {}
_validators: dict[tuple[str, str], list[Plugin]] = {}
_validators_of_all: list[Plugin] = []
#: The plugins of an ``OFF_BY_DEFAULT`` kube plugin, by function: the name that enables them.
_enabled_by: dict[Plugin, str] = {}
_installed = False


def _registrar(table: dict[tuple[str, str], list[Plugin]], group: str, kind: str,
               plugin_name: str | None) -> Callable[[Plugin], Plugin]:
    assert plugin_name is None or plugin_name in OFF_BY_DEFAULT, plugin_name

    def register(plugin: Plugin) -> Plugin:
        plugins = table.setdefault((group, kind), [])
        plugins.append(plugin)
        plugins.sort(key=_place_in_chain)  # stable: a module's plugins keep their order
        if plugin_name is not None:
            _enabled_by[plugin] = plugin_name
        return plugin
    return register


def _place_in_chain(plugin: Plugin) -> int:
    module = plugin.__module__.rpartition(".")[2] if plugin.__module__.startswith(f"{__name__}.") else ""
    return _CHAIN_ORDER.index(module) if module in _CHAIN_ORDER else len(_CHAIN_ORDER)


def mutating(group: str, kind: str, *, plugin: str | None = None) -> Callable[[Plugin], Plugin]:
    """Register a mutating admission plugin for a kind (a kind's plugins run in kube's order of
    their modules, ``_CHAIN_ORDER``, then in registration order); ``plugin`` names the
    ``OFF_BY_DEFAULT`` kube plugin it is part of (it runs only when enabled)."""
    return _registrar(_plugins, group, kind, plugin)


def validating(group: str, kind: str, *, plugin: str | None = None) -> Callable[[Plugin], Plugin]:
    """Register a validating admission plugin for a kind: it may only refuse (raise)."""
    return _registrar(_validators, group, kind, plugin)


def validating_all(plugin: Plugin) -> Plugin:
    """Register a validating admission plugin for every kind (it reads the object's kind); these
    run after the validating webhooks."""
    _validators_of_all.append(plugin)
    return plugin


def _install() -> None:
    global _installed
    if not _installed:
        for module in pkgutil.iter_modules(__path__):
            if module.ispkg:
                continue  # webhook/, policy/: not plugins registered by import
            importlib.import_module(f"{__name__}.{module.name}")
        _installed = True


def plugins_for(group: str, kind: str) -> list[Plugin]:
    _install()
    return _plugins.get((group, kind), [])


def validators_for(group: str, kind: str) -> list[Plugin]:
    """The kind's own validating plugins (they run before the validating webhooks)."""
    _install()
    return _validators.get((group, kind), [])


def validators_of_every_kind() -> list[Plugin]:
    """The validating plugins of every kind (they run after the validating webhooks)."""
    _install()
    return _validators_of_all


@dataclass(frozen=True)
class WebhookTarget:
    """What admission webhooks are told of a write besides its object: the operation, the
    served version and resource, the object's namespace and name as the request names them,
    and how the kind decodes an object a webhook patched."""

    operation: str
    version: str
    resource: str
    namespace: str
    name: str
    decode: Decoder
    #: The resource's group and the kind's version where the body is of another group or
    #: version than the resource it is created at (``pods/eviction``: a policy/v1 Eviction).
    resource_group: str | None = None
    kind_version: str | None = None


def refusal(group: str, resource: str, obj: Json, message: str) -> StatusError:
    """``admission.NewForbidden``: 403 naming the object, or the generateName it was created
    with before its name was generated, or "Unknown"."""
    meta = obj.get("metadata") or {}
    return forbidden(group, resource, meta.get("name") or meta.get("generateName") or "Unknown", message)


#: The kinds whose objects configure webhooks (their configurations) and policies (a policy and
#: its binding): no write is sent to a webhook or checked by a policy while none is stored.
_CONFIGURATION_KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
                        "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")


class Admission:
    """The admission chain of one registry; ``lookup`` reads a stored object (or None),
    ``list`` the stored objects of a kind (in one namespace, or all)."""

    def __init__(self, lookup: Lookup, lister: Lister | None = None, status_writer: StatusWriter | None = None,
                 enabled: frozenset[str] = frozenset(), authorizer: Authorize = always_allow,
                 equivalents: webhook_request.EquivalentResources = _no_equivalents) -> None:
        unknown = enabled - OFF_BY_DEFAULT
        if unknown:
            raise ValueError(f"admission plugins {sorted(unknown)} are not ones fakeapi enables")
        self.lookup = lookup
        self.list: Lister = lister or (lambda group, kind, namespace: [])
        self.update_status: StatusWriter = status_writer or (lambda group, kind, namespace, name, change: None)
        self.dry_run = False
        #: The server's authorizer, as kube gives it to the plugins that want one
        #: (``WantsAuthorizer``) and to the policies' and webhooks' ``authorizer`` variable.
        self.authorize = authorizer
        #: The versions each stored resource is served in, which webhooks and policies may name.
        self.equivalents = equivalents
        # Built by the first write that finds a configuration stored (``configured``): with them
        # load CEL and the webhook client, which a server nobody configures never needs.
        self._webhooks: WebhookDispatcher | None = None
        self._policies: PolicyDispatcher | None = None
        #: The ``OFF_BY_DEFAULT`` plugins this chain runs.
        self.enabled = enabled
        #: Whether a write may wait on the event loop though no webhook is configured (the HTTP
        #: layer then runs it under ``fakeapi.runtime.run_awaiting``): ServiceAccount waits for
        #: the ``default`` account a controller-manager is about to create.
        self.may_wait = bool(enabled & _PLUGINS_THAT_WAIT)
        # The chain of each kind, without the plugins not enabled: chosen once per kind, so a
        # plugin that is off costs a request nothing.
        self._mutating: dict[tuple[str, str], list[Plugin]] = {}
        self._validating: dict[tuple[str, str], list[Plugin]] = {}

    def _chain(self, chains: dict[tuple[str, str], list[Plugin]], registered: Callable[[str, str], list[Plugin]],
               group: str, kind: str) -> list[Plugin]:
        chain = chains.get((group, kind))
        if chain is None:
            chain = chains[(group, kind)] = [
                plugin for plugin in registered(group, kind)
                if plugin not in _enabled_by or _enabled_by[plugin] in self.enabled]
        return chain

    @property
    def webhooks(self) -> WebhookDispatcher:
        """The admission webhooks' dispatcher, built on first use."""
        if self._webhooks is None:
            from .webhook.dispatch import WebhookDispatcher

            self._webhooks = WebhookDispatcher(self.lookup, self.list, self.authorize)
        return self._webhooks

    @property
    def policies(self) -> PolicyDispatcher:
        """The ValidatingAdmissionPolicies' dispatcher, built on first use."""
        if self._policies is None:
            from .policy.dispatch import PolicyDispatcher

            self._policies = PolicyDispatcher(self.lookup, self.list, self.authorize)
        return self._policies

    @property
    def webhook_metrics(self) -> WebhookMetrics:
        """The webhooks' calls (none before a webhook was configured)."""
        return self._webhooks.metrics if self._webhooks is not None else WebhookMetrics()

    def configured(self) -> bool:
        """Whether a write must be admitted with its request's attributes: a webhook is
        configured or a ValidatingAdmissionPolicy bound. Neither is while none of the kinds
        that configure them has an object stored, which is known without the dispatchers."""
        if self._webhooks is None and not any(self.list(ADMISSION_GROUP, kind, None) for kind in _CONFIGURATION_KINDS):
            return False
        return self.webhooks.configured() or self.policies.configured()

    async def aclose(self) -> None:
        """Close the webhooks' connections (the server stops)."""
        if self._webhooks is not None:
            await self._webhooks.aclose()

    def admit(self, group: str, kind: str, obj: Json | None, old: Json | None, subresource: str | None,
              target: WebhookTarget | None = None) -> None:
        """The mutating plugins of the kind, then the mutating webhooks (``obj`` is None for a
        delete, which only webhooks see)."""
        plugins = self._chain(self._mutating, plugins_for, group, kind) if obj is not None else []
        for plugin in plugins:
            plugin(self, obj, old, subresource)  # type: ignore[arg-type]
        attrs = self._webhook_attributes(group, kind, obj, old, subresource, target)
        if attrs is None or target is None:
            return
        from .webhook.dispatch import Reinvocation  # loaded with the dispatcher: a webhook is configured

        reinvocation = Reinvocation()
        self.webhooks.mutate(attrs, target.decode, reinvocation)
        if reinvocation.should_reinvoke:
            reinvocation.is_reinvoke = True
            for plugin in plugins:
                plugin(self, obj, old, subresource)  # type: ignore[arg-type]
            self.webhooks.mutate(attrs, target.decode, reinvocation)

    def validate(self, group: str, kind: str, obj: Json | None, old: Json | None, subresource: str | None,
                 dry_run: bool = False, target: WebhookTarget | None = None) -> None:
        """The validating plugins of the kind, the ValidatingAdmissionPolicies, the validating
        webhooks, then the plugins of every kind (``obj`` is None for a delete)."""
        outer, self.dry_run = self.dry_run, dry_run  # a plugin's own writes are admitted too
        try:
            if obj is not None:
                for plugin in self._chain(self._validating, validators_for, group, kind):
                    plugin(self, obj, old, subresource)
            self.validate_by_webhooks(group, kind, obj, old, subresource, target)
            if obj is not None:
                for plugin in validators_of_every_kind():
                    plugin(self, obj, old, subresource)
        finally:
            self.dry_run = outer

    def validate_by_webhooks(self, group: str, kind: str, obj: Json | None, old: Json | None, subresource: str | None,
                             target: WebhookTarget | None) -> None:
        """The ValidatingAdmissionPolicies, then the validating webhooks, alone (a create-only
        storage validates its object itself)."""
        attrs = self._webhook_attributes(group, kind, obj, old, subresource, target)
        if attrs is not None:
            self.policies.validate(attrs)
            self.webhooks.validate(attrs)

    def _webhook_attributes(self, group: str, kind: str, obj: Json | None, old: Json | None, subresource: str | None,
                            target: WebhookTarget | None) -> webhook_request.Attributes | None:
        """The attributes webhooks are sent, None when there are none to send them to."""
        if target is None:
            return None
        request = webhook_request.current.get()
        if request is None or not self.configured():
            return None
        # kube names a namespace as its own namespace in the attributes of requests for it (its
        # handlers' ``namespace = name`` for namespaces), though the resource is cluster-scoped
        namespace = target.name if (group, target.resource) == ("", "namespaces") else target.namespace
        resource_group = group if target.resource_group is None else target.resource_group
        if target.kind_version is not None:  # a body of another kind (/scale, /eviction): served in one version
            return webhook_request.Attributes(
                target.operation, resource_group, target.version, kind, target.resource, subresource or "",
                namespace, target.name, obj, old, request, kind_group=group, kind_version=target.kind_version)
        # The objects are in the storage version; the request names the version it was sent in
        # (another of the same storage: autoscaling/v1 of HPAs stored as v2), which it is
        # admitted as, and in which a webhook or policy is given it unless it names another.
        versions = self.equivalents(resource_group, target.resource)
        requested = next((served for served in versions if served.gvr == request.resource), None)
        if requested is None:
            return webhook_request.Attributes(
                target.operation, resource_group, target.version, kind, target.resource, subresource or "",
                namespace, target.name, obj, old, request, kind_group=group, versions=versions)
        return webhook_request.Attributes(
            target.operation, requested.group, requested.version, requested.kind, requested.resource,
            subresource or "", namespace, target.name, obj, old, request, kind_group=requested.group,
            versions=versions)
