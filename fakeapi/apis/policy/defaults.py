"""policy/v1 decoding (``pkg/apis/policy/v1/conversion.go``): the label policy/v1beta1 used for
its empty-selector semantics never survives in a v1 selector, except in the two selectors that
are exactly v1's ``{}`` and the match-none selector made of it."""

from __future__ import annotations

from ..fields import Json, get

#: ``policy.PDBV1beta1Label``.
PDB_V1BETA1_LABEL = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"
_MATCH_NONE = {"matchExpressions": [{"key": PDB_V1BETA1_LABEL, "operator": "Exists"}]}


def strip_v1beta1_label(obj: Json) -> None:
    selector = get(obj, "spec", "selector")
    if not isinstance(selector, dict) or not selector or selector == _MATCH_NONE:
        return
    expressions = selector.get("matchExpressions")
    if expressions:
        kept = [e for e in expressions if not (isinstance(e, dict) and e.get("key") == PDB_V1BETA1_LABEL)]
        if kept:
            selector["matchExpressions"] = kept
        else:
            del selector["matchExpressions"]
