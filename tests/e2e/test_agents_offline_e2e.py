"""``ralph-verify run`` with the real Gemini CLI, Qwen Code, OpenCode and Copilot CLI, offline.

Each CLI is installed once per machine (tests/agents_setup.py) and runs, with
ralph-verify and the scripted model server, in a network namespace holding only
loopback (tests/offline_net.py): nothing can leave the machine, and the kernel counts
every attempt to. The CLI gets only what a user sets up for a custom endpoint (auth
and base URL, docs/agents/*.md); switching its telemetry, update checks and model-list
fetches off is the adapter's job, proved by ``outbound_attempts() == 0``.

The loop is the one of test_agents_e2e.py: iteration 1 writes a wrong ``add()``, the
tests fail, iteration 2's request carries the failure, the model fixes ``add()``, the
session ends ``complete``. Every run continues the CLI's session
(``--continue-session``): iteration 2's request carries iteration 1's words, through
the session id the adapter read from iteration 1's output.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import ModelServer, Step, text, tool
from tests.agents_setup import MODEL, AgentCLI
from tests.e2e.test_agents_e2e import FAILURE, RIGHT, SAID, TASK, TEST_ID, WRONG, make_project
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e

START = "    raise NotImplementedError\n"
CALC = "{cwd}/calc.py"


@dataclass(frozen=True)
class Case:
    """How one CLI is driven: its model API, its edit tools, its ``--model`` value."""

    api: str
    edit: Callable[[str, str], list[Step]]
    model: str
    #: Does it report what the run cost (from the model's price in its configuration)?
    cost: bool = False


def _gemini(old: str, new: str) -> list[Step]:
    return [tool("write_file", file_path=CALC, content=f"def add(a, b):\n{new}")]


def _qwen(old: str, new: str) -> list[Step]:
    # Qwen Code and OpenCode refuse to overwrite a file this session has not read.
    return [tool("read_file", file_path=CALC),
            tool("write_file", file_path=CALC, content=f"def add(a, b):\n{new}")]


def _opencode(old: str, new: str) -> list[Step]:
    return [tool("read", filePath=CALC),
            tool("write", filePath=CALC, content=f"def add(a, b):\n{new}")]


def _copilot(old: str, new: str) -> list[Step]:
    return [tool("edit", path=CALC, old_str=old, new_str=new)]


CASES = {
    "gemini": Case("gemini", _gemini, "gemini-2.5-pro"),
    "qwen": Case("chat", _qwen, MODEL),
    "opencode": Case("chat", _opencode, f"ralph/{MODEL}", cost=True),
    "copilot": Case("chat", _copilot, MODEL),
}


def iteration_steps(case: Case) -> tuple[list[Step], list[Step]]:
    wrong, right = WRONG.split("\n", 1)[1], RIGHT.split("\n", 1)[1]
    return ([*case.edit(START, wrong), text(SAID)],
            [*case.edit(wrong, right), text("Fixed the sign.")])


def run_offline(ralph: Ralph, net: OfflineNet, env: dict[str, str],
                *args: str) -> subprocess.CompletedProcess[str]:
    """``ralph-verify run`` inside the namespace, with the CLI's clean environment."""
    argv = [*net.prefix(), sys.executable, "-m", "ralph_verify", "run", "--until", "tests",
            "--max-iterations", "4", "--agent-timeout", "90", "--json", "-", *args, TASK]
    return subprocess.run(argv, cwd=ralph.path, env=env, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL, pass_fds=(net.fd,))


