"""The listening sockets of ``fakeapi serve``: its own, and the shared port of ``--workers``."""

from __future__ import annotations

import socket


def bound_socket(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """A TCP socket bound to (host, port), not yet listening; with ``reuse_port`` one of several
    on that port (SO_REUSEPORT: the supervisor's, which holds it, and each worker's)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def listening_socket(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """``bound_socket``, listening."""
    sock = bound_socket(host, port, reuse_port=reuse_port)
    sock.listen(socket.SOMAXCONN)
    return sock
