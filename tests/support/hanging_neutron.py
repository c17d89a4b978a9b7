"""A Neutron stand-in for crash tests: it answers reads and never answers a change, so an
attach hangs after metalwire recorded it as pending, where the test kills the process."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.server import free_port


class HangingNeutron:
    """A Neutron stand-in that answers reads and never answers a change: it hangs an attach
    after metalwire recorded it as pending and before Neutron was changed."""

    def __init__(self, answered_puts: int = 0, answer_on_release: bool = False) -> None:
        """``answered_puts``: how many changes are answered (as done) before one hangs;
        ``answer_on_release``: a change held is answered as done once :attr:`release` is
        set, and ports are ACTIVE from then on (otherwise its connection is closed
        unanswered)."""
        self.release = threading.Event()
        self.put_seen = threading.Event()
        # every change answered, in order: (port id, the change's body)
        self.changes: list[tuple[str, dict[str, object]]] = []
        self.answer_on_release = answer_on_release
        outer = self
        release, put_seen = self.release, self.put_seen
        answered = [answered_puts]

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return None

            def _answer(self, body: dict[str, object]) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                kind, _, ident = self.path.removeprefix("/v2.0/").partition("/")
                if kind == "ports":
                    bound = outer.answer_on_release and release.is_set()
                    body = {
                        "port": {
                            "id": ident,
                            "network_id": "net-1",
                            "status": "ACTIVE" if bound else "DOWN",
                            "mac_address": "fa:16:3e:00:00:01",
                        }
                    }
                else:
                    body = {"network": {"id": ident, "name": "net-1"}}
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_PUT(self) -> None:
                if answered[0] > 0:
                    answered[0] -= 1
                    self._answer_change()
                    return
                put_seen.set()
                if release.wait(120) and outer.answer_on_release:
                    self._answer_change()

            def _answer_change(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                change = json.loads(self.rfile.read(length) or b"{}").get("port", {})
                ident = self.path.removeprefix("/v2.0/ports/")
                port = {"id": ident, "network_id": "net-1", "status": "DOWN",
                        "mac_address": "fa:16:3e:00:00:01", **change}  # fmt: skip
                outer.changes.append((ident, change))
                self._answer({"port": port})

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
