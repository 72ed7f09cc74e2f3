"""The Pod Security Standards as kube's PodSecurity admission checks them
(``k8s.io/pod-security-admission/policy``): one check per family, each with the revisions that
apply from a policy version on, run over a pod's metadata and spec (v1 JSON).

A level at a version runs the checks of that level whose first revision is at or before the
version, each in its newest revision not after it; restricted runs the baseline checks too, except
those a restricted check replaces (its ``overrides``). Checks run baseline first, then restricted,
each group sorted by check ID (kube's ``populate``), which is the order of a refusal's reasons.
Versions after the newest revision of any check (and ``latest``) evaluate as that newest one.

A check answers None when the pod passes, else ``(reason, detail)``: kube's ``ForbiddenReason``
and ``ForbiddenDetail``, word for word (containers named in the order of ``visitContainers``:
init containers, containers, ephemeral containers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..machinery.golang import go_quote

Json = dict[str, Any]
#: (reason, detail) of a check the pod fails.
Violation = tuple[str, str]
CheckPod = Callable[[Json, Json], Violation | None]

BASELINE = "baseline"
RESTRICTED = "restricted"


@dataclass(frozen=True)
class Revision:
    """A check's behaviour from policy version v1.``minimum`` on; ``overrides`` are the baseline
    check IDs it replaces at the restricted level."""
    minimum: int
    check: CheckPod
    overrides: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    id: str
    level: str
    revisions: tuple[Revision, ...]


def _containers(spec: Json) -> Iterator[Json]:
    """``visitContainers``: init containers, containers, then ephemeral containers."""
    for field in ("initContainers", "containers", "ephemeralContainers"):
        yield from spec.get(field) or ()


def _security_context(holder: Json) -> Json:
    return holder.get("securityContext") or {}


def _join_quote(items: Iterable[str]) -> str:
    """kube's ``joinQuote``: each item between double quotes, unescaped, comma separated."""
    items = list(items)
    return '"' + '", "'.join(items) + '"' if items else ""


def _plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _named(noun: str, names: list[str]) -> str:
    """``container "a"`` / ``containers "a", "b"``."""
    return f"{_plural(noun, noun + 's', len(names))} {_join_quote(names)}"


def _offending(spec: Json, forbidden_in: Callable[[Json], list[str]]) -> tuple[list[str], list[str]]:
    """The containers in which ``forbidden_in`` finds forbidden values, and those values."""
    names: list[str] = []
    values: list[str] = []
    for container in _containers(spec):
        found = forbidden_in(container)
        if found:
            names.append(container.get("name", ""))
            values += found
    return names, values


def _added_capabilities(container: Json) -> list[str]:
    return (_security_context(container).get("capabilities") or {}).get("add") or []


@dataclass
class _Setters:
    """Who sets a security context field that containers inherit from the pod to a forbidden
    value: ``who`` ("pod", then ``containers "a", "b"``), the forbidden ``values``, and the
    containers that leave it unset while the pod sets no allowed value (``implicit``)."""
    who: list[str]
    values: list[Any]
    implicit: list[str]


def _setters(spec: Json, field: str, allowed: Callable[[Any], bool]) -> _Setters:
    found = _Setters([], [], [])
    pod_value = _security_context(spec).get(field)
    if pod_value is not None and not allowed(pod_value):
        found.who.append("pod")
        found.values.append(pod_value)
    pod_allowed = pod_value is not None and allowed(pod_value)
    explicit = []
    for container in _containers(spec):
        value = _security_context(container).get(field)
        if value is None:
            if not pod_allowed:
                found.implicit.append(container.get("name", ""))
        elif not allowed(value):
            explicit.append(container.get("name", ""))
            found.values.append(value)
    if explicit:
        found.who.append(_named("container", explicit))
    return found


def _use(noun: str, names: list[str], thing: str, values: list[str], shown: str) -> str:
    """``containers "a", "b" use hostPorts 443, 80``: the things (each value once, sorted) the
    named objects use, ``shown`` joined (``", "``) or quoted (``"quoted"``)."""
    unique = sorted(set(values))
    listed = _join_quote(unique) if shown == "quoted" else ", ".join(unique)
    return f"{_named(noun, names)} {_plural('uses', 'use', len(names))} {_plural(thing, thing + 's', len(unique))} {listed}"


