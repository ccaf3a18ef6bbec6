"""Hook mode is bound to more than a value the agent can read (issue 23, item 6).

A second agent session in the project can read the loop's ``session_id`` in
``.ralph/state.json`` and send a Stop hook payload naming it with a ``BLOCKED`` promise.
Each agent session here is a process of its own that runs its hooks as its children, as
Claude Code does: the loop's session (``Session``), and a second one, or a plain process,
that forges its stops. Only the loop's session moves the loop.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.hookmode import binding
from ralph_verify.testing import Ralph

UNTIL = "files:done.txt"
BLOCKED = "I give up.\n<promise>BLOCKED: cannot do it</promise>"

#: An agent session: runs `ralph-verify hook claude-stop` as its child for each payload
#: line on stdin (or `start ...` as a JSON list), answers one JSON line per call.
SESSION = """\
import json, subprocess, sys
for line in sys.stdin:
    request = json.loads(line)
    if isinstance(request, list):
        argv, text = request, ""
    else:
        argv, text = ["hook", "claude-stop"], json.dumps(request)
    done = subprocess.run([sys.executable, "-m", "ralph_verify", *argv], input=text,
                          capture_output=True, text=True)
    print(json.dumps([done.returncode, done.stdout, done.stderr]), flush=True)
"""


@pytest.fixture(autouse=True)
def _no_agent_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP",
                 "CLAUDE_PROJECT_DIR"):
        monkeypatch.delenv(name, raising=False)
    yield


class Session:
    """A long-lived agent process whose hooks run as its children."""

    def __init__(self, ralph: Ralph, session_id: str, **env: str) -> None:
        self.ralph, self.session_id = ralph, session_id
        self.transcript = f"/home/u/.claude/projects/p/{session_id}.jsonl"
        self.proc = subprocess.Popen([sys.executable, "-c", SESSION], cwd=ralph.path,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env={**os.environ, **ralph.env, **env})

    def call(self, request: Any) -> tuple[int, str, str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        ret, out, err = json.loads(self.proc.stdout.readline())
        return int(ret), str(out), str(err)

    def stop(self, message: str = "done", **overrides: Any) -> dict[str, Any]:
        ret, out, err = self.call(payload(self.session_id, self.transcript, message,
                                          **overrides))
        assert ret == 0, (out, err)
        return json.loads(out) if out.strip() else {}

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
        assert self.proc.stdout is not None
        self.proc.stdout.close()


def payload(session_id: str, transcript: str, message: str, **overrides: Any) -> dict[str, Any]:
    data = {"session_id": session_id, "transcript_path": transcript, "cwd": ".",
            "hook_event_name": "Stop", "stop_hook_active": False,
            "last_assistant_message": message}
    data.update(overrides)
    return data


def state(ralph: Ralph) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    return data


@pytest.fixture
def sessions(ralph: Ralph) -> Iterator[list[Session]]:
    started: list[Session] = []
    yield started
    for session in started:
        session.close()


def _bound_loop(ralph: Ralph, sessions: list[Session]) -> Session:
    """A loop started by the user, bound by its session's first stop (which it blocks)."""
    assert ralph.run("start", "--until", UNTIL, "create done.txt").ret == 0
    owner = Session(ralph, "s-owner")
    sessions.append(owner)
    assert owner.stop("working on it")["decision"] == "block"
    assert state(ralph)["hook"]["session_id"] == "s-owner"
    return owner


def _refused(answer: dict[str, Any]) -> bool:
    return "decision" not in answer and "ignored a Stop hook call" in answer["systemMessage"]


