"""Python sources: test functions, skip/xfail markers and suppression comments, with lines.

Markers are read from tokens (comments, code outside strings): a docstring that mentions
``# noqa`` is not one."""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: Marker kinds found in code: (kind, pattern matched against a line's code, strings removed).
CODE_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("skip", re.compile(r"pytest\.mark\.skip(?:if)?\b|pytest\.(?:skip|importorskip)\("
                        r"|\bunittest\.skip(?:If|Unless)?\b|@skip(?:If|Unless)?\b"
                        r"|\.skipTest\(")),
    ("xfail", re.compile(r"pytest\.mark\.xfail\b|pytest\.xfail\("
                         r"|\bunittest\.expectedFailure\b|@expectedFailure\b")),
)
#: Suppression kinds found in comments.
COMMENT_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("noqa", re.compile(r"#\s*(?:(?i:ruff|flake8)\s*:\s*)?(?i:noqa)\b"
                        r"(?::\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?")),
    ("type: ignore", re.compile(r"#\s*type:\s*ignore\b(?:\[[^\]]*\])?")),
    ("type: ignore", re.compile(r"#\s*pyright:\s*ignore\b(?:\[[^\]]*\])?")),
    # mypy's inline configuration, when it loosens: ``ignore-errors``, ``disable-error-code``,
    # ``allow-*``, ``implicit-*``, ``no-*``, ``follow-imports``, ``always-*``, ``X=False``.
    ("type: ignore", re.compile(r"#\s*mypy:(?:[^#\n]*,)?\s*(?:disable[-_]error[-_]code"
                                r"|(?:allow|ignore|implicit|no|always)[-_][\w-]+"
                                r"|follow[-_]imports|[\w-]+\s*=\s*(?i:false)\b)")),
    ("no cover", re.compile(r"pragma:\s*no\s*(?:cover|branch)\b")),
)
TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test)\.py$")


@dataclass(frozen=True)
class Marker:
    """One skip/xfail marker or suppression comment: ``text`` is what matched."""

    kind: str
    text: str
    line: int
    #: The whole source line, stripped: tells a new occurrence from a moved one.
    source: str


@functools.lru_cache(maxsize=64)  # the files of one picture that are analysed
def parse(text: str) -> ast.Module | None:
    """``ast.parse(text)``, ``None`` when it does not parse: one parse of a file shared by
    every rule that reads it (parsing is most of their cost; never mutate the tree)."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def read_text(path: Path) -> str:
    """A file's text, ``""`` when it cannot be read as UTF-8 (its tool will complain)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def module_file(root: Path, name: str) -> str | None:
    """The project file of dotted module ``name``, at the root or under ``src/``."""
    stem = name.replace(".", "/")
    for rel in (f"{stem}.py", f"{stem}/__init__.py", f"src/{stem}.py", f"src/{stem}/__init__.py"):
        if (root / rel).is_file():
            return rel
    return None


def is_test_file(path: str) -> bool:
    return bool(TEST_FILE.search(path))


def is_test_code(path: str) -> bool:
    """A test module, a conftest, or a file under a ``tests``/``test``/``testing`` folder:
    code that runs around the tests, not the product's (the frozen oracle's wider
    ``is_test_side`` also counts settings, ``.pth`` and ``sitecustomize.py`` files, which
    integrity judges as product code or settings)."""
    parts = path.split("/")
    return is_test_file(path) or parts[-1] == "conftest.py" \
        or any(p in ("tests", "test", "testing") for p in parts[:-1])


def markers(text: str) -> list[Marker]:
    """Every marker of ``text`` in line order (a line scan when it does not tokenize)."""
    lines = text.splitlines()
    try:
        found = list(_token_markers(text, lines))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        found = list(_line_markers(lines[:text.count("\n")], lines))
    return sorted(found, key=lambda m: m.line)


def source_line(lines: list[str], number: int) -> str:
    """Line ``number`` (from 1) of ``lines``, stripped; ``""`` outside them."""
    return lines[number - 1].strip() if 0 < number <= len(lines) else ""


def _token_markers(text: str, lines: list[str]) -> Iterator[Marker]:
    code: dict[int, list[str]] = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            yield from _match(COMMENT_MARKERS, token.string, token.start[0], lines)
        elif token.type not in (tokenize.STRING, tokenize.NL, tokenize.NEWLINE,
                                tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING) \
                and token.type != getattr(tokenize, "FSTRING_MIDDLE", -1):
            code.setdefault(token.start[0], []).append(token.string)
    for number, parts in code.items():
        yield from _match(CODE_MARKERS, "".join(parts), number, lines)


def _line_markers(part: list[str], lines: list[str]) -> Iterator[Marker]:
    for number, line in enumerate(part, 1):
        code, _, comment = line.partition("#")
        yield from _match(CODE_MARKERS, code, number, lines)
        if comment:
            yield from _match(COMMENT_MARKERS, "#" + comment, number, lines)


def _match(table: tuple[tuple[str, re.Pattern[str]], ...], text: str, number: int,
           lines: list[str]) -> Iterator[Marker]:
    for kind, pattern in table:
        for match in pattern.finditer(text):
            yield Marker(kind, match.group().strip(), number, source_line(lines, number))


