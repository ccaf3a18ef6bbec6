"""A scripted model server: real agent CLIs run offline against a list of canned replies.

It speaks the three wire formats the agent CLIs use, on 127.0.0.1 only:

- Anthropic Messages, ``POST /v1/messages`` (JSON or server-sent events; Claude Code),
- OpenAI Responses, ``POST /v1/responses`` (JSON or server-sent events; Codex),
- OpenAI Chat Completions, ``POST /v1/chat/completions`` (JSON or chunks; aider).

Every model request takes the next step of the script, whatever its API: a
:class:`Reply` with text and/or tool calls, or a function of the request that
returns one. ``{cwd}`` in a reply is replaced by the agent's working directory,
read from the request (Claude's ``Primary working directory:`` line, Codex's
``<cwd>``) or given as ``cwd=``. Every request is recorded for assertions.

Example (the ``model_server`` fixture gives a started server per test)::

    def test_agent(model_server):
        model_server.script(claude_write("app.py", "x = 1\\n"), text("done"))
        ...  # run the CLI with ANTHROPIC_BASE_URL=model_server.url
        assert "app.py" in model_server.requests[1].text

When the script runs out the server answers ``no more scripted steps`` as text
and records the request in :attr:`ModelServer.errors`.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ralph_verify import testing_wire as wire

__all__ = [
    "Fail", "ModelServer", "RecordedRequest", "Reply", "Step", "ToolCall", "aider_whole",
    "claude_bash", "claude_edit", "claude_read", "claude_write", "codex_exec", "model_server",
    "text", "tool",
]

LOOPBACK = "127.0.0.1"
EXHAUSTED_TEXT = "no more scripted steps"
_CWD_PATTERNS = (re.compile(r"Primary working directory: ?([^\n\\\"]+)"),
                 re.compile(r"<cwd>([^<]+)</cwd>"))


@dataclass(frozen=True)
class ToolCall:
    """One tool call: Anthropic ``tool_use``, Responses ``function_call``, chat ``tool_calls``."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """One model turn: optional text, then tool calls (none: the turn ends)."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()

    def substitute(self, cwd: str | None) -> Reply:
        """``{cwd}`` replaced everywhere (left as is when the cwd is unknown)."""
        if cwd is None:
            return self
        return Reply(_replace(self.text, cwd),
                     tuple(ToolCall(call.name, _replace(call.arguments, cwd))
                           for call in self.tool_calls))


def _replace(value: Any, cwd: str) -> Any:
    if isinstance(value, str):
        return value.replace("{cwd}", cwd)
    if isinstance(value, dict):
        return {key: _replace(item, cwd) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace(item, cwd) for item in value]
    return value


@dataclass(frozen=True)
class Fail:
    """An API error instead of a reply: ``status`` and an error body in the API's shape.

    400 is not retried by the CLIs (a quick, clean failure); 429 and 5xx are retried.
    """

    status: int = 400
    message: str = "scripted failure"
    #: Extra response headers, e.g. ``(("retry-after", "2"),)`` on a 429.
    headers: tuple[tuple[str, str], ...] = ()


#: A step of the script: a fixed reply or failure, or a function of the request returning one.
Step = Reply | Fail | Callable[["RecordedRequest"], "Reply | Fail"]


def text(content: str) -> Reply:
    """A plain text reply: the model ends its turn."""
    return Reply(text=content)


def tool(name: str, /, **arguments: Any) -> Reply:
    """A reply that calls one tool with ``arguments``."""
    return Reply(tool_calls=(ToolCall(name, arguments),))


def claude_write(path: str, content: str) -> Reply:
    """Claude Code's ``Write`` tool; a relative ``path`` is made absolute under ``{cwd}``."""
    return tool("Write", file_path=path if path.startswith(("/", "{cwd}")) else f"{{cwd}}/{path}",
                content=content)


