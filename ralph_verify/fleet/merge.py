"""The integration branch of a fleet whose tasks depend on each other, and its merge queue's
one step: merge a finished task's branch, then verify the merged tree against the gate.

The integration branch ``ralph/fleet-<id>/_integration`` (beside the tasks' branches
``ralph/fleet-<id>/<task>``; no task id starts with ``_``) starts at the fleet's base and
lives in its own worktree (``<id>/_integration`` beside the tasks' worktrees): your checkout and
branch are never touched. Every task's worktree or clone starts from its tip.
A merge that conflicts is aborted; a merge whose tree fails the gate is undone
(``reset --hard`` to the tip before it): the branch only ever holds verified merges.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ralph_verify.fleet.job import _git, _identity, _worktree_admin

#: The worktree folder of the integration branch, beside the tasks' worktrees.
INTEGRATION_DIR = "_integration"
#: How much of a failing check's output goes into the note a task is sent back with.
FEEDBACK_CHARS = 2000


def integration_branch(fleet_id: str) -> str:
    return f"ralph/fleet-{fleet_id}/{INTEGRATION_DIR}"


@dataclass
class MergeOutcome:
    """One merge: ``ok`` (merged and verified), else the conflicting files or the gate's
    feedback; ``commit`` is the new tip when it merged."""

    ok: bool
    commit: str = ""
    conflicts: list[str] = field(default_factory=list)
    feedback: str = ""


@dataclass
class GateResult:
    """What the merge gate's checks said of an integration."""

    passed: bool
    feedback: str = ""
    #: Folder -> the checks run there (``--until`` text).
    checks: dict[str, str] = field(default_factory=dict)


class Integration:
    """The integration branch and its worktree."""

    def __init__(self, repo: Path, workdir: Path, branch: str, base: str) -> None:
        self.repo, self.workdir, self.branch, self.base = repo, workdir, branch, base
        self.tree = workdir / INTEGRATION_DIR

    def open(self) -> None:
        """The worktree on the integration branch (created at the base, or kept as it was
        when the fleet is resumed)."""
        with _worktree_admin(self.workdir):
            exists = _git(self.repo, "rev-parse", "--verify", "-q",
                          f"refs/heads/{self.branch}", check=False).strip()
            if (self.tree / ".git").exists():
                return
            _git(self.repo, "worktree", "prune", check=False)
            if exists:
                _git(self.repo, "worktree", "add", "-q", str(self.tree), self.branch)
            else:
                _git(self.repo, "worktree", "add", "-q", "-b", self.branch, str(self.tree),
                     self.base)

    def close(self) -> None:
        """Remove the worktree; the branch stays (it is the fleet's result)."""
        with _worktree_admin(self.workdir):
            _git(self.repo, "worktree", "remove", "--force", str(self.tree), check=False)

    def tip(self) -> str:
        return _git(self.tree, "rev-parse", "HEAD").strip()

    def touched(self, commit: str) -> list[str]:
        """The files a merge commit brought in (against its first parent)."""
        return _git(self.tree, "diff", "--name-only", f"{commit}^1", commit,
                    check=False).split()

    def merge(self, branch: str, message: str, gate: Mapping[str, Sequence[str]], *,
              verified: bool = False) -> MergeOutcome:
        """Merge ``branch``; keep it only if the merged tree passes ``gate`` (``verified``:
        the caller knows it does, the tree being one the gate passed on). A branch the
        repository does not have (a loop in a clone that committed nothing) merges nothing:
        the gate is verified on the tip as it is."""
        before = self.tip()
        if not _git(self.repo, "rev-parse", "--verify", "-q", f"refs/heads/{branch}",
                    check=False).strip():
            result = GateResult(True) if verified else self.verify(gate)
            return MergeOutcome(result.passed, commit=before, feedback=result.feedback)
        proc = subprocess.run(
            ["git", "-c", "commit.gpgsign=false", *_identity(self.tree), "merge", "--no-ff",
             "--no-edit", "-m", message, branch], cwd=self.tree, capture_output=True,
            text=True, check=False, stdin=subprocess.DEVNULL,
            env={**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})
        if proc.returncode != 0:
            conflicts = _git(self.tree, "diff", "--name-only", "--diff-filter=U",
                             check=False).split()
            _git(self.tree, "merge", "--abort", check=False)
            _git(self.tree, "reset", "-q", "--hard", before, check=False)
            return MergeOutcome(False, conflicts=conflicts or ["(git merge failed: "
                                                               f"{proc.stderr.strip()[:300]})"])
        result = GateResult(True) if verified else self.verify(gate)
        if not result.passed:
            _git(self.tree, "reset", "-q", "--hard", before)
            return MergeOutcome(False, feedback=result.feedback)
        return MergeOutcome(True, commit=self.tip())

    def verify(self, gate: Mapping[str, Sequence[str]]) -> GateResult:
        """Run ``ralph-verify check`` once per folder with that folder's checks."""
        result = GateResult(True)
        for folder, specs in sorted(gate.items()):
            if not specs:
                continue
            until = ",".join(dict.fromkeys(specs))
            result.checks[folder] = until
            root = (self.tree / folder).resolve()
            proc = subprocess.run(
                [sys.executable, "-m", "ralph_verify", "check", "--root", str(root), "--until",
                 until, "--color", "never"], cwd=root, capture_output=True, text=True,
                check=False, stdin=subprocess.DEVNULL, env={**os.environ, "NO_COLOR": "1"})
            if proc.returncode != 0:
                result.passed = False
                output = (proc.stdout + proc.stderr).strip()
                result.feedback += (f"in {folder}: check --until {until} (exit "
                                    f"{proc.returncode}):\n{output[-FEEDBACK_CHARS:]}\n")
        return result
