"""``--sandbox-network hosts`` with the real bubblewrap and the real proxy: a cmd: agent in the
sandbox reaches a listed host (plain HTTP and CONNECT), is refused an unlisted one (403,
recorded, said once), cannot go around the proxy, and no refused name reaches DNS. It all
runs in a throwaway world (``hosts_world.py``): a network namespace with only loopback, whose
``/etc/hosts`` maps the test's names to listeners on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.guard.netproxy import HostRule, Proxy, parse_hosts
from ralph_verify.guard.sandbox import agent_hosts
from ralph_verify.testing import Ralph
from tests.guard.test_sandbox import bwrap  # noqa: F401 - the fixture: bubblewrap installed

WORLD = Path(__file__).with_name("hosts_world.py")

AGENT = r"""
import json, os, socket, urllib.error, urllib.request

def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
    except OSError as exc:
        return None, str(exc)

def connect(host, port):
    try:
        tunnel = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    except OSError as exc:
        return type(exc).__name__
    with tunnel:
        tunnel.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        reply = b""
        while b"\r\n\r\n" not in reply and (chunk := tunnel.recv(4096)):
            reply += chunk
        if reply.startswith(b"HTTP/1.1 200"):
            tunnel.sendall(b"GET / HTTP/1.0\r\nHost: tunnelled\r\n\r\n")
            while chunk := tunnel.recv(4096):
                reply += chunk
        return reply.decode()

def direct(address):
    try:
        socket.create_connection(address, timeout=5).close()
        return "connected"
    except OSError as exc:
        return type(exc).__name__

seen = {
    "listed": get("http://api.example.test/v1/messages?x=1"),
    "unlisted": get("http://secret-data.evil.test/"),
    "other_port": get("http://api.example.test:8080/"),
    "wildcard": get("http://deep.cdn.example.test/"),
    "wildcard_apex": get("http://cdn.example.test/"),
    "connect_listed": connect("api.example.test", 443),
    "connect_unlisted": connect("evil.example.test", 443),
    "rebind": get("http://rebind.example.test/"),
    "direct_loopback": direct(("127.0.0.1", 80)),
    "direct_public": direct(("93.184.216.34", 80)),
    "proxy": os.environ.get("HTTPS_PROXY"),
}
try:
    socket.getaddrinfo("secret-own-lookup.evil.test", 80)
    seen["own_dns"] = "resolved"
except OSError:
    seen["own_dns"] = "failed"
name = "second.json" if os.path.exists("first.json") else "first.json"
with open(name, "w") as out:
    json.dump(seen, out)
