"""``--notify URL`` and ``--notify-cmd``: a real HTTP server on 127.0.0.1 hears how it ended."""

from __future__ import annotations

import json
import shlex
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent


class _Hook(BaseHTTPRequestHandler):
    received: list[dict[str, Any]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append({"path": self.path, "type": self.headers["Content-Type"],
                              "json": json.loads(body)})
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass


@pytest.fixture
def webhook() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    received: list[dict[str, Any]] = []
    handler = type("Hook", (_Hook,), {"received": received})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hooks/ralph", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_finished_run_posts_its_summary(ralph: Ralph,
                                          webhook: tuple[str, list[dict[str, Any]]]) -> None:
    url, received = webhook
    done = agent(ralph, 'pathlib.Path("done.txt").write_text("x")\n')
    result = ralph.run("run", "--agent", done, "--until", "files:done.txt", "--notify", url,
                       "write done.txt")
    assert result.ret == 0, result
    assert len(received) == 1
    post = received[0]
    assert post["path"] == "/hooks/ralph" and post["type"] == "application/json"
    data = post["json"]
    assert data["verdict"] == "complete" and data["iterations"] == 1
    assert data["reason"].startswith("every check passes")
    assert data["report"] == str(ralph.path / ".ralph" / "report.html")
    assert data["text"].startswith(f"ralph-verify: {ralph.path.name}: complete after 1 iteration")
    assert data["cost_usd"] is None  # a cmd: agent reports no cost


def test_a_stalled_run_runs_the_command_with_the_summary_on_stdin(ralph: Ralph) -> None:
    seen = ralph.path.parent / "seen.json"
    command = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
        f"import sys; open({str(seen)!r}, 'w').write(sys.stdin.read())")
    idle = agent(ralph, "pass\n")
    result = ralph.run("run", "--agent", idle, "--until", "files:done.txt",
                       "--stall-no-change", "1", "--notify-cmd", command, "write done.txt")
    assert result.ret == 11, result
    data = json.loads(seen.read_text())
    assert data["verdict"] == "stalled" and "stall breaker" in data["reason"]


def test_a_failing_notification_is_logged_and_never_changes_the_verdict(ralph: Ralph) -> None:
    import socket

    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    done = agent(ralph, 'pathlib.Path("done.txt").write_text("x")\n')
    result = ralph.run("run", "--agent", done, "--until", "files:done.txt",
                       "--notify", f"http://127.0.0.1:{port}/", "--notify-cmd", "exit 3",
                       "write done.txt")
    assert result.ret == 0, result
    assert f"could not notify http://127.0.0.1:{port}/" in result.err
    assert "notify command 'exit 3' failed: exit 3" in result.err
    log = (ralph.path / ".ralph" / "notify.log").read_text()
    assert "could not notify" in log and "failed: exit 3" in log


def test_the_settings_live_in_pyproject_too(ralph: Ralph,
                                            webhook: tuple[str, list[dict[str, Any]]]) -> None:
    url, received = webhook
    ralph.makepyproject(f'[tool.ralph-verify]\nnotify = ["{url}"]\n')
    blocked = agent(ralph, 'print("<promise>BLOCKED: need the staging password</promise>")\n')
    result = ralph.run("run", "--agent", blocked, "--until", "files:done.txt", "go")
    assert result.ret == 12, result
    assert [r["json"]["verdict"] for r in received] == ["blocked"]
