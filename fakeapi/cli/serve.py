"""``fakeapi serve``: the API server, in this process (or ``--workers N`` of them)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import ipaddress
import os
import secrets
import signal
import socket
import ssl
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..admission import ALWAYS_ON, OFF_BY_DEFAULT
from ..auth.authentication import ADMIN, ADMIN_TOKEN, UserInfo, read_token_file
from ..auth.authorization import ALWAYS_ALLOW, MODES, AccessControl
from ..auth.serviceaccount_tokens import KeyFileError, SigningKeys, load_signing_keys
from ..cacher import CacherConfig
from ..cacher.watch_cache import DEFAULT_LOWER_BOUND, DEFAULT_UPPER_BOUND
from ..clients import DEFAULT_MAX_CLIENTS, ClientReportConfig, DetectorConfig
from ..clients.detectors import parse_detector_spec
from ..faults.engine import check_startup_spec, parse_cli_spec
from ..http.limits import Limits
from ..kubeconfig import write_kubeconfig
from ..machinery.golang import go_quote, parse_duration
from ..registry.registry import DEFAULT_SERVICE_ACCOUNT_ISSUER
from ..runtime import settle_heap
from ..server import CONTROLLERS, ServerConfig, create_app
from ..store import CorruptLog, DataDirInUse, FsyncPolicy, SnapshotError
from . import workers
from .arguments import add_persistence_args, go_bool, non_negative_int, positive_int
from .seed import report_seed, seed_spec
from .sockets import listening_socket

if TYPE_CHECKING:
    from ..http.pki import ServerCertificates


def _workers(text: str) -> int:
    if text == "auto":
        return os.cpu_count() or 1
    return positive_int(text)


def _url_list(text: str) -> tuple[str, ...]:
    from ..etcd.client import grpc_target

    urls = tuple(u.strip() for u in text.split(",") if u.strip())
    try:
        grpc_target(urls)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return urls


def _controller_list(text: str) -> str:
    unknown = set(filter(None, text.split(","))) - set(CONTROLLERS)
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown controllers {sorted(unknown)}; known: {', '.join(CONTROLLERS)}")
    return text


def _plugin_list(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def admission_plugins(enable: list[str], disable: list[str]) -> frozenset[str]:
    """The plugins fakeapi runs only when enabled (``OFF_BY_DEFAULT``) that run, of
    ``--enable-admission-plugins`` and ``--disable-admission-plugins``; naming a plugin in both
    is refused as kube-apiserver refuses it (``AdmissionOptions.Validate``), and so is naming one
    fakeapi cannot turn on or off."""
    errors = [f"enable-admission-plugins plugin {go_quote(name)} is unknown to fakeapi (it enables "
              f"{', '.join(sorted(OFF_BY_DEFAULT))} and always runs kube's other default plugins)"
              for name in enable if name not in OFF_BY_DEFAULT | ALWAYS_ON]
    errors += [f"disable-admission-plugins plugin {go_quote(name)} is "
               f"{'always run by fakeapi' if name in ALWAYS_ON else 'unknown to fakeapi'} (it can disable "
               f"{', '.join(sorted(OFF_BY_DEFAULT))})" for name in disable if name not in OFF_BY_DEFAULT]
    overlap = sorted(set(enable) & set(disable))
    if overlap:
        errors.append(f"[{' '.join(overlap)}] in enable-admission-plugins and disable-admission-plugins overlapped")
    if errors:
        raise SystemExit("fakeapi: " + "; ".join(errors))
    return frozenset(enable) & OFF_BY_DEFAULT


FAULT_HELP = """\
a fault in force from the start, repeatable: TYPE:KEY=VALUE,... with TYPE error or latency.
error: code=429|500|503|504 (required), verb=get|list|watch|create|update|patch|delete|deletecollection,
resource=pods|deployments.apps, namespace=NS, count=N (first N requests) or rate=P (probability,
seed=N), retryAfter=SECONDS, message=TEXT. latency: seconds=S, uniform=MIN:MAX, normal=MEAN:STDDEV,
lognormal=MU:SIGMA (of log-seconds), perItem=S (per item a LIST returns), and the selectors, count,
rate and seed as for error. E.g. --fault 'error:verb=list,resource=pods,code=429,rate=0.1'"""


def _fault(text: str) -> dict[str, object]:
    try:
        spec = parse_cli_spec(text)
        check_startup_spec(spec)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text}: {err}") from None
    return spec


def _latency(text: str) -> dict[str, object]:
    return _fault("latency:" + text)


def _detector(text: str) -> tuple[str, dict[str, str]]:
    try:
        return parse_detector_spec(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text}: {err}") from None


def client_report_config(args: argparse.Namespace) -> ClientReportConfig:
    detectors = DetectorConfig()
    for name, knobs in args.detector:
        detectors = detectors.with_knobs(name, **knobs)
    return ClientReportConfig(max_clients=args.max_clients, client_header=args.client_header, detectors=detectors)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def access_control(args: argparse.Namespace) -> tuple[AccessControl, str]:
    """What ``--token``, ``--token-file``, ``--anonymous-auth`` and ``--authorization-mode`` make
    of access, and the token the kubeconfig carries. Without ``--token`` or ``--token-file`` the
    administrator's token is ``fakeapi`` on loopback and a random one elsewhere; requests without
    credentials are allowed by default on loopback only, as the administrator when no access flag
    is given (plain kubectl and client-go send none: ``AccessControl.unauthenticated_as_admin``),
    else as ``system:anonymous``."""
    loopback = is_loopback(args.host)
    tokens: dict[str, UserInfo] = {}
    if args.token_file is not None:
        try:
            tokens.update(read_token_file(args.token_file))
        except (OSError, ValueError) as err:
            raise SystemExit(f"fakeapi: --token-file: {err}") from None
    kubeconfig_token = args.token or next(iter(tokens), "")
    if args.token:
        tokens[args.token] = ADMIN
    elif not tokens:
        kubeconfig_token = ADMIN_TOKEN if loopback else secrets.token_urlsafe(32)
        tokens[kubeconfig_token] = ADMIN
    anonymous = loopback if args.anonymous is None else args.anonymous
    modes = tuple(args.authorization_mode.split(","))
    as_admin = args.anonymous is None and not (args.tls or args.token or args.token_file)
    return AccessControl(authorization_modes=modes, static_tokens=tokens, anonymous=anonymous,
                         unauthenticated_as_admin=as_admin), kubeconfig_token


def service_account_signing(args: argparse.Namespace) -> tuple[tuple[str, ...], SigningKeys | None]:
    """The issuers of ``--service-account-issuer`` (kube's refusals of an empty or repeated one),
    and the keys of ``--service-account-signing-key-file`` and ``--service-account-key-file``
    (None without them: the server's own key). Key files alone are refused: kube refuses to
    issue tokens without a signing key, and fakeapi's own would not verify with them."""
    issuers = tuple(args.service_account_issuer or (DEFAULT_SERVICE_ACCOUNT_ISSUER,))
    for index, issuer in enumerate(issuers):
        if not issuer:
            raise SystemExit("fakeapi: service-account-issuer should not be an empty string")
        if issuer in issuers[:index]:
            raise SystemExit(f"fakeapi: service-account-issuer {go_quote(issuer)} is already specified")
    if args.service_account_signing_key_file is None:
        if args.service_account_key_file:
            raise SystemExit("fakeapi: --service-account-key-file needs --service-account-signing-key-file")
        return issuers, None
    try:
        return issuers, load_signing_keys(Path(args.service_account_signing_key_file),
                                          [Path(path) for path in args.service_account_key_file])
    except KeyFileError as err:
        raise SystemExit(f"fakeapi: {err}") from None


def security_warnings(args: argparse.Namespace, access: AccessControl) -> list[str]:
    """What a server reachable from other machines should say about itself."""
    if is_loopback(args.host):
        return []
    warnings = []
    where = f"{args.host}:{args.port}"
    if access.anonymous and ALWAYS_ALLOW in access.authorization_modes:
        warnings.append(f"anonymous requests are allowed and authorization is AlwaysAllow: anyone who reaches "
                        f"{where} can read and change everything (--anonymous-auth=false, --authorization-mode=RBAC)")
    elif access.anonymous:
        warnings.append(f"anonymous requests are allowed on {where} (what RBAC grants system:anonymous)")
    if not args.tls:
        warnings.append(f"serving {where} without TLS: credentials and data cross the network in clear (--tls)")
    return warnings


async def serve(args: argparse.Namespace, listener: socket.socket | None = None) -> None:
    """``fakeapi serve``; on ``listener`` (bound to ``--host``:``--port`` and listening) when given."""
    if not args.tls and (args.cert_dir or args.client_ca_file or args.kubeconfig_auth == "cert" or args.tls_cert_file):
        raise SystemExit("fakeapi: --cert-dir, --client-ca-file, --tls-cert-file and --kubeconfig-auth cert need --tls")
    if bool(args.tls_cert_file) != bool(args.tls_private_key_file):
        raise SystemExit("fakeapi: --tls-cert-file and --tls-private-key-file are given together")
    if args.tls and not args.own_ca and (args.tls_cert_file is None or args.kubeconfig_auth == "cert"):
        raise SystemExit("fakeapi: --own-ca=false needs --tls-cert-file, and a kubeconfig with the token")
    worker = args.worker_index is not None  # one of --workers': the store is the supervisor's
    if args.etcd_servers and not worker and (args.data_dir or args.from_snapshot or args.etcd_listen_client_urls):
        raise SystemExit("fakeapi: --data-dir, --from-snapshot and --etcd-listen-client-urls are the store's: "
                         "with --etcd-servers the store is that etcd")
    if worker and args.worker_index > 0:
        args.seed = None  # worker 0 seeds
    access, kubeconfig_token = access_control(args)
    service_account_issuers, service_account_keys = service_account_signing(args)
    plugins = admission_plugins(args.enable_admission_plugins, args.disable_admission_plugins)
    kubeconfig = Path(args.kubeconfig).resolve()
    certificates = None
    if args.tls and args.own_ca:
        from ..http.pki import ServerCertificates  # cryptography's x509: loaded with fakeapi's CA only

        certificates = ServerCertificates.in_directory(
            args.cert_dir or kubeconfig.parent / "fakeapi-pki", _serving_hosts(args.host), ADMIN.name, ADMIN.groups)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        compaction_interval=parse_duration(args.compaction_interval),
        progress_interval=parse_duration(args.progress_interval),
        controllers=frozenset(filter(None, args.controllers.split(","))),
        garbage_collection=args.enable_garbage_collector,
        event_ttl=int(parse_duration(args.event_ttl)),
        cacher=CacherConfig(
            lower_bound=args.watch_cache_min_events,
            upper_bound=max(args.watch_cache_max_events, args.watch_cache_min_events),
            bookmark_interval=parse_duration(args.bookmark_interval),
            max_watch_timeout=parse_duration(args.max_watch_timeout),
        ),
        faults=tuple(args.fault),
        etcd_servers=args.etcd_servers or (),
        etcd_socket=args.etcd_socket if args.etcd_servers else None,
        data_dir=None if args.etcd_servers else args.data_dir,
        fsync=FsyncPolicy(args.fsync),
        fsync_interval=parse_duration(args.fsync_interval),
        from_snapshot=None if args.etcd_servers else args.from_snapshot,
        service_account_issuers=service_account_issuers,
        service_account_keys=service_account_keys,
        clients=client_report_config(args),
        access=access,
        max_request_bytes=args.max_request_bytes,
        admission_plugins=plugins,
        proxy_client_files=certificates.front_proxy_client_files if certificates else None,
        extension_authentication=_extension_authentication(args.tls, certificates, args.client_ca_file),
        limits=Limits(request_timeout=parse_duration(args.request_timeout),
                      max_requests_inflight=args.max_requests_inflight,
                      max_mutating_requests_inflight=args.max_mutating_requests_inflight),
    )
    for text in security_warnings(args, access):
        print(f"fakeapi: warning: {text}", file=sys.stderr, flush=True)
    try:
        app = create_app(config)
    except (DataDirInUse, SnapshotError, CorruptLog, FileExistsError) as err:
        raise SystemExit(f"fakeapi: {err}") from None
    if args.seed is not None:
        from ..seed import seeder

        # Up to here start-up ran without collections (cli.main); a seed's writes make the garbage
        # any writes make, and a large seed would leave it all to be frozen with the rest.
        gc.enable()
        seeder.seed_at_startup(app, args.seed, report=report_seed)
    task, port = await _serve(app, args, certificates, listener)
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"{'https' if args.tls else 'http'}://{host}:{port}"
    if not args.worker_index:  # one kubeconfig, worker 0's, when there are workers
        if args.tls:
            write_kubeconfig(kubeconfig, url, token=kubeconfig_token, ca_pem=_serving_trust(certificates, args),
                             client_certificate=certificates.admin if certificates and args.kubeconfig_auth == "cert"
                             else None)
        else:
            write_kubeconfig(kubeconfig, url, token=kubeconfig_token)
    etcd = None
    if args.etcd_listen_client_urls and not args.etcd_servers:
        etcd = await _start_etcd(app.state.server.store, app.state.server.faults, args)
    settle_heap()
    also = f"; etcd: {', '.join(etcd.client_urls)}" if etcd is not None else ""
    print(f"fakeapi: listening on {url} (kubeconfig: {kubeconfig}{also})", flush=True)
    try:
        await task
    finally:
        if etcd is not None:
            await etcd.stop(None)


async def _serve(app: Any, args: argparse.Namespace, certificates: ServerCertificates | None,
                 listener: socket.socket | None) -> tuple[asyncio.Task[None], int]:
    """The server of ``fakeapi.http.serving`` (uvloop, installed by ``main``): HTTPS with HTTP/2
    and HTTP/1.1 with ``--tls`` (without ``certificates``, ``--own-ca=false``: the pair of
    ``--tls-cert-file`` and the CAs of ``--client-ca-file`` alone), else plain HTTP/1.1. The
    app's lifespan runs here; SIGINT and SIGTERM stop it. A request's address is its
    connection's, as kube-apiserver's is (the aggregation proxy passes it on in
    X-Forwarded-For)."""
    from ..http.serving import HTTPServer

    try:
        sock = listener or listening_socket(args.host, args.port, reuse_port=args.worker_index is not None)
        context = _server_context(args, certificates) if args.tls else None
    except (OSError, ssl.SSLError) as err:
        raise SystemExit(f"fakeapi: {err}") from None
    server = HTTPServer(app, sock, context)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, server.stop)

    async def run() -> None:
        async with app.router.lifespan_context(app):
            await server.serve()

    return asyncio.create_task(run()), server.port


