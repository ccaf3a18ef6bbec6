"""The recovery point: an agent that destroys git history or the tree loses the user nothing.

Every scenario starts from the same user state: a branch ``main`` with two commits, a
tracked file changed but not committed, and an untracked file; the run starts with
``--allow-dirty``, the agent does its damage, and ``ralph-verify recover`` must bring back
the branch tip and the uncommitted contents.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_verify.loop.verdict import EXIT_CODES, Verdict
from ralph_verify.testing import Ralph
from tests.loop_helpers import state, user_state


@pytest.mark.parametrize(("damage", "options"), [
    ("rm -rf .git", ()),
    ("git checkout -q main && git reset -q --hard HEAD~1", ()),
    # drops the session branch's commit that holds the user's work (--allow-dirty)
    ("git reset -q --hard HEAD~1", ()),
    # --no-commit leaves the user's changes uncommitted in the tree: the agent wipes them
    ("git checkout -q -- . && git clean -fdxq", ("--no-commit",)),
])
def test_recover_after_the_agent_destroys_work(ralph: Ralph, damage: str,
                                               options: tuple[str, ...]) -> None:
    tip = user_state(ralph)
    result = ralph.run("run", "--agent", f"cmd:{damage}", "--until", "files:done.txt",
                       "--max-iterations", "1", "--allow-dirty", *options, "go")
    # The git guard stops a session whose repository or branch the agent wrecked; git
    # clean -x also deletes .ralph/: either way the session ends as agent-error.
    assert result.ret == EXIT_CODES[Verdict.AGENT_ERROR], result
    if "--no-commit" not in options:
        result.stdout.fnmatch_lines(["*git: the agent *recover*"])
    if "checkout" not in damage:  # the session's branch is gone or rewound: no claim on it
        assert "holds the work" not in result.out
    result.stdout.fnmatch_lines(["*recovery point: your branch main and 2 uncommitted files "
                                 "are kept in *; 'ralph-verify recover' restores them"])
    assert "INTERNAL ERROR" not in result.err
    if "reset" in damage:  # the session's end moved the rewound branch forward again
        result.stdout.fnmatch_lines(["*recover: moved 1 rewound ref(s) forward to their "
                                     "backed-up tips (commits lost since): *"])
    elif ".git" in damage:  # and re-created the repository, HEAD on the session's branch
        result.stdout.fnmatch_lines(["*recover: re-created */.git from *refs.git",
                                     "*recover: re-created 2 ref(s) deleted since the backup: "
                                     "main, ralph/*", "*recover: HEAD is on ralph/*"])

    recovered = ralph.run("recover")
    assert recovered.ret == 0, recovered
    assert ralph.git("rev-parse", "main").strip() == tip
    assert ralph.git("branch", "--show-current").strip() == "main"
    assert (ralph.path / "app.txt").read_text() == "version 2, not committed\n"
    assert (ralph.path / "notes.txt").read_text() == "my untracked notes\n"
    assert ralph.git("log", "--format=%s", "main").splitlines() == ["second", "initial"]
    recovered.stdout.fnmatch_lines(["recover: *"])


def test_checkpoints_never_land_on_the_users_branch(ralph: Ralph) -> None:
    ralph.git_init()
    main = ralph.git("rev-parse", "main").strip()
    agent = "cmd:git checkout -q main && echo agent work > work.txt"
    result = ralph.run("run", "--agent", agent, "--until", "files:done.txt",
                       "--max-iterations", "2", "go")
    # The git guard: the agent left the session's branch, so the session stops at once,
    # its changes committed on the session's branch and HEAD put back there.
    assert result.ret == EXIT_CODES[Verdict.AGENT_ERROR], result
    assert ralph.git("rev-parse", "main").strip() == main  # the user's branch never moved
    session = state(ralph)["session"]
    branch = f"ralph/{session}"
    result.stdout.fnmatch_lines([f"*WARNING: the agent left the session's branch {branch} for "
                                 f"main; its changes were committed on {branch} as *, main was "
                                 "not touched",
                                 f"*agent-error*git: the agent switched to main; its changes "
                                 f"were committed on the session's branch {branch} as * and "
                                 f"HEAD is back on {branch}; your branch main was not touched"])
    assert ralph.git("show", f"{branch}:work.txt") == "agent work\n"
    assert ralph.git("branch", "--show-current").strip() == branch
    assert (ralph.path / "work.txt").read_text() == "agent work\n"
    assert not (ralph.path / ".ralph" / "iterations" / "002").exists()
    assert "the agent left the session's branch for main" in ralph.run("status").stdout.str()

    ralph.git("checkout", "-q", "main")
    refused = ralph.run("rollback", "0")  # HEAD is on main: rollback must not commit there
    assert refused.ret == 2, refused
    assert f"HEAD is on main: 'git switch {branch}' first" in refused.err
    assert ralph.git("rev-parse", "main").strip() == main


def test_hook_mode_start_keeps_a_recovery_point(ralph: Ralph) -> None:
    tip = user_state(ralph)
    started = ralph.run("start", "--until", "files:done.txt")
    assert started.ret == 0, started
    assert "recovery point " in ralph.run("status").stdout.str()
    ralph.git("reset", "-q", "--hard", "HEAD~1")  # what an agent inside Claude Code might do
    ralph.git("clean", "-fdq")
    assert not (ralph.path / "notes.txt").exists()

    recovered = ralph.run("recover")
    assert recovered.ret == 0, recovered
    assert ralph.git("rev-parse", "main").strip() == tip
    assert (ralph.path / "app.txt").read_text() == "version 2, not committed\n"
    assert (ralph.path / "notes.txt").read_text() == "my untracked notes\n"


def test_recover_never_overwrites_newer_work(ralph: Ralph) -> None:
    user_state(ralph)
    result = ralph.run("run", "--agent", "cmd:git clean -fdxq && echo agent > app.txt",
                       "--until", "files:done.txt", "--max-iterations", "1", "--allow-dirty",
                       "--no-commit", "go")
    assert result.ret == EXIT_CODES[Verdict.AGENT_ERROR], result  # .ralph/ went too
    recovered = ralph.run("recover")
    assert recovered.ret == 0, recovered
    assert (ralph.path / "app.txt").read_text() == "agent\n"  # newer than the start: kept
    assert (ralph.path / "notes.txt").read_text() == "my untracked notes\n"
    session = state(ralph)["session"]
    recovered.stdout.fnmatch_lines([f"recover: 1 file(s) changed since the session start were "
                                    f"left as they are (app.txt); the uncommitted work of the "
                                    f"start is on branch ralph-recover/{session}/uncommitted*"])
    kept = ralph.git("show", f"ralph-recover/{session}/uncommitted:app.txt")
    assert kept == "version 2, not committed\n"


def test_recover_without_a_recovery_point_is_a_usage_error(ralph: Ralph) -> None:
    ralph.git_init()
    result = ralph.run("recover")
    assert result.ret == 2 and "ERROR: no recovery point for" in result.err
    named = ralph.run("recover", "nope")
    assert named.ret == 2 and "no recovery point for session nope" in named.err


@pytest.mark.parametrize(("damage", "found"), [
    ("rm -rf .ralph", ".ralph/ was deleted"),
    ("rm -rf .ralph && echo agent > .ralph", ".ralph/ was replaced by a file (kept as "
                                             ".ralph.replaced-*)"),
])
def test_an_agent_that_breaks_ralph_dir_ends_the_session_cleanly(ralph: Ralph, damage: str,
                                                                  found: str) -> None:
    ralph.git_init()
    result = ralph.run("run", "--agent", f"cmd:{damage}", "--until", "files:done.txt",
                       "--max-iterations", "3", "go")
    assert result.ret == EXIT_CODES[Verdict.AGENT_ERROR], result
    assert "INTERNAL ERROR" not in result.err and "Traceback" not in result.err
    result.stdout.fnmatch_lines([f"ERROR: {found}; the session ends with what it knows"])
    data = state(ralph)  # written again, with what the session knew
    assert data["status"] == "finished" and data["iteration"] == 1
    assert data["verdict"]["verdict"] == "agent-error"
    status = ralph.run("status")
    assert status.ret == 0 and "the agent damaged ralph-verify's records" in status.stdout.str()
    if "file" in found:
        kept = list(ralph.path.glob(".ralph.replaced-*"))
        assert len(kept) == 1 and kept[0].read_text() == "agent\n"  # moved aside, not lost


def test_a_corrupted_state_json_is_rewritten(ralph: Ralph) -> None:
    ralph.git_init()
    result = ralph.run("run", "--agent", "cmd:echo garbage > .ralph/state.json", "--until",
                       "files:done.txt", "--max-iterations", "2", "go")
    assert result.ret == EXIT_CODES[Verdict.MAX_ITERATIONS], result
    assert state(ralph)["iteration"] == 2
    assert ralph.run("status").ret == 0


def _records(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("failing", [
    ("--agent", "gemini:ralph-no-such-gemini"),  # the agent CLI is missing
    ("--agent", "cmd:true", "--max-iterations", "0"),  # a usage error
    ("--agent", "cmd:true", "--until", "nope"),
    ("--agent", "cmd:true", "--dirty"),  # uncommitted changes (no --allow-dirty)
])
def test_a_run_that_fails_to_start_leaves_the_last_session_alone(
        ralph: Ralph, failing: tuple[str, ...]) -> None:
    ralph.git_init()
    first = ralph.run("run", "--agent", "cmd:echo > work.txt", "--until", "files:done.txt",
                      "--max-iterations", "1", "go")
    assert first.ret == EXIT_CODES[Verdict.MAX_ITERATIONS], first
    assert ralph.run("report").ret == 0
    before = _records(ralph.path / ".ralph")
    status = ralph.run("status").stdout.str()
    if "--dirty" in failing:
        (ralph.path / "pyproject.toml").write_text("# edited, not committed\n", "utf-8")
        failing = tuple(f for f in failing if f != "--dirty")
    options = failing if "--until" in failing else (*failing, "--until", "files:done.txt")
    second = ralph.run("run", *options, "go")
    assert second.ret in (2, EXIT_CODES[Verdict.AGENT_ERROR]), second
    assert second.err.startswith("ERROR: ") or "\nERROR: " in second.err
    assert _records(ralph.path / ".ralph") == before  # byte for byte
    assert ralph.run("status").stdout.str() == status
    assert ralph.run("report").ret == 0  # the report of A, regenerated, still reads


def test_a_resumed_session_adds_up_its_wall_and_agent_time(ralph: Ralph) -> None:
    ralph.git_init()
    slow = ("cmd:sleep 1; echo $RALPH_ITERATION >> turns.txt")
    first = ralph.run("run", "--agent", slow, "--until", "files:done.txt",
                      "--max-iterations", "1", "go")
    assert first.ret == EXIT_CODES[Verdict.MAX_ITERATIONS], first
    wall_1 = state(ralph)["elapsed_s"]
    assert wall_1 >= 1.0
    second = ralph.run("run", "--resume", "--max-iterations", "2")
    assert second.ret == EXIT_CODES[Verdict.MAX_ITERATIONS], second
    data = state(ralph)
    assert data["elapsed_s"] >= wall_1 + 1.0  # not reset by the resume
    records = [json.loads(line) for line in
               (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in records] == [1, 2]  # no record lost, none twice
    agent_s = sum(r["agent"]["duration_s"] for r in records)
    assert 2.0 <= agent_s <= data["elapsed_s"]


def test_resume_after_a_budget_stop_keeps_time_and_records(ralph: Ralph) -> None:
    ralph.git_init()
    slow = "cmd:sleep 1; echo $RALPH_ITERATION >> turns.txt"
    first = ralph.run("run", "--agent", slow, "--until", "files:done.txt", "--max-time", "1",
                      "-p", "no:breaker", "go")
    assert first.ret == EXIT_CODES[Verdict.BUDGET], first
    wall_1 = state(ralph)["elapsed_s"]
    done_1 = len((ralph.path / ".ralph" / "history.jsonl").read_text().splitlines())
    second = ralph.run("run", "--resume", "--max-time", "1h", "--max-iterations",
                       str(done_1 + 1))
    assert second.ret == EXIT_CODES[Verdict.MAX_ITERATIONS], second
    data = state(ralph)
    assert data["elapsed_s"] >= wall_1 + 1.0
    records = [json.loads(line) for line in
               (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in records] == list(range(1, done_1 + 2))
    assert sum(r["agent"]["duration_s"] for r in records) <= data["elapsed_s"]


def test_recovery_points_are_bounded_per_project(ralph: Ralph) -> None:
    from ralph_verify.loop import recovery

    ralph.git_init()
    for number in range(recovery.KEEP + 2):
        recovery.create(ralph.path, f"s{number:02d}")
    kept = sorted(p.name for p in recovery.project_dir(ralph.path).iterdir())
    assert kept == [recovery.MIRROR, *(f"s{n:02d}" for n in range(2, recovery.KEEP + 2))]
    assert recovery.find(ralph.path, None).session == f"s{recovery.KEEP + 1:02d}"
