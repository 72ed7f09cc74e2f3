"""A small aggregated API server for tests: HTTPS on 127.0.0.1 (a throwaway CA's certificate, for
``127.0.0.1`` and ``<service>.<namespace>.svc``) serving ``flunders`` of any group under
``/apis/<group>/<version>``, and recording what it received.

* ``/apis``: its ``APIGroupDiscoveryList`` (``GROUP`` / ``VERSION``) when asked for one and
  ``aggregated`` is on, else 406 (a server without aggregated discovery);
  ``/apis/<group>/<version>``: the legacy ``APIResourceList``.
* ``GET``, ``POST`` ... of ``.../flunders[/<name>]``: an ``echo`` of the request (method, path,
  query, the headers but those that vary by connection, the body, the common name of the
  client's certificate if it presented one), 201 for a POST, with ``ANSWER_HEADERS``.
* Any request with ``slow=true`` in its query is answered after ``SLOW_SECONDS``.
* An upgrade request (``Connection: Upgrade``): ``101 Switching Protocols`` with its ``Upgrade``,
  then a line of JSON, the echo of the request, then every byte the client sends back to it
  until the client ends; with ``refuse=true`` in its query a 403 (a JSON body), with
  ``plain=true`` a 200 that does not switch.
* Any request with ``redirect=true`` in its query: a 302 to ``/elsewhere``.
* ``GET ...?watch=true``: a watch, one ADDED event, then (once ``release`` is set) a second one,
  and the end of the stream; ``watch_cut`` is set instead when the client closes the
  connection meanwhile.

Every answer closes its connection, so that once ``stop``ped the backend refuses connections
(a kept-alive one would still be served by its thread).

``requests`` lists each (method, path, headers) received. With ``client_ca_pem`` (an
authenticating proxy's CA, as an aggregated server reads it from
``extension-apiserver-authentication``) the server accepts only clients with a certificate that
CA signed."""

from __future__ import annotations

import json
import select
import threading
import time
from typing import Any

from https_server import QuietHandler, https_server

GROUP = "wardle.aggregation.kasdiff.example.com"
#: How long a request with ``slow=true`` in its query waits before its answer: longer than the
#: proxy's 5 s for a discovery request.
SLOW_SECONDS = 6.0
VERSION = "v1alpha1"
#: Headers of every echo's answer: one of the server's own, a CORS one (which kube's proxy
#: removes), and a Cache-Control (which kube's adds to its own).
ANSWER_HEADERS = {"X-Flunder": "yes", "Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=5"}
#: Headers the echo leaves out: the connection's, and what the servers' HTTP clients add.
_UNECHOED = frozenset({"host", "content-length", "connection", "accept-encoding", "transfer-encoding"})

_RESOURCES = [
    {"name": "flunders", "singularName": "flunder", "namespaced": True, "kind": "Flunder",
     "verbs": ["create", "delete", "get", "list", "watch"], "shortNames": ["fl"], "categories": ["wardle"]},
    {"name": "flunders/status", "singularName": "", "namespaced": True, "kind": "Flunder", "verbs": ["get", "update"]},
]


def _aggregated_document(group: str) -> dict[str, Any]:
    return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": [{
        "metadata": {"name": group}, "versions": [{"version": VERSION, "resources": [{
            "resource": "flunders", "responseKind": {"group": group, "version": VERSION, "kind": "Flunder"},
            "scope": "Namespaced", "singularResource": "flunder", "verbs": _RESOURCES[0]["verbs"],
            "shortNames": ["fl"], "categories": ["wardle"],
            "subresources": [{"subresource": "status", "verbs": ["get", "update"],
                              "responseKind": {"group": group, "version": VERSION, "kind": "Flunder"}}],
        }], "freshness": "Current"}]}]}


