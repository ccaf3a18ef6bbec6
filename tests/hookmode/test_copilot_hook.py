"""Copilot CLI's ``agentStop`` hook without the CLI: ``init copilot`` and ``hook copilot-stop``.

The real CLI runs in tests/e2e/test_copilot_hook_e2e.py; here the payload is the one Copilot
1.0.102 sends (camelCase ``sessionId``/``transcriptPath``, no final text) and the
transcript is an ``events.jsonl`` as Copilot writes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.hookmode.copilot import last_answer, stop_payload
from ralph_verify.testing import Ralph

HOOK = "python -m ralph_verify"


@pytest.fixture(autouse=True)
def _no_agent_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The suite may itself run inside Claude Code: its session must not bind the loop."""
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    yield


def event(kind: str, content: str) -> str:
    return json.dumps({"type": kind, "data": {"content": content, "messageId": "m"},
                       "id": "e", "timestamp": "2026-11-26T22:28:34.670Z"})


def transcript(path: Path, *events: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(events) + "\n", encoding="utf-8")
    return path


def copilot_payload(ralph: Ralph, session: str, path: Path, active: bool) -> dict[str, Any]:
    return {"sessionId": session, "timestamp": 1795732115278, "cwd": str(ralph.path),
            "transcriptPath": str(path), "stopReason": "end_turn", "stop_hook_active": active}


def test_last_answer_is_the_assistant_text_after_the_last_user_message(tmp_path: Path) -> None:
    path = transcript(tmp_path / "events.jsonl",
                      event("user.message", "task"), event("assistant.message", "first"),
                      event("user.message", "feedback"), event("assistant.message", ""),
                      event("tool.execution_complete", "x"),
                      event("assistant.message", "second"), "{not json",
                      event("assistant.message", "third"))
    assert last_answer(path) == "second\n\nthird"
    assert last_answer(tmp_path / "missing.jsonl") == ""
    mapped = stop_payload({"sessionId": "s", "transcriptPath": str(path)})
    assert mapped["session_id"] == "s" and mapped["transcript_path"] == str(path)
    assert mapped["last_assistant_message"] == "second\n\nthird"


def test_init_copilot_merges_into_its_hook_file_and_is_idempotent(ralph: Ralph) -> None:
    path = ralph.makefile(".github/hooks/ralph-verify.json", json.dumps(
        {"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "notify-me"}],
                                 "sessionStart": [{"type": "command", "bash": "hi"}]}}))
    result = ralph.run("init", "copilot", "--hook-command", HOOK)
    assert result.ret == 0, result
    result.stdout.fnmatch_lines([
        "ralph-verify init copilot · .github/hooks/ralph-verify.json: updated",
        "  added: the agentStop hook ralph-verify hook copilot-stop"])
    data = json.loads(path.read_text())
    assert data["version"] == 1
    assert data["hooks"]["sessionStart"] == [{"type": "command", "bash": "hi"}]
    assert data["hooks"]["agentStop"] == [
        {"type": "command", "bash": "notify-me"},
        {"type": "command", "bash": f"{HOOK} hook copilot-stop", "timeoutSec": 600}]
    assert ".ralph/" in (ralph.path / ".gitignore").read_text().splitlines()
    before = path.read_bytes()
    again = ralph.run("init", "copilot", "--hook-command", HOOK)
    assert again.ret == 0, again
    again.stdout.fnmatch_lines([
        "ralph-verify init copilot · .github/hooks/ralph-verify.json: unchanged",
        "  kept: the agentStop hook (ralph-verify hook copilot-stop) is there already"])
    assert path.read_bytes() == before


def test_init_copilot_refuses_a_broken_hook_file(ralph: Ralph) -> None:
    path = ralph.makefile(".github/hooks/ralph-verify.json", '{"hooks": []}')
    result = ralph.run("init", "copilot", "--hook-command", HOOK)
    assert result.ret != 0
    assert "\"hooks\" is a list, not an object: fix it first" in result.stderr.str()
    assert path.read_text() == '{"hooks": []}'


