"""``ralph-verify run`` with the real Claude Code, Codex and aider, offline.

Each CLI is installed once per machine (tests/agents_setup.py) and talks only
to the scripted model server on 127.0.0.1, inside a network namespace holding only
loopback (tests/offline_net.py). The CLI gets its endpoint and key, not the switches
that stop its telemetry and update checks: the adapter sets those, and the namespace's
counters prove that nothing else was tried. The script is a two-iteration loop:
iteration 1 writes a wrong ``add()``, the tests fail; iteration 2's request to
the model carries that failure (the feedback), the model fixes ``add()``, the
session ends ``complete``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import (
    ModelServer,
    RecordedRequest,
    Step,
    aider_whole,
    claude_write,
    codex_exec,
    text,
)
from tests.agents_setup import MODEL, AgentCLI
from tests.guard.test_sandbox import bwrap  # noqa: F401 - the fixture: bubblewrap installed
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e

WRONG = "def add(a, b):\n    return a - b\n"
RIGHT = "def add(a, b):\n    return a + b\n"
TASK = "Implement add() in calc.py so that the tests pass."
#: What iteration 1's verification says, and only it (the baseline failure differs).
FAILURE = "assert -1 == 5"
TEST_ID = "tests/test_calc.py::test_add"


def make_project(ralph: Ralph) -> None:
    ralph.makepyfile(calc="def add(a, b):\n    raise NotImplementedError\n",
                     **{"tests/test_calc": "from calc import add\n\n\n"
                                           "def test_add():\n    assert add(2, 3) == 5\n"})
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()
    # aider writes a missing identity into .git/config, read-only in the sandbox; the
    # test's home (in /tmp, private there) has none to give.
    for key, value in (("user.name", "dev"), ("user.email", "dev@example.org")):
        subprocess.run(["git", "config", key, value], cwd=ralph.path, check=True)


def run_loop(ralph: Ralph, env: dict[str, str], *args: str,
             net: OfflineNet | None = None) -> subprocess.CompletedProcess[str]:
    """``ralph-verify run`` in a child process with the CLI's clean, offline environment
    (inside ``net``'s namespace when given)."""
    argv = [sys.executable, "-m", "ralph_verify", "run", "--until", "tests",
            "--max-iterations", "4", "--agent-timeout", "60", "--json", "-", *args, TASK]
    prefix, fds = (net.prefix(), (net.fd,)) if net is not None else ([], ())
    return subprocess.run([*prefix, *argv], cwd=ralph.path, env=env, capture_output=True,
                          text=True, timeout=240, stdin=subprocess.DEVNULL, pass_fds=fds)


def check_session(ralph: Ralph, proc: subprocess.CompletedProcess[str], server: ModelServer,
                  iteration_2: RecordedRequest, net: OfflineNet | None = None) -> None:
    """The loop's verdict, the fix on disk, and the feedback in the model's second request;
    with ``net``, that nothing but the model server was called."""
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    if net is not None:
        assert net.outbound_attempts() == 0, net.counters()
    result = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert result["verdict"] == "complete", result
    assert len(result["iterations"]) == 2, result
    assert (ralph.path / "calc.py").read_text() == RIGHT
    assert not server.errors, [r.error for r in server.errors]
    assert server.steps_left == 0
    first = server.model_requests()[0]
    assert FAILURE not in first.text  # the baseline failed differently (NotImplementedError)
    prompt = iteration_2.last_user_text()
    assert TEST_ID in prompt and FAILURE in prompt, prompt[-2000:]


#: Iteration 1's last words: in iteration 2's request only when the session is continued.
SAID = "Implemented add()."
#: Fresh context and the CLI's default (edits-only) permissions; continued and --yolo.
VARIANTS = pytest.mark.parametrize("continued", [False, True],
                                   ids=["fresh-default-permissions", "continue-session-yolo"])


def variant_args(continued: bool) -> list[str]:
    return ["--continue-session", "--yolo"] if continued else []


def history_agents(ralph: Ralph) -> list[dict[str, Any]]:
    """What each iteration recorded of its agent run (tokens, cost, session)."""
    return [json.loads(line)["agent"] for line in
            (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()]


def agent_log(ralph: Ralph, iteration: int) -> str:
    return (ralph.path / ".ralph" / "iterations" / f"{iteration:03d}" / "agent.log").read_text()


@VARIANTS
def test_claude_two_iterations(ralph: Ralph, claude_cli: AgentCLI, agent_home: Path,
                               offline_net: OfflineNet, offline_server: ModelServer,
                               continued: bool) -> None:
    model_server = offline_server
    make_project(ralph)
    model_server.script(claude_write("calc.py", WRONG), text(SAID),
                        claude_write("calc.py", RIGHT), text("Fixed the sign."))
    env = claude_cli.env(agent_home, model_server.url, quiet=False)
    env.pop("IS_SANDBOX", None)  # as root with --yolo the adapter must set it itself
    proc = run_loop(ralph, env, "--agent", "claude", "--model", "claude-test-model",
                    *variant_args(continued), net=offline_net)
    requests = model_server.model_requests("anthropic")
    assert len(requests) == 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    check_session(ralph, proc, model_server, requests[2], offline_net)
    assert {r.body["model"] for r in requests} == {"claude-test-model"}
    assert all(r.stream and r.query == "beta=true" for r in requests)
    # Fresh: iteration 2 starts a new conversation; continued: it carries iteration 1's.
    assert (SAID in json.dumps(requests[2].body["messages"])) is continued
    mode = "bypassPermissions" if continued else "acceptEdits"
    assert f'"permissionMode":"{mode}"' in agent_log(ralph, 1)
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    assert ("IS_SANDBOX=1 is set" in agent_log(ralph, 1)) is (continued and root)


@VARIANTS
def test_codex_two_iterations(ralph: Ralph, codex_cli: AgentCLI, agent_home: Path,
                              offline_net: OfflineNet, offline_server: ModelServer,
                              continued: bool) -> None:
    model_server = offline_server
    make_project(ralph)
    model_server.script(codex_exec(f"cat > calc.py <<'EOF'\n{WRONG}EOF"), text(SAID),
                        codex_exec(f"cat > calc.py <<'EOF'\n{RIGHT}EOF"),
                        text("Fixed the sign."))
    env = codex_cli.env(agent_home, model_server.url, quiet=False)
    proc = run_loop(ralph, env, "--agent", "codex", "--model", MODEL, *variant_args(continued),
                    net=offline_net)
    requests = model_server.model_requests("responses")
    assert len(requests) == 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    check_session(ralph, proc, model_server, requests[2], offline_net)
    assert requests[0].cwd == str(ralph.path)
    assert (SAID in json.dumps(requests[2].body["input"])) is continued
    sandbox = "danger-full-access" if continued else "workspace-write"
    assert f"`sandbox_mode` is `{sandbox}`" in requests[0].text
    # Codex reports tokens, never a cost.
    agents = history_agents(ralph)
    assert all(a["input_tokens"] and a["output_tokens"] and a["cost_usd"] is None
               for a in agents), agents


@pytest.mark.parametrize("priced", [True, False], ids=["price-list-cached", "no-price-list"])
def test_aider_two_iterations(ralph: Ralph, aider_cli: AgentCLI, agent_home: Path,
                              offline_net: OfflineNet, offline_server: ModelServer,
                              priced: bool) -> None:
    """Also as a new user meets it, with no price list in aider's cache: aider would fetch
    litellm's at every start; the adapter's switches keep it from trying (0 attempts)."""
    model_server = offline_server
    make_project(ralph)
    steps: list[Step] = [aider_whole("calc.py", WRONG, note=SAID),
                         aider_whole("calc.py", RIGHT, note="Fixed the sign.")]
    model_server.script(*steps)
    env = aider_cli.env(agent_home, model_server.url, quiet=False)
    if not priced:
        shutil.rmtree(agent_home / ".aider")
    del env["AIDER_OPENAI_API_BASE"]  # given below through --agent-arg instead
    proc = run_loop(ralph, env, "--agent", "aider", "--model", f"openai/{MODEL}",
                    "--agent-arg=--edit-format=whole",
                    f"--agent-arg=--openai-api-base={model_server.url}/v1", net=offline_net)
    requests = model_server.model_requests("chat")
    assert len(requests) == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    check_session(ralph, proc, model_server, requests[1], offline_net)
    # aider prices the run from its price list (the one agents_setup writes), if any.
    agents = history_agents(ralph)
    assert all(bool(a["cost_usd"]) is priced and a["input_tokens"] for a in agents), agents
    history = ralph.path / ".ralph" / "agent" / "aider.chat.history.md"
    assert history.is_file() and not (ralph.path / ".aider.chat.history.md").exists()


def test_aider_runs_in_the_default_sandbox(ralph: Ralph, aider_cli: AgentCLI,
                                           model_server: ModelServer,
                                           bwrap: str) -> None:  # noqa: F811
    """``sandbox = "auto"`` with the real aider: a home folder read-only but for ``~/.aider``,
    and the loop still completes."""
    import shutil
    import tempfile

    # Not under /tmp or /var/tmp, which the sandbox makes private: a home it can read.
    home = Path(tempfile.mkdtemp(prefix=".ralph-aider-home-", dir=Path.home()))
    try:
        # aider writes a missing user.name into .git/config, read-only in the sandbox.
        (home / ".gitconfig").write_text("[user]\n\tname = dev\n\temail = dev@example.org\n")
        make_project(ralph)
        model_server.script(aider_whole("calc.py", WRONG, note=SAID),
                            aider_whole("calc.py", RIGHT, note="Fixed the sign."))
        env = aider_cli.env(home, model_server.url)
        env["PATH"] = f"{Path(bwrap).parent}{os.pathsep}{env['PATH']}"
        proc = run_loop(ralph, env, "--agent", "aider", "--model", f"openai/{MODEL}",
                        "--agent-arg=--edit-format=whole")
        assert "without a sandbox" not in proc.stderr, proc.stderr[-2000:]
        check_session(ralph, proc, model_server, model_server.model_requests("chat")[1])
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_aider_keeps_its_own_files_out_of_the_project(ralph: Ralph, aider_cli: AgentCLI,
                                                      agent_home: Path,
                                                      model_server: ModelServer) -> None:
    """With the repo map on (as for every model aider knows), aider writes its tags cache at
    the repository's root: it is kept under .ralph/agent/, never committed, never counted as
    the agent's change; the chat history goes there too."""
    make_project(ralph)
    steps: list[Step] = [aider_whole("calc.py", WRONG, note=SAID),
                         aider_whole("calc.py", RIGHT, note="Fixed the sign.")]
    model_server.script(*steps)
    env = aider_cli.env(agent_home, model_server.url)
    proc = run_loop(ralph, env, "--agent", "aider", "--model", f"openai/{MODEL}",
                    "--agent-arg=--edit-format=whole", "--agent-arg=--map-tokens=1024")
    requests = model_server.model_requests("chat")
    assert len(requests) == 2
    check_session(ralph, proc, model_server, requests[1])
    kept = sorted(p.name for p in (ralph.path / ".ralph" / "agent").iterdir())
    assert any(name.startswith("aider.tags.cache.v") for name in kept), kept  # the map ran
    assert "aider.chat.history.md" in kept, kept
    assert sorted(p.name for p in ralph.path.iterdir() if p.name.startswith(".aider")) == []
    committed = ralph.git("log", "--name-only", "--format=").split()
    assert committed and not [name for name in committed if ".aider" in name], committed
    assert ralph.git("status", "--porcelain", "--untracked-files=all") == ""
    lines = [json.loads(line) for line in
             (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()]
    assert [line["files_changed"] for line in lines] == [["calc.py"], ["calc.py"]]
