"""A write refused by the agent's own sandbox or permission mode, with the real CLIs offline.

Codex's ``exec`` runs in a read-only sandbox unless told otherwise; Claude Code headless
refuses an edit it has no permission for; Gemini CLI and Qwen Code headless refuse every
edit in their default approval mode, and the shell in the ``auto_edit`` mode ``run`` gives
them; Copilot CLI denies every tool its allow-list lacks. Either way the agent changes
nothing and says so only to the model. In both drivers (``run`` and the Stop hook)
ralph-verify reads the refusal from the agent's transcript, tells the user once with the flag
to add, tells the model, and ends ``agent-error`` with that advice after two refused turns in
a row, not ``stalled``.
A file Claude Code protects (``.envrc`` here) is refused even with edits accepted, as
``run`` and the hook-mode line give them: the advice then names what does lift it.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import (
    ModelServer,
    Step,
    claude_write,
    codex_exec,
    text,
    tool,
)
from tests.agents_setup import MODEL, AgentCLI
from tests.e2e.test_agents_e2e import TASK, WRONG, make_project, run_loop
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e

HOOK = f"{shlex.quote(sys.executable)} -m ralph_verify"
CALC = "{cwd}/calc.py"
#: The model's turn: write calc.py, then end the turn.
TURNS: dict[str, list[Step]] = {
    "codex": [codex_exec(f"cat > calc.py <<'EOF'\n{WRONG}EOF"), text("Wrote calc.py.")],
    "claude": [claude_write("calc.py", WRONG), text("Wrote calc.py.")],
    "claude-protected": [claude_write(".envrc", "export CALC=1\n"), text("Wrote .envrc.")],
    "gemini": [tool("write_file", file_path=CALC, content=WRONG), text("Wrote calc.py.")],
    # Qwen Code refuses to overwrite a file this session has not read.
    "qwen": [tool("read_file", file_path=CALC), tool("write_file", file_path=CALC,
                                                     content=WRONG), text("Wrote calc.py.")],
    "copilot": [tool("edit", path=CALC, old_str="    raise NotImplementedError\n",
                     new_str="    return a - b\n"), text("Wrote calc.py.")],
}
SHELL = "echo 'def add(a, b): return a - b' > calc.py"
#: Run: a shell command where run's mode allows edits but not the shell.
RUN_TURNS: dict[str, list[Step]] = {
    **TURNS,
    "gemini": [tool("run_shell_command", command=SHELL), text("Ran it.")],
    "qwen": [tool("run_shell_command", command=SHELL), text("Ran it.")],
}
CASES = list(TURNS)
API = {"codex": "responses", "claude": "anthropic", "claude-protected": "anthropic",
       "gemini": "gemini", "qwen": "chat", "copilot": "chat"}
SAID = {"codex": "Read-only file system", "claude": "you haven't granted it yet",
        "claude-protected": "which is a sensitive file", "gemini": 'Tool "write_file" not found',
        "qwen": 'permission to use "write_file", but that permission was declined',
        "copilot": "Permission denied because no interactive user response was available"}
RUN_SAID = {**SAID, "gemini": 'Tool "run_shell_command" not found',
            "qwen": 'permission to use "run_shell_command", but that permission was declined',
            "copilot": "denied due to the following rules: `write`"}
FIX = {"codex": "--sandbox workspace-write", "claude": "--permission-mode acceptEdits",
       "claude-protected": "--permission-mode bypassPermissions",
       "gemini": "--approval-mode auto_edit", "qwen": "--approval-mode auto-edit",
       "copilot": "--allow-tool=write"}
#: Run: an --agent-arg that takes back the mode ralph-verify gives the agent (none: the
#: protected file is refused in the mode run gives, and so is the shell for Gemini and Qwen).
NO_WRITE_ARGS = {"codex": ["--agent-arg=-c", "--agent-arg=sandbox_mode=\"read-only\""],
                 "claude": ["--agent-arg=--permission-mode", "--agent-arg=default"],
                 "claude-protected": [], "gemini": ["--model", "gemini-2.5-pro"],
                 "qwen": ["--model", MODEL], "copilot": ["--agent-arg=--deny-tool=write"]}
RUN_FIX = {"codex": "drop the --agent-arg that makes it read-only",
           "claude": "drop the --agent-arg that overrides it",
           "claude-protected": "make this change yourself, or let Claude Code make it with "
                               "'run --yolo'",
           "gemini": "'ralph-verify run --yolo'", "qwen": "'ralph-verify run --yolo'",
           "copilot": "drop the --agent-arg that denies it"}
#: Hook mode: the agent's command line, without the mode that lets it write.
HOOK_ARGV = {"codex": ["exec", "--dangerously-bypass-hook-trust", TASK],
             "claude": ["-p", TASK, "--model", "claude-test-model"],
             "gemini": ["--model", "gemini-2.5-pro", f"--prompt={TASK}"],
             "qwen": ["--model", MODEL, "-p", TASK],
             "copilot": ["--trust-folder", "--no-auto-update", "--disable-client-telemetry",
                         f"--prompt={TASK}"]}


def _cli(request: pytest.FixtureRequest, case: str) -> AgentCLI:
    cli: AgentCLI = request.getfixturevalue(f"{case.split('-')[0]}_cli")
    return cli


def _check_model_told(server: ModelServer, name: str, said: str, steps: int) -> None:
    requests = server.model_requests(API[name])
    assert len(requests) == 2 * steps, [r.text[-300:] for r in requests]
    told = requests[steps].text
    assert "refused by your own sandbox or permission mode" in told, told[-2000:]
    assert said in told
    assert "refused by your own sandbox" not in requests[steps - 1].text


@pytest.mark.parametrize("name", CASES)
def test_run_says_a_refused_write_once_and_ends_agent_error(
        name: str, request: pytest.FixtureRequest, ralph: Ralph, agent_home: Path,
        offline_net: OfflineNet, offline_server: ModelServer) -> None:
    cli = _cli(request, name)
    make_project(ralph)
    offline_server.script(*RUN_TURNS[name], *RUN_TURNS[name])
    env = cli.env(agent_home, offline_server.url)
    proc = run_loop(ralph, env, "--agent", cli.name, *NO_WRITE_ARGS[name], net=offline_net)
    result = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert result["verdict"] == "agent-error", result
    assert len(result["iterations"]) == 2, result
    reason = result["iterations"][-1]["verdict"]["reason"]
    assert RUN_SAID[name] in reason and RUN_FIX[name] in reason, reason
    assert "2 turns in a row" in reason
    warnings = [line for line in (proc.stdout + proc.stderr).splitlines()
                if line.startswith("WARNING: ") and "refused a write" in line]
    assert len(warnings) == 1, proc.stderr[-3000:]
    _check_model_told(offline_server, name, RUN_SAID[name], len(RUN_TURNS[name]))


def _hook_mode(ralph: Ralph, cli: AgentCLI, home: Path, server: ModelServer,
               net: OfflineNet, *args: str) -> subprocess.CompletedProcess[str]:
    """``init`` and ``start``, then the agent without the mode that lets it write (or with
    ``args`` added)."""
    make_project(ralph)
    # Gemini runs a project's hooks only in a folder it trusts.
    env = cli.env(home, server.url, {"GEMINI_CLI_TRUST_WORKSPACE": "true"})
    ralph.env.update({key: env[key] for key in ("CODEX_HOME",) if key in env})
    assert ralph.run("init", cli.name, "--hook-command", HOOK).ret == 0
    assert ralph.run("start", "--until", "tests", "--max-iterations", "4",
                     "--agent-name", cli.name, TASK).ret == 0
    argv = [str(cli.executable), *HOOK_ARGV[cli.name], *args]
    return subprocess.run([*net.prefix(), *argv], cwd=ralph.path, env=env, capture_output=True,
                          text=True, timeout=240, stdin=subprocess.DEVNULL, pass_fds=(net.fd,))


@pytest.mark.parametrize("name", CASES)
def test_the_stop_hook_reads_a_refused_write_from_the_transcript(
        name: str, request: pytest.FixtureRequest, ralph: Ralph, agent_home: Path,
        offline_net: OfflineNet, offline_server: ModelServer) -> None:
    cli = _cli(request, name)
    offline_server.script(*TURNS[name], *TURNS[name])
    # The protected file: with edits accepted, as the hook-mode line starts Claude Code.
    proc = _hook_mode(ralph, cli, agent_home, offline_server, offline_net,
                      *(["--permission-mode", "acceptEdits"] if name == "claude-protected"
                        else []))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    _check_model_told(offline_server, name, SAID[name], len(TURNS[name]))
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    verdict = data["verdict"]
    assert verdict["verdict"] == "agent-error" and data["iteration"] == 2, data
    assert SAID[name] in verdict["reason"] and FIX[name] in verdict["reason"], verdict
    assert "2 turns in a row" in verdict["reason"]
    assert "NotImplementedError" in (ralph.path / "calc.py").read_text()
