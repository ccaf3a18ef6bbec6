"""The product lines a session changed: today's tree against the commit it started from (the
recovery point's; in ``check``, ``--baseline REF`` or ``HEAD``). Tests are not product code."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.project import git

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext
    from ralph_verify.loop.session import Session

class NoBaseline(Exception):
    """There is no commit to compare with: the check cannot judge."""


@dataclass(frozen=True)
class Baseline:
    """The commit the tree is compared with (``None``: a repository with no commit yet),
    and how to name it to the user."""

    commit: str | None
    name: str


def is_product(rel: str) -> bool:
    """A Python file that is no test, test folder's, ``conftest.py`` or start-up file."""
    from ralph_verify.plugins.pytest_run.oracle import is_test_side

    return rel.endswith(".py") and not is_test_side(rel)


def baseline(ctx: VerifyContext) -> Baseline:
    """The commit this verification's changes are measured from (see the module's doc)."""
    from ralph_verify.loop.keys import SESSION_KEY

    root = ctx.root
    if not git.is_repo(root):
        raise NoBaseline(f"{root} is not a git repository: the mutation check mutates the "
                         "lines changed since a commit")
    session = ctx.config.stash.get(SESSION_KEY)
    if session is not None:
        return Baseline(_session_start(root, session), f"session {session.id} started")
    ref = ctx.config.get("baseline")
    if ref:
        return Baseline(_commit(root, str(ref), f"--baseline {ref}: no such commit"),
                        f"{ref}")
    head = git.head(root)
    return Baseline(head, "HEAD" if head else "an empty repository")


def _session_start(root: Path, session: Session) -> str:
    from ralph_verify.errors import UsageError
    from ralph_verify.loop import recovery
    from ralph_verify.records.plugin_state import CheckpointState

    try:
        point = recovery.find(root, session.id)
    except UsageError:  # no point kept (or unreadable): the start tip is next best
        start = CheckpointState.of(session.plugin_state).from_tip
        if start is None:
            raise NoBaseline(f"session {session.id} kept no recovery point to compare "
                             "with") from None
        return _commit(root, start, f"the start of session {session.id} is gone")
    return _commit(root, point.work, f"the recovery point of session {session.id} is not "
                                     "in the repository")


def _commit(root: Path, ref: str, problem: str) -> str:
    found = git.git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if not found.strip():
        raise NoBaseline(problem)
    return found.strip()


def changed_lines(root: Path, commit: str | None) -> dict[str, list[int]]:
    """The product files of today's tree that differ from ``commit``, with the numbers of
    their new or changed lines (a file new since then: all of them)."""
    from ralph_verify.project.judging_tree import changed_since

    changed: dict[str, list[int]] = {}
    for rel in sorted(changed_since(root, commit) if commit else git.tracked_and_untracked(root)):
        if not is_product(rel):
            continue
        try:
            data = (root / rel).read_bytes()
            old = git.git(root, "show", f"{commit}:{rel}", check=False) if commit else ""
        except (OSError, UnicodeDecodeError):
            continue  # deleted, or not text
        lines = _new_lines(old, data.decode("utf-8", "replace"))
        if lines:
            changed[rel] = lines
    return changed


def _new_lines(old: str, new: str) -> list[int]:
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    lines: list[int] = []
    for tag, _, _, first, last in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            lines.extend(range(first + 1, last + 1))
    return lines