def _is_windows(spec: Json) -> bool:
    return (spec.get("os") or {}).get("name") == "windows"


def _in_user_namespace(spec: Json) -> bool:
    """``relaxPolicyForUserNamespacePod``: ``hostUsers: false``."""
    return spec.get("hostUsers") is False


def _unless(exempt: Callable[[Json], bool], check: CheckPod) -> CheckPod:
    """A revision that passes the pods ``exempt`` selects and checks the others as ``check``."""
    def revised(meta: Json, spec: Json) -> Violation | None:
        return None if exempt(spec) else check(meta, spec)
    return revised


# -- baseline --------------------------------------------------------------------------------

_APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"


def _app_armor_profile(meta: Json, spec: Json) -> Violation | None:
    found = _setters(spec, "appArmorProfile", lambda profile: profile.get("type", "") in ("RuntimeDefault", "Localhost"))
    annotations = sorted(
        f"{key}={go_quote(value)}" for key, value in (meta.get("annotations") or {}).items()
        if key.startswith(_APPARMOR_ANNOTATION_PREFIX)
        and not (value == "" or value == "runtime/default" or value.startswith("localhost/")))
    bad = sorted({profile.get("type", "") for profile in found.values}) + annotations
    if annotations:
        found.who.append(_plural("annotation", "annotations", len(annotations)))
    if not found.who:
        return None
    return (_plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(bad)),
            f"{' and '.join(found.who)} must not set AppArmor profile type to {_join_quote(bad)}")


_DEFAULT_CAPABILITIES = frozenset({
    "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
    "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
})


def _capabilities_baseline(meta: Json, spec: Json) -> Violation | None:
    containers, added = _offending(spec, lambda c: [cap for cap in _added_capabilities(c) if cap not in _DEFAULT_CAPABILITIES])
    if not containers:
        return None
    return ("non-default capabilities", f"{_named('container', containers)} must not include "
            f"{_join_quote(sorted(set(added)))} in securityContext.capabilities.add")


def _host_namespaces(meta: Json, spec: Json) -> Violation | None:
    shared = [f"{field}=true" for field in ("hostNetwork", "hostPID", "hostIPC") if spec.get(field)]
    return ("host namespaces", ", ".join(shared)) if shared else None


def _host_path_volumes(meta: Json, spec: Json) -> Violation | None:
    volumes = [volume.get("name", "") for volume in spec.get("volumes") or () if volume.get("hostPath") is not None]
    return ("hostPath volumes", _named("volume", volumes)) if volumes else None


def _host_ports(meta: Json, spec: Json) -> Violation | None:
    containers, ports = _offending(spec, lambda c: [str(port["hostPort"]) for port in c.get("ports") or () if port.get("hostPort")])
    return ("hostPort", _use("container", containers, "hostPort", ports, "joined")) if containers else None


def _handler_hosts(handler: Json | None) -> list[str]:
    """The hosts a probe or lifecycle handler's httpGet and tcpSocket name."""
    if not handler:
        return []
    return [host for action in ("httpGet", "tcpSocket") if (host := (handler.get(action) or {}).get("host"))]


def _host_probes_and_host_lifecycle(meta: Json, spec: Json) -> Violation | None:
    containers: set[str] = set()
    hosts: list[str] = []
    for container in _containers(spec):
        lifecycle = container.get("lifecycle") or {}
        for handler in (container.get("livenessProbe"), container.get("readinessProbe"), container.get("startupProbe"),
                        lifecycle.get("postStart"), lifecycle.get("preStop")):
            found = _handler_hosts(handler)
            if found:
                containers.add(container.get("name", ""))
                hosts += found
    if not containers:
        return None
    return ("probe or lifecycle host", _use("container", sorted(containers), "probe or lifecycle host", hosts, "quoted"))


