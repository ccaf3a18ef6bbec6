"""Git checkpoints: the session branch, one commit per iteration, dirty trees, rollback."""

from __future__ import annotations

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent, history, state

#: Turn N writes step.txt = N; turn 3 also writes done.txt.
STEPS = """\
pathlib.Path("step.txt").write_text(str(N))
if N == 3:
    pathlib.Path("done.txt").write_text("done")
"""


def test_session_branch_commits_and_rollback(ralph: Ralph) -> None:
    ralph.git_init()
    result = ralph.run("run", "--agent", agent(ralph, STEPS), "--until", "files:done.txt",
                       "step")
    assert result.ret == 0, result
    session = state(ralph)["session"]
    branch = f"ralph/{session}"
    assert ralph.git("branch", "--show-current").strip() == branch
    assert ralph.git("log", "--format=%s", "main..HEAD").splitlines() == [
        "ralph: iteration 3 — files:done.txt 1, integrity 0",
        "ralph: iteration 2 — files:done.txt 0, integrity 0",
        "ralph: iteration 1 — files:done.txt 0, integrity 0",
    ]
    assert ralph.git("log", "-1", "--format=%s", "main").strip() == "initial"  # untouched
    assert ralph.git("status", "--porcelain") == ""  # .ralph/ is excluded, all committed
    result.stdout.fnmatch_lines([f"working on the new branch {branch} (from main)",
                                 f"branch: {branch} holds the work; 'git switch main' to go "
                                 f"back, 'git merge {branch}' to keep it"])
    commits = [line["commit"] for line in history(ralph)]
    assert commits[2] == ralph.git("rev-parse", "HEAD").strip()

    rolled = ralph.run("rollback", "1")
    assert rolled.ret == 0, rolled
    assert (ralph.path / "step.txt").read_text() == "1"
    assert not (ralph.path / "done.txt").exists()
    assert ralph.git("log", "-1", "--format=%s").startswith("ralph: rollback to iteration 1")
    assert ralph.run("rollback", "0").ret == 0
    assert not (ralph.path / "step.txt").exists()

    missing = ralph.run("rollback", "7")
    assert missing.ret == 2 and "has no commit for iteration 7; iterations with commits: 0, " \
        "1, 2, 3" in missing.err
    ralph.makefile("step.txt", "mine")
    dirty = ralph.run("rollback", "2")
    assert dirty.ret == 2 and "uncommitted changes (step.txt) would be overwritten" in dirty.err


def test_uncommitted_changes_refused_unless_allow_dirty(ralph: Ralph) -> None:
    ralph.git_init()
    ralph.makefile("notes.txt", "my own work in progress\n")
    refused = ralph.run("run", "--agent", agent(ralph, STEPS), "--until", "files:done.txt",
                        "step")
    assert refused.ret == 2, refused
    assert "the tree has uncommitted changes (notes.txt)" in refused.err
    assert "--allow-dirty" in refused.err
    assert ralph.git("branch", "--show-current").strip() == "main"
    assert not (ralph.path / ".ralph" / "iterations" / "000").exists()  # nothing verified
    assert not (ralph.path / ".ralph" / "state.json").exists()

    allowed = ralph.run("run", "--agent", agent(ralph, STEPS), "--until", "files:done.txt",
                        "--allow-dirty", "step")
    assert allowed.ret == 0, allowed
    allowed.stdout.fnmatch_lines(["--allow-dirty: your uncommitted changes (notes.txt) were "
                                  "committed on ralph/* as *, apart from the agent's work"])
    subjects = ralph.git("log", "--format=%s", "main..HEAD").splitlines()
    assert subjects[-1] == "ralph: uncommitted changes at the session start (--allow-dirty)"
    assert ralph.git("show", "--name-only", "--format=", "HEAD~3").split() == ["notes.txt"]
    assert ralph.git("show", "--name-only", "--format=", "HEAD").split() == ["done.txt",
                                                                           "step.txt"]


