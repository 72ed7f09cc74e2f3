"""The two webhook admission plugins' dispatchers (``webhook/mutating/dispatcher.go``,
``webhook/validating/dispatcher.go``): mutating webhooks one after the other, each seeing the
object as the ones before left it, with kube's reinvocation; validating webhooks all at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import orjson

from ...cel.access import Authorize, always_allow
from ...machinery import warning
from ...machinery.patch import JSON_PATCH, apply_patch
from ...machinery.status import StatusError, internal_error
from ...runtime import can_wait, wait_for
from ...apis.webhook_client import Lister, Lookup, WebhookCallFailed, WebhookClients, server_response_error
from .metrics import ADMIT, CALLING_WEBHOOK_ERROR, NO_ERROR, VALIDATING, WebhookMetrics
from .matching import ADMISSION_GROUP, Webhook, compile_configurations, is_exempt, namespace_of
from .request import Attributes, Json
from .review import AdmissionResponse, CallError, denied, dry_run_unsupported, review_request, review_version, \
    verify_response

T = TypeVar("T")

#: A kind's decoding of an object a webhook patched: into its Go type, then defaulted.
Decoder = Callable[[Json], Json]


@dataclass
class Reinvocation:
    """``webhookReinvokeContext`` and the chain's reinvocation flags, for one write."""

    #: A webhook changed the object: the mutating chain runs once more.
    should_reinvoke: bool = False
    is_reinvoke: bool = False
    last_output: Json | None = None
    invoked: set[str] = field(default_factory=set)
    to_reinvoke: set[str] = field(default_factory=set)

    def require_reinvoking(self) -> None:
        self.to_reinvoke |= self.invoked
        self.invoked = set()


