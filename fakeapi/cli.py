"""``fakeapi`` command line: ``fakeapi serve`` and ``fakeapi seed``."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

import uvicorn
import yaml

from . import seed
from .cacher import CacherConfig
from .cacher.watch_cache import DEFAULT_LOWER_BOUND, DEFAULT_UPPER_BOUND
from .faults import check_startup_spec, parse_cli_spec
from .http import ServerConfig, create_app
from .http.app import CONTROLLERS
from .registry.authentication import ADMIN_TOKEN
from .registry.registry import DEFAULT_SERVICE_ACCOUNT_ISSUER


def parse_duration(text: str) -> float:
    """Go-style durations as kube flags take them: ``300``, ``5m``, ``30s``, ``1h``, ``0``."""
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    for suffix in ("ms", "s", "m", "h"):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * units[suffix]
    return float(text)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def _controller_list(text: str) -> str:
    unknown = set(filter(None, text.split(","))) - set(CONTROLLERS)
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown controllers {sorted(unknown)}; known: {', '.join(CONTROLLERS)}")
    return text


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


def write_kubeconfig(path: Path, server_url: str) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "fakeapi", "cluster": {"server": server_url}}],
        "users": [{"name": "fakeapi", "user": {"token": ADMIN_TOKEN}}],
        "contexts": [{"name": "fakeapi", "context": {"cluster": "fakeapi", "user": "fakeapi", "namespace": "default"}}],
        "current-context": "fakeapi",
        "preferences": {},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(yaml.safe_dump(config, sort_keys=False))
    os.replace(tmp, path)


async def serve(args: argparse.Namespace) -> None:
    config = ServerConfig(
        host=args.host,
        port=args.port,
        compaction_interval=parse_duration(args.compaction_interval),
        progress_interval=parse_duration(args.progress_interval),
        controllers=frozenset(filter(None, args.controllers.split(","))),
        event_ttl=int(parse_duration(args.event_ttl)),
        cacher=CacherConfig(
            lower_bound=args.watch_cache_min_events,
            upper_bound=max(args.watch_cache_max_events, args.watch_cache_min_events),
            bookmark_interval=parse_duration(args.bookmark_interval),
            max_watch_timeout=parse_duration(args.max_watch_timeout),
        ),
        faults=tuple(args.fault),
        service_account_issuer=args.service_account_issuer,
    )
    app = create_app(config)
    if args.seed is not None:
        seed.seed_at_startup(app, args.seed, report=_report_seed)
    server = uvicorn.Server(uvicorn.Config(
        app, host=args.host, port=args.port, log_level=args.log_level, access_log=False,
        timeout_graceful_shutdown=1,
    ))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            await task
            raise SystemExit("fakeapi: the server did not start")
        await asyncio.sleep(0.01)
    sockets = [s for srv in server.servers for s in srv.sockets]
    port = sockets[0].getsockname()[1] if sockets else args.port
    url = f"http://{args.host}:{port}"
    kubeconfig = Path(args.kubeconfig).resolve()
    write_kubeconfig(kubeconfig, url)
    print(f"fakeapi: listening on {url} (kubeconfig: {kubeconfig})", flush=True)
    await task


def _seed_spec(text: str) -> seed.SeedSpec:
    try:
        return seed.parse_spec(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _report_seed(result: seed.SeedResult) -> None:
    """The start-up seeding's numbers, on a terminal only: scripts wait for the first line
    being "listening on"."""
    if sys.stderr.isatty():
        print(f"fakeapi: {result}", file=sys.stderr, flush=True)


def run_seed(args: argparse.Namespace) -> None:
    """``fakeapi seed``: write a synthetic cluster through a running server's API."""
    try:
        result = asyncio.run(seed.seed_over_http(args.server, args.spec, args.concurrency))
    except seed.SeedError as err:
        raise SystemExit(f"fakeapi seed: {err}") from None
    print(result, flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="fakeapi", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve", help="run the API server")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=6443, help="port (default 6443; 0 picks a free one)")
    p.add_argument("--kubeconfig", default="kubeconfig", help="where to write the kubeconfig")
    p.add_argument("--compaction-interval", default="5m", help="store compaction period (0 = off)")
    p.add_argument("--progress-interval", default="5s",
                   help="store progress-notify interval, which keeps watch caches current (default 5s)")
    p.add_argument("--watch-cache-min-events", type=_positive_int, default=DEFAULT_LOWER_BOUND,
                   help=f"smallest event buffer per resource (default {DEFAULT_LOWER_BOUND}, as kube)")
    p.add_argument("--watch-cache-max-events", type=_positive_int, default=DEFAULT_UPPER_BOUND,
                   help=f"largest event buffer per resource (default {DEFAULT_UPPER_BOUND}, as kube); "
                        "a watch resuming from an event that has left it gets 410 Expired")
    p.add_argument("--bookmark-interval", default="1m", help="how often watches get a BOOKMARK (default 1m, as kube)")
    p.add_argument("--controllers", default=",".join(CONTROLLERS), type=_controller_list,
                   help=f"built-in controllers to run, comma-separated; '' runs none (default {','.join(CONTROLLERS)})")
    p.add_argument("--event-ttl", default="1h", help="how long events live after their last write (default 1h, as kube; 0 = forever)")
    p.add_argument("--service-account-issuer", default=DEFAULT_SERVICE_ACCOUNT_ISSUER,
                   help="the issuer (iss) of service-account tokens, also the API audience "
                        f"(default {DEFAULT_SERVICE_ACCOUNT_ISSUER}, as kubeadm sets it)")
    p.add_argument("--max-watch-timeout", default="0",
                   help="the longest a watch lasts, whatever timeout it asks for (default 0 = no cap)")
    p.add_argument("--fault", action="append", type=_fault, default=[], metavar="TYPE:KEY=VALUE,...",
                   help=FAULT_HELP)
    p.add_argument("--latency", action="append", type=_latency, dest="fault", metavar="KEY=VALUE,...",
                   help="the same as --fault latency:KEY=VALUE,..., e.g. --latency verb=get,uniform=0.01:0.05")
    p.add_argument("--log-level", default="warning")
    p.add_argument("--seed", type=_seed_spec, metavar="SPEC",
                   help="write a synthetic cluster into the registry before accepting requests "
                        "(see `fakeapi seed --help` for SPEC)")
    s = sub.add_parser("seed", help="write a synthetic cluster through a running server's API",
                       description=seed.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("spec", type=_seed_spec, metavar="SPEC",
                   help="e.g. namespaces=10,nodes=50,pods=5000,deployments=200,seed=1, or a YAML/JSON file")
    s.add_argument("--server", default="http://127.0.0.1:6443", help="the API's URL (default http://127.0.0.1:6443)")
    s.add_argument("--concurrency", type=_positive_int, default=16, help="requests in flight (default 16)")
    args = parser.parse_args(argv)
    if args.command == "serve":
        try:
            asyncio.run(serve(args))
        except KeyboardInterrupt:
            sys.exit(0)
    elif args.command == "seed":
        run_seed(args)


if __name__ == "__main__":
    main()
