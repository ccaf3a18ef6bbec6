"""``ralph-verify rollback N``: restore iteration N's tree as a new commit on the session branch."""

from __future__ import annotations

from pathlib import Path

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl
from ralph_verify.project import git
from ralph_verify.records.plugin_state import CheckpointState


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command("rollback", rollback, scopes=("rollback",),
                       help="restore the project tree of iteration N of the last session "
                            "(0: as it was at the start) as a new commit")
    parser.addoption("iteration", scope="rollback", type=int, metavar="N",
                     help="the iteration whose tree to restore (0: the session's start)")


def rollback(config: Config) -> int:
    from ralph_verify.loop.state import StateDir
    state = StateDir(config.root)
    number = int(config.get("iteration"))
    data = state.read_state()
    if data is None:
        raise UsageError(f"no session in {config.root} to roll back")
    checkpoint = CheckpointState.of(data.plugin_state)
    commits = checkpoint.commits
    commit = commits.get(str(number))
    if commit is None:
        known = ", ".join(sorted(commits, key=int)) or "none (was it run with --no-commit, "\
            "--no-branch outside git, or -p no:checkpoint?)"
        raise UsageError(f"session {data.session} has no commit for iteration {number}; "
                         f"iterations with commits: {known}")
    if state.lock_holder() is not None:
        raise UsageError("a run is active in this project: stop it first ('ralph-verify cancel')")
    own = checkpoint.own_branch
    here = git.current_branch(config.root)
    if own and here != own:
        raise UsageError(f"rollback commits onto the session's own branch {own}, but HEAD is "
                         f"on {here or 'a detached HEAD'}: 'git switch {own}' first (your "
                         "other branches are never rolled back)")
    where = restore_as_commit(config.root, commit, f"ralph: rollback to iteration {number} "
                                                   f"({commit[:10]})")
    print(f"restored the tree of iteration {number} (commit {commit[:10]}) {where} on "
          f"{git.current_branch(config.root) or 'a detached HEAD'}")
    return 0


def restore_as_commit(root: Path, commit: str, message: str) -> str:
    """``commit``'s tree as a new commit, never over uncommitted changes; says where."""
    dirty = git.dirty_paths(root)
    if dirty:
        raise UsageError(f"uncommitted changes ({', '.join(dirty[:5])}"
                         f"{' ...' if len(dirty) > 5 else ''}) would be overwritten: commit "
                         "or stash them first")
    git.restore_tree(root, commit)
    new = git.commit_all(root, message)
    return f"as commit {new[:10]}" if new else "(the tree was already the same)"
