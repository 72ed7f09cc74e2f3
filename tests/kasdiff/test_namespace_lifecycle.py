"""NamespaceLifecycle's refusal to delete the namespaces every cluster keeps (default, kube-system,
kube-public), against the real kube-apiserver. The deletes are dry runs: admission refuses them
all the same, and a server that let one through would delete nothing."""

from __future__ import annotations

import pytest
from differ import Pair, check


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
def test_immortal_namespaces(pair: Pair, name: str) -> None:
    start = len(pair.outcomes)
    outcome = pair.send("namespace-lifecycle", "Namespace", f"delete {name}", "DELETE",
                        f"/api/v1/namespaces/{name}?dryRun=All")
    check(pair, start)
    assert outcome.real.status == 403
