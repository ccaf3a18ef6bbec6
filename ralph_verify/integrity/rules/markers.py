"""New skips and suppressions, judged by what they hide from the checks of this run's gate.

A suppression hides something only from the check that reads it (:data:`HIDES_FROM`) and
only in a file its tool reads. A blanket one is a failure; a code-specific one is a note,
unless it silences a code its check reported in that file at the start, or an iteration adds
more than :data:`BUDGET` of them. Skip and xfail markers are judged by :mod:`.skips`."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure
from ralph_verify.integrity import membership, skips
from ralph_verify.integrity.sources import is_test_file, is_test_side, markers, read_text
from ralph_verify.records.integrity import FileFacts, Picture

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair, Source

#: Code-specific suppressions an iteration may add before they count as bulk.
BUDGET = 3
#: The check each suppression kind hides something from.
HIDES_FROM = {"noqa": "lint", "type: ignore": "types", "no cover": "coverage"}
ADVICE = {
    "skip": "make the test pass instead of skipping it",
    "xfail": "make the test pass instead of marking it as expected to fail",
    "noqa": "fix the problem instead of silencing the linter (a narrow `# noqa: CODE` where "
            "the rule really fires is allowed)",
    "type: ignore": "fix the type error instead of silencing the type checker (a narrow "
                    "`# type: ignore[code]` where the error really fires is allowed)",
    "no cover": "test the code instead of excluding it from coverage",
}
_COMMENT = re.compile(r"#.*$")
#: A pytest marker a test file uses (``@pytest.mark.slow``, ``pytestmark = mark.slow``).
_MARK = re.compile(r"\bmark\.(\w+)")


def codes(kind: str, text: str) -> list[str]:
    """The codes a suppression names: ``noqa: E501, F401`` -> ``["E501", "F401"]``."""
    if kind == "noqa":
        rest = re.split(r"(?i)noqa", text, maxsplit=1)[-1]
        return re.findall(r"[A-Z]+[0-9]+", rest) if rest.lstrip().startswith(":") else []
    if kind == "type: ignore" and "[" in text:
        return [c.strip() for c in text.split("[", 1)[1].rstrip("]").split(",") if c.strip()]
    return []


def _bare(source: str) -> str:
    """A source line without its comment and spaces: the same code, whatever is silenced."""
    return re.sub(r"\s+", "", _COMMENT.sub("", source))


def facts(src: Source, out: FileFacts) -> None:
    """Every skip, xfail and suppression comment; the pytest markers a test file uses."""
    out.markers = [[m.kind, m.text, m.line, m.source] for m in markers(src.text)]
    if is_test_file(src.rel):
        out.marks = sorted(set(_MARK.findall(src.text)))


def compare(pair: Pair) -> list[Failure]:
    """Failures for new skips and suppressions that hide something from the gate; the
    allowed ones that are worth a look go to the notes."""
    before, after, root, notes = pair.before, pair.after, pair.root, pair.notes
    gate = before.gate
    checks = set(gate.checks) if gate is not None else None
    failing = {(c, p, code) for c, p, code in gate.failing} if gate is not None else set()
    old_all, new_all = before.markers, after.markers
    unparsed = set(after.unparsed)
    total_then = Counter((m[0], m[1]) for found in old_all.values() for m in found)
    total_now = Counter((m[0], m[1]) for found in new_all.values() for m in found)
    lines_then = Counter((m[0], _bare(m[3])) for found in old_all.values() for m in found)
    fresh: list[tuple[str, str, int, str, str]] = []
    for path, found in sorted(new_all.items()):
        if path in unparsed:
            continue  # no longer parses: the tests check reports it
        old = old_all.get(path, [])
        then = Counter((m[0], m[1]) for m in old)
        sources_then = {(m[0], m[1], m[3]) for m in old}
        for (kind, text), count in sorted(Counter((m[0], m[1]) for m in found).items()):
            extra = min(count - then.get((kind, text), 0),
                        total_now[(kind, text)] - total_then.get((kind, text), 0))
            if extra <= 0:
                continue  # none new in this file, or moved here from another file
            candidates = [m for m in found if (m[0], m[1]) == (kind, text)]
            # Lines whose text is new first: they are the added ones, not moved ones.
            candidates.sort(key=lambda m: ((m[0], m[1], m[3]) in sources_then, -m[2]))
            fresh += [(path, kind, m[2], m[3], text) for m in candidates[:extra]]
            total_now[(kind, text)] -= extra
    judged: list[tuple[str, str, int, str, str]] = []
    for path, kind, line, source, text in sorted(fresh, key=lambda f: (f[0], f[2])):
        if lines_then[(kind, _bare(source))] > 0:
            lines_then[(kind, _bare(source))] -= 1
            continue  # the same line silenced before: a renamed code or a reformat
        judged.append((path, kind, line, source, text))
    failures: list[Failure] = []
    narrow: list[tuple[str, str, int, str, str]] = []
    for path, kind, line, source, text in judged:
        if kind in ("skip", "xfail"):
            verdict = skips.judge(read_text(root / path), line, path, pair)
            if verdict == "inactive":
                continue
            if verdict == "new-tests":
                notes.append(f"{path}:{line}: `{text}` applies only to new tests")
                continue
            failures.append(_failure(path, kind, line, source, text, ""))
            continue
        check = HIDES_FROM["type: ignore" if kind == "type: ignore" else kind]
        if checks is not None and check not in checks:
            continue  # the check it silences does not decide this run: nothing hidden
        if not _read_by_tool(root, after, kind, path):
            continue  # its tool never reads this file (effective settings): nothing hidden
        named = codes(kind, text)
        if kind == "no cover" and is_test_side(path):
            notes.append(f"{path}:{line}: `{text}` in test code")
            continue
        if not named:
            failures.append(_failure(path, kind, line, source, text, " (a blanket one)"))
        elif any((check, path, code) in failing for code in named):
            failures.append(_failure(path, kind, line, source, text,
                                     f" ({check} reported it in {path} when the session "
                                     "started: this silences a failing check)"))
        else:
            narrow.append((path, kind, line, source, text))
    if len(narrow) > BUDGET:
        failures += [_failure(path, kind, line, source, text,
                              f" ({len(narrow)} new suppressions in one iteration, more than "
                              f"{BUDGET}: fix most of them)")
                     for path, kind, line, source, text in narrow]
    else:
        notes += [f"{path}:{line}: `{text}` (a narrow suppression)"
                  for path, _, line, _, text in narrow]
    return failures


def _read_by_tool(root: Path, picture: Picture, kind: str, path: str) -> bool:
    """Whether the tool a suppression speaks to reads ``path`` under the effective settings
    of ``picture``: mypy for ``type: ignore``, coverage for ``no cover``."""
    if kind == "type: ignore":
        return membership.type_checked(root, picture, path)
    if kind == "no cover":
        return membership.measured(root, picture, path)
    return True


def _failure(path: str, kind: str, line: int, source: str, text: str, why: str) -> Failure:
    noun = "marker" if kind in ("skip", "xfail") else "suppression comment"
    code = f"new-{kind.replace(': ', '-').replace(' ', '-')}"
    return Failure(message=f"new {kind} {noun} `{text}` at {path}:{line}{why}: {ADVICE[kind]} "
                           f"({code}; see docs/integrity.md to allow it on purpose)",
                   location=f"{path}:{line}", path=path, line=line, detail=source, code=code)
