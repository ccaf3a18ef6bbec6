"""Take a picture of how strict a project is, save it, and say what got weaker since.

The picture (:class:`~ralph_verify.records.integrity.Picture`, saved as
``.ralph/integrity-baseline.json``) holds the test functions
of every test file, every skip/xfail marker and suppression comment, the
watched tool settings, and hashes of the files that must not be deleted
(``keep``) or changed at all (``protected``). :func:`compare` turns the
differences that weaken the project into failures with a file and line.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ralph_verify.checks.api import Failure
from ralph_verify.integrity import (
    deep,
    gaming,
    infra,
    parsed,
    renames,
    setting_moves,
    suppressions,
    weakened,
)
from ralph_verify.integrity.settings import read_all, weakenings
from ralph_verify.integrity.sources import find_tests, is_test_file, markers
from ralph_verify.project.snapshot import project_files
from ralph_verify.records import integrity as records
from ralph_verify.records.integrity import Picture
from ralph_verify.state_files import now_iso

VERSION = records.VERSION
#: A pytest marker a test file uses (``@pytest.mark.slow``, ``pytestmark = mark.slow``).
_MARK = re.compile(r"\bmark\.(\w+)")
MAX_REPORTED_TESTS = 20


def list_files(root: Path) -> list[str]:
    """The project's files that exist (see
    :func:`ralph_verify.project.snapshot.project_files`)."""
    return [p for p in project_files(root) if (root / p).is_file()]


def glob_regex(pattern: str) -> re.Pattern[str]:
    """``tests/**`` style globs: ``**`` spans folders, ``*`` and ``?`` stay within one."""
    out = ""
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out += "(?:.*/)?"
            index += 3
        elif pattern.startswith("**", index):
            out += ".*"
            index += 2
        elif pattern[index] == "*":
            out += "[^/]*"
            index += 1
        elif pattern[index] == "?":
            out += "[^/]"
            index += 1
        else:
            out += re.escape(pattern[index])
            index += 1
    return re.compile(out + r"\Z")


def _matching(files: Sequence[str], globs: Sequence[str]) -> dict[str, str]:
    """File -> the first glob it matches."""
    patterns = [(glob, glob_regex(glob)) for glob in globs]
    found = {}
    for path in files:
        glob = next((g for g, regex in patterns if regex.match(path)), None)
        if glob is not None:
            found[path] = glob
    return found


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


#: The version of the per-file findings kept in a picture (``analysed``): a picture of
#: another version is analysed afresh.
ANALYSED = records.ANALYSED


def _analyse(rel: str, text: str, sha: str,
             bodies: dict[str, records.TestBody] | None = None) -> records.AnalysedFile:
    """What the older rules find in one Python file, every rule reading the same parse;
    kept in the picture, so that a later picture reuses it while the file's hash is the
    same. ``bodies``: the file's test summaries in the baseline (its unchanged tests are
    kept)."""
    record = records.AnalysedFile(sha)
    if is_test_file(rel):
        record.tests = find_tests(text)
        record.bodies = weakened.summarise(text, bodies)
        record.marks = sorted(set(_MARK.findall(text)))
        tree = parsed.tree(text)
        record.parses = tree is not None
        literals: set[Any] = set()
        lines = text.splitlines()
        for node in ast.walk(tree) if tree is not None else ():  # one walk for both
            if isinstance(node, ast.Constant):
                if gaming.is_literal(node.value):
                    literals.add(node.value)
            elif isinstance(node, ast.Call) and infra.is_exit(node):
                record.exits.append([node.lineno, lines[node.lineno - 1].strip()])
        record.literals = sorted(literals, key=repr)
    record.markers = [[m.kind, m.text, m.line, m.source] for m in markers(text)]
    if gaming.is_source(rel):
        record.scan = gaming.scan_raw(text)
        record.defined = sorted(renames.defined(text))
        record.deprecations = renames.deprecations(text)
    return record


def analysed(root: Path, files: Sequence[str], previous: Picture | None
             ) -> dict[str, records.AnalysedFile]:
    """Per Python file of ``files``: :func:`_analyse`'s findings, reused from ``previous``
    (the baseline's picture) for every file whose hash did not change, so an iteration
    reads and parses only the files it changed."""
    old = previous.analysed if previous is not None else None
    old_files = old.files if old is not None and old.version == ANALYSED else {}
    return parsed.by_content(root, files, old_files, _analyse_kept)


def _analyse_kept(rel: str, text: str, sha: str,
                  kept: records.AnalysedFile | None) -> records.AnalysedFile:
    """:func:`_analyse` given the kept entry's test bodies (unchanged tests are not walked)."""
    return _analyse(rel, text, sha, kept.bodies if kept is not None else None)


