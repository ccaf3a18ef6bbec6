"""Take a picture of how strict a project is, save it, and say what got weaker since.

The picture (JSON, ``.ralph/integrity-baseline.json``) holds the test functions
of every test file, every skip/xfail marker and suppression comment, the
watched tool settings, and hashes of the files that must not be deleted
(``keep``) or changed at all (``protected``). :func:`compare` turns the
differences that weaken the project into failures with a file and line.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ralph_verify.checks.api import Failure
from ralph_verify.integrity import deep, gaming, infra, weakened
from ralph_verify.integrity.settings import Setting, read_all, weakenings
from ralph_verify.integrity.sources import find_tests, is_test_file, markers
from ralph_verify.project.snapshot import project_files
from ralph_verify.state_files import now_iso

VERSION = 1
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


def take(root: Path, *, protected: Sequence[str], keep: Sequence[str],
         session: str = "", test_counts: dict[str, int] | None = None,
         allow: Sequence[str] = (), previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """The picture of ``root`` as JSON-ready data (``previous``: the baseline, whose
    per-file findings are reused for unchanged files)."""
    files = list_files(root)
    tests: dict[str, dict[str, int]] = {}
    found_markers: dict[str, list[list[Any]]] = {}
    bodies: dict[str, dict[str, Any]] = {}
    for rel in files:
        if not rel.endswith((".py", ".pyi")):
            continue
        text = _text(root / rel)
        if text is None:
            continue
        if is_test_file(rel):
            tests[rel] = find_tests(text)
            bodies[rel] = weakened.summarise(text)
        file_markers = markers(text)
        if file_markers:
            found_markers[rel] = [[m.kind, m.text, m.line, m.source] for m in file_markers]
    literals = gaming.test_literals(t for t in (_text(root / r) for r in tests) if t)
    sources: dict[str, dict[str, Any]] = {}
    for rel in files:
        if gaming.is_source(rel):
            text = _text(root / rel)
            if text is not None:
                sources[rel] = {"sha": hashlib.sha256(text.encode()).hexdigest()[:16],
                                "findings": [list(f) for f in gaming.scan(text, literals)]}
    guarded = {**_matching(files, keep), **_matching(files, protected)}
    settings = [s.to_json() for s in read_all(root, files)]
    infra_files = infra.take(root, settings)
    plugins = [rel for rel, (kind, _) in infra_files["files"].items() if kind == "plugin"]
    return {
        "version": VERSION,
        "session": session,
        "taken_at": now_iso(),
        "protected_globs": list(protected),
        "keep_globs": list(keep),
        "test_counts": test_counts or {},
        "tests": tests,
        "markers": found_markers,
        "settings": settings,
        "infra": infra_files,
        "deep": deep.take(root, files, previous, plugins),
        "test_bodies": bodies,
        "sources": sources,
        "allow": list(allow),
        "hashes": {rel: _sha(root / rel) for rel in guarded},
        "protected": sorted(_matching(files, protected)),
    }


def test_total(picture: dict[str, Any]) -> int:
    return sum(len(names) for names in picture.get("tests", {}).values())


def compare(before: dict[str, Any], after: dict[str, Any],
            root: Path | None = None) -> list[Failure]:
    """What got weaker from ``before`` to ``after`` (two pictures of the same project)."""
    return [*_files(before, after), *_tests(before, after), *_markers(before, after),
            *_settings(before, after), *_infra(before, after, root),
            *weakened.compare(before.get("test_bodies") or {}, after.get("test_bodies") or {}),
            *_gaming(before, after)]


def _files(before: dict[str, Any], after: dict[str, Any]) -> list[Failure]:
    failures = []
    old, new = before.get("hashes", {}), after.get("hashes", {})
    protected = set(before.get("protected", []))
    by_hash = {digest: path for path, digest in new.items()}
    globs = _matching(list(old), [*before.get("protected_globs", []),
                                  *before.get("keep_globs", [])])
    for path, digest in sorted(old.items()):
        rule = "protected" if path in protected else "keep"
        glob = globs.get(path, "?")
        if path not in new:
            moved = by_hash.get(digest)
            what = f"was moved to {moved}" if moved and moved not in old else "was deleted"
            failures.append(Failure(
                message=f"{path} {what}; files matching {glob} ({rule}) must not be deleted "
                        "during the session: restore it",
                location=path, path=path, code="deleted-file"))
        elif path in protected and new[path] != digest:
            failures.append(Failure(
                message=f"protected file {path} was edited; files matching {glob} (protected) "
                        "must stay as they were at the session's start: restore it",
                location=path, path=path, code="edited-protected"))
    return failures


def _tests(before: dict[str, Any], after: dict[str, Any]) -> list[Failure]:
    failures = []
    then, now = test_total(before), test_total(after)
    if now < then:
        failures.append(Failure(
            message=f"fewer tests than at the session's start: {now} test functions now, "
                    f"{then} then; restore the tests, do not delete them to pass",
            code="fewer-tests"))
    names_now = {name.rsplit(".", 1)[-1] for names in after.get("tests", {}).values()
                 for name in names}
    removed = [(path, name, line) for path, names in sorted(before.get("tests", {}).items())
               for name, line in names.items() if name.rsplit(".", 1)[-1] not in names_now]
    for path, name, line in removed[:MAX_REPORTED_TESTS]:
        failures.append(Failure(
            message=f"test {path}::{name.replace('.', '::')} was removed (it was at line "
                    f"{line} at the session's start)",
            location=f"{path}:{line}", path=path, line=line, code="removed-test"))
    if len(removed) > MAX_REPORTED_TESTS:
        failures.append(Failure(message=f"{len(removed) - MAX_REPORTED_TESTS} more tests were "
                                        "removed", code="removed-test"))
    return failures


_ADVICE = {
    "skip": "make the test pass instead of skipping it",
    "xfail": "make the test pass instead of marking it as expected to fail",
    "noqa": "fix the problem instead of silencing the linter",
    "type: ignore": "fix the type error instead of silencing the type checker",
    "no cover": "test the code instead of excluding it from coverage",
}


def _markers(before: dict[str, Any], after: dict[str, Any]) -> list[Failure]:
    failures = []
    old_all = before.get("markers", {})
    for path, found in sorted(after.get("markers", {}).items()):
        old = old_all.get(path, [])
        counts_then = Counter((kind, text) for kind, text, _, _ in old)
        sources_then = {(kind, text, source) for kind, text, _, source in old}
        counts_now = Counter((kind, text) for kind, text, _, _ in found)
        for (kind, text), count in sorted(counts_now.items()):
            extra = count - counts_then.get((kind, text), 0)
            if extra <= 0:
                continue
            candidates = [m for m in found if (m[0], m[1]) == (kind, text)]
            # Lines whose text is new first: they are the added ones, not moved ones.
            candidates.sort(key=lambda m: ((m[0], m[1], m[3]) in sources_then, -m[2]))
            for _, _, line, source in sorted(candidates[:extra], key=lambda m: m[2]):
                noun = "marker" if kind in ("skip", "xfail") else "suppression comment"
                failures.append(Failure(
                    message=f"new {kind} {noun} `{text}` at {path}:{line}: {_ADVICE[kind]}",
                    location=f"{path}:{line}", path=path, line=line, detail=source,
                    code=f"new-{kind.replace(': ', '-').replace(' ', '-')}"))
    return failures


def _settings(before: dict[str, Any], after: dict[str, Any]) -> list[Failure]:
    old = {f"{s['file']}|{s['key']}": Setting(**s) for s in before.get("settings", [])}
    new = {f"{s['file']}|{s['key']}": Setting(**s) for s in after.get("settings", [])}
    failures = []
    for ident in sorted(set(old) | set(new)):
        for message, setting, line in weakenings(old.get(ident), new.get(ident)):
            where = f"{setting.file}:{line}" if line else setting.file
            failures.append(Failure(message=f"{message} at {where}", location=where,
                                    path=setting.file, line=line, code="weakened-setting"))
    return failures


_INFRA_WHY = {
    "conftest": "a conftest.py runs inside pytest and can rewrite reports or deselect tests",
    "plugin": "a pytest plugin (pytest_plugins or -p in addopts) can rewrite reports or "
              "deselect tests",
    "startup": "it runs at every Python start-up, before pytest",
}


def _infra(before: dict[str, Any], after: dict[str, Any],
           root: Path | None) -> list[Failure]:
    """New or changed test infrastructure, new process exits in test code."""
    if "infra" not in before or "infra" not in after:
        return []  # a baseline from an older version
    failures = []
    old, new = before["infra"].get("files", {}), after["infra"].get("files", {})
    protected = set(before.get("protected", []))
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
    old_exits = before["infra"].get("exits", {})
    for path, calls in sorted(after["infra"].get("exits", {}).items()):
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


def _gaming(before: dict[str, Any], after: dict[str, Any]) -> list[Failure]:
    """New findings of the source scan in files changed since the baseline."""
    if "sources" not in before:
        return []
    old, allow = before["sources"], before.get("allow") or []
    failures = []
    for path, now in sorted(after.get("sources", {}).items()):
        then = old.get(path) or {"sha": "", "findings": []}
        if then["sha"] == now["sha"]:
            continue
        fresh = gaming.new_findings([tuple(f) for f in then["findings"]],
                                    [tuple(f) for f in now["findings"]])
        failures += gaming.failures(path, fresh, allow)
    return failures