def _server_context(args: argparse.Namespace, certificates: ServerCertificates | None) -> ssl.SSLContext:
    from ..http.tls import server_context

    if certificates is None:
        return server_context(args.tls_cert_file, args.tls_private_key_file, args.client_ca_file)
    return server_context(args.tls_cert_file or certificates.serving_cert_file,
                          args.tls_private_key_file or certificates.serving_key_file,
                          [certificates.ca_file, *args.client_ca_file])


def _serving_trust(certificates: ServerCertificates | None, args: argparse.Namespace) -> bytes:
    """What the kubeconfig trusts: fakeapi's CA, or the certificate of ``--tls-cert-file`` itself,
    whose CA fakeapi does not know (Go's clients, kubectl among them, accept a trusted leaf)."""
    if args.tls_cert_file is None:
        assert certificates is not None  # serve refuses --own-ca=false without --tls-cert-file
        return certificates.ca.certificate_pem
    try:
        return args.tls_cert_file.read_bytes()
    except OSError as err:
        raise SystemExit(f"fakeapi: --tls-cert-file: {err}") from None


def _extension_authentication(tls: bool, certificates: ServerCertificates | None,
                              client_ca_files: list[Path]) -> dict[str, str]:
    """``extension-apiserver-authentication``'s data: a TLS server's client CAs (its own and
    ``--client-ca-file``'s) and front proxy (kube-apiserver without a front proxy publishes its
    client CAs alone); nothing without TLS."""
    if not tls:
        return {}
    try:
        pems = [*([certificates.ca.certificate_pem] if certificates else []), *(path.read_bytes() for path in client_ca_files)]
    except OSError as err:
        raise SystemExit(f"fakeapi: {err}") from None
    if certificates is None:
        return {"client-ca-file": "".join(pem.decode() for pem in pems)} if pems else {}
    return certificates.extension_apiserver_authentication(pems)


