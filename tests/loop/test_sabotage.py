"""An agent that wrecks git loses the user no ref and no stash entry.

The user has branches, tags (annotated and light), a note, a remote-tracking ref and two
stash entries. The agent does its damage in iteration 1, driven by ``run`` (a ``cmd:``
agent, with the sandbox and without) or by the Stop hook (the damage done as Claude Code's
agent would, under bubblewrap or not); when the session ends, every ref and every stash
entry is back, at the same commit, with the same message.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from ralph_verify.guard.sandbox import bwrap_argv
from ralph_verify.testing import Ralph

DAMAGE = {
    "rm -rf .git": "rm -rf .git",
    "branch -D": "git branch -q -D feature && git tag -d v1 light >/dev/null && git update-ref "
                 "-d refs/remotes/origin/main && git update-ref -d refs/notes/commits",
    "stash clear": "git stash clear",
    "reset --hard": "git reset -q --hard HEAD~1",
    "reset --hard another branch": "git checkout -q feature && git reset -q --hard HEAD~1",
    "gc --prune=now": "git branch -q -D feature && git stash clear && git tag -d v1 >/dev/null "
                      "&& git reflog expire --expire=now --all && git gc -q --prune=now",
    "checkout -f": "echo changed > app.txt && git checkout -q -f feature",
}


def user_refs(ralph: Ralph) -> tuple[dict[str, str], list[str]]:
    """The user's repository: what every scenario must find again."""
    ralph.git_init()
    for number in (1, 2):
        ralph.makefile("app.txt", f"version {number}\n")
        ralph.git("add", "app.txt")
        ralph.git("commit", "-q", "-m", f"version {number}")
    ralph.git("switch", "-q", "-c", "feature")
    ralph.makefile("feature.txt", "feature\n")
    ralph.git("add", "feature.txt")
    ralph.git("commit", "-q", "-m", "feature work")
    ralph.git("switch", "-q", "main")
    ralph.git("tag", "-a", "v1", "-m", "release 1")
    ralph.git("tag", "light", "HEAD~1")
    ralph.git("notes", "add", "-m", "a note", "HEAD")
    ralph.git("update-ref", "refs/remotes/origin/main", "HEAD~1")
    for number in (1, 2):
        ralph.makefile("app.txt", f"stashed {number}\n")
        ralph.git("stash", "push", "-q", "-m", f"stash {number}")
    return refs(ralph), stash(ralph)


def refs(ralph: Ralph) -> dict[str, str]:
    """The user's refs (not the session's branch nor ralph-verify's own)."""
    out = ralph.git("for-each-ref", "--format=%(objectname) %(refname)")
    pairs = (line.split() for line in out.splitlines())
    return {name: sha for sha, name in pairs
            if not name.startswith(("refs/heads/ralph/", "refs/ralph-verify/"))}


def stash(ralph: Ralph) -> list[str]:
    return ralph.git("stash", "list", "--format=%H %gs").splitlines()


def _ids(sandbox: bool) -> str:
    return "sandbox" if sandbox else "no-sandbox"


@pytest.mark.parametrize("sandbox", [True, False], ids=_ids)
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_run_ends_with_every_ref_and_stash_entry_back(ralph: Ralph, damage: str,
                                                       sandbox: bool) -> None:
    before = user_refs(ralph)
    result = ralph.run("run", "--agent", f"cmd:{DAMAGE[damage]}", "--until", "files:done.txt",
                       "--max-iterations", "1", "--sandbox" if sandbox else "--no-sandbox", "go")
    assert "Traceback" not in result.err, result
    assert (refs(ralph), stash(ralph)) == before, result
    if damage != "checkout -f":  # the other damages lose something: the end says it is back
        result.stdout.fnmatch_lines(["*recover: *"])
    assert ralph.git("fsck", "--no-dangling", "--no-progress") == ""


