"""Staged load shapes and the run clock.

A profile has one principal user class (the only one without ``fixed_count``) that ``-u``
counts, so ``make load USERS=..`` scales what the profile is about; its other roles have a
``fixed_count`` and are spawned first (Locust does so). ``StagedShape`` ramps the principal
users through ``stages``; roles that join later wait in ``on_start`` until their
``starts_at`` (``KubeUser``), since Locust's dispatcher cannot swap classes between stages
with exact counts.
"""

from __future__ import annotations

import time

import gevent
from locust import LoadTestShape, events
from locust.env import Environment

from . import layout

_run_started: float | None = None


@events.test_start.add_listener
def _mark_run_start(**_kwargs: object) -> None:
    global _run_started
    _run_started = time.monotonic()


def run_time(environment: Environment) -> float:
    """``--run-time`` in seconds (60 when none was given)."""
    return layout.run_time_seconds(environment) or 60.0


def sleep_until(environment: Environment, fraction: float) -> None:
    """Sleep until ``fraction`` of the run time has passed since the run started."""
    if fraction > 0:
        started = _run_started if _run_started is not None else time.monotonic()
        gevent.sleep(max(0.0, started + fraction * run_time(environment) - time.monotonic()))


class StagedShape(LoadTestShape):
    """Subclasses set ``stages``: ((end as a fraction of the run time, share of the ``-u``
    principal users running until then), ...). A stage's users start at once."""

    abstract = True
    use_common_options = True
    stages: tuple[tuple[float, float], ...] = ((1.0, 1.0),)

    def tick(self) -> tuple[int, float] | None:
        environment = self.runner.environment
        principal_users = environment.parsed_options.num_users or 1
        fixed = sum(c.fixed_count for c in environment.user_classes)
        elapsed = self.get_run_time()
        for end, share in self.stages:
            if elapsed < end * run_time(environment):
                users = fixed + max(1, round(principal_users * share))
                return users, float(users)
        return None
