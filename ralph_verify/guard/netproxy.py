"""``--sandbox-network hosts``: a proxy outside the sandbox that lets HTTP through only to the
listed hosts, resolving a name only once allowed and refusing private answers (DNS rebinding)."""

from __future__ import annotations

import contextlib
import re
import socket
import socketserver
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ralph_verify.errors import UsageError
from ralph_verify.guard.net import classify

DEFAULT_PORTS = (443, 80)
_NAME = re.compile(r"(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]"
                   r"([a-z0-9_-]{0,61}[a-z0-9_])?")
_HEAD_LIMIT = 64 * 1024
REFUSED = (b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
           b"X-Proxy-Error: blocked-by-allowlist\r\n\r\nralph-verify's sandbox: %s is not a "
           b"listed host (sandbox-hosts)\n")


@dataclass(frozen=True)
class HostRule:
    """One listed host: an exact name (or IP address) or ``*.`` and a domain (its
    subdomains, not the domain itself), and the ports allowed."""

    name: str
    ports: tuple[int, ...] = DEFAULT_PORTS

    def allows(self, host: str, port: int) -> bool:
        host = host.lower().rstrip(".")
        if port not in self.ports:
            return False
        if self.name.startswith("*."):
            return host.endswith(self.name[1:])
        return host == self.name


def parse_hosts(patterns: Iterable[str]) -> list[HostRule]:
    """The rules of ``sandbox-hosts``; a pattern that is not a host name, ``*.domain`` or an
    IP address, with an optional ``:port``, is a UsageError naming it."""
    rules = []
    for pattern in patterns:
        text = pattern.strip().lower()
        name, port = text, ""
        if text.startswith("["):  # [::1]:443
            name, _, port = text[1:].partition("]")
            port = port.removeprefix(":")
        elif text.count(":") == 1:
            name, port = text.split(":")
        name = name.rstrip(".")
        ip = _is_ip(name)
        if not (ip or _NAME.fullmatch(name)) or (port and not (
                port.isdigit() and 0 < int(port) < 65536)):
            raise UsageError(f"sandbox host {pattern!r}: write a host name ('api.example.com'), "
                             "'*.example.com' (its subdomains) or an IP address, optionally "
                             "with ':PORT' (443 and 80 otherwise)")
        rules.append(HostRule(name, (int(port),) if port else DEFAULT_PORTS))
    return rules


def _is_ip(text: str) -> bool:
    for family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            socket.inet_pton(family, text)
            return True
    return False


def pipe(one: socket.socket, other: socket.socket) -> None:
    """Copy both ways until both sides are done, then close both."""
    def copy(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    back = threading.Thread(target=copy, args=(other, one), daemon=True)
    back.start()
    copy(one, other)
    back.join()
    one.close()
    other.close()


class Proxy(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """The filtering proxy on the unix socket ``path``; ``with Proxy(...)`` serves it in a
    thread and stops it. ``on_refuse(host, port)`` is called for each refused request."""

    daemon_threads = True

    def __init__(self, path: str, rules: Iterable[HostRule],
                 on_refuse: Callable[[str, int], None]) -> None:
        self.rules, self.on_refuse = list(rules), on_refuse
        super().__init__(path, _Handler)

    def __enter__(self) -> Proxy:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        client: socket.socket = self.request
        server = self.server
        assert isinstance(server, Proxy)
        head = b""
        while b"\r\n\r\n" not in head and len(head) < _HEAD_LIMIT:
            if not (data := client.recv(65536)):
                return
            head += data
        block, _, body = head.partition(b"\r\n\r\n")
        line, *headers = block.split(b"\r\n")
        target = _target(line)
        if target is None:
            client.sendall(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
            return
        host, port, request_line = target
        if not any(rule.allows(host, port) for rule in server.rules):
            server.on_refuse(host, port)
            client.sendall(REFUSED % f"{host}:{port}".encode())
            return
        try:
            address = _checked(host, port)
            if address is None:
                server.on_refuse(host, port)
                client.sendall(REFUSED.replace(b"is not a listed host", b"resolves to a "
                                               b"private address") % f"{host}:{port}".encode())
                return
            upstream = socket.create_connection(address, timeout=30)
        except OSError as exc:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n%s\n"
                           % str(exc).encode())
            return
        upstream.settimeout(None)
        if request_line is None:
            client.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            upstream.sendall(body)
        else:  # one request per connection: a second one could name another host
            kept = [h for h in headers if not h.lower().startswith(
                (b"connection:", b"proxy-connection:", b"keep-alive:"))]
            upstream.sendall(b"\r\n".join([request_line, *kept, b"Connection: close", b"",
                                            body]))
        pipe(client, upstream)


def _checked(host: str, port: int) -> tuple[str, int] | None:
    """Where to connect for a listed ``host``; None when a name resolves to this machine, a
    private range or the metadata address."""
    if _is_ip(host):
        return host, port
    found = [str(info[4][0]) for info in socket.getaddrinfo(host, port,
                                                            type=socket.SOCK_STREAM)]
    return None if not found or any(classify(a) for a in found) else (found[0], port)


def _target(line: bytes) -> tuple[str, int, bytes | None] | None:
    """``(host, port, None)`` of ``CONNECT host:port``, ``(host, port, origin-form request
    line)`` of ``GET http://host[:port]/path``; None for anything else."""
    match = re.fullmatch(rb"CONNECT (\[[0-9a-fA-F:.]+\]|[^\s:/]+):(\d{1,5}) HTTP/1\.[01]", line)
    if match:
        return match[1].decode().strip("[]"), int(match[2]), None
    match = re.fullmatch(rb"([A-Z]+) http://(\[[0-9a-fA-F:.]+\]|[^\s:/?#@]+)(?::(\d{1,5}))?"
                         rb"([/?]\S*)? (HTTP/1\.[01])", line)
    if match is None:
        return None
    path = match[4] or b"/"
    path = path if path.startswith(b"/") else b"/" + path
    return (match[2].decode().strip("[]"), int(match[3] or 80),
            b"%s %s %s" % (match[1], path, match[5]))
