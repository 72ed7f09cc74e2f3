"""The ``objects`` each admission test reads and writes through (``admission_objects``)."""

from __future__ import annotations

import pytest
from admission_objects import Objects


@pytest.fixture
def objects() -> Objects:
    return Objects()