def claude_edit(path: str, old: str, new: str) -> Reply:
    """Claude Code's ``Edit`` tool (``old`` must occur once in the file, after a ``Read``)."""
    return tool("Edit", file_path=path if path.startswith(("/", "{cwd}")) else f"{{cwd}}/{path}",
                old_string=old, new_string=new)


def claude_read(path: str) -> Reply:
    """Claude Code's ``Read`` tool."""
    return tool("Read", file_path=path if path.startswith(("/", "{cwd}")) else f"{{cwd}}/{path}")


def claude_bash(command: str, description: str = "run a command") -> Reply:
    """Claude Code's ``Bash`` tool."""
    return tool("Bash", command=command, description=description)


def codex_exec(cmd: str) -> Reply:
    """Codex's shell tool, ``exec_command``."""
    return tool("exec_command", cmd=cmd)


def aider_whole(path: str, content: str, note: str = "") -> Reply:
    """aider's ``whole`` edit format: a path line, then the whole file in a fenced block."""
    body = content if content.endswith("\n") else content + "\n"
    return text(f"{note}\n\n{path}\n```\n{body}```\n".lstrip("\n"))


@dataclass
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    raw: bytes
    #: The body parsed as JSON (None when it is not JSON).
    body: Any
    #: ``anthropic``, ``responses``, ``chat``, or None (not a model request).
    api: str | None = None
    #: The script step this request consumed (0-based), None if it consumed none.
    step: int | None = None
    error: str | None = None

    @property
    def text(self) -> str:
        """The whole body as text (JSON strings unescaped), for ``in`` assertions."""
        if self.body is None:
            return self.raw.decode("utf-8", errors="replace")
        return "\n".join(_strings(self.body))

    @property
    def cwd(self) -> str | None:
        """The agent's working directory, when the request names it."""
        for pattern in _CWD_PATTERNS:
            match = pattern.search(self.text)
            if match:
                return match.group(1).strip()
        return None

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    def last_user_text(self) -> str:
        """The text of the last user message (Anthropic/chat ``messages``, Responses ``input``)."""
        if not isinstance(self.body, dict):
            return ""
        items = self.body.get("messages") or self.body.get("input") or []
        if isinstance(items, str):
            return items
        for item in reversed(items):
            if isinstance(item, dict) and item.get("role") == "user":
                return "\n".join(_texts(item.get("content", "")))
        return ""


def _texts(content: Any) -> Iterator[str]:
    """The text of a message's content: a string, or blocks with ``text``/``content``."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                yield block
            elif isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    yield block["text"]
                elif "content" in block:
                    yield from _texts(block["content"])
                elif isinstance(block.get("output"), str):
                    yield block["output"]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


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
            if parts.path.endswith("/count_tokens"):
                self._send(200, "application/json", json.dumps(
                    {"input_tokens": wire.count_tokens(raw)}).encode())
                return
            request.error = f"not a model endpoint: {self.command} {parts.path}"
            self._send(404, "application/json", json.dumps(
                {"error": {"type": "not_found_error", "message": request.error}}).encode())
            return
        if not isinstance(body, dict):
            request.error = "the request body is not a JSON object"
            self._send(400, "application/json", json.dumps(
                {"error": {"type": "invalid_request_error", "message": request.error}}).encode())
            return
        reply = model._take_step(request)
        if isinstance(reply, Fail):
            self._send(reply.status, "application/json",
                       wire.render_error(request.api, reply.status, reply.message),
                       reply.headers)
            return
        content_type, payload = wire.render(request.api, reply, body, raw)
        self._send(200, content_type, payload)

    def _send(self, status: int, content_type: str, payload: bytes,
              headers: tuple[tuple[str, str], ...] = ()) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        if content_type == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    """A started :class:`ModelServer` on 127.0.0.1 with an empty script; stopped after the test.

    Add steps with ``model_server.script(...)``; point a CLI at ``model_server.url``.
    """
    server = ModelServer().start()
    try:
        yield server
    finally:
        server.stop()

