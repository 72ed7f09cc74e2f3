"""``fakeapi cluster``: fakeapi with the real kube-controller-manager, kube-scheduler and kwok's
fake nodes, until Ctrl-C."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from ..cluster import cluster
from ..cluster.cluster import COMPONENTS, DEFAULT_STAGES, Cluster, ClusterConfig
from ..cluster.control_plane import ControlPlaneError


def add_parser(sub: Any) -> None:
    c = sub.add_parser("cluster", help="fakeapi with the real kube-controller-manager and kube-scheduler and kwok's "
                                       "fake nodes; runs until Ctrl-C",
                       description=cluster.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(c)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nodes", type=int, default=100, help="fake nodes to create (default 100)")
    parser.add_argument("--node-template", type=Path, metavar="FILE",
                        help="a Node manifest the nodes are made from; its metadata.name is their name prefix "
                             "(default: kwok-node, 32 CPUs, 256Gi, 110 pods)")
    parser.add_argument("--with", dest="components", default=",".join(COMPONENTS),
                        help=f"the components to run besides fakeapi, comma-separated (default {','.join(COMPONENTS)})")
    parser.add_argument("--stages", default=",".join(DEFAULT_STAGES),
                        help="kwok's stages, comma-separated: its stage sets (fast = node/fast + "
                             "node/heartbeat-with-lease + pod/fast; node/heartbeat-with-lease,node/fast,pod/general "
                             "for pods that take seconds to start; node/chaos, pod/chaos for failures) "
                             "or YAML files of Stage objects (default fast)")
    parser.add_argument("--port", type=int, default=6443, help="fakeapi's port (default 6443; 0 picks a free one)")
    parser.add_argument("--kubeconfig", type=Path, default=Path("kubeconfig"), help="where to write the kubeconfig")
    parser.add_argument("--logs", type=Path, default=Path("cluster-logs"),
                        help="the folder of the components' logs and state (default ./cluster-logs)")
    parser.add_argument("--lease-parallelism", type=int, default=0,
                        help="kwok's node lease renewals in flight (default kwok's, 4)")
    parser.add_argument("--client-qps", type=float, default=0,
                        help="the controller manager's and scheduler's --kube-api-qps (burst twice that); "
                             "default kube's 20/50, which make 1,000 nodes take ~100 s to lose their not-ready taint")
    for component in ("fakeapi", "kcm", "scheduler", "kwok"):
        parser.add_argument(f"--{component}-flag", dest=f"{component}_args", action="append", default=[],
                            metavar="FLAG", help=f"an extra flag for {component}, repeatable (--{component}-flag=--v=2)")


def config_from(args: argparse.Namespace) -> ClusterConfig:
    template = None
    if args.node_template is not None:
        template = yaml.safe_load(args.node_template.read_text())
    return ClusterConfig(
        nodes=args.nodes, node_template=template, components=tuple(filter(None, args.components.split(","))),
        stages=tuple(filter(None, args.stages.split(","))), port=args.port, kubeconfig=args.kubeconfig,
        logs=args.logs, fakeapi_args=tuple(args.fakeapi_args), kcm_args=tuple(args.kcm_args),
        scheduler_args=tuple(args.scheduler_args), kwok_args=tuple(args.kwok_args),
        lease_parallelism=args.lease_parallelism, client_qps=args.client_qps,
    )


def run(args: argparse.Namespace) -> int:
    """``fakeapi cluster``: start, print the ready line, run until SIGINT/SIGTERM or until a
    component exits, then stop everything started, all at once. A second SIGINT/SIGTERM during
    the stop kills what is still running at once (``Cluster.stop``)."""
    def interrupted(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    # SIGINT too: a process started in the background by a shell without job control inherits
    # SIGINT ignored, and would not hear the Ctrl-C it is told to stop on.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, interrupted)
    cluster: Cluster | None = None
    try:
        cluster = Cluster(config_from(args))
        try:
            cluster.start()
            print(cluster.summary(), flush=True)
            while True:
                cluster.check_running()
                time.sleep(1)
        except KeyboardInterrupt:
            if cluster.components:  # not stopped yet (an interrupted start stops what it started)
                print("fakeapi cluster: stopping (Ctrl-C again kills at once)", file=sys.stderr, flush=True)
            raise
        finally:
            cluster.stop()
    except KeyboardInterrupt:
        print(cluster.stopped_summary() if cluster else "fakeapi cluster: stopped", file=sys.stderr, flush=True)
        return 0
    except (ValueError, OSError, ControlPlaneError) as err:
        print(f"fakeapi cluster: {err}", file=sys.stderr, flush=True)
        return 1
