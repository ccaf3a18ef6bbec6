"""Affected tests first: a full run records per test the project files and functions that
ran (``.ralph/affected.json``); a later verification first runs the tests affected by what
changed and last time's failures. A failure there is the verdict, else the full suite
decides; what the map cannot vouch for runs the full suite, and :func:`plan` says why."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph_verify import redact
from ralph_verify.project import snapshot
from ralph_verify.recorder import affected_units
from ralph_verify.recorder.affected_units import Units

MAP_NAME = "affected.json"
_VERSION = 2
#: The first Python on which ``select = "auto"`` records the map (``sys.monitoring``).
AUTO_FROM = (3, 12)


@dataclass(frozen=True)
class Plan:
    """The tests to run first: their node ids, and the files that hold them."""

    ids: list[str]
    files: list[str]
    #: Test files that changed: every test collected from them runs.
    whole: list[str]
    #: How many tests (or test files' collections) the recorder could not follow (no
    #: tracer was free): they are in no map, and run in the full suite only.
    unfollowed: int = 0

    def note(self) -> str:
        """What the partial run leaves to the full suite, for the user ("" when nothing)."""
        return _waiting(self.unfollowed).strip(" ()")

    def selection(self) -> dict[str, list[str]]:
        """What the pytest plugin reads from ``RALPH_VERIFY_SELECT``."""
        return {"ids": self.ids, "files": self.whole}


def map_path(session_dir: Path) -> Path:
    return session_dir / MAP_NAME


def _load(session_dir: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(map_path(session_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("version") == _VERSION else None


def _changed_since(root: Path, data: dict[str, Any]) -> list[str]:
    """The files that changed since the map was made."""
    then = {rel: snapshot.Entry(int(e[0]), int(e[1]), str(e[2]))
            for rel, e in (data.get("snapshot") or {}).items()}
    return snapshot.changed(then, snapshot.take(root, then, use_git=(root / ".git").exists()))


def plan(root: Path, session_dir: Path, files_changed: list[str]) -> tuple[Plan | None, str]:
    """What to run first, or ``None`` and why the full suite must run instead."""
    data = _load(session_dir)
    if data is None:
        return None, "no map of the tests' files yet"
    changed = sorted(set(_changed_since(root, data)) | set(files_changed))
    if not changed:
        return None, "nothing changed since the map was made"
    names: list[str] = data["files"]
    index = {name: number for number, name in enumerate(names)}
    tests: dict[str, list[int]] = data["tests"]
    for rel in changed:
        why = _unmapped(root, rel, index)
        if why:
            return None, why
    wanted_files, wanted_units = _wanted(root, data, changed, index)
    units_of: dict[str, list[int]] = data["units_of"]
    ids = [test_id for test_id, deps in tests.items()
           if wanted_files.intersection(deps) or wanted_units.intersection(units_of[test_id])]
    # A changed file runs every test collected from it: a test file (a test added to it is
    # in no map yet), or a module whose doctests pytest collects.
    holders = {test_id.split("::", 1)[0] for test_id in tests}
    whole = [rel for rel in changed if rel in holders]
    ids += [test_id for test_id in tests if test_id.split("::", 1)[0] in whole]
    failing = data.get("failing")
    if failing is None:
        return None, "the tests that failed last time are not all known"
    unknown = [test_id for test_id in failing if test_id not in tests]
    if unknown:
        return None, f"{unknown[0]} failed last time and is not in the map"
    ids = list(dict.fromkeys([*failing, *ids]))
    unfollowed = len(data.get("unfollowed") or ())
    if not ids:
        return None, "no recorded test ran the changed files" + _waiting(unfollowed)
    files = list(dict.fromkeys(test_id.split("::", 1)[0] for test_id in ids))
    return Plan(ids=ids, files=files, whole=whole, unfollowed=unfollowed), ""


def tests_reaching(root: Path, session_dir: Path, lines: dict[str, list[int]]
                   ) -> list[str] | None:
    """The tests whose recorded run went through the functions holding ``lines`` (of each
    file, as the map's units cut it); ``None`` when the map cannot tell: there is none, it
    was made on another tree, or some test was not followed."""
    data = _load(session_dir)
    if data is None or data.get("unfollowed") or _changed_since(root, data):
        return None
    index = {name: number for number, name in enumerate(data["units"])}
    wanted: set[int] = set()
    for rel, numbers in lines.items():
        units = data["sources"].get(rel)
        if units is not None:
            known = Units.from_json(units)
            wanted.update(index[name] for name in (f"{rel}::{known.unit_at(n)}" for n in numbers)
                          if name in index)
    return [test_id for test_id, units in data["units_of"].items() if wanted.intersection(units)]


def _waiting(unfollowed: int) -> str:
    return (f" ({unfollowed} test{'s' if unfollowed != 1 else ''} no tracer could follow "
            "run in the full suite only)") if unfollowed else ""


def selects_affected(select: str, python_version: str) -> bool:
    """Whether a loop runs the affected tests first: ``select = "auto"`` does from Python
    3.12, where ``sys.monitoring`` records the map; before it a recording run costs several
    times a plain one, so ``auto`` runs the full suite there."""
    if select != "auto":
        return select == "affected"
    try:
        major, minor = (int(part) for part in python_version.split(".")[:2])
    except ValueError:
        return False  # "version unknown"
    return (major, minor) >= AUTO_FROM


def _wanted(root: Path, data: dict[str, Any], changed: list[str],
            index: dict[str, int]) -> tuple[set[int], set[int]]:
    """The changed files whose every recorded test is affected, and the changed units
    (function bodies) whose recorded tests are."""
    unit_index = {name: number for number, name in enumerate(data["units"])}
    files: set[int] = set()
    units: set[int] = set()
    for rel in changed:
        keys = _changed_bodies(root, rel, data["sources"].get(rel))
        if keys is None:
            files.add(index[rel])
        else:
            units.update(unit_index[name] for name in (f"{rel}::{key}" for key in keys)
                         if name in unit_index)
    return files, units


def _changed_bodies(root: Path, rel: str, then: dict[str, Any] | None) -> list[str] | None:
    """The units of ``rel`` whose body changed, or ``None``: more than bodies changed."""
    if then is None:
        return None
    try:
        now = affected_units.parse((root / rel).read_bytes())
    except OSError:
        return None
    if now is None:
        return None
    keys, more = affected_units.bodies_changed(Units.from_json(then), now)
    return None if more else keys


def _unmapped(root: Path, rel: str, index: dict[str, int]) -> str:
    if not rel.endswith(".py"):
        return f"{rel} changed and is not Python (data or config: any test may read it)"
    if rel.rsplit("/", 1)[-1] == "conftest.py":
        return f"{rel} changed (a conftest.py applies to many tests)"
    if not (root / rel).is_file():
        return f"{rel} was deleted"
    if rel not in index:
        return f"{rel} changed and no recorded test ran it (new, or imported only)"
    return ""


def save(root: Path, session_dir: Path, deps_dir: Path, failing: set[str] | None) -> bool:
    """Make the map from a full run's ``deps-*.jsonl``; ``False`` (and no map) if unusable."""
    tests: dict[str, set[str]] = {}
    lines: dict[str, dict[str, set[int]]] = {}
    #: What ran at collection: "" outside any test file (every test's), else per test file.
    collected: dict[str, dict[str, set[int]]] = {}
    #: Tests (and test files' collections) no tracer followed: in no map, run in full runs.
    unfollowed: set[str] = set()
    for path in sorted(deps_dir.glob("deps-*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a worker killed mid-line
            if not isinstance(record, dict):
                continue
            if not record.get("traced"):  # no tracer was free: left to the full run
                unfollowed.add(str(record.get("id") or record.get("collect") or "collection"))
                continue
            if "id" in record:
                test_id = str(record["id"])
                tests.setdefault(test_id, set()).update(record.get("files") or [])
                ran = lines.setdefault(test_id, {})
            else:
                ran = collected.setdefault("" if record.get("session") else
                                           str(record.get("collect")), {})
            for rel, firsts in (record.get("lines") or {}).items():
                ran.setdefault(rel, set()).update(firsts)
    if not tests:
        forget(session_dir)
        return False
    for test_id, ran in lines.items():  # the code its file's collection ran
        for key in ("", test_id.split("::", 1)[0]):
            for rel, firsts in collected.get(key, {}).items():
                ran.setdefault(rel, set()).update(firsts)
                tests[test_id].add(rel)
    names = sorted(set().union(*tests.values()))
    index = {name: number for number, name in enumerate(names)}
    snap = snapshot.take(root, use_git=(root / ".git").exists())
    sources = _units(root, {rel for ran in lines.values() for rel in ran}, snap)
    unit_names: dict[str, int] = {}
    units_of: dict[str, list[int]] = {}
    for test_id, ran in lines.items():
        found = {f"{rel}::{sources[rel].unit_at(first)}"
                 for rel, firsts in ran.items() if rel in sources for first in firsts}
        units_of[test_id] = sorted(unit_names.setdefault(name, len(unit_names))
                                   for name in found)
    data = {"version": _VERSION, "files": names,
            "tests": {test_id: sorted(index[f] for f in files)
                      for test_id, files in tests.items()},
            "units": list(unit_names), "units_of": units_of,
            "sources": {rel: units.to_json() for rel, units in sources.items()},
            "snapshot": {rel: [e.size, e.mtime_ns, e.digest] for rel, e in snap.items()},
            "failing": sorted(failing) if failing is not None else None,
            "unfollowed": sorted(unfollowed)}
    return _write(session_dir, data)


def _units(root: Path, rels: set[str], snap: snapshot.Snapshot) -> dict[str, Units]:
    """The units of each Python file some test ran (a file that no longer parses, or is not
    in the snapshot, has none: a change to it falls back to the file)."""
    found: dict[str, Units] = {}
    for rel in sorted(rels):
        if rel not in snap or not rel.endswith(".py"):
            continue
        try:
            units = affected_units.parse((root / rel).read_bytes())
        except OSError:
            continue
        if units is not None:
            found[rel] = units
    return found


def set_failing(session_dir: Path, failing: set[str] | None) -> None:
    """After a partial run: the ids that failed in it are the ones to run first next time."""
    data = _load(session_dir)
    if data is not None:
        data["failing"] = sorted(failing) if failing is not None else None
        _write(session_dir, data)


def forget(session_dir: Path) -> None:
    map_path(session_dir).unlink(missing_ok=True)


def _write(session_dir: Path, data: dict[str, Any]) -> bool:
    """Write the map; ``False`` (and no map) when a test id holds a secret of the
    environment: the map must name tests exactly to run them, and a secret is written
    nowhere, so such a project runs the full suite each time."""
    text = json.dumps(data)
    if redact.redactor()(text) != text:
        forget(session_dir)
        return False
    path = map_path(session_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
    return True