def take(root: Path, *, protected: Sequence[str], keep: Sequence[str],
         session: str = "", test_counts: dict[str, int] | None = None,
         allow: Sequence[str] = (), previous: Picture | None = None) -> Picture:
    """The picture of ``root`` (``previous``: the baseline, whose per-file findings are
    reused for unchanged files)."""
    files = list_files(root)
    found = analysed(root, files, previous)
    tests: dict[str, dict[str, int]] = {}
    found_markers: dict[str, list[list[Any]]] = {}
    bodies: dict[str, dict[str, records.TestBody]] = {}
    unparsed: list[str] = []
    literals: set[Any] = set()
    marks: set[str] = set()
    exits: dict[str, list[list[Any]]] = {}
    for rel, record in found.items():
        if record.tests is not None:
            tests[rel], bodies[rel] = record.tests, record.bodies
            literals.update(record.literals)
            marks.update(record.marks)
            if not bodies[rel] and not record.parses:
                unparsed.append(rel)
            if record.exits:
                exits[rel] = record.exits
        if record.markers:
            found_markers[rel] = record.markers
    sources: dict[str, records.SourceScan] = {}
    names: set[str] = set()
    deprecations = 0
    for rel, record in found.items():
        if record.scan is not None:
            sources[rel] = records.SourceScan(record.sha, [
                list(f) for f in gaming.with_literals(record.scan, literals)])
            names.update(record.defined)
            deprecations += record.deprecations
    guarded = {**_matching(files, keep), **_matching(files, protected)}
    settings = read_all(root, files)
    infra_files = infra.take(root, settings, exits)
    plugins = [rel for rel, (kind, _) in infra_files.files.items() if kind == "plugin"]
    return Picture(
        session=session,
        taken_at=now_iso(),
        protected_globs=list(protected),
        keep_globs=list(keep),
        test_counts=test_counts or {},
        tests=tests,
        markers=found_markers,
        settings=settings,
        infra=infra_files,
        deep=deep.take(root, files, previous, plugins),
        analysed=records.AnalysedFiles(ANALYSED, found),
        test_bodies=bodies,
        sources=sources,
        defined=sorted(names),
        deprecations=deprecations,
        marks=sorted(marks),
        unparsed=unparsed,
        allow=list(allow),
        hashes={rel: _sha(root / rel) for rel in guarded},
        protected=sorted(_matching(files, protected)))


def test_total(picture: Picture) -> int:
    return picture.test_total


def compare(before: Picture, after: Picture,
            root: Path | None = None, notes: list[str] | None = None) -> list[Failure]:
    """What got weaker from ``before`` to ``after`` (two pictures of the same project); what
    changed honestly but is worth a look (a renamed test, a deleted feature) goes to
    ``notes``."""
    notes = [] if notes is None else notes
    judged = renames.judge(before, after)
    _splits(before, after, judged)
    return [*_files(before, after, judged), *_tests(before, after, judged, notes),
            *_markers(before, after, root, notes),
            *_settings(before, after), *_infra(before, after, root),
            *weakened.compare(before.test_bodies, after.test_bodies),
            *_gaming(before, after)]


def _splits(before: Picture, after: Picture, judged: renames.Judged) -> None:
    """Removed tests whose checks new tests now make, on the same names: split in two or
    more, or moved into a parametrized test, with as many checks. Each goes from
    ``judged.removed`` to ``judged.renamed``; a new test explains one removed test."""
    fresh = [(renames.test_key(path, name), body) for path, bodies in after.test_bodies.items()
             for name, body in bodies.items()
             if name not in before.tests.get(path, {})]
    project = set(before.defined or ())  # the project's own names, not pytest's
    for key, (path, _) in sorted(judged.removed.items()):
        then = before.test_bodies.get(path, {}).get(key.split("::", 1)[1].replace("::", "."))
        if then is None or not then.checks:
            continue
        taking = [(k, b) for k, b in fresh if set(b.uses) & set(then.uses) & project]
        if sum(b.checks for _, b in taking) >= then.checks:
            del judged.removed[key]
            judged.renamed[key] = ", ".join(k for k, _ in taking)
            fresh = [item for item in fresh if item not in taking]


def _files(before: Picture, after: Picture,
           judged: renames.Judged) -> list[Failure]:
    """Guarded files deleted or edited; a test file moved (same content elsewhere) or gone
    with every test of it renamed or deleted with its feature is not a deletion."""
    failures = []
    unexplained = {key.split("::", 1)[0] for key in judged.removed}
    old, new = before.hashes, after.hashes
    protected = set(before.protected)
    by_hash = {digest: path for path, digest in new.items()}
    globs = _matching(list(old), [*before.protected_globs, *before.keep_globs])
    for path, digest in sorted(old.items()):
        rule = "protected" if path in protected else "keep"
        glob = globs.get(path, "?")
        if path not in new:
            moved = by_hash.get(digest)
            if (moved and moved not in old) or (
                    path in before.tests and path not in unexplained):
                continue
            failures.append(Failure(
                message=f"{path} was deleted; files matching {glob} ({rule}) must not be "
                        "deleted during the session: restore it (deleted-file; to allow it, "
                        "leave it out of the keep/protected globs)",
                location=path, path=path, code="deleted-file"))
        elif path in protected and new[path] != digest:
            failures.append(Failure(
                message=f"protected file {path} was edited; files matching {glob} (protected) "
                        "must stay as they were at the session's start: restore it",
                location=path, path=path, code="edited-protected"))
    return failures


