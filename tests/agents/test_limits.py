"""Rate limits and outages as each adapter reads them from its CLI's real output
(recorded against the scripted model server answering 429 / 5xx: tests/data/agents/),
and the ``cmd:`` protocol (exit 75, ``RALPH-RETRY-AFTER``)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from ralph_verify.agents import AgentOptions
from ralph_verify.agents.aider import AiderAgent, parse_aider_output
from ralph_verify.agents.claude import ClaudeAgent
from ralph_verify.agents.codex import CodexAgent, parse_codex_events
from ralph_verify.agents.limits import OUTAGE, RATE_LIMIT, classify, from_command, reset_in

DATA = Path(__file__).parent.parent / "data" / "agents"


def lines(name: str) -> list[str]:
    return (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)


def test_claude_429_after_its_own_retries_is_a_rate_limit() -> None:
    agent = ClaudeAgent(None, AgentOptions())
    parsed = agent.parse(lines("claude_rate_limit.jsonl"))
    assert parsed.status == 429
    found = agent.unavailable(parsed, 1)
    assert found is not None and found.kind == RATE_LIMIT
    assert "Rate limit reached" in found.message


def test_claude_other_api_errors_are_failures() -> None:
    agent = ClaudeAgent(None, AgentOptions())
    parsed = agent.parse(lines("claude_api_error.jsonl"))  # a 400: prompt too long
    assert agent.unavailable(parsed, 1) is None


def test_codex_429_and_500() -> None:
    agent = CodexAgent(None, AgentOptions())
    limited = agent.unavailable(parse_codex_events(lines("codex_rate_limit.jsonl")), 1)
    assert limited is not None and limited.kind == RATE_LIMIT
    assert limited.message == "exceeded retry limit, last status: 429 Too Many Requests"
    down = agent.unavailable(parse_codex_events(lines("codex_server_error.jsonl")), 1)
    assert down is not None and down.kind == OUTAGE and "high demand" in down.message
    assert agent.unavailable(parse_codex_events(lines("codex_api_error.jsonl")), 1) is None


def test_aider_rate_limit_error_line() -> None:
    agent = AiderAgent(None, AgentOptions())
    found = agent.unavailable(parse_aider_output(lines("aider_rate_limit.txt")), 0)
    assert found is not None and found.kind == RATE_LIMIT
    down = agent.unavailable(parse_aider_output(lines("aider_server_error.txt")), 0)
    assert down is not None and down.kind == OUTAGE and "InternalServerError" in down.message
    assert agent.unavailable(parse_aider_output(lines("aider_api_error.txt")), 0) is None


@pytest.mark.parametrize(("message", "seconds"), [
    ("You've hit your usage limit. Try again in 2 hours 5 minutes.", 2 * 3600 + 300),
    ("Rate limited: retry after 30 seconds", 30),
    ("Claude AI usage limit reached|1767225600", 1767225600 - 1767220000),
    ("rate limit reached; resets at 2026-01-01T00:00:00Z", 1767225600 - 1767220000),
    ("429 Too Many Requests", None),
])
def test_reset_times(message: str, seconds: float | None) -> None:
    found = classify(message)
    assert found is not None and found.kind == RATE_LIMIT
    assert reset_in(message, now=1767220000) == seconds


def test_outages_and_real_failures() -> None:
    for message in ("API Error: 529 Overloaded", "connect ECONNREFUSED 127.0.0.1:9",
                    "InternalServerError: OpenAIException - boom", "502 Bad Gateway"):
        found = classify(message)
        assert found is not None and found.kind == OUTAGE, message
    for failure in ("Prompt is too long", "invalid_request_error: context too long", "", None):
        assert classify(failure) is None


def test_cmd_protocol() -> None:
    assert from_command(1, "RALPH-RETRY-AFTER: 5") is None  # only exit 75 says it
    outage = from_command(75, "upstream down\n")
    assert outage is not None and (outage.kind, outage.message) == (OUTAGE, "upstream down")
    limited = from_command(75, "quota used up\nRALPH-RETRY-AFTER: 90\n")
    assert limited is not None and (limited.kind, limited.retry_after_s) == (RATE_LIMIT, 90)
    later = datetime.now(timezone.utc).replace(microsecond=0).timestamp() + 3600
    iso = datetime.fromtimestamp(later, timezone.utc).isoformat()
    timed = from_command(75, f"RALPH-RETRY-AFTER: {iso}")
    assert timed is not None and timed.retry_after_s is not None
    assert 3590 < timed.retry_after_s <= 3600


def test_backoff_doubles_up_to_ten_minutes() -> None:
    from ralph_verify.agents.retry import RetryPolicy, backoff

    policy = RetryPolicy(delay_s=10)
    assert [backoff(policy, n) for n in (1, 2, 3, 7, 20)] == [10, 20, 40, 600, 600]


def test_a_reset_in_the_past_still_waits_a_second(tmp_path: Path) -> None:
    """No busy loop against a service whose reset time has passed already."""
    import time

    from ralph_verify.agents import AgentRequest, AgentResult
    from ralph_verify.agents.limits import Unavailable
    from ralph_verify.agents.retry import RetryPolicy, run_with_retries

    class LimitedTwice:
        name = "limited"
        runs = 0

        def run(self, request: AgentRequest) -> AgentResult:
            self.runs += 1
            request.log_path.write_text(f"run {self.runs}\n")
            if self.runs <= 2:
                return AgentResult(75, 0.0, unavailable=Unavailable(RATE_LIMIT, "limit", 0.0))
            return AgentResult(0, 0.0)

    request = AgentRequest(prompt="p", prompt_file=tmp_path / "p", iteration=1, root=tmp_path,
                           session_dir=tmp_path, log_path=tmp_path / "agent.log", timeout=10)
    agent = LimitedTwice()
    started = time.monotonic()
    result = run_with_retries(agent, request, RetryPolicy())
    assert time.monotonic() - started >= 2
    assert (agent.runs, result.exit_code, result.retries) == (3, 0, 2)
    assert (tmp_path / "agent.attempt-2.log").read_text() == "run 2\n"