def _privileged(meta: Json, spec: Json) -> Violation | None:
    containers = [c.get("name", "") for c in _containers(spec) if _security_context(c).get("privileged")]
    if not containers:
        return None
    return ("privileged", f"{_named('container', containers)} must not set securityContext.privileged=true")


def _proc_mount(meta: Json, spec: Json) -> Violation | None:
    def unmasked(container: Json) -> list[str]:
        proc_mount = _security_context(container).get("procMount")
        return [proc_mount] if proc_mount is not None and proc_mount != "Default" else []

    containers, types = _offending(spec, unmasked)
    if not containers:
        return None
    return ("procMount", f"{_named('container', containers)} must not set securityContext.procMount to "
            f"{_join_quote(sorted(set(types)))}")


def _se_linux_options(allowed_types: frozenset[str]) -> CheckPod:
    def check(meta: Json, spec: Json) -> Violation | None:
        bad_types: set[str] = set()
        sets_user = sets_role = False

        def forbidden(options: Json) -> bool:
            nonlocal sets_user, sets_role
            bad = False
            if options.get("type", "") not in allowed_types:
                bad = True
                bad_types.add(options.get("type", ""))
            if options.get("user"):
                bad = sets_user = True
            if options.get("role"):
                bad = sets_role = True
            return bad

        setters = []
        options = _security_context(spec).get("seLinuxOptions")
        if options is not None and forbidden(options):
            setters.append("pod")
        containers = [c.get("name", "") for c in _containers(spec)
                      if (options := _security_context(c).get("seLinuxOptions")) is not None and forbidden(options)]
        if containers:
            setters.append(_named("container", containers))
        if not setters:
            return None
        data = [f"{_plural('type', 'types', len(bad_types))} {_join_quote(sorted(bad_types))}"] if bad_types else []
        data += ["user may not be set"] * sets_user + ["role may not be set"] * sets_role
        return ("seLinuxOptions",
                f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}")
    return check


_SELINUX_TYPES_1_0 = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
_SELINUX_TYPES_1_31 = _SELINUX_TYPES_1_0 | {"container_engine_t"}

_SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
_SECCOMP_TYPES = ("Localhost", "RuntimeDefault")


def _seccomp_annotations(meta: Json, spec: Json) -> Violation | None:
    """Before v1.19 the profiles were annotations."""
    annotations = meta.get("annotations") or {}
    keys = [_SECCOMP_POD_ANNOTATION] + [_SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.get("name", "") for c in _containers(spec)]
    forbidden = {f"{key}={go_quote(annotations[key])}" for key in keys if key in annotations
                 and not (annotations[key] in ("runtime/default", "docker/default") or annotations[key].startswith("localhost/"))}
    if not forbidden:
        return None
    return ("seccompProfile",
            f"forbidden {_plural('annotation', 'annotations', len(forbidden))} {', '.join(sorted(forbidden))}")


def _seccomp_profile(required: bool) -> CheckPod:
    """Baseline forbids the profile types other than RuntimeDefault and Localhost; restricted
    (``required``) also wants one set on the pod or on every container."""
    def check(meta: Json, spec: Json) -> Violation | None:
        found = _setters(spec, "seccompProfile", lambda profile: profile.get("type", "") in _SECCOMP_TYPES)
        if found.who:
            types = sorted({profile.get("type", "") for profile in found.values})
            return ("seccompProfile", f"{' and '.join(found.who)} must not set securityContext.seccompProfile.type to "
                    f"{_join_quote(types)}")
        if required and found.implicit:
            return ("seccompProfile", f"pod or {_named('container', found.implicit)} must set "
                    'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"')
        return None
    return check


def _sysctls(allowed: frozenset[str]) -> CheckPod:
    def check(meta: Json, spec: Json) -> Violation | None:
        forbidden = [s.get("name", "") for s in _security_context(spec).get("sysctls") or () if s.get("name", "") not in allowed]
        return ("forbidden sysctls", ", ".join(forbidden)) if forbidden else None
    return check