@pytest.mark.parametrize("name", list(CASES))
def test_cli_loop_offline(name: str, request: pytest.FixtureRequest, ralph: Ralph,
                          agent_home: Path, offline_net: OfflineNet,
                          offline_server: ModelServer) -> None:
    cli: AgentCLI = request.getfixturevalue(f"{name}_cli")
    case = CASES[name]
    make_project(ralph)
    first, second = iteration_steps(case)
    offline_server.script(*first, *second)
    env = cli.env(agent_home, offline_server.url)
    proc = run_offline(ralph, offline_net, env, "--agent", name, "--model", case.model,
                       "--continue-session")
    output = proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.returncode == 0, output
    result = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert result["verdict"] == "complete", result
    assert len(result["iterations"]) == 2, result
    assert (ralph.path / "calc.py").read_text() == RIGHT
    assert not offline_server.errors, [r.error for r in offline_server.errors]
    assert offline_server.steps_left == 0
    requests = offline_server.model_requests(case.api)
    assert len(requests) == len(first) + len(second), [r.path for r in offline_server.requests]
    # The feedback: iteration 2's first request carries iteration 1's failure, and (the
    # session continued) iteration 1's last words.
    iteration_2 = requests[len(first)]
    prompt = iteration_2.last_user_text()
    assert TEST_ID in prompt and FAILURE in prompt, prompt[-2000:]
    assert FAILURE not in requests[0].text
    assert SAID in iteration_2.text
    assert offline_net.outbound_attempts() == 0, offline_net.counters()
    history = [json.loads(line) for line in
               (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()]
    agents = [line["agent"] for line in history]
    assert all(agent["session_id"] for agent in agents), agents
    assert agents[0]["session_id"] == agents[1]["session_id"], agents
    assert all(agent["turns"] == len(steps) for agent, steps in zip(agents, (first, second),
                                                                    strict=True)), agents
    assert all(agent["input_tokens"] and agent["output_tokens"] for agent in agents), agents
    assert all((agent["cost_usd"] or 0) > 0 for agent in agents) is case.cost, agents
    assert "WARNING" not in proc.stderr, proc.stderr[-2000:]  # the tested version: no warning


@pytest.mark.parametrize(("name", "said", "fix"), [
    ("claude", "Not logged in", "ANTHROPIC_API_KEY"),
    ("qwen", "No auth type is selected", "OPENAI_BASE_URL"),
    ("copilot", "No authentication information found", "COPILOT_GITHUB_TOKEN"),
])
def test_a_refusal_is_an_agent_error_on_the_first_iteration(
        name: str, said: str, fix: str, request: pytest.FixtureRequest, ralph: Ralph,
        agent_home: Path, offline_net: OfflineNet, offline_server: ModelServer) -> None:
    """A CLI without credentials: the loop stops at once, with the CLI's words and the fix,
    not after three failed iterations (Copilot tries GitHub: the namespace holds it)."""
    cli: AgentCLI = request.getfixturevalue(f"{name}_cli")
    make_project(ralph)
    env = cli.env(agent_home, offline_server.url)
    for key in ("COPILOT_PROVIDER_BASE_URL", "COPILOT_PROVIDER_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(key, None)
    (agent_home / ".qwen" / "settings.json").unlink(missing_ok=True)
    proc = run_offline(ralph, offline_net, env, "--agent", name, "--model", MODEL)
    result = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert result["verdict"] == "agent-error", result
    assert len(result["iterations"]) == 1, result
    reason = result["iterations"][0]["verdict"]["reason"]
    assert f"{name} refused to work" in reason and said in reason, reason
    assert fix in reason.split("fix: ", 1)[1], reason
    assert not offline_server.model_requests()




def _hook_file(name: str, calls: Path) -> tuple[str, dict[str, object]]:
    """A project hook of ``name``'s own that appends a line to ``calls`` at every prompt."""
    command = f"echo ran >> '{calls}'"
    if name == "copilot":
        return ".github/hooks/ralph-test.json", {"version": 1, "hooks": {
            "userPromptSubmitted": [{"type": "command", "bash": command}]}}
    return ".gemini/settings.json", {"hooks": {"BeforeAgent": [{"hooks": [
        {"type": "command", "command": command}]}]}}


@pytest.mark.parametrize(("name", "args"), [
    ("copilot", []), ("copilot", ["--continue-session", "--yolo"]), ("gemini", [])],
    ids=["copilot-fresh-default-permissions", "copilot-continue-session-yolo", "gemini"])
def test_the_project_s_own_configuration_is_loaded(
        name: str, args: list[str], request: pytest.FixtureRequest, ralph: Ralph,
        agent_home: Path, offline_net: OfflineNet, offline_server: ModelServer,
        tmp_path: Path) -> None:
    """Neither CLI refuses a folder it does not trust when --skip-trust (Gemini) or nothing
    (Copilot) is given: it runs, silently leaving out the project's own hooks, MCP servers
    and settings. The adapter trusts the project for each run (Copilot: --trust-folder on a
    new session, COPILOT_ALLOW_ALL=true on a resumed one with --yolo; Gemini:
    GEMINI_CLI_TRUST_WORKSPACE=true): the project's own hook runs in every iteration."""
    cli: AgentCLI = request.getfixturevalue(f"{name}_cli")
    # In the session folder: /tmp is private in the sandbox, .ralph/agent/ is the CLI's own.
    calls = ralph.path / ".ralph" / "agent" / "hook-calls"
    path, hook = _hook_file(name, calls)
    ralph.makefile(path, json.dumps(hook))
    make_project(ralph)
    first, second = iteration_steps(CASES[name])
    offline_server.script(*first, *second)
    env = cli.env(agent_home, offline_server.url)
    proc = run_offline(ralph, offline_net, env, "--agent", name, "--model", CASES[name].model,
                       *args)
    result = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert result["verdict"] == "complete", result
    assert len(result["iterations"]) == 2, result
    assert calls.read_text().split() == ["ran", "ran"], proc.stderr[-2000:]
    assert offline_net.outbound_attempts() == 0, offline_net.counters()