def _tests(before: Picture, after: Picture, judged: renames.Judged,
           notes: list[str]) -> list[Failure]:
    """Removed tests; renamed ones and those deleted with their feature go to ``notes``."""
    notes += renames.notes(judged)
    failures = []
    then, now = test_total(before), test_total(after)
    if judged.removed and now < then:
        failures.append(Failure(
            message=f"fewer tests than at the session's start: {now} test functions now, "
                    f"{then} then; restore the tests, do not delete them to pass",
            code="fewer-tests"))
    removed = sorted(judged.removed.items(), key=lambda item: item[1])
    for key, (path, line) in removed[:MAX_REPORTED_TESTS]:
        failures.append(Failure(
            message=f"test {key} was removed (it was at line {line} at the session's "
                    "start): restore it; a renamed test keeps its body, a test deleted with "
                    "its feature uses a name gone from the project",
            location=f"{path}:{line}", path=path, line=line, code="removed-test"))
    if len(removed) > MAX_REPORTED_TESTS:
        failures.append(Failure(message=f"{len(removed) - MAX_REPORTED_TESTS} more tests were "
                                        "removed", code="removed-test"))
    return failures


def _markers(before: Picture, after: Picture, root: Path | None,
             notes: list[str]) -> list[Failure]:
    """New skips and suppressions that hide something from this run's gate."""
    old, new = before.markers, after.markers
    texts = {}
    if root is not None:
        for path in new:
            if new[path] != old.get(path):
                texts[path] = _text(root / path) or ""
    return suppressions.compare(before, after, texts, notes, root)


def _settings(before: Picture, after: Picture) -> list[Failure]:
    """Loosened settings, wherever they are written (see :mod:`.setting_moves`)."""
    old = setting_moves.pytest_strict(setting_moves.merged(before.settings))
    new = setting_moves.stricter_overall(old, setting_moves.pytest_strict(
        setting_moves.merged(after.settings)))
    marks = set(before.marks or ())
    failures = []
    for ident in sorted(set(old) | set(new)):
        if setting_moves.outside_gate(ident, before.gate):
            continue  # its tool decides none of this run's checks
        for message, setting, line in weakenings(old.get(ident), new.get(ident)):
            if message.startswith("added '-m ") and before.marks is not None and not (
                    setting_moves.marker_names(message.split("'")[1][3:]) & marks):
                continue  # deselects a marker no test of the session's start carried
            where = f"{setting.file}:{line}" if line else setting.file
            failures.append(Failure(
                message=f"{message} at {where}: restore it; the session's checks must stay "
                        "as strict as at its start (weakened-setting)",
                location=where, path=setting.file, line=line, detail=setting.key,
                code="weakened-setting"))
    return failures


_INFRA_WHY = {
    "conftest": "a conftest.py runs inside pytest and can rewrite reports or deselect tests",
    "plugin": "a pytest plugin (pytest_plugins or -p in addopts) can rewrite reports or "
              "deselect tests",
    "startup": "it runs at every Python start-up, before pytest",
}


def _infra(before: Picture, after: Picture,
           root: Path | None) -> list[Failure]:
    """New or changed test infrastructure, new process exits in test code."""
    if before.infra is None or after.infra is None:
        return []  # a baseline from an older version
    failures = []
    old, new = before.infra.files, after.infra.files
    protected = set(before.protected)
    for path, (kind, digest) in sorted(new.items()):
        if (path in old and old[path][1] == digest) or path in protected \
                or (kind == "conftest" and not digest and not (old.get(path) or ["", ""])[1]):
            continue  # unchanged, reported as a protected file, or fixtures only
        line = infra.first_hook_line(root / path) if root is not None and kind != "startup" \
            else 1
        what = "new" if path not in old else "changed"
        failures.append(Failure(
            message=f"{what} test infrastructure {path}:{line}: {_INFRA_WHY[kind]}; fix the "
                    "code instead (if it is really needed, a person must allow it)",
            location=f"{path}:{line}", path=path, line=line, code="test-infra"))
    old_exits = before.infra.exits
    for path, calls in sorted(after.infra.exits.items()):
        then = Counter(source for _, source in old_exits.get(path, []))
        for line, source in calls:
            if then[source] > 0:
                then[source] -= 1
                continue
            failures.append(Failure(
                message=f"new process exit `{source}` in test code at {path}:{line}: it ends "
                        "pytest before failures are reported; remove it",
                location=f"{path}:{line}", path=path, line=line, detail=source,
                code="test-exit"))
    return failures


def _gaming(before: Picture, after: Picture) -> list[Failure]:
    """New findings of the source scan in files changed since the baseline."""
    if before.sources is None:
        return []
    old, allow = before.sources, before.allow
    failures = []
    for path, now in sorted((after.sources or {}).items()):
        then = old.get(path) or records.SourceScan()
        if then.sha == now.sha:
            continue
        fresh = gaming.new_findings([tuple(f) for f in then.findings],
                                    [tuple(f) for f in now.findings])
        failures += gaming.failures(path, fresh, allow)
    return failures
