"""The child processes of a fakeapi command or test: the real components, workers, servers.

Every child is started by ``spawn`` and stopped by ``stop_all``, which hold two promises:

- No orphans: a child dies with the process that spawned it, however that process ends (a
  SIGKILL included). On Linux the kernel sends the child SIGKILL when its parent dies
  (``prctl(PR_SET_PDEATHSIG)``, kept across the child's ``exec``). The chain holds link by link:
  fakeapi's own children that spawn theirs (``fakeapi serve --workers``) spawn them here too,
  and a binary that forks its own (ginkgo's CLI, running ``e2e.test`` on several processes) is
  given, in place of the program it runs, one that sets the signal and execs it (``python -m
  fakeapi.cluster.processes PROGRAM ARGS...``). Off Linux there is no such signal: children are
  stopped by a parent that exits any other way than by SIGKILL.
- One stop for all: SIGTERM to every process at once, one shared grace, then SIGKILL to the
  rest. A stop takes the slowest process's time, not the sum of theirs; an interrupt (a second
  Ctrl-C) while it waits kills the rest at once.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

#: How long a stop waits, by default, for processes to exit on SIGTERM before it kills them.
STOP_GRACE = 10.0
#: How often a stop looks for ended processes: the resolution of the seconds it reports.
_POLL_INTERVAL = 0.02
_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` on Linux, else None."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


# Resolved once, in the parent: a child, the copy of a possibly threaded process, only calls it.
_PRCTL = _prctl()


def _die_with(prctl: Callable[..., int], parent: int) -> None:
    """This process gets SIGKILL when ``parent``, its parent, dies (or now, if it has already)."""
    if prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"prctl(PR_SET_PDEATHSIG): {os.strerror(errno)}")
    # The parent died before the prctl: no signal will come, so die now.
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


def _popen(argv: Sequence[str], options: dict[str, Any]) -> subprocess.Popen[Any]:
    if _PRCTL is None:
        return subprocess.Popen(list(argv), **options)
    prctl, parent = _PRCTL, os.getpid()
    # In the child, between fork and exec.
    return subprocess.Popen(list(argv), preexec_fn=lambda: _die_with(prctl, parent), **options)


def exec_dying_with_parent(argv: Sequence[str]) -> NoReturn:
    """Become ``argv`` (exec, same process) as a process that dies with its parent: what a binary
    that forks runs in place of its program, so that its children die with it."""
    if _PRCTL is not None:
        _die_with(_PRCTL, os.getppid())
    os.execv(argv[0], list(argv))


class _Spawner:
    """One thread that lives as long as the process and forks for every thread but the main one.

    The kernel's "parent" of PR_SET_PDEATHSIG is the thread that forked, not the process: a
    child forked by a pool's thread would be killed when that thread ends. The main thread ends
    with the process; this daemon thread too (it is never joined and never returns)."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue[tuple[Sequence[str], dict[str, Any],
                                                concurrent.futures.Future[subprocess.Popen[Any]]]] = queue.SimpleQueue()
        self._started = False
        self._lock = threading.Lock()

    def spawn(self, argv: Sequence[str], options: dict[str, Any]) -> subprocess.Popen[Any]:
        with self._lock:
            if not self._started:
                threading.Thread(target=self._serve, name="fakeapi-spawner", daemon=True).start()
                self._started = True
        future: concurrent.futures.Future[subprocess.Popen[Any]] = concurrent.futures.Future()
        self._requests.put((argv, options, future))
        return future.result()

    def _serve(self) -> None:
        while True:
            argv, options, future = self._requests.get()
            try:
                future.set_result(_popen(argv, options))
            except BaseException as err:  # the caller's to raise, in the caller's thread
                future.set_exception(err)


_SPAWNER = _Spawner()


def _forget_spawner() -> None:
    """In a forked copy of this process: the spawner thread was not copied, its queue's lock may
    have been held; the copy starts a spawner of its own when it needs one."""
    global _SPAWNER
    _SPAWNER = _Spawner()


os.register_at_fork(after_in_child=_forget_spawner)


def spawn(argv: Sequence[str], **options: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(argv, **options)`` for a child that dies with this process (see the
    module docstring), from any thread."""
    if _PRCTL is None or threading.current_thread() is threading.main_thread():
        return _popen(argv, options)
    return _SPAWNER.spawn(argv, options)


def stop_all(processes: Sequence[subprocess.Popen[Any]], grace: float = STOP_GRACE) -> list[float]:
    """Stop ``processes`` at once: SIGTERM to each, then SIGKILL to those still running after
    ``grace`` seconds (one grace for all of them). Returns once every one has ended, with the
    seconds each took from the SIGTERM (0 for one that had ended already).

    An interrupt while it waits (KeyboardInterrupt: a second Ctrl-C) kills the rest at once,
    then propagates."""
    started = time.monotonic()
    took: dict[int, float] = {}
    for index, process in enumerate(processes):
        if process.poll() is None:
            process.terminate()
        else:
            took[index] = 0.0
    deadline = started + grace
    try:
        while len(took) < len(processes) and time.monotonic() < deadline:
            time.sleep(_POLL_INTERVAL)
            now = time.monotonic()
            for index, process in enumerate(processes):
                if index not in took and process.poll() is not None:
                    took[index] = now - started
    finally:
        for index, process in enumerate(processes):
            if index not in took:
                process.kill()  # a no-op for one that has just ended
        for index, process in enumerate(processes):
            process.wait()
            took.setdefault(index, time.monotonic() - started)
    return [took[index] for index in range(len(processes))]


if __name__ == "__main__":
    exec_dying_with_parent(sys.argv[1:])
