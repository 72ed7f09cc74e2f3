"""etcd's errors, with etcd's exact message strings.

Clients map errors back by message text (kube-apiserver compares ``err == rpctypes.ErrCompacted``;
the Go client rebuilds typed errors from the gRPC status message), so the strings below are copied
verbatim from etcd-io/etcd ``api/v3rpc/rpctypes/error.go``. ``grpc_code`` is the canonical gRPC status
code name the error travels with, for any wire adapter that needs it.
"""

from __future__ import annotations


class EtcdError(Exception):
    """Base of every error the store raises; ``str(err)`` is etcd's message."""

    message: str = "etcdserver: unknown error"
    grpc_code: str = "Unknown"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.message)


class ErrCompacted(EtcdError):
    message = "etcdserver: mvcc: required revision has been compacted"
    grpc_code = "OutOfRange"


class ErrFutureRev(EtcdError):
    message = "etcdserver: mvcc: required revision is a future revision"
    grpc_code = "OutOfRange"


class ErrEmptyKey(EtcdError):
    message = "etcdserver: key is not provided"
    grpc_code = "InvalidArgument"


class ErrKeyNotFound(EtcdError):
    message = "etcdserver: key not found"
    grpc_code = "InvalidArgument"


class ErrValueProvided(EtcdError):
    message = "etcdserver: value is provided"
    grpc_code = "InvalidArgument"


class ErrLeaseProvided(EtcdError):
    message = "etcdserver: lease is provided"
    grpc_code = "InvalidArgument"


class ErrDuplicateKey(EtcdError):
    message = "etcdserver: duplicate key given in txn request"
    grpc_code = "InvalidArgument"


class ErrTooManyOps(EtcdError):
    message = "etcdserver: too many operations in txn request"
    grpc_code = "InvalidArgument"


class ErrLeaseNotFound(EtcdError):
    message = "etcdserver: requested lease not found"
    grpc_code = "NotFound"


class ErrLeaseExist(EtcdError):
    message = "etcdserver: lease already exists"
    grpc_code = "FailedPrecondition"


class ErrLeaseTTLTooLarge(EtcdError):
    message = "etcdserver: too large lease TTL"
    grpc_code = "OutOfRange"


class ErrRequestTooLarge(EtcdError):
    message = "etcdserver: request is too large"
    grpc_code = "InvalidArgument"


class ErrWatcherDuplicateID(EtcdError):
    # mvcc.ErrWatcherDuplicateID; the gRPC layer reports it as a canceled watch with this reason.
    message = "mvcc: duplicate watch ID provided on the WatchStream"
    grpc_code = "InvalidArgument"


class ErrEmptyWatcherRange(EtcdError):
    # mvcc.ErrEmptyWatcherRange: a watch whose range_end is not after its key (b"\0", "to the
    # end", excepted). The gRPC layer answers created+canceled, watch_id -1, with this reason.
    message = "mvcc: watcher range is empty"
    grpc_code = "InvalidArgument"
