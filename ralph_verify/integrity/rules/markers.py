"""New skips and suppressions, judged by what they hide from the checks of this run's gate.

A suppression hides something only from the check that reads it (:data:`HIDES_FROM`) and
only in a file its tool reads. A blanket one is a failure; a code-specific one is a note,
unless it silences a code its check reported in that file at the start, or an iteration adds
more than :data:`BUDGET` of them. A skip or xfail whose condition is false here, or that
applies only to tests the session did not start with, hides none of the start's tests."""

from __future__ import annotations

import ast
import importlib.util
import os
import platform
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.api import Failure
from ralph_verify.integrity import effective
from ralph_verify.integrity.renames import judge as judge_tests
from ralph_verify.integrity.renames import test_key
from ralph_verify.integrity.rules.assertions import OPERATORS
from ralph_verify.integrity.sources import is_test_code, is_test_file, markers, parse, read_text
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
            verdict = skip_verdict(read_text(root / path), line, path, pair)
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
        if kind == "no cover" and is_test_code(path):
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
        return type_checked(root, picture, path)
    if kind == "no cover":
        return measured(root, picture, path)
    return True


def _failure(path: str, kind: str, line: int, source: str, text: str, why: str) -> Failure:
    noun = "marker" if kind in ("skip", "xfail") else "suppression comment"
    code = f"new-{kind.replace(': ', '-').replace(' ', '-')}"
    return Failure(message=f"new {kind} {noun} `{text}` at {path}:{line}{why}: {ADVICE[kind]} "
                           f"({code}; see docs/integrity.md to allow it on purpose)",
                   location=f"{path}:{line}", path=path, line=line, detail=source, code=code)


# --- Is a new skip or xfail a skip *here*, and whose tests does it take out? Conditions are
# evaluated by a small interpreter of their AST (platform, version, environment, the module's
# own names assigned from those), never by running project code; anything else is unknown,
# hence a skip. -------------------------------------------------------------------------------

_UNKNOWN = object()
_COMPARE = {op: f for op, f in OPERATORS.items() if op not in (ast.Is, ast.IsNot)}
_VALUES: dict[str, Any] = {
    "sys.version_info": tuple(sys.version_info), "sys.platform": sys.platform,
    "os.name": os.name, "sys.implementation.name": sys.implementation.name,
    "sys.maxsize": sys.maxsize, "sys.byteorder": sys.byteorder, "os.environ": os.environ,
    "sys.flags.optimize": sys.flags.optimize,
}
_CALLS: dict[str, Callable[..., Any]] = {
    "platform.system": platform.system, "platform.python_implementation":
    platform.python_implementation, "platform.machine": platform.machine,
    "os.environ.get": os.environ.get, "os.getenv": os.getenv,
    "platform.python_version": platform.python_version,
}
_SKIPS = ("skipif", "skipIf", "xfail")
_SKIP_UNLESS = ("skipUnless",)


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