"""


def in_world(ralph: Ralph, *argv: str) -> dict[str, Any]:
    """``ralph-verify ARGV`` in the project, inside the throwaway world."""
    if shutil.which("ip") is None and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "iproute2"], check=False,
                       capture_output=True, timeout=600)
    missing = [tool for tool in ("unshare", "ip", "mount") if shutil.which(tool) is None]
    if os.geteuid() != 0 or missing:
        pytest.fail(f"these tests need root and {missing} (apt-get install util-linux iproute2)")
    done = subprocess.run(
        ["unshare", "--net", "--mount", "--pid", "--fork", "--mount-proc", sys.executable,
         str(WORLD), "--", sys.executable, "-m", "ralph_verify", *argv],
        cwd=ralph.path, env={**os.environ, **ralph.env}, capture_output=True, text=True,
        timeout=900, check=False)
    assert done.returncode == 0 and done.stdout.strip(), done.stderr
    world: dict[str, Any] = json.loads(done.stdout)
    assert world["control_dns"] and world["direct_outside"], world  # the listeners listen
    return world


def test_only_listed_hosts_are_reached_and_each_refusal_is_recorded_and_said_once(
        ralph: Ralph, bwrap: str) -> None:  # noqa: F811 - the fixture: bubblewrap installed
    ralph.makefile("agent.py", AGENT)
    ralph.makepyproject('[tool.ralph-verify]\nsandbox-network = "hosts"\n'
                        'sandbox-hosts = ["api.example.test", "*.cdn.example.test", '
                        '"rebind.example.test"]\n')
    ralph.git_init()
    world = in_world(ralph, "run", "--sandbox", "--agent", f"cmd:{sys.executable} agent.py",
                     "--until", "files:second.json", "--max-iterations", "3", "do it")
    assert world["returncode"] == 0, world
    for name in ("first.json", "second.json"):
        seen = json.loads((ralph.path / name).read_text())
        assert seen["proxy"] == "http://127.0.0.1:3128"
        assert seen["listed"] == [200, "hello api.example.test 80\n"], seen
        assert seen["wildcard"] == [200, "hello deep.cdn.example.test 80\n"], seen
        assert seen["connect_listed"].startswith("HTTP/1.1 200 Connection Established"), seen
        assert "hello tunnelled 443" in seen["connect_listed"], seen
        for refused in ("unlisted", "other_port", "wildcard_apex"):
            assert seen[refused][0] == 403 and "not a listed host" in seen[refused][1], seen
        assert seen["connect_unlisted"].startswith("HTTP/1.1 403 Forbidden"), seen
        # Listed, but it resolves to this machine: refused (DNS rebinding).
        assert seen["rebind"][0] == 403 and "private address" in seen["rebind"][1], seen
        # Around the proxy: the sandbox's loopback is its own, and there is no other route.
        assert seen["direct_loopback"] == "ConnectionRefusedError", seen
        assert seen["direct_public"] == "OSError", seen  # ENETUNREACH
        assert seen["own_dns"] == "failed", seen
    # Only listed hosts were reached; no refused name was ever looked up.
    assert sorted(set(world["hits"])) == ["api.example.test@80", "deep.cdn.example.test@80",
                                          "tunnelled@443"], world["hits"]
    assert set(world["dns"]) == {"control.evil.test"}, world["dns"]
    refusals = [json.loads(line) for line in
                (ralph.path / ".ralph" / "guard.jsonl").read_text().splitlines()]
    assert {r["rule"] for r in refusals} == {"sandbox-network"}
    assert sorted(r["input"]["host"] for r in refusals) == sorted(2 * [
        "secret-data.evil.test:80", "api.example.test:8080", "cdn.example.test:80",
        "evil.example.test:443", "rebind.example.test:80"])
    said = world["stdout"] + world["stderr"]
    assert said.count("note: the sandbox refused the agent's connections to") == 1, said
    assert "secret-data.evil.test:80" in said


def test_without_the_sandbox_the_same_agent_goes_anywhere(ralph: Ralph) -> None:
    """The control: in the same world, unsandboxed, the direct connection succeeds."""
    ralph.makefile("agent.py", AGENT.replace('"direct_public"', '"ignored"'))
    ralph.git_init()
    world = in_world(ralph, "run", "--no-sandbox", "--agent", f"cmd:{sys.executable} agent.py",
                     "--until", "files:first.json", "do it")
    assert world["returncode"] == 0, world
    seen = json.loads((ralph.path / "first.json").read_text())
    assert seen["direct_loopback"] == "connected" and seen["proxy"] is None, seen
    assert seen["unlisted"][0] == 200 and "secret-own-lookup.evil.test" in world["dns"], world


@pytest.mark.parametrize(("argv", "pyproject", "expected"), [
    (("--sandbox-network", "hosts"), "", "has no API host known to ralph-verify"),
    (("--sandbox-network", "hosts", "--sandbox-host", "http://api.example.com/"), "",
     "sandbox host 'http://api.example.com/'"),
    (("--sandbox-network", "hosts"), 'sandbox-hosts = ["ok.example.com", "a b"]\n',
     "sandbox host 'a b'"),
    (("--sandbox-network", "hosts", "--sandbox-host", "x.example.com:99999"), "",
     "sandbox host 'x.example.com:99999'"),
    ((), 'sandbox-network = "some"\n', "sandbox-network = 'some': use one of"),
])
def test_a_bad_host_list_is_a_usage_error(ralph: Ralph, argv: tuple[str, ...], pyproject: str,
                                          expected: str) -> None:
    ralph.makepyproject(f"[tool.ralph-verify]\n{pyproject}")
    ralph.git_init()
    result = ralph.run("run", *argv, "--agent", "cmd:true", "--until", "files:x", "go")
    assert result.ret == 2 and expected in result.err, result
    assert "Traceback" not in result.err


def test_host_patterns() -> None:
    api, wild, port, ip6 = parse_hosts(["API.Example.com.", "*.example.com", "h.test:8443",
                                        "[::1]:443"])
    assert api == HostRule("api.example.com") and api.allows("api.example.com.", 443)
    assert not api.allows("api.example.com", 22) and not api.allows("x.api.example.com", 443)
    assert wild.allows("a.b.example.com", 80) and not wild.allows("example.com", 443)
    assert not wild.allows("badexample.com", 443)
    assert port.allows("h.test", 8443) and not port.allows("h.test", 443)
    assert ip6 == HostRule("::1", (443,))


def test_each_agent_has_its_api_hosts_and_its_base_url() -> None:
    assert agent_hosts("claude", {}) == ["api.anthropic.com"]
    assert agent_hosts("claude", {"ANTHROPIC_BASE_URL": "https://gw.corp.example:8443/v1"}) \
        == ["api.anthropic.com", "gw.corp.example:8443"]
    assert "chatgpt.com" in agent_hosts("codex", {}) and agent_hosts("cmd:x", {}) == []
    parse_hosts(host for agent in ("claude", "codex", "gemini", "qwen", "aider", "opencode",
                                   "amp", "copilot") for host in agent_hosts(agent, {}))


class _Echo(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(self.path.encode()[:3].ljust(3))

    def log_message(self, *args: object) -> None:
        pass


def test_the_proxy_forwards_a_bare_request_and_refuses_what_it_cannot_read(
        tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port, refused = server.server_address[1], list[tuple[str, int]]()
    path = str(tmp_path / "proxy.sock")

    def ask(request: bytes) -> bytes:
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(path)
            client.sendall(request)
            reply = b""
            while chunk := client.recv(4096):
                reply += chunk
            return reply

    try:
        with Proxy(path, parse_hosts([f"127.0.0.1:{port}"]),
                   lambda host, port: refused.append((host, port))):
            assert ask(b"GET http://127.0.0.1:%d/ab HTTP/1.0\r\n\r\n" % port).startswith(
                b"HTTP/1.0 200"), "a request without headers"
            assert ask(b"GET http://127.0.0.1:%d/ab HTTP/1.1\r\nHost: x\r\n"
                       b"Connection: keep-alive\r\n\r\n" % port).endswith(b"/ab")
            for garbage in (b"nonsense\r\n\r\n", b"GET /relative HTTP/1.1\r\n\r\n",
                            b"GET http://u@127.0.0.1:%d/ HTTP/1.1\r\n\r\n" % port):
                assert ask(garbage).startswith(b"HTTP/1.1 400"), garbage
            assert ask(b"CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 403")
            assert refused == [("127.0.0.1", 1)]
        # A listed name that resolves to this machine (DNS rebinding) is refused.
        path = str(tmp_path / "proxy2.sock")
        with Proxy(path, parse_hosts([f"localhost:{port}"]),
                   lambda host, port: refused.append((host, port))):
            reply = ask(b"GET http://localhost:%d/ab HTTP/1.0\r\n\r\n" % port)
            assert reply.startswith(b"HTTP/1.1 403") and b"private address" in reply, reply
            assert refused[-1] == ("localhost", port)
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("network", ["loopback", "hosts"])
def test_an_agent_program_the_sandbox_does_not_show_is_named_with_the_bridge_too(
        ralph: Ralph, bwrap: str, tmp_path: Path, network: str) -> None:  # noqa: F811
    """With ``hosts`` the bridge, not bubblewrap, starts the agent's program: its failure is
    the same ``agent-error`` at iteration 1, naming the program and why."""
    folder = tmp_path / "bin"  # under /tmp: private in the sandbox
    folder.mkdir()
    (folder / "claude").write_text("#!/bin/sh\nexit 0\n")
    (folder / "claude").chmod(0o755)
    ralph.env["PATH"] = f"{folder}{os.pathsep}{ralph.env.get('PATH', os.environ['PATH'])}"
    ralph.git_init()
    result = ralph.run("run", "--sandbox", "--sandbox-network", network, "--agent", "claude",
                       "--until", "files:x", "--max-iterations", "3", "go")
    state = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert state["verdict"]["verdict"] == "agent-error" and state["iteration"] == 1, result
    assert f"the agent program {folder}/claude cannot run in the sandbox" in \
        state["verdict"]["reason"] and "/tmp is private" in state["verdict"]["reason"], state
