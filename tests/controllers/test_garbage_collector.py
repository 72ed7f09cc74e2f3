"""The garbage collector over a registry, as kube-controller-manager's ``garbagecollector``
behaves for its clients: a dependent all of whose owners are gone is deleted (in the
background, so its own dependents follow), one with an owner left loses only the dangling
reference; an owner deleted in the foreground waits with ``foregroundDeletion`` until its
dependents are gone, one deleted with ``orphan`` frees its dependents first. An owner exists
when its kind and name are found with the referenced uid (a recreated owner is another one),
and the dependents of owners gone before the collector started are collected when it starts."""

from __future__ import annotations

from controller_harness import Json, configmap, create, read, resource, run, settle, until, without_finalizers

from fakeapi.controllers.garbage_collector import GarbageCollector
from fakeapi.machinery.delete_options import FOREGROUND, ORPHAN, DeleteOptions
from fakeapi.registry.registry import Registry


def delete(registry: Registry, name: str, policy: str | None = None) -> None:
    """A configmap's DELETE as the HTTP layer sends it when a garbage collector runs."""
    resource(registry, "configmaps").delete("default", name, DeleteOptions(propagation_policy=policy),
                                            gc_finalizers=True)


def absent(api_version: str, kind: str, name: str) -> Json:
    """An owner to refer to that is not stored (with a uid nothing has)."""
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "uid": f"absent-{name}"}}


def gone(registry: Registry, name: str) -> bool:
    return read(registry, "configmaps", name) is None


def owner_uids(registry: Registry, name: str) -> list[str]:
    stored = read(registry, "configmaps", name)
    assert stored is not None, f"{name} is gone"
    return [ref["uid"] for ref in stored["metadata"].get("ownerReferences") or ()]


def test_a_dependent_goes_with_its_last_owner_and_its_own_dependents_follow() -> None:
    async def scenario(registry: Registry) -> None:
        owner = create(registry, "configmaps", configmap("owner"))
        other = create(registry, "configmaps", configmap("other"))
        child = create(registry, "configmaps", configmap("child", owner))
        create(registry, "configmaps", configmap("grandchild", child))
        create(registry, "configmaps", configmap("shared", owner, other))
        create(registry, "configmaps", configmap("unrelated"))
        delete(registry, "owner")
        await until(lambda: gone(registry, "child") and gone(registry, "grandchild"), "the cascade")
        await until(lambda: owner_uids(registry, "shared") == [other["metadata"]["uid"]], "the dangling reference")
        await settle()
        assert not gone(registry, "shared") and not gone(registry, "unrelated") and not gone(registry, "other")

    run(scenario, GarbageCollector)


def test_an_owner_of_another_scope_and_kind_is_looked_up_as_such() -> None:
    async def scenario(registry: Registry) -> None:
        role = create(registry, "clusterroles", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                                                 "metadata": {"name": "owner-role"}},
                      namespace=None, group="rbac.authorization.k8s.io")
        create(registry, "configmaps", configmap("owned-by-role", role))
        await settle()
        assert not gone(registry, "owned-by-role")  # its cluster-scoped owner is found
        resource(registry, "clusterroles", "rbac.authorization.k8s.io").delete(None, "owner-role")
        await until(lambda: gone(registry, "owned-by-role"), "the dependent of the deleted ClusterRole")

    run(scenario, GarbageCollector)


def test_foreground_deletion_waits_for_the_dependents() -> None:
    async def scenario(registry: Registry) -> None:
        owner = create(registry, "configmaps", configmap("owner"))
        create(registry, "configmaps", configmap("plain", owner))
        create(registry, "configmaps", configmap("held", owner, finalizers=("example.com/hold",)))
        delete(registry, "owner", FOREGROUND)
        await until(lambda: gone(registry, "plain"), "the plain dependent deleted")
        await until(lambda: (read(registry, "configmaps", "held") or {})["metadata"].get("deletionTimestamp"),
                    "the held dependent marked")
        marked = read(registry, "configmaps", "owner")
        assert marked is not None and marked["metadata"]["finalizers"] == ["foregroundDeletion"]
        without_finalizers(registry, "configmaps", "held")
        await until(lambda: gone(registry, "owner"), "the owner, its dependents gone")

    run(scenario, GarbageCollector)


def test_an_orphaned_dependent_loses_the_reference_and_stays() -> None:
    async def scenario(registry: Registry) -> None:
        owner = create(registry, "configmaps", configmap("owner"))
        other = create(registry, "configmaps", configmap("other"))
        create(registry, "configmaps", configmap("orphan", owner))
        create(registry, "configmaps", configmap("half-orphan", owner, other))
        delete(registry, "owner", ORPHAN)
        await until(lambda: gone(registry, "owner"), "the owner, once its dependents are free")
        assert owner_uids(registry, "orphan") == []
        assert owner_uids(registry, "half-orphan") == [other["metadata"]["uid"]]
        await settle()
        assert not gone(registry, "orphan")

    run(scenario, GarbageCollector)


def test_the_dependents_of_owners_gone_before_the_start_are_collected_at_start() -> None:
    async def scenario(registry: Registry) -> None:
        kept = create(registry, "configmaps", configmap("kept-owner"))
        create(registry, "configmaps", configmap("kept", kept))
        create(registry, "configmaps", configmap("never-owned", absent("v1", "ConfigMap", "ghost")))
        # The owner's name holds another object: a recreated owner does not own the old dependents.
        create(registry, "configmaps", configmap("recreated", absent("v1", "ConfigMap", "kept-owner")))
        create(registry, "configmaps", configmap("unknown-kind", absent("example.com/v1", "Gadget", "g")))
        await settle()
        collector = GarbageCollector(registry)
        collector.start()
        try:
            await until(lambda: all(gone(registry, name) for name in ("never-owned", "recreated", "unknown-kind")),
                        "the dependents of absent owners")
            await settle()
            assert not gone(registry, "kept")
        finally:
            await collector.stop()

    run(scenario)