def test_a_stop_forged_by_another_session_with_the_right_id_is_refused(
        ralph: Ralph, sessions: list[Session]) -> None:
    owner = _bound_loop(ralph, sessions)
    before = state(ralph)
    intruder = Session(ralph, "s-intruder")
    sessions.append(intruder)
    # It read the bound id (and guessed the transcript's path) and sends BLOCKED.
    ret, out, _ = intruder.call(payload("s-owner", owner.transcript, BLOCKED))
    assert ret == 0 and _refused(json.loads(out)), out
    # From ralph-verify run by hand in the project (not under any agent session) too.
    forged = ralph.run_subprocess("hook", "claude-stop",
                                  stdin=json.dumps(payload("s-owner", owner.transcript,
                                                           BLOCKED)))
    assert forged.ret == 0 and _refused(forged.json()), forged
    after = state(ralph)
    assert after["status"] == "running" and after["iteration"] == before["iteration"]
    assert after["hook"]["session_id"] == "s-owner"
    log = (ralph.path / ".ralph" / "hook.log").read_text()
    assert log.count("refused a stop of session 's-owner'") == 2
    # The loop goes on for its own session, and ends when the work is done.
    assert owner.stop("still working", stop_hook_active=True)["decision"] == "block"
    ralph.makefile("done.txt", "ok\n")
    done = owner.stop("created it", stop_hook_active=True)
    assert done["systemMessage"].startswith("ralph-verify: complete after 3 iterations")


def test_the_sessions_own_process_with_another_transcript_is_refused(
        ralph: Ralph, sessions: list[Session]) -> None:
    owner = _bound_loop(ralph, sessions)
    answer = owner.stop(BLOCKED, transcript_path="/elsewhere/s-owner.jsonl")
    assert _refused(answer) and "/elsewhere/s-owner.jsonl" in answer["systemMessage"]
    answer = owner.stop(BLOCKED, transcript_path=None)
    assert _refused(answer)
    assert state(ralph)["status"] == "running"
    # Its own BLOCKED, from its own transcript and process, ends the loop.
    assert "blocked" in owner.stop(BLOCKED)["systemMessage"]
    assert state(ralph)["verdict"]["verdict"] == "blocked"


def test_editing_state_json_does_not_rebind_the_loop(ralph: Ralph,
                                                     sessions: list[Session]) -> None:
    _bound_loop(ralph, sessions)
    intruder = Session(ralph, "s-intruder")
    sessions.append(intruder)
    data = state(ralph)
    data["hook"]["session_id"] = None  # "unbound": the next stop would bind
    (ralph.path / ".ralph" / "state.json").write_text(json.dumps(data))
    assert intruder.stop(BLOCKED) == {}  # another session's stop: no word, no effect
    data["hook"]["session_id"] = "s-intruder"
    (ralph.path / ".ralph" / "state.json").write_text(json.dumps(data))
    assert intruder.stop(BLOCKED) == {}
    assert state(ralph)["status"] == "running"
    data["session"] = "19990101-000000-dead"  # another loop: the binding is not its
    (ralph.path / ".ralph" / "state.json").write_text(json.dumps(data))
    again = Session(ralph, "s-owner")
    sessions.append(again)
    refused = again.stop(BLOCKED)
    # The edit itself is undone (the kept state is put back), and the stop still refused.
    assert _refused(refused), refused
    assert state(ralph)["status"] == "running"
    assert state(ralph)["session"] != "19990101-000000-dead"


def test_start_inside_the_session_binds_its_process_at_once(
        ralph: Ralph, sessions: list[Session], monkeypatch: pytest.MonkeyPatch) -> None:
    """``start`` run by the agent itself: even the very first stop cannot be forged."""
    monkeypatch.setenv("RALPH_VERIFY_CACHE_DIR", ralph.env["RALPH_VERIFY_CACHE_DIR"])
    owner = Session(ralph, "s-9", CLAUDE_CODE_SESSION_ID="s-9")
    sessions.append(owner)
    ret, out, err = owner.call(["start", "--until", UNTIL, "create done.txt"])
    assert ret == 0, (out, err)
    assert state(ralph)["hook"]["session_id"] == "s-9"
    kept = binding.read(ralph.path)
    assert kept is not None and kept.session_id == "s-9" and kept.processes
    assert str(ralph.path) not in str(binding.binding_path(ralph.path))  # outside the project
    forged = ralph.run_subprocess("hook", "claude-stop",
                                  stdin=json.dumps(payload("s-9", owner.transcript, BLOCKED)))
    assert forged.ret == 0 and _refused(forged.json()), forged
    assert state(ralph)["status"] == "running"
    assert owner.stop("working")["decision"] == "block"
    assert state(ralph)["iteration"] == 1


