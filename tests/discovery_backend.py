"""An aggregated API server's discovery endpoint for tests: HTTPS on 127.0.0.1 (``port``: one
chosen, or a free one) with a certificate of a throwaway CA (the availability check does not
verify it), answering ``GET /apis/<group>/<version>`` (and ``/api/v1``) with 200 when the group
starts with ``passed.`` (or is the legacy one), after ``SLOW_SECONDS`` when it starts with
``slow.``, and 404 otherwise. ``requests`` records each (path, headers) received."""

from __future__ import annotations

import threading
import time

from https_server import QuietHandler, https_server

#: Longer than the check's 5 s client timeout.
SLOW_SECONDS = 7.0


class DiscoveryBackend:
    def __init__(self, port: int = 0) -> None:
        self.requests: list[tuple[str, dict[str, str]]] = []
        backend = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                backend.requests.append((self.path, dict(self.headers)))
                group = self.path.split("/")[2] if self.path.startswith("/apis/") else ""
                if group.startswith("slow."):
                    time.sleep(SLOW_SECONDS)
                self.send(200 if self.path == "/api/v1" or group.startswith("passed.") else 404, b"{}",
                          "application/json")

        self._httpd, _ = https_server(Handler, "discovery-test-ca", ["127.0.0.1"], port)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> DiscoveryBackend:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