@pytest.mark.parametrize("sandbox", [True, False], ids=_ids)
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_the_stop_hook_ends_with_every_ref_and_stash_entry_back(ralph: Ralph, damage: str,
                                                                 sandbox: bool) -> None:
    before = user_refs(ralph)
    assert ralph.run("start", "--until", "files:done.txt", "--max-iterations", "1").ret == 0
    bwrap = shutil.which("bwrap")
    assert bwrap, "bubblewrap is needed: apt-get install bubblewrap"
    argv = ["sh", "-c", DAMAGE[damage]]
    if sandbox:
        argv = [*bwrap_argv(bwrap, ralph.path), *argv]
    done = subprocess.run(argv, cwd=ralph.path, env={**os.environ, **ralph.env})
    # In the sandbox .git is a mount point with read-only parts: 'rm -rf .git' fails on
    # them, and removes HEAD, refs/ and the index.
    assert done.returncode == 0 or (sandbox and damage == "rm -rf .git"), done
    if damage != "checkout -f":  # the damage is real, also in the sandbox
        assert not (ralph.path / ".git/HEAD").exists() or (refs(ralph), stash(ralph)) != before
    payload = {"session_id": "s-1", "hook_event_name": "Stop", "cwd": str(ralph.path),
               "stop_hook_active": False, "last_assistant_message": "done"}
    result = ralph.run("hook", "claude-stop", stdin=json.dumps(payload))
    assert result.ret == 0 and "Traceback" not in result.err, result
    assert json.loads((ralph.path / ".ralph/state.json").read_text())["status"] == "finished"
    assert (refs(ralph), stash(ralph)) == before, result
    assert ralph.git("branch", "--show-current").strip() in ("main", "feature")


def test_recover_brings_back_every_ref_lost_after_the_session(ralph: Ralph) -> None:
    before = user_refs(ralph)
    result = ralph.run("run", "--agent", "cmd:echo work > work.txt", "--until",
                       "files:done.txt", "--max-iterations", "1", "go")
    # A clean start: the branch alone, no "and 0 uncommitted file(s)".
    assert "recovery point: your branch main is kept in " in result.out, result
    shutil.rmtree(ralph.path / ".git")  # a process the agent left behind, or a slip
    recovered = ralph.run("recover")
    assert recovered.ret == 0, recovered
    assert (refs(ralph), stash(ralph)) == before
    recovered.stdout.fnmatch_lines(["recover: re-created */.git from *",
                                    "recover: re-created * ref(s) deleted since the backup: *",
                                    "recover: put back 2 lost stash entries ('git stash list')",
                                    "recover: HEAD is on main*"])
    assert ralph.git("branch", "--show-current").strip() == "main"
    assert ralph.git("status", "--porcelain") == "?? work.txt\n"  # the session's, on its branch


def test_recover_never_overwrites_a_rewritten_ref(ralph: Ralph) -> None:
    before, _ = user_refs(ralph)
    assert ralph.run("run", "--agent", "cmd:true", "--until", "files:done.txt",
                     "--max-iterations", "1", "--no-branch", "go").ret != 2
    ralph.git("switch", "-q", "feature")
    ralph.git("commit", "-q", "--amend", "-m", "feature work, reworded on purpose")
    reworded = ralph.git("rev-parse", "feature").strip()
    recovered = ralph.run("recover")
    assert recovered.ret == 0, recovered
    assert ralph.git("rev-parse", "feature").strip() == reworded  # the user's move stays
    session = json.loads((ralph.path / ".ralph/state.json").read_text())["session"]
    kept = f"refs/ralph-verify/recovered/{session}/heads/feature"
    assert ralph.git("rev-parse", kept).strip() == before["refs/heads/feature"]
    recovered.stdout.fnmatch_lines([f"recover: 1 ref(s) were rewritten since the backup and "
                                    f"are left as they are (feature); their backed-up tips "
                                    f"are under refs/ralph-verify/recovered/{session}/ *"])


def test_the_backup_survives_what_destroys_the_repository(ralph: Ralph) -> None:
    """The mirror lies outside the project and holds every object the point names."""
    from ralph_verify.loop import recovery

    before, _ = user_refs(ralph)
    point = recovery.create(ralph.path, "s-1")
    shutil.rmtree(ralph.path / ".git")
    mirror = point.dir.parent / recovery.MIRROR
    for sha in [*point.refs.values(), *(entry.sha for entry in point.stash)]:
        subprocess.run(["git", "--git-dir", str(mirror), "cat-file", "-e", sha], check=True)
    assert point.refs == {k: v for k, v in before.items() if k != "refs/stash"}
    assert [entry.message for entry in point.stash] == ["On main: stash 1", "On main: stash 2"]