def _serving_hosts(host: str) -> list[str]:
    """The names a serving certificate covers: loopback, and the address served on (this
    machine's name when that is every address)."""
    hosts = ["localhost", "127.0.0.1", "::1"]
    if host in ("0.0.0.0", "::", ""):
        hosts.append(socket.gethostname())
    elif host not in hosts:
        hosts.append(host)
    return hosts


async def _start_etcd(store: object, faults: Any, args: argparse.Namespace) -> object:
    """The in-process store served over etcd's gRPC API too (``--etcd-listen-client-urls``)."""
    from ..etcd import EtcdServer

    etcd = EtcdServer(store, max_request_bytes=args.max_request_bytes)  # type: ignore[arg-type]
    try:
        await etcd.start(args.etcd_listen_client_urls.split(","))
    except (ValueError, RuntimeError) as err:
        raise SystemExit(f"fakeapi: --etcd-listen-client-urls: {err}") from None
    faults.etcd = etcd.faults  # the faults API reaches the etcd level too
    return etcd


def _modes(text: str) -> str:
    unknown = [mode for mode in text.split(",") if mode not in MODES]
    if unknown or not text:
        raise argparse.ArgumentTypeError(f"unknown authorization mode {','.join(unknown)!r}; known: {', '.join(MODES)}")
    return text


