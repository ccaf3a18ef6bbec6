"""A scripted model server: real agent CLIs run offline against a list of canned replies, on
127.0.0.1, in each model API's wire format (:mod:`.wire`). Every model request takes the next
step of the script (:mod:`.script`), ``{cwd}`` in a reply is the agent's working directory,
and every request is recorded."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ralph_verify.testing import wire
from ralph_verify.testing.script import (
    Fail,
    RecordedRequest,
    Reply,
    Step,
    ToolCall,
    aider_whole,
    claude_bash,
    claude_edit,
    claude_read,
    claude_write,
    codex_exec,
    text,
    tool,
)

__all__ = [
    "Fail", "ModelServer", "RecordedRequest", "Reply", "Step", "ToolCall", "aider_whole",
    "claude_bash", "claude_edit", "claude_read", "claude_write", "codex_exec", "model_server",
    "text", "tool",
]

LOOPBACK = "127.0.0.1"
EXHAUSTED_TEXT = "no more scripted steps"
class ModelServer:
    """The scripted server. ``start()``/``stop()``, or use it as a context manager."""

    def __init__(self, steps: list[Step] | None = None, *, cwd: str | Path | None = None,
                 host: str = LOOPBACK, port: int = 0) -> None:
        if host != LOOPBACK:
            raise ValueError(f"the scripted model server binds only to {LOOPBACK}, not {host!r}")
        self.host = host
        self.port = port
        self.cwd = str(cwd) if cwd is not None else None
        self._steps: list[Step] = list(steps or [])
        self._next = 0
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- script and log ------------------------------------------------------------------

    def script(self, *steps: Step) -> ModelServer:
        """Append steps to the script."""
        with self._lock:
            self._steps.extend(steps)
        return self

    @property
    def steps_left(self) -> int:
        with self._lock:
            return len(self._steps) - self._next

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request so far, model requests and others, in arrival order."""
        with self._lock:
            return list(self._requests)

    def model_requests(self, api: str | None = None) -> list[RecordedRequest]:
        """The requests that asked the model for a turn (of one ``api`` if given)."""
        return [r for r in self.requests if r.api is not None and (api is None or r.api == api)]

    @property
    def errors(self) -> list[RecordedRequest]:
        """Requests the script could not answer (exhausted, bad JSON, unknown path)."""
        return [r for r in self.requests if r.error is not None]

    # --- lifecycle -----------------------------------------------------------------------

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no ``/v1``)."""
        if self._httpd is None:
            raise RuntimeError("the model server is not started")
        return f"http://{self.host}:{self._httpd.server_address[1]}"

    def start(self) -> ModelServer:
        self._httpd = _HTTPServer((self.host, self.port), _Handler, self)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={
            "poll_interval": 0.05}, name="ralph-model-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close open connections and join every thread."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.close_connections()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._httpd = self._thread = None

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- answering -----------------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _take_step(self, request: RecordedRequest) -> Reply | Fail:
        with self._lock:
            index = self._next
            step = self._steps[index] if index < len(self._steps) else None
            if step is not None:
                self._next += 1
        if step is None:
            request.error = f"no more scripted steps (request {len(self.requests)})"
            return text(EXHAUSTED_TEXT)
        request.step = index
        reply = step(request) if callable(step) else step
        if isinstance(reply, Fail):
            return reply
        return reply.substitute(request.cwd or self.cwd)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = False  # stop() joins the connection threads
    block_on_close = True

    def __init__(self, address: tuple[str, int], handler: type[_Handler],
                 model: ModelServer) -> None:
        self.model = model
        self.open_sockets: set[socket.socket] = set()
        self.sockets_lock = threading.Lock()
        super().__init__(address, handler)

    def close_connections(self) -> None:
        with self.sockets_lock:
            for sock in self.open_sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60  # an idle keep-alive connection does not hold its thread forever
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        with self.server.sockets_lock:
            self.server.open_sockets.add(self.connection)

    def finish(self) -> None:
        with self.server.sockets_lock:
            self.server.open_sockets.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the request log is the record."""

    def do_GET(self) -> None:
        self._answer(b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._answer(self.rfile.read(length) if length else b"")

    def _answer(self, raw: bytes) -> None:
        model = self.server.model
        parts = urlsplit(self.path)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(self.command, parts.path, parts.query, dict(self.headers), raw,
                                  body, api=wire.api_of(self.command, parts.path))
        model._record(request)
        if request.api is None:
            counted = {"/count_tokens": "input_tokens", ":countTokens": "totalTokens"}
            key = next((key for end, key in counted.items() if parts.path.endswith(end)), None)
            if key is not None:
                self._send(200, wire.JSON, wire.json_bytes({key: wire.count_tokens(raw)}))
                return
            request.error = f"not a model endpoint: {self.command} {parts.path}"
            self._send(404, wire.JSON, wire.json_bytes(
                {"error": {"type": "not_found_error", "message": request.error}}))
            return
        if not isinstance(body, dict):
            request.error = "the request body is not a JSON object"
            self._send(400, wire.JSON, wire.json_bytes(
                {"error": {"type": "invalid_request_error", "message": request.error}}))
            return
        reply = model._take_step(request)
        if isinstance(reply, Fail):
            self._send(reply.status, wire.JSON,
                       wire.render_error(request.api, reply.status, reply.message),
                       reply.headers)
            return
        content_type, payload = wire.render(request.api, reply, body, raw, parts.path,
                                            parts.query)
        self._send(200, content_type, payload)

    def _send(self, status: int, content_type: str, payload: bytes,
              headers: tuple[tuple[str, str], ...] = ()) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        if content_type == wire.SSE:
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    """A started :class:`ModelServer` with an empty script (``model_server.script(...)``),
    stopped after the test."""
    server = ModelServer().start()
    try:
        yield server
    finally:
        server.stop()