def test_functions(tree: ast.Module
                   ) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Module-level ``test*`` functions and ``test*`` methods of classes, as pytest and
    unittest collect them (parametrisation is not expanded): ``name`` or ``Class.name``."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name.startswith("test"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        and item.name.startswith("test"):
                    yield f"{node.name}.{item.name}", item


def find_tests(text: str) -> dict[str, int]:
    """Test functions of a test module (:func:`test_functions`) -> line."""
    tree = parse(text)
    if tree is None:
        return {match.group(1): text.count("\n", 0, match.start()) + 1
                for match in re.finditer(r"^\s*(?:async\s+)?def\s+(test\w*)", text, re.M)}
    return {name: func.lineno for name, func in test_functions(tree)}


#: conftest.py hooks that can take tests out of a run.
DESELECTING_HOOKS = ("pytest_collection_modifyitems", "pytest_ignore_collect",
                     "pytest_deselected", "pytest_collect_file", "pytest_pycollect_makeitem")


def conftest_settings(text: str) -> list[tuple[str, list[str], int]]:
    """``collect_ignore``/``collect_ignore_glob`` entries and deselecting hooks of a conftest
    as ``(key, items, line)``; items that are not literals are kept as their source text."""
    tree = parse(text)
    if tree is None:
        return []
    items: dict[str, list[str]] = {}
    lines: dict[str, int] = {}

    def add(key: str, values: list[str], line: int) -> None:
        items.setdefault(key, []).extend(values)
        lines.setdefault(key, line)

    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id.startswith("collect_ignore") \
                        and node.value is not None:
                    add(target.id, _literal_items(node.value), node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) \
                and node.func.value.id.startswith("collect_ignore") \
                and node.func.attr in ("append", "extend", "insert"):
            for arg in node.args[-1:]:
                values = _literal_items(arg) if node.func.attr == "extend" \
                    else [_literal(arg)]
                add(node.func.value.id, values, node.lineno)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name in DESELECTING_HOOKS and not orders_or_marks(node):
            add("hooks", [node.name], node.lineno)
    return [(key, values, lines[key]) for key, values in items.items()]


#: What a hook that only orders or marks items may not touch: ways to drop an item, end
#: pytest, skip a test, or reach pytest's own objects.
_NOT_ORDERING = frozenset({
    "remove", "pop", "clear", "insert", "append", "extend", "__setitem__", "__delitem__",
    "exit", "_exit", "abort", "skip", "skipif", "xfail", "fail", "importorskip", "outcome",
    "hook", "pytest_deselected", "setattr", "delattr", "exec", "eval", "__import__", "_pytest",
    "os", "sys", "keywords", "own_markers", "session", "globals", "vars", "getattr",
    "usefixtures", "parametrize"})


def orders_or_marks(node: ast.stmt) -> bool:
    """A ``pytest_collection_modifyitems`` that only reorders the items (``items.sort(...)``,
    ``items[:] = sorted(items, ...)``, ``items.reverse()``) or marks them with marks that do
    not skip (``item.add_marker(pytest.mark.slow)``): every test it was given still runs. Or
    a ``pytest_report_header`` that returns text and calls nothing."""
    if not isinstance(node, ast.FunctionDef) or node.decorator_list \
            or node.name not in ("pytest_collection_modifyitems", "pytest_report_header"):
        return False
    if node.name == "pytest_report_header":  # text for the header, built without a call
        return not any(isinstance(n, (ast.Call, ast.Assign, ast.AugAssign, ast.AnnAssign,
                                      ast.Delete, ast.Import, ast.ImportFrom, ast.Global,
                                      ast.Nonlocal, ast.NamedExpr, ast.Yield, ast.Lambda))
                       for n in ast.walk(node))
    for child in ast.walk(node):
        if isinstance(child, (ast.Name, ast.Attribute)) and \
                (child.id if isinstance(child, ast.Name) else child.attr) in _NOT_ORDERING:
            return False
        if isinstance(child, (ast.Delete, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom,
                              ast.Return, ast.Yield, ast.YieldFrom, ast.AugAssign,
                              ast.AnnAssign, ast.NamedExpr)):
            return False
        if isinstance(child, ast.Constant) and isinstance(child.value, str) \
                and any(word in child.value for word in ("skip", "xfail", "usefixtures")):
            return False
        if isinstance(child, ast.Assign) and not all(
                isinstance(t, ast.Name) or _reorders(t, child.value) for t in child.targets):
            return False
    return True


def _reorders(target: ast.expr, value: ast.expr) -> bool:
    """``items[:] = sorted(items, ...)``, ``= reversed(items)``, ``= list(reversed(items))``."""
    if not isinstance(target, ast.Subscript):
        return False
    if isinstance(value, ast.Call) and ast.unparse(value.func) == "list" and value.args:
        value = value.args[0]
    return isinstance(value, ast.Call) and ast.unparse(value.func) in ("sorted", "reversed") \
        and bool(value.args) and ast.unparse(value.args[0]) == ast.unparse(target.value)


def _literal_items(node: ast.expr) -> list[str]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [_literal(element) for element in node.elts]
    return [_literal(node)]


def _literal(node: ast.expr) -> str:
    if isinstance(node, ast.Constant):
        return str(node.value)
    return ast.unparse(node)