def test_no_branch_and_no_commit(ralph: Ralph) -> None:
    ralph.git_init()
    result = ralph.run("run", "--agent", agent(ralph, STEPS), "--until", "files:done.txt",
                       "--no-branch", "--no-commit", "step")
    assert result.ret == 0, result
    assert ralph.git("branch", "--show-current").strip() == "main"
    assert ralph.git("log", "--format=%s").splitlines() == ["initial"]
    assert sorted(ralph.git("status", "--porcelain").split()) == ["??", "??", "done.txt",
                                                                  "step.txt"]
    # Files changed are still recorded (from snapshots), commit or not.
    assert [line["files_changed"] for line in history(ralph)] == [
        ["step.txt"], ["step.txt"], ["done.txt", "step.txt"]]


def test_outside_git_files_changed_come_from_snapshots(ralph: Ralph) -> None:
    body = """\
    if N == 1:
        pathlib.Path("pkg").mkdir()
        pathlib.Path("pkg/a.py").write_text("x = 1\\n")
        pathlib.Path("pkg/__pycache__").mkdir()
        pathlib.Path("pkg/__pycache__/a.pyc").write_bytes(b"noise")
    if N == 2:
        pathlib.Path("pyproject.toml").unlink()
    if N == 3:
        pathlib.Path("done.txt").write_text("x")
    """
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "files:done.txt", "x")
    assert result.ret == 0, result
    assert [line["files_changed"] for line in history(ralph)] == [
        ["pkg/a.py"], ["pyproject.toml"], ["done.txt"]]
    checkpoint = state(ralph)["plugin_state"]["checkpoint"]
    assert checkpoint["git"] is False and checkpoint["commits"] == {}


def test_a_refused_run_keeps_the_last_sessions_files(ralph: Ralph) -> None:
    ralph.git_init()
    assert ralph.run("run", "--agent", agent(ralph, STEPS), "--until", "files:done.txt",
                     "step").ret == 0
    session = state(ralph)["session"]
    ralph.makefile("notes.txt", "mine\n")
    assert ralph.run("run", "--agent", agent(ralph, STEPS), "--until", "files:done.txt",
                     "step").ret == 2
    assert state(ralph)["session"] == session
    assert len(history(ralph)) == 3
    assert ralph.run("rollback", "2").ret == 2  # the dirty tree still protects notes.txt


def test_a_bad_branch_prefix_is_refused_before_the_baseline(ralph: Ralph) -> None:
    ralph.git_init()
    result = ralph.run("run", "--agent", agent(ralph, STEPS), "--until", "files:done.txt",
                       "--branch-prefix", "my work..", "step")
    assert result.ret == 2, result
    result.stderr.fnmatch_lines(["ERROR: --branch-prefix 'my work..' (from command line) makes "
                                 "the session branch 'my work..*', which git refuses as a "
                                 "branch name *"])
    assert "baseline" not in result.out
    assert not (ralph.path / ".ralph" / "iterations" / "000").exists()  # nothing verified
    assert ralph.git("branch", "--show-current").strip() == "main"


def test_allow_dirty_does_not_commit_a_secret_without_a_word(ralph: Ralph) -> None:
    """A ``.env`` not ignored is refused, said by name; ignored, the run goes on and it
    stays out of git; ``.env.example`` is committed as any file."""
    ralph.git_init()
    ralph.makefile(".env", "API_TOKEN=s3cr3t\n")
    ralph.makefile(".env.example", "API_TOKEN=\n")
    argv = ("run", "--agent", agent(ralph, STEPS), "--until", "files:done.txt",
            "--allow-dirty", "step")
    refused = ralph.run(*argv)
    assert refused.ret == 2, refused
    refused.stderr.fnmatch_lines(["ERROR: --allow-dirty would commit what looks like secrets "
                                  "(.env) to the session branch, * (add them to .gitignore*"])
    assert ralph.git("branch", "--show-current").strip() == "main"
    ralph.makefile(".git/info/exclude", ".ralph/\n.env\n")
    allowed = ralph.run(*argv)
    assert allowed.ret == 0, allowed
    assert ".env" not in ralph.git("log", "--name-only", "--format=", "main..HEAD").split()
    assert ".env.example" in ralph.git("log", "--name-only", "--format=", "main..HEAD").split()
    assert (ralph.path / ".env").read_text() == "API_TOKEN=s3cr3t\n"
