"""The child processes of a fakeapi command or test: the real components, workers, servers."""

from __future__ import annotations

import subprocess
from typing import Any


def stop_process(process: subprocess.Popen[Any], grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL if it has not exited within ``grace`` seconds; waits for its end."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
