"""The real Qwen Code and Gemini CLI with the Stop hook from ``ralph-verify init``, offline.

Qwen Code (a fork of Gemini CLI) has a Stop hook of Claude Code's kind: a command in
``settings.json`` ``hooks.Stop`` gets ``session_id``, ``stop_hook_active`` and
``last_assistant_message`` on stdin, and ``{"decision": "block", "reason": R}`` makes it
go on with R as the next message. ``init qwen`` installs it in ``.qwen/settings.json``
with a raised ``stopHookBlockingCap`` (Qwen's default, 8 blocks per prompt, would end a
longer loop); ``start --agent-name qwen`` records the loop. One ``qwen -p`` run then
completes a two-iteration loop: the first stop is blocked with the failing test, the
model fixes it, the second stop is let through.

Gemini CLI's Stop hook is ``AfterAgent`` (``hooks.AfterAgent`` in ``.gemini/settings.json``,
timeout in milliseconds): the final text comes as ``prompt_response``, a ``decision`` of
``block`` sends the reason back as the next message. Project hooks run only in a trusted
folder, and ``--skip-trust`` is not enough: Gemini reads the project's settings before it
takes the flag, so they are left out ("Hook registry initialized with 0 hook entries").
A folder trusted in Gemini, or ``GEMINI_CLI_TRUST_WORKSPACE=true`` as here, loads them.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import ModelServer, RecordedRequest
from tests.agents_setup import MODEL, AgentCLI
from tests.e2e.test_agents_e2e import FAILURE, RIGHT, SAID, make_project
from tests.e2e.test_agents_offline_e2e import CASES, iteration_steps
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e


def test_qwen_stop_hook_blocks_until_the_tests_pass(
        ralph: Ralph, qwen_cli: AgentCLI, agent_home: Path, offline_net: OfflineNet,
        offline_server: ModelServer) -> None:
    make_project(ralph)
    hook = f"{shlex.quote(sys.executable)} -m ralph_verify"
    initialised = ralph.run("init", "qwen", "--hook-command", hook)
    assert initialised.ret == 0, initialised
    settings = json.loads((ralph.path / ".qwen" / "settings.json").read_text())
    assert settings["stopHookBlockingCap"] == 1000
    started = ralph.run("start", "--until", "tests", "--max-iterations", "4",
                        "--agent-name", "qwen")
    assert started.ret == 0, started
    first, second = iteration_steps(CASES["qwen"])
    offline_server.script(*first, *second)
    env = qwen_cli.env(agent_home, offline_server.url)
    argv = [str(qwen_cli.executable), "--yolo", "--output-format", "json", "--model", MODEL,
            "Implement add() in calc.py so that the tests pass."]
    requests = blocked_then_complete(ralph, offline_net, offline_server, argv, env, "chat",
                                     "qwen", len(first) + len(second), len(first))
    assert SAID in requests[len(first)].text
    assert not offline_server.errors, [r.error for r in offline_server.errors]


def test_gemini_after_agent_hook_blocks_until_the_tests_pass(
        ralph: Ralph, gemini_cli: AgentCLI, agent_home: Path, offline_net: OfflineNet,
        offline_server: ModelServer) -> None:
    make_project(ralph)
    hook = f"{shlex.quote(sys.executable)} -m ralph_verify"
    initialised = ralph.run("init", "gemini", "--hook-command", hook)
    assert initialised.ret == 0, initialised
    settings = json.loads((ralph.path / ".gemini" / "settings.json").read_text())
    assert settings["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"] == 600_000
    started = ralph.run("start", "--until", "tests", "--max-iterations", "4",
                        "--agent-name", "gemini")
    assert started.ret == 0, started
    first, second = iteration_steps(CASES["gemini"])
    offline_server.script(*first, *second)
    env = gemini_cli.env(agent_home, offline_server.url, {"GEMINI_CLI_TRUST_WORKSPACE": "true"})
    argv = [str(gemini_cli.executable), "--yolo", "--output-format", "json", "--model",
            CASES["gemini"].model, "--prompt=Implement add() in calc.py so that the tests pass."]
    blocked_then_complete(ralph, offline_net, offline_server, argv, env, "gemini", "gemini",
                          len(first) + len(second), len(first))
    assert not offline_server.errors, [r.error for r in offline_server.errors]


def blocked_then_complete(ralph: Ralph, offline_net: OfflineNet, offline_server: ModelServer,
                          argv: list[str], env: dict[str, str], api: str, agent: str,
                          steps: int, first: int) -> list[RecordedRequest]:
    """Run the agent CLI once (``argv``, offline): its first stop is blocked with the failing
    test and the loop's count, the model fixes it, and the loop ends ``complete`` after two
    iterations. ``steps``: the scripted replies, ``first`` of them before the block; the
    model requests are returned for the caller's own assertions."""
    proc = subprocess.run(
        [*offline_net.prefix(), *argv], cwd=ralph.path, env=env, capture_output=True,
        text=True, timeout=300, stdin=subprocess.DEVNULL, pass_fds=(offline_net.fd,))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    requests = offline_server.model_requests(api)
    assert len(requests) == steps, [r.text[-300:] for r in requests]
    # The blocked stop: the next request carries the failing test and the loop's count.
    blocked = requests[first]
    assert FAILURE in blocked.text and "iteration 1 of 4" in blocked.text, blocked.text[-2000:]
    assert FAILURE not in requests[first - 1].text
    assert (ralph.path / "calc.py").read_text() == RIGHT
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert data["verdict"]["verdict"] == "complete" and data["iteration"] == 2, data
    assert data["hook"]["agent"] == agent
    return requests
