"""``fakeapi envtest``'s ``etcd``: answers envtest's health check (``GET /health`` on
``--listen-client-urls``) and nothing else, fakeapi's store being in the kube-apiserver's process.

A module of its own, on the standard library alone: envtest waits for this process's health
before it starts the kube-apiserver, polling every 100 ms from the moment it launches it, so
every millisecond of this start is on the suite's start; the launcher runs it without ``site``
(``python -S``), whose editable-install finders alone cost a few times this module's imports.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from urllib.parse import urlsplit

ETCD_VERSION = "3.6.6"
#: How often a launched process checks that its parent lives, and how long it then has to stop
#: gracefully before it exits outright.
PARENT_POLL = 0.2
ORPHAN_GRACE = 5.0


def watch_parent(stop: Callable[[], object]) -> None:
    """Calls ``stop()`` once this process's parent has died (its parent is then another
    process), and exits outright ``ORPHAN_GRACE`` seconds later if still running. A thread that
    polls ``getppid`` rather than ``PR_SET_PDEATHSIG``: the kernel's parent of PDEATHSIG is the
    thread that forked, and Go forks from whichever OS thread it likes, which may end first."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        stop()
        time.sleep(ORPHAN_GRACE)
        os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


ETCD_HELP = f"""fakeapi's etcd: answers envtest's health check; the store is in fakeapi's kube-apiserver.

Usage:
  etcd [flags]

  --listen-client-urls 'http://localhost:2379'
        where GET /health answers {{"health":"true","reason":""}}
  --advertise-client-urls, --listen-peer-urls, --data-dir, --unsafe-no-fsync, every other flag
        accepted, no effect
  --version
        print etcd's version ({ETCD_VERSION})
"""


def http_response(status: str, content_type: str, body: bytes) -> bytes:
    """One HTTP/1.1 response, the connection closed after it."""
    return (f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n\r\n").encode() + body


#: What etcd v3.6.6 answers (status, type, body): its /health, and 404 for other paths.
HEALTH_RESPONSE = http_response("200 OK", "text/plain; charset=utf-8", b'{"health":"true","reason":""}')
NOT_FOUND_RESPONSE = http_response("404 Not Found", "text/plain; charset=utf-8", b"404 page not found\n")


def etcd_client_urls(argv: list[str]) -> list[str]:
    """etcd's ``--listen-client-urls`` (Go's flag package: one or two dashes, ``=value`` or the
    next argument), default ``http://localhost:2379``."""
    urls = "http://localhost:2379"
    args = iter(argv)
    for arg in args:
        name, has_value, value = arg.lstrip("-").partition("=")
        if name == "listen-client-urls":
            urls = value if has_value else next(args, urls)
    return [url for url in urls.split(",") if url]


def health_listeners(urls: list[str]) -> list[socket.socket]:
    listeners = []
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme != "http" or parts.port is None:
            raise ValueError(f"--listen-client-urls {url}: fakeapi's etcd listens on http://HOST:PORT")
        family = socket.AF_INET6 if ":" in (parts.hostname or "") else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((parts.hostname or "", parts.port))
        sock.listen(16)
        listeners.append(sock)
    return listeners


def answer_health(connection: socket.socket) -> None:
    """One request on ``connection``: 200 and etcd's body for ``GET /health``, 404 otherwise."""
    with connection:
        connection.settimeout(2.0)
        request = b""
        try:
            while b"\r\n\r\n" not in request and len(request) < 8192:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                request += chunk
            method, _, rest = request.partition(b" ")
            path = rest.split(b" ", 1)[0].split(b"?", 1)[0]
            connection.sendall(HEALTH_RESPONSE if (method, path) == (b"GET", b"/health") else NOT_FOUND_RESPONSE)
        except OSError:
            pass  # the client went away: nothing to answer


def run_etcd(argv: list[str]) -> int:
    """The ``etcd`` executable: a health responder until SIGTERM or SIGINT or its parent's death."""
    if {"-h", "--help", "-help"} & set(argv):
        sys.stdout.write(ETCD_HELP)
        return 0
    if {"--version", "-version"} & set(argv):
        print(f"etcd Version: {ETCD_VERSION}")
        return 0
    try:
        listeners = health_listeners(etcd_client_urls(argv))
    except (ValueError, OSError) as err:
        print(f"fakeapi etcd: {err}", file=sys.stderr)
        return 1
    stopping = threading.Event()
    # A signal also writes a byte to ``woken`` (the C handler's wakeup fd), which the select
    # waits on with the listeners: envtest's SIGTERM ends the wait at once, where the select
    # retried after Python's handler until its timeout (up to PARENT_POLL, on every stop).
    woken, wake = socket.socketpair()
    wake.setblocking(False)
    signal.set_wakeup_fd(wake.fileno())
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopping.set())
    watch_parent(stopping.set)
    while not stopping.is_set():
        readable, _, _ = select.select([*listeners, woken], [], [], PARENT_POLL)
        for listener in readable:
            if listener is not woken:
                answer_health(listener.accept()[0])
    for listener in listeners:
        listener.close()
    return 0


if __name__ == "__main__":
    sys.exit(run_etcd(sys.argv[1:]))