def _add_access_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--token", metavar="TOKEN",
                        help="the administrator's bearer token (user admin in system:masters), written into the "
                             "kubeconfig; default: 'fakeapi' on loopback, a random one elsewhere")
    parser.add_argument("--token-file", metavar="FILE",
                        help="more bearer tokens, in kube-apiserver's --token-auth-file format: CSV lines "
                             'token,user,uid,"group1,group2"')
    parser.add_argument("--anonymous-auth", "--anonymous", dest="anonymous", nargs="?", const=True, type=go_bool,
                        metavar="BOOL", help="serve requests without credentials as system:anonymous "
                                             "(default: true on loopback, false elsewhere; on loopback "
                                             "without --tls, --token, --token-file and this flag, with "
                                             "AlwaysAllow, they are the administrator, as plain kubectl "
                                             "sends no credentials)")
    parser.add_argument("--authorization-mode", default=ALWAYS_ALLOW, type=_modes, metavar="MODES",
                        help=f"comma-separated, in order: {', '.join(MODES)} (default {ALWAYS_ALLOW}); "
                             "system:masters is always allowed")
    parser.add_argument("--tls", action="store_true",
                        help="serve HTTPS (HTTP/2 and HTTP/1.1) with a generated CA and serving certificate; the "
                             "kubeconfig carries the CA; client certificates signed by it authenticate")
    parser.add_argument("--cert-dir", type=Path, metavar="DIR",
                        help="with --tls: where the CA and certificates are kept and reused across restarts "
                             "(default: fakeapi-pki next to the kubeconfig)")
    parser.add_argument("--tls-cert-file", type=Path, metavar="FILE",
                        help="with --tls: serve this certificate (PEM; with --tls-private-key-file) rather than one "
                             "signed by fakeapi's CA, as kube-apiserver's flag; the kubeconfig then trusts it")
    parser.add_argument("--tls-private-key-file", type=Path, metavar="FILE",
                        help="with --tls: the key of --tls-cert-file")
    parser.add_argument("--client-ca-file", type=Path, action="append", default=[], metavar="FILE",
                        help="with --tls: another CA whose client certificates authenticate (CN = user, O = groups)")
    parser.add_argument("--own-ca", type=go_bool, default=True, metavar="BOOL",
                        help="with --tls: make fakeapi's CA, whose certificates authenticate, and the front "
                             "proxy's (default true); false: the certificates of --tls-cert-file and "
                             "--client-ca-file alone, as kube-apiserver has them without --requestheader-* and "
                             "--proxy-client-* flags (aggregated API servers get no client certificate)")
    parser.add_argument("--kubeconfig-auth", choices=("token", "cert"), default="token",
                        help="with --tls: the kubeconfig's credential, the admin token or a client certificate "
                             "(default token)")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the API server")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=6443, help="port (default 6443; 0 picks a free one)")
    p.add_argument("--kubeconfig", default="kubeconfig", help="where to write the kubeconfig")
    p.add_argument("--compaction-interval", default="5m", help="store compaction period (0 = off)")
    p.add_argument("--progress-interval", default="5s",
                   help="store progress-notify interval, which keeps watch caches current (default 5s)")
    p.add_argument("--watch-cache-min-events", type=positive_int, default=DEFAULT_LOWER_BOUND,
                   help=f"smallest event buffer per resource (default {DEFAULT_LOWER_BOUND}, as kube)")
    p.add_argument("--watch-cache-max-events", type=positive_int, default=DEFAULT_UPPER_BOUND,
                   help=f"largest event buffer per resource (default {DEFAULT_UPPER_BOUND}, as kube); "
                        "a watch resuming from an event that has left it gets 410 Expired")
    p.add_argument("--bookmark-interval", default="1m", help="how often watches get a BOOKMARK (default 1m, as kube)")
    p.add_argument("--controllers", default=",".join(CONTROLLERS), type=_controller_list,
                   help=f"built-in controllers to run, comma-separated; '' runs none (default {','.join(CONTROLLERS)})")
    p.add_argument("--enable-garbage-collector", default=True, action=argparse.BooleanOptionalAction,
                   help="deletes add the finalizers their propagation policy asks for (orphan, "
                        "foregroundDeletion), as kube-apiserver's flag of that name (default on); "
                        "whoever runs the garbage collector (--controllers, or a real "
                        "kube-controller-manager) removes them")
    p.add_argument("--enable-admission-plugins", action="extend", type=_plugin_list, default=[], metavar="NAMES",
                   help="admission plugins to run besides the default ones, comma-separated, as kube-apiserver's "
                        "flag: ServiceAccount (kube runs it by default, fakeapi does not: nobody creates a "
                        "namespace's 'default' ServiceAccount without a controller-manager)")
    p.add_argument("--disable-admission-plugins", action="extend", type=_plugin_list, default=[], metavar="NAMES",
                   help="admission plugins not to run, comma-separated, as kube-apiserver's flag: ServiceAccount")
    p.add_argument("--event-ttl", default="1h", help="how long events live after their last write (default 1h, as kube; 0 = forever)")
    p.add_argument("--service-account-issuer", action="append", metavar="ISSUER",
                   help="the issuer (iss) of service-account tokens, also the API audience; repeated, as "
                        "kube-apiserver's flag: the first issues, every one is accepted "
                        f"(default {DEFAULT_SERVICE_ACCOUNT_ISSUER}, as kubeadm sets it)")
    p.add_argument("--service-account-signing-key-file", metavar="FILE",
                   help="PEM RSA or ECDSA private key service-account tokens are signed with (RS256, or "
                        "ES256/384/512 by the curve), as kube-apiserver's flag (default: a key of the server's own)")
    p.add_argument("--service-account-key-file", action="append", default=[], metavar="FILE",
                   help="PEM public or private keys, or certificates, service-account tokens are verified with "
                        "and /openid/v1/jwks lists; repeated, as kube-apiserver's flag "
                        "(default: the signing key's; needs --service-account-signing-key-file)")
    p.add_argument("--max-watch-timeout", default="0",
                   help="the longest a watch lasts, whatever timeout it asks for (default 0 = no cap)")
    p.add_argument("--fault", action="append", type=_fault, default=[], metavar="TYPE:KEY=VALUE,...",
                   help=FAULT_HELP)
    p.add_argument("--latency", action="append", type=_latency, dest="fault", metavar="KEY=VALUE,...",
                   help="the same as --fault latency:KEY=VALUE,..., e.g. --latency verb=get,uniform=0.01:0.05")
    p.add_argument("--log-level", default="warning")
    p.add_argument("--etcd-listen-client-urls", metavar="URLS",
                   help="also serve the store over etcd's v3 gRPC API on these http://HOST:PORT "
                        "(comma-separated; port 0 picks one), as `fakeapi etcd` does")
    p.add_argument("--etcd-servers", metavar="URLS", type=_url_list,
                   help="use this etcd (comma-separated http://HOST:PORT of its members: `fakeapi etcd`, a real etcd "
                        "3.6 cluster) instead of the in-process store, as kube-apiserver's flag; objects are stored "
                        "under kube's keys, as JSON a kube-apiserver sharing the etcd reads")
    p.add_argument("--workers", type=_workers, default=1, metavar="N",
                   help="API worker processes on the one port (SO_REUSEPORT), each with its own watch caches, "
                        "over one store process (`fakeapi etcd`, with --data-dir if given) or --etcd-servers; "
                        "'auto' = the number of cores (default 1: one process, the store in it)")
    p.add_argument("--worker-index", type=int, default=None, help=argparse.SUPPRESS)
    # the store process's framed socket (``fakeapi etcd --listen-socket``): --workers' own
    p.add_argument("--etcd-socket", default=None, help=argparse.SUPPRESS)
    p.add_argument("--max-request-bytes", type=positive_int, default=1536 * 1024,
                   help="etcd's write request limit: a write whose object would make a larger etcd request is "
                        "refused as kube-apiserver refuses it then (500), also over --etcd-listen-client-urls "
                        "(default 1572864)")
    p.add_argument("--request-timeout", default="60s",
                   help="how long a request other than a watch may take before it is answered 504, as "
                        "kube-apiserver's flag (default 60s; a request's timeout parameter may shorten it; 0 = no limit)")
    p.add_argument("--max-requests-inflight", type=non_negative_int, default=0, metavar="N",
                   help="read-only requests (get, list) in flight at once; more are refused with 429 as "
                        "kube-apiserver's max-in-flight filter refuses them (default 0 = no limit)")
    p.add_argument("--max-mutating-requests-inflight", type=non_negative_int, default=0, metavar="N",
                   help="mutating requests in flight at once; more are refused with 429 (default 0 = no limit)")
    p.add_argument("--client-header", default="", metavar="NAME",
                   help="a request header that names the client in the client report (default: the User-Agent)")
    p.add_argument("--max-clients", type=positive_int, default=DEFAULT_MAX_CLIENTS,
                   help=f"clients the report tells apart; later ones count as 'other' (default {DEFAULT_MAX_CLIENTS})")
    p.add_argument("--detector", action="append", type=_detector, default=[], metavar="NAME:KNOB=VALUE,...",
                   help="a detector's knobs, repeatable, e.g. relist-storm:relists=5,window=2m "
                        "(detectors and knobs: GET /fakeapi/v1/report)")
    p.add_argument("--seed", type=seed_spec, metavar="SPEC",
                   help="write a synthetic cluster into the registry before accepting requests "
                        "(see `fakeapi seed --help` for SPEC)")
    _add_access_args(p)
    add_persistence_args(p)
    p.add_argument("--from-snapshot", type=Path, metavar="FILE",
                   help="start from a `fakeapi snapshot save` file (restored into --data-dir if given, which "
                        "must then be empty)")


def run(args: argparse.Namespace, argv: list[str], listener: socket.socket | None = None) -> None:
    if args.workers > 1:
        gc.enable()  # the supervisor: its children settle their own heaps
        serve_argv = argv[argv.index("serve") + 1:]
        if not (is_loopback(args.host) or args.token or args.token_file):
            # Each worker would make up its own admin token: they must share the kubeconfig's.
            serve_argv += ["--token", secrets.token_urlsafe(32)]
        sys.exit(workers.run(args, serve_argv))
    import uvloop  # watch fan-out delivers twice the events/s on it

    uvloop.install()
    try:
        asyncio.run(serve(args, listener))
    except KeyboardInterrupt:
        sys.exit(0)