_SYSCTLS_1_0 = frozenset({
    "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start",
})
_SYSCTLS_1_27 = _SYSCTLS_1_0 | {"net.ipv4.ip_local_reserved_ports"}
_SYSCTLS_1_29 = _SYSCTLS_1_27 | {
    "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
_SYSCTLS_1_32 = _SYSCTLS_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}


def _windows_host_process(meta: Json, spec: Json) -> Violation | None:
    found = _setters(spec, "windowsOptions", lambda options: not options.get("hostProcess"))
    if not found.who:
        return None
    return ("hostProcess", f"{' and '.join(found.who)} must not set securityContext.windowsOptions.hostProcess=true")


# -- restricted ------------------------------------------------------------------------------

def _allow_privilege_escalation(meta: Json, spec: Json) -> Violation | None:
    containers = [c.get("name", "") for c in _containers(spec)
                  if _security_context(c).get("allowPrivilegeEscalation") is not False]
    if not containers:
        return None
    return ("allowPrivilegeEscalation != false",
            f"{_named('container', containers)} must set securityContext.allowPrivilegeEscalation=false")


def _capabilities_restricted(meta: Json, spec: Json) -> Violation | None:
    missing_drop_all = [c.get("name", "") for c in _containers(spec)
                        if "ALL" not in ((_security_context(c).get("capabilities") or {}).get("drop") or ())]
    adding, added = _offending(spec, lambda c: [cap for cap in _added_capabilities(c) if cap != "NET_BIND_SERVICE"])
    details = []
    if missing_drop_all:
        details.append(f'{_named("container", missing_drop_all)} must set securityContext.capabilities.drop=["ALL"]')
    if adding:
        details.append(f"{_named('container', adding)} must not include {_join_quote(sorted(set(added)))} "
                       "in securityContext.capabilities.add")
    return ("unrestricted capabilities", "; ".join(details)) if details else None


#: The inline volume sources restricted allows; any other is named by the first of
#: ``_RESTRICTED_VOLUME_SOURCES`` it sets (kube's switch order), else "unknown".
_ALLOWED_VOLUME_SOURCES = ("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image",
                           "persistentVolumeClaim", "projected", "secret")
_RESTRICTED_VOLUME_SOURCES = (
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi", "glusterfs", "rbd",
    "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile", "vsphereVolume", "quobyte", "azureDisk",
    "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos",
)


def _restricted_volumes(meta: Json, spec: Json) -> Violation | None:
    volumes, types = [], []
    for volume in spec.get("volumes") or ():
        if any(volume.get(source) is not None for source in _ALLOWED_VOLUME_SOURCES):
            continue
        volumes.append(volume.get("name", ""))
        types.append(next((source for source in _RESTRICTED_VOLUME_SOURCES if volume.get(source) is not None), "unknown"))
    return ("restricted volume types", _use("volume", volumes, "restricted volume type", types, "quoted")) if volumes else None


def _run_as_non_root(meta: Json, spec: Json) -> Violation | None:
    found = _setters(spec, "runAsNonRoot", bool)
    if found.who:
        return ("runAsNonRoot != true", f"{' and '.join(found.who)} must not set securityContext.runAsNonRoot=false")
    if found.implicit:
        return ("runAsNonRoot != true",
                f"pod or {_named('container', found.implicit)} must set securityContext.runAsNonRoot=true")
    return None


def _run_as_user(meta: Json, spec: Json) -> Violation | None:
    found = _setters(spec, "runAsUser", lambda user: user != 0)
    return ("runAsUser=0", f"{' and '.join(found.who)} must not set runAsUser=0") if found.who else None


