"""The real Copilot CLI with the Stop hook from ``ralph-verify init copilot``, offline.

Copilot CLI's Stop hook is ``agentStop``, read from ``.github/hooks/*.json`` in a folder
it trusts (``copilot -p`` with ``--trust-folder``): ``{"version": 1, "hooks":
{"agentStop": [{"type": "command", "bash": CMD, "timeoutSec": N}]}}``. Its input holds
``sessionId``, ``transcriptPath`` and ``stop_hook_active`` but not the final text (read from
the transcript); ``{"decision": "block", "reason": R}`` sends R as the next user message.
``init copilot`` writes ``.github/hooks/ralph-verify.json``; ``start --agent-name copilot``
records the loop. One ``copilot -p`` run then completes a two-iteration loop: the first
stop is blocked with the failing test, the model fixes it, the second stop is let through,
and nothing but loopback is reached.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import ModelServer
from tests.agents_setup import MODEL, AgentCLI
from tests.e2e.test_agents_e2e import SAID, make_project
from tests.e2e.test_agents_offline_e2e import CASES, iteration_steps
from tests.e2e.test_qwen_gemini_hook_e2e import blocked_then_complete
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e

#: What the copilot adapter sets with the user's own model (COPILOT_PROVIDER_BASE_URL).
QUIET = {"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false"}


def test_copilot_agent_stop_hook_blocks_until_the_tests_pass(
        ralph: Ralph, copilot_cli: AgentCLI, agent_home: Path, offline_net: OfflineNet,
        offline_server: ModelServer) -> None:
    make_project(ralph)
    hook = f"{shlex.quote(sys.executable)} -m ralph_verify"
    initialised = ralph.run("init", "copilot", "--hook-command", hook)
    assert initialised.ret == 0, initialised
    settings = json.loads((ralph.path / ".github" / "hooks" / "ralph-verify.json").read_text())
    assert settings["version"] == 1
    assert settings["hooks"]["agentStop"][0]["bash"] == f"{hook} hook copilot-stop"
    assert ".ralph/" in (ralph.path / ".gitignore").read_text().splitlines()
    started = ralph.run("start", "--until", "tests", "--max-iterations", "4",
                        "--agent-name", "copilot")
    assert started.ret == 0, started
    first, second = iteration_steps(CASES["copilot"])
    offline_server.script(*first, *second)
    env = copilot_cli.env(agent_home, offline_server.url, QUIET)
    argv = [str(copilot_cli.executable), "--trust-folder", "--output-format", "json",
            "--no-ask-user", "--no-auto-update", "--allow-all", f"--model={MODEL}",
            "--prompt=Implement add() in calc.py so that the tests pass."]
    requests = blocked_then_complete(ralph, offline_net, offline_server, argv, env, "chat",
                                     "copilot", len(first) + len(second), len(first))
    assert SAID in requests[len(first)].text
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert data["hook"]["session_id"], data["hook"]
    # The final text came from Copilot's transcript: iteration 1's record holds SAID.
    history = [json.loads(line) for line in
               (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()]
    assert len(history) == 2, history
    log = (ralph.path / ".ralph" / "iterations" / "001" / "agent.log")
    assert SAID in log.read_text(), log.read_text()[-2000:]
    assert not offline_server.errors, [r.error for r in offline_server.errors]
    assert offline_net.outbound_attempts() == 0, offline_net.counters()
