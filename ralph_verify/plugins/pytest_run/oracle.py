"""The frozen oracle: in a session, the tests and settings of its start judge today's code.

When a test-side file differs from the session's start, pytest runs in a judging tree with
those files as they were, so an edited test or a planted stand-in does not count; the
agent's new and changed tests run in a pass of their own. ``allow`` releases files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import CheckResult, Failure, Status
from ralph_verify.config.stash import StashKey
from ralph_verify.loop.keys import SESSION_KEY

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext

#: Files pytest and coverage read settings or code from before any test runs (pytest loads
#: the ``pytest11`` entry points of every distribution on the path, the project's folder too).
SETTINGS = frozenset({"pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", ".pytest.ini",
                      ".coveragerc", "conftest.py", "sitecustomize.py", "usercustomize.py",
                      "entry_points.txt"})
TEST_DIRS = frozenset({"tests", "test", "testing"})
#: The session's start commit, read once (before the agent runs) per session.
_BASE_KEY = StashKey[tuple[str, str | None]]("pytest.oracle_base")


def is_test_file(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def is_test_side(rel: str) -> bool:
    parts = rel.split("/")
    name = parts[-1]
    return (name in SETTINGS or name.endswith(".pth") or is_test_file(rel)
            or bool(TEST_DIRS.intersection(parts[:-1])))


@dataclass(frozen=True)
class Oracle:
    """What one verification's pytest run was judged with."""

    base: str
    #: Test-side files that differ from the start: served as they were (absent when new).
    frozen: tuple[str, ...]
    #: Test-side files that differ from the start, released by the user: taken as they are.
    released: tuple[str, ...]
    #: The test modules the agent added or changed, run as they are now in a pass of their own.
    agent_tests: tuple[str, ...] = ()


def session_base(ctx: VerifyContext) -> str | None:
    """The session's start commit: its recovery point's, ``None`` outside a session, before
    its start (the baseline verification judges the start itself) or without git."""
    session = ctx.config.stash.get(SESSION_KEY)
    if session is None or session.baseline is None:
        return None
    kept = ctx.config.stash.get(_BASE_KEY)
    if kept is None or kept[0] != session.id:
        from ralph_verify.errors import UsageError
        from ralph_verify.loop import recovery

        try:
            work: str | None = recovery.find(ctx.root, session.id).work
        except UsageError:
            work = None  # not a git repository: no recovery point, no frozen oracle
        kept = ctx.config.stash[_BASE_KEY] = (session.id, work)
    return kept[1]


def plan(ctx: VerifyContext, allow: list[str]) -> Oracle | None:
    """The oracle of this verification, ``None`` when no test-side file changed (or outside a
    session): pytest then runs in the project as always. ``allow``: globs released."""
    base = session_base(ctx)
    if base is None:
        return None
    from ralph_verify.integrity.rules.guarded import glob_regex
    from ralph_verify.project.judging_tree import changed_since

    changed = sorted(p for p in changed_since(ctx.root, base) if is_test_side(p))
    if not changed:
        return None
    patterns = [glob_regex(glob) for glob in allow]
    released = tuple(p for p in changed if any(regex.match(p) for regex in patterns))
    frozen = tuple(p for p in changed if p not in released)
    agent = tuple(p for p in frozen if is_test_file(p) and (ctx.root / p).is_file())
    return Oracle(base, frozen, released, agent)


def keep_now(oracle: Oracle) -> Callable[[str], bool]:
    """The judging tree's ``keep_now``: neither a frozen file nor a new test-side file."""
    frozen = set(oracle.frozen)
    return lambda rel: rel not in frozen and not (is_test_side(rel) and rel not in
                                                  oracle.released)


def unmap(text: str, tree: Path, root: Path) -> str:
    """Paths of the judging tree, shown as the project's."""
    return text.replace(str(tree), str(root)) if text else text


def note(oracle: Oracle, result: CheckResult) -> CheckResult:
    """``result`` with the released and frozen files named (and why a failure stands)."""
    if oracle.released:
        result.summary += f"; released from the frozen tests: {', '.join(oracle.released)}"
        result.counts["released"] = len(oracle.released)
    if not oracle.frozen:
        return result
    result.counts["frozen"] = len(oracle.frozen)
    result.summary += f"; judged with the session start's tests ({len(oracle.frozen)} changed " \
                      "test-side file(s) frozen)"
    if result.status is Status.FAILED:
        shown = ", ".join(oracle.frozen[:10]) + (" ..." if len(oracle.frozen) > 10 else "")
        result.failures.append(Failure(
            message=f"frozen: {shown}: the tests ran as they were when the session started "
                    "(new test-side files left out), so edits to these files do not count; "
                    "make the product code pass them (your new and changed test modules ran "
                    "on their own, as they are). The user may release files: allow = [globs] "
                    "in [tool.ralph-verify.checks.tests], or --allow-test-edits",
            code="frozen-tests"))
    return result
