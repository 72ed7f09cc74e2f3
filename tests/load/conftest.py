"""Load tests drive Locust as a subprocess (``loadtests/run.py``): importing Locust here would
gevent-patch the pytest process. ``loadtests/`` goes on sys.path for its Locust-free modules."""

from __future__ import annotations

import sys
from pathlib import Path

LOADTESTS = Path(__file__).resolve().parents[2] / "loadtests"
sys.path.insert(0, str(LOADTESTS))
