"""What create and update do to apps objects beyond the generic registry
(``pkg/registry/apps/<resource>/strategy.go``), and the effects of apps/v1's conversion to the
internal type that show in stored objects (``pkg/apis/apps/v1/conversion.go``).

* Every kind with a pod template drops the template's fields whose feature is off
  (``pod.DropDisabledTemplateFields``); generation is 1 on create and moves with the spec.
* Deployment: generation also moves when the annotations change.
* DaemonSet: the internal ``spec.templateGeneration`` lives in v1 as the annotation
  ``deprecated.daemonset.template.generation``: 1 on create (or the annotation's value if
  higher), and on update the stored value, plus one when the pod template changed; a client
  cannot set it.
* StatefulSet: ``spec.updateStrategy.rollingUpdate.maxUnavailable`` is dropped while the
  MaxUnavailableStatefulSet feature is off (1.35's default) unless the stored object uses it;
  volume claim templates are written with ``apiVersion: v1`` and ``kind: PersistentVolumeClaim``.
"""

from __future__ import annotations

import re

from ...machinery.golang import go_quote
from ...machinery.field_validation import cannot_be_handled
from ..fields import Json, get, items, struct
from ..strategies import first_generation, set_generation

#: ``appsv1.DeprecatedTemplateGeneration`` and ``appsv1.DeprecatedRollbackTo``: fields of the
#: internal types that apps/v1 carries as annotations.
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
ROLLBACK_TO_ANNOTATION = "deprecated.deployment.rollback.to"


# ----------------------------------------------------------------------------- annotation fields

def _annotation_int(obj: Json, name: str) -> int | None:
    """An annotation holding an internal int64 field (checked by ``check_annotation_fields``)."""
    value = (get(obj, "metadata", "annotations") or {}).get(name)
    return None if value is None or (value == "" and name == ROLLBACK_TO_ANNOTATION) else int(value)


def template_generation(obj: Json) -> int:
    """The internal DaemonSet's ``spec.templateGeneration``: the annotation's value, 0 without one."""
    return _annotation_int(obj, TEMPLATE_GENERATION_ANNOTATION) or 0


def rollback_revision(obj: Json) -> int | None:
    """The internal Deployment's ``spec.rollbackTo.revision``, None without a rollback."""
    return _annotation_int(obj, ROLLBACK_TO_ANNOTATION)


def _parse_int64_error(text: str) -> str | None:
    """``strconv.ParseInt(text, 10, 64)``'s error, None when it parses."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        return f"strconv.ParseInt: parsing {go_quote(text)}: invalid syntax"
    if not -(2**63) <= int(text) < 2**63:
        return f"strconv.ParseInt: parsing {go_quote(text)}: value out of range"
    return None


def check_annotation_fields(kind: str, obj: Json) -> None:
    """Decoding apps/v1 into the internal type parses the annotations that hold its fields: one
    that is not an int64 makes the body undecodable (400); a DaemonSet's template generation is
    then always there."""
    annotations = get(obj, "metadata", "annotations") or {}
    if kind == "Deployment":
        value = annotations.get(ROLLBACK_TO_ANNOTATION)
        error = _parse_int64_error(value) if value else None
        if error:
            raise cannot_be_handled(kind, "v1", f"failed to parse annotation[{ROLLBACK_TO_ANNOTATION}]={value} as "
                                                f"int64: {error}")
    else:
        value = annotations.get(TEMPLATE_GENERATION_ANNOTATION)
        error = _parse_int64_error(value) if value is not None else None
        if error:
            raise cannot_be_handled(kind, "v1", error)
        # The internal object converts back to apps/v1 with the annotation always written (0
        # without one): the field manager, which runs before the strategy, sees it so.
        _set_template_generation(obj, template_generation(obj))


# ----------------------------------------------------------------------------- pod templates

def _template(obj: Json | None) -> Json | None:
    return get(obj, "spec", "template")


def prepare_for_create(obj: Json) -> None:
    """Deployments and ReplicaSets (and the start of the others)."""
    first_generation(obj)


def prepare_for_update(new: Json, old: Json) -> None:
    """ReplicaSets (and the start of the others): generation moves with the spec."""
    set_generation(new, old, new.get("spec") != old.get("spec"))


def prepare_deployment_for_update(new: Json, old: Json) -> None:
    """Generation also moves with the annotations (``kubectl rollout``'s among them)."""
    set_generation(new, old, new.get("spec") != old.get("spec") or (
        (new["metadata"].get("annotations") or {}) != (old["metadata"].get("annotations") or {})))


# ----------------------------------------------------------------------------- DaemonSets

def _set_template_generation(obj: Json, generation: int) -> None:
    struct(obj["metadata"], "annotations")[TEMPLATE_GENERATION_ANNOTATION] = str(generation)


def prepare_daemon_set_for_create(obj: Json) -> None:
    prepare_for_create(obj)
    _set_template_generation(obj, max(template_generation(obj), 1))


def prepare_daemon_set_for_update(new: Json, old: Json) -> None:
    generation = template_generation(old)
    template_changed = _template(new) != _template(old)
    _set_template_generation(new, generation + 1 if template_changed else generation)
    set_generation(new, old, template_changed or new.get("spec") != old.get("spec"))


def prepare_daemon_set_for_status_update(new: Json, old: Json) -> None:
    """The status strategy resets the internal spec: its template generation annotation too."""
    _set_template_generation(new, template_generation(old))


# ----------------------------------------------------------------------------- StatefulSets

def _max_unavailable_in_use(obj: Json | None) -> bool:
    return get(obj, "spec", "updateStrategy", "rollingUpdate", "maxUnavailable") is not None


def _drop_disabled_stateful_set_fields(new: Json, old: Json | None) -> None:
    if not _max_unavailable_in_use(old):
        rolling_update = get(new, "spec", "updateStrategy", "rollingUpdate")
        if isinstance(rolling_update, dict):
            rolling_update.pop("maxUnavailable", None)


def _type_volume_claim_templates(obj: Json) -> None:
    """apps/v1 writes each volume claim template with its apiVersion and kind
    (``Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec``)."""
    for claim in items(obj.get("spec"), "volumeClaimTemplates"):
        claim["apiVersion"] = "v1"
        claim["kind"] = "PersistentVolumeClaim"


def prepare_stateful_set_for_create(obj: Json) -> None:
    _drop_disabled_stateful_set_fields(obj, None)
    _type_volume_claim_templates(obj)
    prepare_for_create(obj)


def prepare_stateful_set_for_update(new: Json, old: Json) -> None:
    _drop_disabled_stateful_set_fields(new, old)
    _type_volume_claim_templates(new)  # before comparing: the internal type has neither
    prepare_for_update(new, old)