class _Eval:
    """Evaluates a condition; module-level assignments of the file are its names."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: dict[str, ast.expr] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                self.names[node.targets[0].id] = node.value
        self.env = False
        self.depth = 0

    def __call__(self, node: ast.expr) -> Any:
        self.depth += 1
        try:
            return _UNKNOWN if self.depth > 50 else self._eval(node)
        finally:
            self.depth -= 1

    def _eval(self, node: ast.expr) -> Any:
        dotted = _dotted(node)
        if dotted in _VALUES:
            self.env |= dotted == "os.environ"
            return _VALUES[dotted]
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Tuple):
            items = [self(e) for e in node.elts]
            return _UNKNOWN if _UNKNOWN in items else tuple(items)
        if isinstance(node, ast.Name) and node.id in self.names:
            return self(self.names[node.id])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            value = self(node.operand)
            return _UNKNOWN if value is _UNKNOWN else not value
        if isinstance(node, ast.BoolOp):
            values = [self(v) for v in node.values]
            if _UNKNOWN in values:
                return _UNKNOWN
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.Subscript):
            value, index = self(node.value), self._index(node.slice)
            try:
                return _UNKNOWN if _UNKNOWN in (value, index) else value[index]
            except (TypeError, KeyError, IndexError):
                return _UNKNOWN
        if isinstance(node, ast.Call) and not node.keywords:
            name = _dotted(node.func)
            args = [self(a) for a in node.args]
            if name in _CALLS and _UNKNOWN not in args:
                self.env |= name.startswith(("os.environ", "os.getenv"))
                return _CALLS[name](*args)
        return _UNKNOWN

    def _index(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Slice):
            parts = [self(p) if p is not None else None
                     for p in (node.lower, node.upper, node.step)]
            return _UNKNOWN if _UNKNOWN in parts else slice(*parts)
        return self(node)

    def _compare(self, node: ast.Compare) -> Any:
        left = self(node.left)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self(right_node)
            if _UNKNOWN in (left, right) or type(op) not in _COMPARE:
                return _UNKNOWN
            try:
                if not _COMPARE[type(op)](left, right):
                    return False
            except TypeError:
                return _UNKNOWN
            left = right
        return True


def _condition(call: ast.Call, name: str) -> ast.expr | None:
    """The condition argument of a skipif/skipIf/skipUnless/xfail call, if it has one."""
    if call.args and not (name == "xfail" and isinstance(call.args[0], ast.Constant)
                          and isinstance(call.args[0].value, str)):
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "condition"), None)


def _active(tree: ast.Module, node: ast.AST, parents: dict[ast.AST, ast.AST]) -> tuple[Any, bool]:
    """Whether the marker at ``node`` skips here (True, False or unknown), and whether that
    depends on the environment (an opt-in)."""
    evaluate = _Eval(tree)
    if isinstance(node, ast.Call):
        name = _dotted(node.func).rsplit(".", 1)[-1]
        if name == "importorskip" and node.args and isinstance(node.args[0], ast.Constant):
            module = str(node.args[0].value)
            try:
                return importlib.util.find_spec(module.split(".")[0]) is None, False
            except (ImportError, ValueError):
                return True, False
        if name in _SKIPS or name in _SKIP_UNLESS:
            condition = _condition(node, name)
            if condition is not None:
                value = evaluate(condition)
                if value is not _UNKNOWN and name in _SKIP_UNLESS:
                    value = not value
                return value, evaluate.env
        if name in ("skip", "skipTest", "xfail"):
            guard = parents.get(parents.get(node, node), node)
            if isinstance(guard, ast.If):
                return evaluate(guard.test), evaluate.env
    return True, False


def _marker_node(tree: ast.Module, line: int) -> tuple[ast.AST | None, dict[ast.AST, ast.AST]]:
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    calls = [n for n in ast.walk(tree) if getattr(n, "lineno", 0) == line
             and isinstance(n, (ast.Call, ast.Attribute))]
    calls.sort(key=lambda n: not isinstance(n, ast.Call))
    return (calls[0] if calls else None), parents


def _scope(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[str]:
    """The test names (``name`` or ``Class.name``) a marker applies to; [] for the module."""
    while node in parents and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                    ast.ClassDef)):
        node = parents[node]
    if isinstance(node, ast.ClassDef):
        return [f"{node.name}.{item.name}" for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                and item.name.startswith("test")]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        owner = parents.get(node)
        return [f"{owner.name}.{node.name}" if isinstance(owner, ast.ClassDef) else node.name]
    return []


def skip_verdict(text: str, line: int, path: str, pair: Pair) -> str:
    """``"inactive"`` (skips nothing here), ``"new-tests"`` (only tests the session did not
    start with) or ``"skip"``."""
    tree = parse(text)
    if tree is None:
        return "skip"
    node, parents = _marker_node(tree, line)
    if node is None:
        return "skip"
    active, _ = _active(tree, node, parents)
    if active is False:
        return "inactive"
    names = _scope(node, parents) or list(pair.after.tests.get(path, {}))
    if not names:
        return "new-tests"  # applies to no test at all
    renamed = set(judge_tests(pair.before, pair.after).renamed.values())
    old = {test_key(p, n) for p, tests in pair.before.tests.items() for n in tests}
    keys = [test_key(path, name) for name in names]
    return "new-tests" if all(k not in old and k not in renamed for k in keys) else "skip"


# --- Whether a tool reads a file at all, by its effective settings (a file counts as read
# when they could not be resolved, so a doubt never lets a suppression through). -------------

def _effective(picture: Picture, tool: str) -> dict[str, Any] | None:
    found = picture.tools.effective.get(tool) if picture.tools is not None else None
    return found if found and "error" not in found else None


def _files(picture: Picture) -> list[str]:
    return sorted(picture.facts.files) if picture.facts is not None else []


def measured(root: Path, picture: Picture, path: str) -> bool:
    """Whether coverage measures ``path`` under the picture's effective settings."""
    config = _effective(picture, "coverage")
    if config is None or not path.endswith(".py"):
        return True
    return path in effective.measured(root, config, [path])


def type_checked(root: Path, picture: Picture, path: str) -> bool:
    """Whether mypy reports errors in ``path``: a file of its targets that no per-module
    section silences, or a project module a checked file imports (mypy follows imports and
    reports their errors too)."""
    config = _effective(picture, "mypy")
    if config is None:
        return True
    module = effective.module_name(path)
    if effective.silenced(config, module):
        return False  # its errors are never shown
    files = _files(picture)
    checked = effective.checked_files(root, config, files)
    if path in checked:
        return True
    return _imported(root, module, sorted(checked))


def _imported(root: Path, module: str, checked: list[str]) -> bool:
    """Whether any of ``checked`` may import ``module`` (by its last name: a doubt counts)."""
    leaf = re.compile(rf"\b{re.escape(module.rsplit('.', 1)[-1])}\b")
    for rel in checked:
        text = read_text(root / rel)
        if leaf.search(text) and any(leaf.search(s) for s in _IMPORTS.findall(text)):
            return True
    return False


#: An import statement, with the parenthesised names of ``from x import (...)``.
_IMPORTS = re.compile(r"^[ \t]*(?:from|import)[ \t][^\n(]*(?:\([^)]*\)|[^\n]*)", re.M)