class WebhookDispatcher:
    """The webhooks of the stored configurations, called for the writes they match."""

    def __init__(self, lookup: Lookup, lister: Lister,
                 authorize: Authorize = always_allow) -> None:
        self._lookup = lookup
        self._list = lister
        self._authorize = authorize
        self._clients = WebhookClients(lookup, lister)
        self.metrics = WebhookMetrics()
        #: mutating? -> (the lister's list it was compiled from, its webhooks)
        self._compiled: dict[bool, tuple[list[Json], tuple[Webhook, ...]]] = {}

    def _hooks(self, mutating: bool) -> tuple[Webhook, ...]:
        kind = "MutatingWebhookConfiguration" if mutating else "ValidatingWebhookConfiguration"
        configurations = self._list(ADMISSION_GROUP, kind, None)
        if not configurations:  # the lister's empty lists are new ones: none is compiled
            return ()
        compiled = self._compiled.get(mutating)
        if compiled is not None and compiled[0] is configurations:
            return compiled[1]
        hooks = compile_configurations(configurations, mutating)
        self._compiled[mutating] = (configurations, hooks)
        return hooks

    async def aclose(self) -> None:
        """Close the webhooks' connections (the server stops)."""
        await self._clients.aclose()

    def configured(self) -> bool:
        """Whether any webhook is configured (a write must then be able to wait for one)."""
        return bool(self._hooks(True) or self._hooks(False))

    def _matching(self, hooks: tuple[Webhook, ...], attrs: Attributes) -> list[tuple[Webhook, Attributes]]:
        """The webhooks the request is for, each with the attributes it is given."""
        if not hooks or is_exempt(attrs) or not can_wait():
            return []
        labels: list[dict[str, str]] = []

        def namespace_labels() -> dict[str, str]:
            if not labels:
                labels.append((namespace_of(self._lookup, attrs).get("metadata") or {}).get("labels") or {})
            return labels[0]
        invocations = [(hook, hook.invocation(attrs, namespace_labels, self._authorize)) for hook in hooks]
        return [(hook, versioned) for hook, versioned in invocations if versioned is not None]

    # ------------------------------------------------------------------ mutating

    def mutate(self, attrs: Attributes, decode: Decoder, reinvocation: Reinvocation) -> None:
        """Call the matching mutating webhooks in order; each patch is applied to
        ``attrs.object`` (changed in place, as the caller holds it)."""
        configured = self._hooks(True)
        if reinvocation.is_reinvoke and not (reinvocation.to_reinvoke or reinvocation.invoked) \
                and not any(hook.match_conditions for hook in configured):
            # No webhook is to be called again, and matching without match conditions cannot
            # fail on the changed object (a selector's error or a namespace's 404 would have
            # failed the first pass): kube's pass would match and skip each one.
            return
        hooks = self._matching(configured, attrs)
        if not hooks:
            return
        if reinvocation.is_reinvoke and reinvocation.last_output != attrs.object:
            reinvocation.require_reinvoking()  # the built-in plugins' second run changed the object
        try:
            for hook, versioned in hooks:
                if reinvocation.is_reinvoke and hook.uid not in reinvocation.to_reinvoke:
                    continue
                try:
                    changed = self._call_mutating(hook, attrs, versioned, decode)
                except CallError as err:
                    changed = False
                    if hook.failure_policy != "Ignore":
                        raise internal_error(str(err)) from None
                if changed:
                    reinvocation.require_reinvoking()
                    reinvocation.should_reinvoke = True
                if hook.reinvoke_if_needed:
                    reinvocation.invoked.add(hook.uid)
        finally:
            if reinvocation.invoked:  # only a reinvocable webhook's second call asks what changed since
                reinvocation.last_output = _copy(attrs.object)

    def _call_mutating(self, hook: Webhook, attrs: Attributes, versioned: Attributes, decode: Decoder) -> bool:
        """Call ``hook`` with the request in its version (the object as the webhooks before it
        left it) and apply its patch there; the patched object, in the storage version again,
        replaces ``attrs.object``."""
        served = next((v for v in attrs.versions if v.gvr == (versioned.group, versioned.version, versioned.resource)),
                      None)
        if served is not None:
            versioned = attrs.in_version(served)
        answer = self._call(hook, versioned)
        if not answer.allowed:
            raise denied(hook.name, answer.result)
        if not answer.patch:
            return False
        if attrs.object is None or versioned.object is None:
            raise internal_error(f"admission webhook \"{hook.name}\" attempted to modify the object, which is not "
                                 "supported for this operation")
        try:
            # The request's own object, replaced by the result below: the result may share with it
            patched = apply_patch(JSON_PATCH, versioned.object, answer.patch, None, group="", kind="", name="",
                                  shares_original=True)
        except StatusError as err:
            raise internal_error(err.message) from None
        patched = decode(patched if served is None else served.to_storage(patched))
        changed = patched != attrs.object
        attrs.object.clear()
        attrs.object.update(patched)
        return changed

    # ---------------------------------------------------------------- validating

    def validate(self, attrs: Attributes) -> None:
        """Call the matching validating webhooks at once; the first refusal (in the webhooks'
        order) is the answer."""
        hooks = self._matching(self._hooks(False), attrs)
        if not hooks:
            return
        for hook, _versioned in hooks:
            self._check_dry_run(hook, attrs)
        calls = [self._answer(hook, versioned) for hook, versioned in hooks]
        # One call is awaited in the write's own task: gather's task for it would cost two more
        # turns of the event loop (one to start it, one to hand its answer back).
        outcomes = wait_for(asyncio.gather(*calls, return_exceptions=True) if len(calls) > 1 else _settled(calls[0]))
        for (hook, _versioned), outcome in zip(hooks, outcomes):
            if isinstance(outcome, CallError):
                if hook.failure_policy != "Ignore":
                    raise internal_error(str(outcome))
            elif isinstance(outcome, BaseException):
                raise outcome
            elif not outcome.allowed:
                raise denied(hook.name, outcome.result)

    # --------------------------------------------------------------------- calls

    def _check_dry_run(self, hook: Webhook, attrs: Attributes) -> None:
        if attrs.request.dry_run:
            if hook.side_effects is None:
                raise internal_error(str(CallError(hook.name, "Webhook SideEffects is nil")))
            if hook.side_effects not in ("None", "NoneOnDryRun"):
                raise dry_run_unsupported(hook.name)

    def _call(self, hook: Webhook, attrs: Attributes) -> AdmissionResponse:
        self._check_dry_run(hook, attrs)
        return wait_for(self._answer(hook, attrs))

    async def _answer(self, hook: Webhook, attrs: Attributes) -> AdmissionResponse:
        """The webhook's answer to the review of ``attrs``, its warnings recorded, the call
        counted (``metrics``) as kube's dispatchers count it."""
        step = ADMIT if hook.mutating else VALIDATING
        began = time.perf_counter()
        try:
            response = await self._ask(hook, attrs)
        except CallError as err:
            code = err.status.code if err.status is not None else 503
            ignored = hook.failure_policy == "Ignore"
            self.metrics.observe(hook.name, step, attrs.operation, time.perf_counter() - began, not ignored, code)
            if ignored:
                self.metrics.failed_open(hook.name, step)
            else:
                self.metrics.rejected(hook.name, step, attrs.operation, CALLING_WEBHOOK_ERROR,
                                      code if hook.mutating else 0)
            raise
        code = 200 if response.allowed else denied(hook.name, response.result).code
        self.metrics.observe(hook.name, step, attrs.operation, time.perf_counter() - began, not response.allowed, code)
        if not response.allowed:
            self.metrics.rejected(hook.name, step, attrs.operation, NO_ERROR, code)
        return response

    async def _ask(self, hook: Webhook, attrs: Attributes) -> AdmissionResponse:
        version = review_version(attrs, hook.name, hook.review_versions)
        uid, body = review_request(attrs, version)
        try:
            code, answer, text = await self._clients.post(hook.client_config, body, hook.timeout_seconds)
        except WebhookCallFailed as err:
            raise CallError(hook.name, f"failed to call webhook: {err}") from None
        if not 200 <= code <= 206:
            raise CallError(hook.name, f"failed to call webhook: {server_response_error(code, answer, text)}",
                            StatusError(code, "", ""))
        response = verify_response(hook.name, uid, version, hook.mutating, answer)
        for text in response.warnings:
            warning.add(text)
        return response


async def _settled(call: Awaitable[T]) -> list[T | Exception]:
    """The outcome of one call as ``gather(..., return_exceptions=True)`` lists it."""
    try:
        return [await call]
    except Exception as err:  # noqa: BLE001 - an outcome, raised or not by the caller
        return [err]


def _copy(obj: Json | None) -> Json | None:
    return None if obj is None else orjson.loads(orjson.dumps(obj))