def test_copilot_stop_reads_the_final_text_from_the_transcript(ralph: Ralph) -> None:
    started = ralph.run("start", "--until", "files:done.txt", "--max-iterations", "3",
                        "--agent-name", "copilot")
    assert started.ret == 0, started
    path = transcript(ralph.path.parent / "copilot-session" / "events.jsonl",
                      event("user.message", "go"), event("assistant.message", "I wrote it"))
    first = ralph.run("hook", "copilot-stop",
                      stdin=json.dumps(copilot_payload(ralph, "c-1", path, False)))
    assert first.ret == 0, first
    answer = first.json()
    assert isinstance(answer, dict)
    assert answer["decision"] == "block" and "done.txt" in answer["reason"], answer
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert data["hook"]["agent"] == "copilot" and data["hook"]["session_id"] == "c-1"
    log = ralph.path / ".ralph" / "iterations" / "001" / "agent.log"
    assert log.read_text() == "I wrote it"
    # Another Copilot session's stop is not this loop's: no opinion.
    other = ralph.run("hook", "copilot-stop",
                      stdin=json.dumps(copilot_payload(ralph, "c-2", path, False)))
    assert other.ret == 0 and other.out == "", other
    (ralph.path / "done.txt").write_text("done\n")
    transcript(path, event("user.message", "go"), event("assistant.message", "I wrote it"),
               event("user.message", answer["reason"]), event("assistant.message", "Done now"))
    second = ralph.run("hook", "copilot-stop",
                       stdin=json.dumps(copilot_payload(ralph, "c-1", path, True)))
    assert second.ret == 0, second
    assert "\"decision\"" not in second.out, second.out
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert data["verdict"]["verdict"] == "complete" and data["iteration"] == 2, data
    assert (ralph.path / ".ralph" / "iterations" / "002" / "agent.log").read_text() == "Done now"


def test_the_block_copilot_ignores_is_marked(ralph: Ralph) -> None:
    """Copilot honours 8 blocked stops in a row, then ends the turn: the 9th block says so
    and marks the state, which 'status --watch' reads."""
    from ralph_verify.loop.state import read_state
    from ralph_verify.reports.watch import cap_note

    # No progress on purpose: the stall breaker stays out of it.
    ralph.makefile("pyproject.toml", "[tool.ralph-verify]\nstall-same-errors = 0\n"
                                     "stall-no-progress = 0\n")
    started = ralph.run("start", "--until", "files:done.txt", "--max-iterations", "20",
                        "--agent-name", "copilot")
    assert started.ret == 0, started
    path = transcript(ralph.path.parent / "copilot-cap" / "events.jsonl",
                      event("user.message", "go"), event("assistant.message", "not yet"))
    answers: list[Any] = []
    for call in range(9):
        (ralph.path / "work.txt").write_text(f"step {call}\n")  # progress: no stall
        result = ralph.run("hook", "copilot-stop",
                           stdin=json.dumps(copilot_payload(ralph, "c-1", path, call > 0)))
        assert result.ret == 0, result
        assert result.out.strip(), (call, result.stderr.str()[-1500:], answers)
        answers.append(result.json())
    assert all(a["decision"] == "block" for a in answers), answers
    assert all("block cap" not in a["systemMessage"] and "Copilot CLI ends" not in
               a["systemMessage"] for a in answers[:8]), answers[:8]
    assert "Copilot CLI ends a turn after 8 blocked stops" in answers[8]["systemMessage"]
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert data["hook"]["block_cap_reached"]["iteration"] == 9, data["hook"]
    state = read_state(ralph.path / ".ralph" / "state.json")
    assert state is not None
    note = cap_note(state)
    assert note is not None and "Copilot CLI's block cap" in note, note
