"""A ``depends-on`` fleet's integration branch ``ralph/fleet-<id>/_integration`` (no task id
starts with ``_``), in its own worktree beside the tasks', and the merge queue's one step:
merge a task's branch, verify the merged tree against the gate, undo the merge if it fails
(the branch only ever holds verified merges; your checkout is never touched).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ralph_verify.fleet.job import add_worktree, worktree_admin
from ralph_verify.project.git import GitError, branch_tip, git

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
        """The worktree on the integration branch (made at the base, or kept as it was)."""
        if not (self.tree / ".git").exists():
            with worktree_admin(self.workdir):
                add_worktree(self.repo, self.tree, self.branch, self.base)

    def close(self) -> None:
        """Remove the worktree; the branch stays (it is the fleet's result)."""
        with worktree_admin(self.workdir):
            git(self.repo, "worktree", "remove", "--force", str(self.tree), check=False)

    def tip(self) -> str:
        return git(self.tree, "rev-parse", "HEAD").strip()

    def touched(self, commit: str) -> list[str]:
        """The files a merge commit brought in (against its first parent)."""
        return git(self.tree, "diff", "--name-only", f"{commit}^1", commit,
                    check=False).split()

    def merge(self, branch: str, message: str, gate: Mapping[str, Sequence[str]], *,
              verified: bool = False) -> MergeOutcome:
        """Merge ``branch``, kept only if the merged tree passes ``gate`` (``verified``: the
        caller knows it does). No such branch (a clone that committed nothing): the gate is
        verified on the tip as it is."""
        before = self.tip()
        if branch_tip(self.repo, branch):
            try:
                git(self.tree, "merge", "--no-ff", "--no-edit", "-m", message, branch,
                    identity=True)
            except GitError as exc:
                conflicts = git(self.tree, "diff", "--name-only", "--diff-filter=U",
                                 check=False).split()
                git(self.tree, "merge", "--abort", check=False)
                git(self.tree, "reset", "-q", "--hard", before, check=False)
                return MergeOutcome(False, conflicts=conflicts or
                                    [f"(git merge failed: {exc.said[:300]})"])
        result = GateResult(True) if verified else self.verify(gate)
        if not result.passed:
            git(self.tree, "reset", "-q", "--hard", before)
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
