"""What every static rule of integrity is (see :mod:`.rules`): it fills its facts of one
Python file (kept by the file's hash, so a later picture reads only the changed files) and
compares the start's picture with today's."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ralph_verify.checks.api import Failure
from ralph_verify.integrity.renames import Judged
from ralph_verify.integrity.sources import source_line
from ralph_verify.records.integrity import FileFacts, Picture


@dataclass(frozen=True)
class Source:
    """One Python file, parsed once for every rule."""

    rel: str
    text: str
    tree: ast.Module | None
    #: The project's own top-level names (stand-ins replace one of them).
    own: frozenset[str] = frozenset()
    #: Modules loaded as pytest plugins (read whole, as a conftest).
    plugins: frozenset[str] = frozenset()
    #: The file's facts in the baseline: its unchanged tests are not walked again.
    kept: FileFacts | None = None

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def line(self, number: int) -> str:
        return source_line(self.lines, number)


@dataclass
class Pair:
    """The session's start and today, for a rule to compare."""

    before: Picture
    after: Picture
    root: Path
    #: The checks of this verification.
    checks: set[str] = field(default_factory=set)
    #: Honest changes worth a look (the check's summary, never a failure).
    notes: list[str] = field(default_factory=list)

    @cached_property
    def tests(self) -> Judged:
        """How each test of the start that is gone now went (renamed, split, deleted with
        its feature, or removed)."""
        from ralph_verify.integrity.renames import judge, splits

        return splits(self.before, self.after, judge(self.before, self.after))

    def changed(self) -> list[tuple[str, FileFacts, FileFacts]]:
        """``(path, then, now)`` of each Python file changed since the start (``then`` is
        empty for a new file); none when either picture lacks the per-file facts."""
        then, now = self.before.facts, self.after.facts
        if then is None or now is None:
            return []
        return [(rel, then.files.get(rel) or FileFacts(""), entry)
                for rel, entry in sorted(now.files.items())
                if (then.files.get(rel) or FileFacts("")).sha != entry.sha]


@dataclass(frozen=True)
class Rule:
    """One rule: what it finds new since the start, the facts it keeps of each Python file,
    and ``yields``: codes of its findings left out on a line reported before them (by a
    finding that does not yield)."""

    compare: Callable[[Pair], list[Failure]]
    facts: Callable[[Source, FileFacts], None] | None = None
    yields: frozenset[str] = frozenset()


def failure(path: str, line: int, rule: str, message: str, detail: str = "") -> Failure:
    """A finding at a line, its message ending with its rule."""
    return Failure(message=f"{path}:{line}: {message} ({rule})", location=f"{path}:{line}",
                   path=path, line=line, detail=detail, code=rule)


#: Finding codes merged into another, still accepted in an ``allow`` list: loosened settings
#: are judged by their effect alone.
ALIASES = {"weakened-setting": "narrowed-setting"}


def _unaliased(allow: list[str]) -> list[str]:
    return [":".join(ALIASES.get(part, part) for part in entry.split(":")) for entry in allow]


def allowed(path: str, rule: str, scope: str, allow: list[str]) -> bool:
    """Whether an ``allow`` entry exempts a finding: the rule, the file, the file and scope."""
    return any(entry in (rule, path, f"{path}:{scope}", f"{path}:{rule}")
               for entry in _unaliased(allow))


def let_pass(failure: Failure, allow: list[str]) -> bool:
    """Whether the frozen ``allow`` option lets ``failure`` pass on purpose: its rule
    (``new-type-ignore``) or its rule and file (``removed-test:tests/test_old.py``)."""
    return failure.code is not None and failure.code != "gaming" and any(
        entry in (failure.code, f"{failure.code}:{failure.path}") for entry in _unaliased(allow))
