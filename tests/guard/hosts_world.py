"""A throwaway world for the tests of ``--sandbox-network hosts``: run as root under
``unshare --net --mount --pid --fork --mount-proc``, then ``python hosts_world.py -- COMMAND``.

Only loopback is up, so no packet leaves the machine. ``/etc/hosts`` (bound over, in this
mount namespace only) maps the test's host names to 198.51.100.7 (a documentation address
put on this namespace's loopback: not private, so the proxy's rebinding check lets it
through) and ``rebind.example.test`` to 127.0.0.1; HTTP listeners on both, on ports
80, 443 (plain HTTP, for CONNECT tunnels) and 8080 answer ``hello HOST PORT`` and record the
``Host`` they were asked for; ``/etc/resolv.conf`` points at a DNS listener on 127.0.0.1:53
that records every name asked and answers "no such name". A control query and a direct
connection, both from outside the sandbox, prove the listeners see what reaches them. Prints
JSON: the command's ``returncode``/``stdout``/``stderr``, ``hits`` (``host:port`` per
request), ``dns`` (names asked), ``control_dns``, ``direct_outside``.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NAMES = ("api.example.test", "evil.example.test", "secret-data.evil.test",
         "deep.cdn.example.test", "cdn.example.test")
PUBLIC = "198.51.100.7"
hits: list[str] = []
dns: list[str] = []


class Answer(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        host = self.headers.get("Host", "")
        port = self.server.server_address[1]  # type: ignore[index] # an AF_INET server
        hits.append(f"{host}@{port}")
        body = f"hello {host} {port}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _dns(server: socket.socket) -> None:
    while True:
        data, peer = server.recvfrom(4096)
        labels, at = [], 12
        while at < len(data) and data[at]:
            labels.append(data[at + 1:at + 1 + data[at]].decode(errors="replace"))
            at += 1 + data[at]
        dns.append(".".join(labels))
        server.sendto(data[:2] + b"\x81\x83" + data[4:6] + bytes(6) + data[12:], peer)


def main() -> int:
    command = sys.argv[sys.argv.index("--") + 1:]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", f"{PUBLIC}/32", "dev", "lo"], check=True)
    for target, text in (("/etc/hosts", f"127.0.0.1 localhost rebind.example.test\n"
                                        f"{PUBLIC} " + " ".join(NAMES) + "\n"),
                         ("/etc/resolv.conf", "nameserver 127.0.0.1\noptions attempts:1\n")):
        with tempfile.NamedTemporaryFile("w", delete=False, suffix=".world") as handle:
            handle.write(text)
        subprocess.run(["mount", "--bind", handle.name, target], check=True)
    for address in ("127.0.0.1", PUBLIC):
        for port in (80, 443, 8080):
            server = ThreadingHTTPServer((address, port), Answer)
            threading.Thread(target=server.serve_forever, daemon=True).start()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 53))
    threading.Thread(target=_dns, args=(udp,), daemon=True).start()
    with contextlib.suppress(OSError):
        socket.getaddrinfo("control.evil.test", 80)
    control_dns = "control.evil.test" in dns
    with socket.create_connection(("127.0.0.1", 80), timeout=5) as direct:
        direct.sendall(b"GET / HTTP/1.0\r\nHost: direct\r\n\r\n")
        direct_outside = direct.recv(100).startswith(b"HTTP/1.0 200")
    hits.clear()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    print(json.dumps({"returncode": done.returncode, "stdout": done.stdout,
                      "stderr": done.stderr, "hits": hits, "dns": dns,
                      "control_dns": control_dns, "direct_outside": direct_outside}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
