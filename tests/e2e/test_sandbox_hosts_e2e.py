"""``--sandbox-network hosts`` with the real Claude Code and Codex: the CLI, in the sandbox's
own network namespace, reaches its model only through ralph-verify's proxy, and the loop
completes. The model server listens on 127.0.0.1 inside a loopback-only namespace
(tests/offline_net.py) under a name (``model.example.test``, mapped in ``/etc/hosts`` of a
mount namespace of the test's own, to a documentation address put on that namespace's
loopback and forwarded to the server: the proxy refuses a listed name that resolves to this
machine or a private range): the sandbox's loopback is its own, so only the proxy, which
resolves the listed name outside, can reach it."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph_verify.guard.netproxy import pipe
from ralph_verify.testing import Ralph
from ralph_verify.testing.server import ModelServer, claude_write, codex_exec, text
from tests.agents_setup import MODEL, AgentCLI
from tests.e2e.test_agents_e2e import RIGHT, TASK, WRONG, check_session, make_project
from tests.guard.test_sandbox import bwrap  # noqa: F401 - the fixture: bubblewrap installed
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e
NAME = "model.example.test"
PUBLIC = "198.51.100.7"  # not private to the proxy; only on the test namespace's loopback


@pytest.fixture
def home() -> Iterator[Path]:
    """Not under /tmp, which the sandbox makes private: a home it can read."""
    folder = Path(tempfile.mkdtemp(prefix=".ralph-hosts-home-", dir=Path.home()))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def forward(net: OfflineNet, port: int) -> None:
    """``PUBLIC:port`` inside ``net`` forwarded to the model server on ``127.0.0.1:port``."""
    subprocess.run([*net.prefix(), "ip", "addr", "add", f"{PUBLIC}/32", "dev", "lo"],
                   pass_fds=(net.fd,), check=True, capture_output=True)
    listener = net.call(lambda: socket.create_server((PUBLIC, port)))

    def serve() -> None:
        while True:
            client, _ = listener.accept()
            upstream = net.call(lambda: socket.create_connection(("127.0.0.1", port)))
            threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()


def run_named(ralph: Ralph, env: dict[str, str], net: OfflineNet, port: str, *args: str,
              ) -> subprocess.CompletedProcess[str]:
    """``ralph-verify run --sandbox --sandbox-network hosts`` in ``net``, in a mount namespace
    whose ``/etc/hosts`` names the model server."""
    forward(net, int(port))
    hosts = ralph.path.parent / "hosts"
    hosts.write_text(f"127.0.0.1 localhost\n{PUBLIC} {NAME}\n")
    argv = [sys.executable, "-m", "ralph_verify", "run", "--sandbox", "--sandbox-network",
            "hosts", "--until", "tests", "--max-iterations", "4", "--agent-timeout", "60",
            "--json", "-", *args, TASK]
    mount = ["unshare", "--mount", "--", "sh", "-c", 'mount --bind "$0" /etc/hosts && exec "$@"',
             str(hosts)]
    return subprocess.run([*net.prefix(), *mount, *argv], cwd=ralph.path, env=env,
                          capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, pass_fds=(net.fd,))


def test_claude_reaches_its_base_url_through_the_proxy(
        ralph: Ralph, claude_cli: AgentCLI, home: Path, offline_net: OfflineNet,
        offline_server: ModelServer, bwrap: str) -> None:  # noqa: F811
    """No host listed: Claude's own (``$ANTHROPIC_BASE_URL``'s host) is allowed."""
    make_project(ralph)
    offline_server.script(claude_write("calc.py", WRONG), text("Wrote it."),
                          claude_write("calc.py", RIGHT), text("Fixed the sign."))
    port = offline_server.url.rsplit(":", 1)[1]
    env = claude_cli.env(home, f"http://{NAME}:{port}", quiet=False)
    env["PATH"] = f"{Path(bwrap).parent}{os.pathsep}{env['PATH']}"
    proc = run_named(ralph, env, offline_net, port, "--agent", "claude", "--model",
                     "claude-test-model")
    requests = offline_server.model_requests("anthropic")
    assert len(requests) == 4, proc.stdout[-2000:] + proc.stderr[-3000:]
    check_session(ralph, proc, offline_server, requests[2], offline_net)


def test_codex_reaches_a_listed_host_through_the_proxy(
        ralph: Ralph, codex_cli: AgentCLI, home: Path, offline_net: OfflineNet,
        offline_server: ModelServer, bwrap: str) -> None:  # noqa: F811
    """Codex's endpoint lives in its config.toml, not in a variable: listed by hand. Its own
    sandbox cannot start inside ours: `--yolo`, as docs/agents/codex.md says."""
    make_project(ralph)
    offline_server.script(codex_exec(f"cat > calc.py <<'EOF'\n{WRONG}EOF"), text("Wrote it."),
                          codex_exec(f"cat > calc.py <<'EOF'\n{RIGHT}EOF"),
                          text("Fixed the sign."))
    port = offline_server.url.rsplit(":", 1)[1]
    env = codex_cli.env(home, f"http://{NAME}:{port}", quiet=False)
    env["PATH"] = f"{Path(bwrap).parent}{os.pathsep}{env['PATH']}"
    proc = run_named(ralph, env, offline_net, port, "--agent", "codex", "--model", MODEL,
                     "--yolo",
                     "--sandbox-host", f"{NAME}:{port}")
    requests = offline_server.model_requests("responses")
    assert len(requests) == 4, proc.stdout[-2000:] + proc.stderr[-3000:]
    check_session(ralph, proc, offline_server, requests[2], offline_net)
