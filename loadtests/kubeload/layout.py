"""What every Locust worker process learns from the master when the test starts: how many
workers the run has and its run time.

With ``--processes N`` (and with workers on other hosts) each worker process runs its share
of the users, and Locust gives a worker neither the run time (forked workers have their
``--run-time`` cleared) nor the number of workers. Roles that join at a fraction of the run
need the first (``shape.sleep_until``); roles split across the run (each node's kubelet
exactly once; one pod write rate for all churners together) need this worker's index and the
number of workers. The index comes with the master's ack; the master announces the rest when
the test starts, before it sends any spawn message on the same ordered connection, so a user
has it all in its ``on_start``. Locust hands users of a class to workers in turn (round
robin), which is what ``slot``'s users rely on to split work without overlaps. A standalone
run is worker 0 of 1 and has its own options.
"""

from __future__ import annotations

from typing import Any

from locust import events
from locust.env import Environment
from locust.runners import MasterRunner, WorkerRunner

_MESSAGE = "fakeapi-load-layout"
_announced: dict[str, Any] = {"workers": 1, "run_time": None}


def slot(environment: Environment) -> tuple[int, int]:
    """(this worker's index, the number of workers)."""
    runner = environment.runner
    if isinstance(runner, WorkerRunner):
        return max(runner.worker_index, 0), _announced["workers"]
    return 0, 1


def run_time_seconds(environment: Environment) -> float | None:
    """``--run-time`` in seconds, on the master, a standalone runner or a worker; None if unset."""
    options = environment.parsed_options
    if options is not None and options.run_time:
        return float(options.run_time)
    return _announced["run_time"]


def _receive(environment: Environment, msg: Any, **_kwargs: Any) -> None:
    _announced.update(msg.data)


@events.init.add_listener
def _wire(environment: Environment, **_kwargs: Any) -> None:
    runner = environment.runner
    if isinstance(runner, MasterRunner):
        def announce(**_kwargs: Any) -> None:
            runner.send_message(_MESSAGE, {"workers": max(runner.worker_count, 1),
                                           "run_time": run_time_seconds(environment)})

        environment.events.test_start.add_listener(announce)
    elif isinstance(runner, WorkerRunner):
        runner.register_message(_MESSAGE, _receive)
