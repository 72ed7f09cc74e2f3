"""What one server is built from: kube-apiserver's flags that fakeapi honours, as one value."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..auth.authorization import AccessControl
from ..auth.serviceaccount_tokens import SigningKeys
from ..cacher import CacherConfig
from ..clients import ClientReportConfig
from ..http.limits import Limits
from ..registry.registry import DEFAULT_EVENT_TTL, DEFAULT_SERVICE_ACCOUNT_ISSUER
from ..store import FsyncPolicy
from ..store.journal import DEFAULT_FSYNC_INTERVAL
from ..store.request_size import DEFAULT_MAX_REQUEST_BYTES

GARBAGE_COLLECTOR = "garbage-collector-controller"
NAMESPACE_CONTROLLER = "namespace-controller"
CLUSTERROLE_AGGREGATION = "clusterrole-aggregation-controller"
POLICY_STATUS = "validatingadmissionpolicy-status-controller"
#: Not kube-controller-manager's: the kubelets' part in graceful pod deletion (kwok's, when it runs).
POD_TERMINATION = "pod-termination"
CONTROLLERS = (GARBAGE_COLLECTOR, NAMESPACE_CONTROLLER, CLUSTERROLE_AGGREGATION, POLICY_STATUS, POD_TERMINATION)


@dataclass(slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 6443
    #: kube-apiserver's --etcd-compaction-interval (5 min); 0 disables.
    compaction_interval: float = 300.0
    #: etcd's --watch-progress-notify-interval as kubeadm sets it.
    progress_interval: float = 5.0
    cacher: CacherConfig = field(default_factory=CacherConfig)
    #: Built-in controllers to run, by kube-controller-manager's names (see ``CONTROLLERS``).
    controllers: frozenset[str] = frozenset(CONTROLLERS)
    #: kube-apiserver's --enable-garbage-collector: deletes add the orphan/foregroundDeletion
    #: finalizers their propagation policy asks for. The apiserver's choice, not the controllers':
    #: with fakeapi's garbage collector off, the real kube-controller-manager's removes them.
    garbage_collection: bool = True
    #: kube-apiserver's --event-ttl in seconds; 0 keeps events forever.
    event_ttl: int = DEFAULT_EVENT_TTL
    #: Faults in force from the start, as flat specs (``fakeapi.faults.engine.parse_spec``).
    faults: tuple[dict[str, object], ...] = ()
    #: kube-apiserver's --service-account-issuer: the first is the ``iss`` of the tokens
    #: ``serviceaccounts/token`` issues, every one is accepted and an API audience.
    service_account_issuers: tuple[str, ...] = (DEFAULT_SERVICE_ACCOUNT_ISSUER,)
    #: kube-apiserver's --service-account-signing-key-file and --service-account-key-file; None:
    #: a key of the server's own signs and verifies.
    service_account_keys: SigningKeys | None = None
    #: Where the store persists (write-ahead log + snapshots); None: memory only.
    data_dir: Path | None = None
    #: When a logged write reaches the disk (docs/persistence.md).
    fsync: FsyncPolicy = FsyncPolicy.INTERVAL
    fsync_interval: float = DEFAULT_FSYNC_INTERVAL
    #: A ``fakeapi snapshot save`` file the store starts from (into an empty ``data_dir``, if set).
    from_snapshot: Path | None = None
    #: The per-client report: client cap, client header, history, detectors' knobs.
    clients: ClientReportConfig = field(default_factory=ClientReportConfig)
    #: Authentication and authorization: modes, static tokens, anonymous requests.
    access: AccessControl = field(default_factory=AccessControl)
    #: kube-apiserver's --request-timeout and in-flight limits (``limits``).
    limits: Limits = field(default_factory=Limits)
    #: etcd's --max-request-bytes: a write whose raft entry would be larger is refused as etcd
    #: refuses it (kube-apiserver answers 500, after retrying without managedFields).
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    #: kube-apiserver's --etcd-servers: the store is an etcd (``fakeapi etcd``, a real etcd
    #: cluster, or the store process of ``--workers``) reached over its v3 API, not in-process.
    #: ``data_dir``, ``fsync`` and ``from_snapshot`` are then the etcd's business.
    etcd_servers: tuple[str, ...] = ()
    #: The Unix socket on which that etcd, ``--workers``' own store process, also answers the
    #: unary calls framed (``fakeapi.etcd.framed``); None: every call goes over gRPC.
    etcd_socket: str | None = None
    #: The admission plugins fakeapi runs only when enabled (``fakeapi.admission.OFF_BY_DEFAULT``)
    #: that run: kube-apiserver's --enable-admission-plugins less its --disable-admission-plugins.
    admission_plugins: frozenset[str] = frozenset()
    #: kube-apiserver's --proxy-client-cert-file and --proxy-client-key-file: the client
    #: certificate presented to aggregated API servers (None: none, as kube without them).
    proxy_client_files: tuple[Path, Path] | None = None
    #: The data of ``kube-system/extension-apiserver-authentication`` (the client CAs, the front
    #: proxy's CA and headers), written with the bootstrap objects; empty: the ConfigMap is.
    extension_authentication: dict[str, str] = field(default_factory=dict)
