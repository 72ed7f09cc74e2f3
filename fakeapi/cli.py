"""``fakeapi`` command line: ``fakeapi serve``."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

import uvicorn
import yaml

from .cacher import CacherConfig
from .cacher.watch_cache import DEFAULT_LOWER_BOUND, DEFAULT_UPPER_BOUND
from .http import ServerConfig, create_app
from .http.app import CONTROLLERS


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


def write_kubeconfig(path: Path, server_url: str) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "fakeapi", "cluster": {"server": server_url}}],
        "users": [{"name": "fakeapi", "user": {"token": "fakeapi"}}],
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
        ),
    )
    app = create_app(config)
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
    p.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    if args.command == "serve":
        try:
            asyncio.run(serve(args))
        except KeyboardInterrupt:
            sys.exit(0)


if __name__ == "__main__":
    main()
