"""Tests that went away honestly: renamed, moved or restructured, or deleted with their feature.

A test whose body or name lives on elsewhere is a rename; one gone together with a name it
used from the project's source (defined at the start, nowhere now) is a deleted feature,
reported but not a failure. Anything else gone is a removed test."""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field

from ralph_verify.integrity.sources import parse
from ralph_verify.records.integrity import Picture

#: At most this many names a removed feature is shown with.
SHOWN_NAMES = 3
_DEPRECATION = re.compile(r"(?i)deprecat|FutureWarning")


def body_shas(func: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, str]:
    """Two hashes of a test: of its body and arguments (without its name, docstring,
    decorators or lines), and of its *shape*, the same with every identifier blanked out:
    the same test after a refactoring that renamed what it calls (``get_typed`` ->
    ``get_typedmethod``) keeps its shape; its literals, operators and structure must stay."""
    body = [s for s in func.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                    and isinstance(s.value.value, str))]
    text = ast.dump(func.args) + "".join(ast.dump(s) for s in body)
    shape = re.sub(r"\b(id|attr|arg|name|module)='[^']*'", r"\1=_", text)
    return (hashlib.sha256(text.encode()).hexdigest()[:16],
            hashlib.sha256(shape.encode()).hexdigest()[:16])


def deprecations(text: str) -> int:
    """How often a source module speaks of deprecation (warning classes, ``deprecated``)."""
    return len(_DEPRECATION.findall(text))


def uses(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Identifiers a test refers to: names, attributes and keyword arguments."""
    found: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            found.add(node.arg)
    return sorted(found - {func.name, "self", "cls"})


def defined(text: str) -> set[str]:
    """Names a source module defines: functions, classes, their parameters, and assigned
    names and attributes; empty when it does not parse."""
    tree = parse(text)
    if tree is None:
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
            if not isinstance(node, ast.ClassDef):
                args = node.args
                found.update(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                             *filter(None, (args.vararg, args.kwarg))))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
    return found


def test_key(path: str, name: str) -> str:
    """``tests/t.py::Class::test_x``: a test function as pytest names it."""
    return f"{path}::{name.replace('.', '::')}"


@dataclass
class Judged:
    """How each test function of the baseline that is gone now went."""

    #: Old key -> new key of a renamed, moved or restructured test.
    renamed: dict[str, str] = field(default_factory=dict)
    #: Old key -> the names it used that are gone from the project.
    feature: dict[str, list[str]] = field(default_factory=dict)
    #: Old key -> (path, line) of a test removed for no reason the tree shows.
    removed: dict[str, tuple[str, int]] = field(default_factory=dict)


def _flat(tests: dict[str, dict[str, int]]) -> dict[str, tuple[str, str, int]]:
    return {test_key(path, name): (path, name, line)
            for path, names in tests.items() for name, line in names.items()}


def judge(before: Picture, after: Picture) -> Judged:
    """Sort the tests of ``before`` missing from ``after`` (two integrity pictures)."""
    then, now = _flat(before.tests), _flat(after.tests)
    bodies_then, bodies_now = before.test_bodies, after.test_bodies
    fresh = [key for key in now if key not in then]
    by_name: dict[str, list[str]] = {}
    by_sha: dict[str, list[str]] = {}
    by_shape: dict[str, list[str]] = {}
    for key in fresh:
        path, name, _ = now[key]
        by_name.setdefault(name.rsplit(".", 1)[-1], []).append(key)
        summary = bodies_now.get(path, {}).get(name)
        if summary is not None:
            for index, value in ((by_sha, summary.sha), (by_shape, summary.shape)):
                if value:
                    index.setdefault(value, []).append(key)
    fewer_deprecations = before.deprecations > after.deprecations
    gone_names = set(before.defined) - set(after.defined) \
        if before.defined is not None and after.defined is not None else set()
    judged = Judged()
    unparsed = set(after.unparsed)
    for key, (path, name, line) in then.items():
        if key in now or path in unparsed:
            continue  # still there, or in a file that no longer parses (the tests check's)
        summary = bodies_then.get(path, {}).get(name)
        sha, shape, used = (summary.sha, summary.shape, summary.uses) if summary is not None \
            else ("", "", [])
        candidates = by_sha.get(sha, []) or by_name.get(
            name.rsplit(".", 1)[-1], []) or by_shape.get(shape, [])
        if candidates:
            judged.renamed[key] = candidates.pop(0) if len(candidates) > 1 else candidates[0]
            continue
        lost = sorted(set(used) & gone_names)
        if not lost and fewer_deprecations and (
                _DEPRECATION.search(name) or any(_DEPRECATION.search(u)
                                                 for u in used)):
            lost = ["a deprecated code path"]
        if lost:
            judged.feature[key] = lost
        else:
            judged.removed[key] = (path, line)
    return judged


def splits(before: Picture, after: Picture, judged: Judged) -> Judged:
    """``judged`` with the removed tests whose checks new tests now make, on the same names
    (split in two or more, or moved into a parametrized test, with as many checks), moved
    to ``renamed``; a new test explains one removed test."""
    fresh = [(test_key(path, name), body) for path, bodies in after.test_bodies.items()
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
    return judged


def notes(judged: Judged) -> list[str]:
    """One line per rename and deleted feature, for the check's report."""
    shown = [f"renamed {old} -> {new}" for old, new in sorted(judged.renamed.items())
             if old.rsplit("::", 1)[-1] != new.rsplit("::", 1)[-1]
             or old.split("::", 1)[0] != new.split("::", 1)[0]]
    shown += [f"test {key} was deleted with the feature it tested "
              f"({', '.join(names[:SHOWN_NAMES])} gone from the project)"
              for key, names in sorted(judged.feature.items())]
    return shown