class AggregatedBackend:
    def __init__(self, group: str = GROUP, aggregated: bool = True, service_name: str = "",
                 client_ca_pem: str = "") -> None:
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.release = threading.Event()
        self.watch_cut = threading.Event()
        backend = self

        class Handler(QuietHandler):
            def _echo(self) -> dict[str, Any]:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                path, _, query = self.path.partition("?")
                headers: dict[str, list[str]] = {}
                for name, value in self.headers.items():
                    if name.lower() not in _UNECHOED:
                        headers.setdefault(name.lower(), []).append(value)
                echo = {"method": self.command, "path": path, "query": query, "headers": headers, "body": body}
                peer = self.connection.getpeercert()
                if peer:
                    echo["client"] = dict(pair[0] for pair in peer["subject"])["commonName"]
                return echo

            def _answer(self) -> None:
                backend.requests.append((self.command, self.path, dict(self.headers)))
                path, _, query = self.path.partition("?")
                if "slow=true" in query.split("&"):
                    time.sleep(SLOW_SECONDS)
                if path == "/apis":
                    if aggregated and "as=APIGroupDiscoveryList" in self.headers.get("Accept", ""):
                        self.send(200, json.dumps(_aggregated_document(group)).encode(),
                                  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
                    else:
                        self.send(406, b'{"kind":"Status"}', "application/json")
                    return
                if path == f"/apis/{group}/{VERSION}":
                    self.send(200, json.dumps({"kind": "APIResourceList", "apiVersion": "v1",
                                               "groupVersion": f"{group}/{VERSION}",
                                               "resources": _RESOURCES}).encode(), "application/json")
                    return
                if "upgrade" in self.headers.get("Connection", "").lower():
                    self._upgrade(query.split("&"))
                    return
                if "redirect=true" in query.split("&"):
                    self.send_response(302)
                    self.send_header("Location", "/elsewhere")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if "watch=true" in self.path:
                    self._watch()
                    return
                echo = {"kind": "Flunder", "apiVersion": f"{group}/{VERSION}", "echo": self._echo()}
                body = json.dumps(echo).encode()
                self.send_response(201 if self.command == "POST" else 200)
                for name, value in ANSWER_HEADERS.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def end_headers(self) -> None:
                # No connection kept alive: once stopped, the backend refuses the next request.
                self.send_header("Connection", "close")
                super().end_headers()

            def _upgrade(self, query: list[str]) -> None:
                if "refuse=true" in query or "plain=true" in query:
                    self.send(403 if "refuse=true" in query else 200, b'{"refused":true}', "application/json")
                    return
                protocol = self.headers.get("Upgrade", "")
                self.wfile.write(f"HTTP/1.1 101 Switching Protocols\r\nUpgrade: {protocol}\r\n"
                                 f"Connection: Upgrade\r\n\r\n".encode())
                self.wfile.write(json.dumps(self._echo()).encode() + b"\n")
                while data := self.rfile.read1(65536):
                    self.wfile.write(data)
                self.close_connection = True

            def _watch(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for number in (1, 2):
                    flunder = {"kind": "Flunder", "apiVersion": f"{group}/{VERSION}",
                               "metadata": {"name": f"f{number}"}}
                    line = json.dumps({"type": "ADDED", "object": flunder}) + "\n"
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line.encode()))
                    self.wfile.flush()
                    if number == 1 and not self._released():
                        backend.watch_cut.set()
                        return
                self.wfile.write(b"0\r\n\r\n")

            def _released(self) -> bool:
                """Wait for ``release``: True, or False once the client closed the connection."""
                deadline = time.monotonic() + 30
                while not backend.release.wait(0.05):
                    if select.select([self.connection], [], [], 0)[0]:
                        try:
                            if not self.connection.recv(1):
                                return False
                        except OSError:
                            return False
                    if time.monotonic() > deadline:
                        return False
                return True

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer  # noqa: N815 - http.server's names

        hosts = ["127.0.0.1", *([service_name] if service_name else [])]
        self._httpd, self.ca = https_server(Handler, "aggregated-test-ca", hosts, client_ca_pem=client_ca_pem)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> AggregatedBackend:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __exit__(self, *exc: object) -> None:
        if self._thread.is_alive():
            self.stop()