CHECKS = (
    Check("allowPrivilegeEscalation", RESTRICTED, (
        Revision(8, _allow_privilege_escalation),
        Revision(25, _unless(_is_windows, _allow_privilege_escalation)),
    )),
    Check("appArmorProfile", BASELINE, (Revision(0, _app_armor_profile),)),
    Check("capabilities_baseline", BASELINE, (Revision(0, _capabilities_baseline),)),
    Check("capabilities_restricted", RESTRICTED, (
        Revision(22, _capabilities_restricted, ("capabilities_baseline",)),
        Revision(25, _unless(_is_windows, _capabilities_restricted), ("capabilities_baseline",)),
    )),
    Check("hostNamespaces", BASELINE, (Revision(0, _host_namespaces),)),
    Check("hostPathVolumes", BASELINE, (Revision(0, _host_path_volumes),)),
    Check("hostPorts", BASELINE, (Revision(0, _host_ports),)),
    Check("hostProbesAndHostLifecycle", BASELINE, (Revision(34, _host_probes_and_host_lifecycle),)),
    Check("privileged", BASELINE, (Revision(0, _privileged),)),
    Check("procMount", BASELINE, (
        Revision(0, _proc_mount),
        Revision(35, _unless(_in_user_namespace, _proc_mount)),
    )),
    Check("procMount_restricted", RESTRICTED, (Revision(35, _proc_mount, ("procMount",)),)),
    Check("restrictedVolumes", RESTRICTED, (Revision(0, _restricted_volumes, ("hostPathVolumes",)),)),
    Check("runAsNonRoot", RESTRICTED, (
        Revision(0, _run_as_non_root),
        Revision(35, _unless(_in_user_namespace, _run_as_non_root)),
    )),
    Check("runAsUser", RESTRICTED, (
        Revision(23, _run_as_user),
        Revision(35, _unless(_in_user_namespace, _run_as_user)),
    )),
    Check("seLinuxOptions", BASELINE, (
        Revision(0, _se_linux_options(_SELINUX_TYPES_1_0)),
        Revision(31, _se_linux_options(_SELINUX_TYPES_1_31)),
    )),
    Check("seccompProfile_baseline", BASELINE, (
        Revision(0, _seccomp_annotations),
        Revision(19, _seccomp_profile(required=False)),
    )),
    Check("seccompProfile_restricted", RESTRICTED, (
        Revision(19, _seccomp_profile(required=True), ("seccompProfile_baseline",)),
        Revision(25, _unless(_is_windows, _seccomp_profile(required=True)), ("seccompProfile_baseline",)),
    )),
    Check("sysctls", BASELINE, (
        Revision(0, _sysctls(_SYSCTLS_1_0)),
        Revision(27, _sysctls(_SYSCTLS_1_27)),
        Revision(29, _sysctls(_SYSCTLS_1_29)),
        Revision(32, _sysctls(_SYSCTLS_1_32)),
    )),
    Check("windowsHostProcess", BASELINE, (Revision(0, _windows_host_process),)),
)

#: The newest policy version any check has a revision for: later versions evaluate as it.
NEWEST_MINOR = max(revision.minimum for check in CHECKS for revision in check.revisions)


def _revision_at(check: Check, minor: int) -> Revision | None:
    current = None
    for revision in check.revisions:
        if revision.minimum <= minor:
            current = revision
    return current


@cache
def checks_of(level: str, minor: int) -> tuple[tuple[str, CheckPod], ...]:
    """The checks (ID, revision) a level runs at policy version v1.``minor`` (after the newest
    revision: the newest), in kube's order (baseline IDs sorted, then restricted IDs sorted)."""
    minor = min(minor, NEWEST_MINOR)
    at_version = {check.id: (check, revision) for check in CHECKS if (revision := _revision_at(check, minor))}
    levels = (BASELINE,) if level == BASELINE else (BASELINE, RESTRICTED)
    overridden = {override for check, revision in at_version.values() if check.level == RESTRICTED
                  for override in revision.overrides} if level == RESTRICTED else set()
    ordered = sorted(at_version.values(), key=lambda pair: (pair[0].level != BASELINE, pair[0].id))
    return tuple((check.id, revision.check) for check, revision in ordered
                 if check.level in levels and check.id not in overridden)


def violations(level: str, minor: int, meta: Json, spec: Json) -> list[Violation]:
    """The checks of ``level`` at v1.``minor`` that a pod (its metadata and spec) fails, in order."""
    return [found for _, check in checks_of(level, minor) if (found := check(meta, spec)) is not None]
