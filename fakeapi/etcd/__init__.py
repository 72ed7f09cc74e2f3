"""etcd's v3 gRPC API over ``fakeapi.store``: ``fakeapi etcd`` and ``fakeapi serve
--etcd-listen-client-urls``. It sits directly on the store and knows nothing of Kubernetes.

server.py (``EtcdServer``: the services, headers, errors, size limits), watch.py (one Watch
stream), convert.py (protobuf messages <-> the store's requests and answers), pb/ (stubs
generated from etcd v3.6.6's protos by ``scripts/gen-etcd-protos.py``; committed).
"""

from .server import EtcdServer, parse_listen_url

__all__ = ["EtcdServer", "parse_listen_url"]
