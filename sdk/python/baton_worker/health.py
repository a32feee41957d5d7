"""The health endpoint: 200 while connected and consuming, 503 otherwise (a readiness or liveness probe)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


class HealthServer:
    """Answers every GET: ``200 UP`` when ``healthy()``, else ``503 DOWN``. Port 0 takes a free one (``port``)."""

    def __init__(self, port: int, healthy: Callable[[], bool], host: str = "0.0.0.0"):
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the name http.server calls
                up = healthy()
                text = b"UP\n" if up else b"DOWN\n"
                self.send_response(200 if up else 503)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

            def log_message(self, *args):  # probes every few seconds are not worth a log line
                pass

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="baton-health", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
