"""Rate limits and outages with the real Claude Code, Codex and aider, offline.

The scripted model server answers 429 (with ``retry-after``) or 529 / 500; the
CLIs' own retries are turned down (``CLAUDE_CODE_MAX_RETRIES=0``; Codex's
``request_max_retries = 0`` in the tests' config) so that each run gives up at
once and the loop's policy is what is tested: a rate limit is waited for and
the run repeated within the same iteration; an outage past
``--max-agent-retries`` ends ``agent-error`` naming it. aider's own retries
cannot be turned down (about 100 s of backoff, then it exits 0): its one test
is a 429 for every request, read as a rate limit, not as a failure.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import (
    Fail,
    ModelServer,
    RecordedRequest,
    claude_write,
    codex_exec,
    text,
)
from tests.agents_setup import MODEL, AgentCLI
from tests.e2e.test_agents_e2e import RIGHT, make_project, run_loop

pytestmark = pytest.mark.agents_e2e

RATE_LIMITED = Fail(429, "Rate limit reached for requests", headers=(("retry-after", "1"),))


def result_of(proc: subprocess.CompletedProcess[str]) -> dict[str, object]:
    data: dict[str, object] = json.loads(proc.stdout[proc.stdout.index("{"):])
    return data


def check_waited_once(ralph: Ralph, proc: subprocess.CompletedProcess[str],
                      server: ModelServer) -> None:
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = result_of(proc)
    assert result["verdict"] == "complete", result
    iterations = result["iterations"]
    assert isinstance(iterations, list) and len(iterations) == 1, result
    assert iterations[0]["agent"]["retries"] == 1
    assert "iteration 1: rate limited (" in proc.stderr + proc.stdout
    assert (ralph.path / "calc.py").read_text() == RIGHT
    assert server.steps_left == 0
    assert (ralph.path / ".ralph" / "iterations" / "001" / "agent.attempt-1.log").is_file()


def check_outage(proc: subprocess.CompletedProcess[str], server: ModelServer,
                 says: str) -> None:
    assert proc.returncode == 14, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = result_of(proc)
    assert result["verdict"] == "agent-error", result
    reason = str(result["reason"])
    assert reason.startswith("the model service is unavailable: ") and says in reason, reason
    assert reason.endswith("(still failing after 1 retries; --max-agent-retries)"), reason
    assert len(result["iterations"]) == 1  # type: ignore[arg-type]  # a list from JSON
    assert server.steps_left == 0


LIMITS = ("--agent-retry-delay", "0.5s", "--max-agent-retries", "1")


def test_claude_rate_limit_then_works(ralph: Ralph, claude_cli: AgentCLI, agent_home: Path,
                                      model_server: ModelServer) -> None:
    make_project(ralph)
    model_server.script(RATE_LIMITED, claude_write("calc.py", RIGHT), text("Fixed."))
    env = claude_cli.env(agent_home, model_server.url, {"CLAUDE_CODE_MAX_RETRIES": "0"})
    proc = run_loop(ralph, env, "--agent", "claude", *LIMITS)
    check_waited_once(ralph, proc, model_server)


def test_claude_overloaded_past_the_retry_limit(ralph: Ralph, claude_cli: AgentCLI,
                                                agent_home: Path,
                                                model_server: ModelServer) -> None:
    make_project(ralph)
    model_server.script(Fail(529, "Overloaded"), Fail(529, "Overloaded"))
    env = claude_cli.env(agent_home, model_server.url, {"CLAUDE_CODE_MAX_RETRIES": "0"})
    proc = run_loop(ralph, env, "--agent", "claude", *LIMITS)
    check_outage(proc, model_server, "529 Overloaded")


def test_codex_rate_limit_then_works(ralph: Ralph, codex_cli: AgentCLI, agent_home: Path,
                                     model_server: ModelServer) -> None:
    make_project(ralph)
    model_server.script(RATE_LIMITED, codex_exec(f"cat > calc.py <<'EOF'\n{RIGHT}EOF"),
                        text("Fixed."))
    env = codex_cli.env(agent_home, model_server.url)
    proc = run_loop(ralph, env, "--agent", "codex", "--model", MODEL, *LIMITS)
    check_waited_once(ralph, proc, model_server)


def test_codex_server_error_past_the_retry_limit(ralph: Ralph, codex_cli: AgentCLI,
                                                 agent_home: Path,
                                                 model_server: ModelServer) -> None:
    make_project(ralph)
    model_server.script(Fail(500, "boom"), Fail(500, "boom"))
    env = codex_cli.env(agent_home, model_server.url)
    proc = run_loop(ralph, env, "--agent", "codex", "--model", MODEL, *LIMITS)
    check_outage(proc, model_server, "high demand")


def test_aider_rate_limited_past_max_time_ends_budget_not_agent_failure(
        ralph: Ralph, aider_cli: AgentCLI, agent_home: Path, model_server: ModelServer) -> None:
    make_project(ralph)

    def limited(request: RecordedRequest) -> Fail:
        return RATE_LIMITED

    model_server.script(*[limited] * 200)  # every request aider retries on its own
    env = aider_cli.env(agent_home, model_server.url)
    proc = run_loop(ralph, env, "--agent", "aider", "--agent-arg=--edit-format=whole",
                    "--max-time", "20s", "--max-agent-failures", "1", "--agent-timeout", "200",
                    *LIMITS)
    assert proc.returncode == 13, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = result_of(proc)
    reason = str(result["reason"])
    assert reason.startswith("the model service turned the agent away (RateLimitError"), reason
    assert reason.endswith("and it resets after --max-time (20s)"), reason
    assert "is after --max-time" in proc.stdout + proc.stderr