def test_a_restarted_agent_is_bound_again_through_what_it_shares(
        ralph: Ralph, sessions: list[Session]) -> None:
    """``claude --resume``: the session's process is new, its parents are the old one's."""
    owner = _bound_loop(ralph, sessions)
    owner.close()
    sessions.remove(owner)
    resumed = Session(ralph, "s-owner")
    sessions.append(resumed)
    assert resumed.stop("back", stop_hook_active=True)["decision"] == "block"
    assert state(ralph)["iteration"] == 2


def test_without_a_binding_the_recorded_session_is_heeded_then_bound(
        ralph: Ralph, sessions: list[Session], tmp_path: Path) -> None:
    """``start`` with one user folder, the hooks with another (another $XDG_CACHE_HOME): the
    session ``start`` recorded is the only one heard, and its first stop binds the rest."""
    ralph.env["CLAUDE_CODE_SESSION_ID"] = "s-owner"
    assert ralph.run("start", "--until", UNTIL, "create done.txt").ret == 0
    del ralph.env["CLAUDE_CODE_SESSION_ID"]
    ralph.env["RALPH_VERIFY_CACHE_DIR"] = str(tmp_path / "another-cache")
    intruder = Session(ralph, "s-intruder")
    owner = Session(ralph, "s-owner")
    sessions += [intruder, owner]
    assert intruder.stop(BLOCKED) == {}
    assert owner.stop("working")["decision"] == "block"
    forged = ralph.run_subprocess("hook", "claude-stop",
                                  stdin=json.dumps(payload("s-owner", owner.transcript,
                                                           BLOCKED)))
    assert forged.ret == 0 and _refused(forged.json()), forged
    assert state(ralph)["status"] == "running" and state(ralph)["iteration"] == 1


def test_an_agent_that_edits_or_deletes_state_json_does_not_end_the_loop(
        ralph: Ralph, sessions: list[Session]) -> None:
    owner = _bound_loop(ralph, sessions)
    path = ralph.path / ".ralph" / "state.json"
    # The agent marks the loop finished, then stops: the state is put back and checked.
    data = state(ralph)
    data.update(status="finished", phase="finished")
    path.write_text(json.dumps(data))
    answer = owner.stop("all done", stop_hook_active=True)
    assert answer["decision"] == "block", answer
    assert answer["reason"].startswith("ralph-verify: .ralph/state.json was changed outside "
                                       "ralph-verify; it was put back"), answer
    assert state(ralph)["status"] == "running"
    # It deletes the file: the same.
    path.unlink()
    answer = owner.stop("all done", stop_hook_active=True)
    assert answer["decision"] == "block" and "state.json was deleted" in answer["reason"]
    log = (ralph.path / ".ralph" / "hook.log").read_text()
    assert "was changed outside" in log and "was deleted outside" in log
    # The user's own way out still works, even over a deleted state.json.
    path.unlink()
    cancelled = ralph.run("cancel")
    assert cancelled.ret == 0 and "cancelled the" in cancelled.out, cancelled
    assert state(ralph)["verdict"]["verdict"] == "cancelled"
    assert owner.stop("bye", stop_hook_active=True) == {}  # the loop is over: no block
    # Once the loop is over, state.json is nobody's to guard: a later run owns it.
    path.write_text(json.dumps({"mode": "run"}))
    assert owner.stop("bye", stop_hook_active=True) == {}
    assert json.loads(path.read_text()) == {"mode": "run"}
