"""Test infrastructure: the code that runs inside pytest besides the tests themselves.

A conftest, a pytest plugin, a ``sitecustomize.py``/``.pth`` file (the project's or its
venv's, ignored ones included: pytest loads them all the same) can rewrite reports, deselect
tests or end the process before a failure is written: a new or changed one is a finding
(but the ``.pth`` files pip installed), and so is a new process exit in test code."""

from __future__ import annotations

import ast
import hashlib
import os
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.api import Failure
from ralph_verify.integrity.sources import (
    is_test_file,
    module_file,
    orders_or_marks,
    parse,
    read_text,
)
from ralph_verify.records.integrity import FileFacts, InfraPicture, Setting

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair, Source

STARTUP_NAMES = ("sitecustomize.py", "usercustomize.py")
_SKIP_DIRS = frozenset({".git", ".ralph", "__pycache__", ".pytest_cache", ".mypy_cache",
                        ".ruff_cache", "node_modules", ".tox", ".nox", ".hypothesis", ".eggs"})
_EXITS = {("os", "_exit"), ("sys", "exit"), ("os", "abort")}


def _walk(root: Path) -> tuple[list[str], list[Path]]:
    """Every file of the tree, ignored ones included (relative); and the venvs found."""
    found: list[str] = []
    venvs: list[Path] = []
    for folder, dirs, files in os.walk(root):
        keep = []
        for name in sorted(dirs):
            if name in _SKIP_DIRS:
                continue
            if (Path(folder, name) / "pyvenv.cfg").is_file():
                venvs.append(Path(folder, name))
                continue
            keep.append(name)
        dirs[:] = keep
        base = Path(folder).relative_to(root)
        found += [(base / name).as_posix() for name in files]
    return sorted(found), venvs


def _sha(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return ""


def _inert(node: ast.stmt, text: str) -> bool:
    """An import, a docstring, or a plain assignment (no call, not ``pytest_plugins``); an
    ``if TYPE_CHECKING:`` block of such statements."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING") \
            and not node.orelse:
        return all(_inert(child, ast.unparse(child)) for child in node.body)
    if isinstance(node, ast.If) and not any(isinstance(n, ast.Call)
                                            for n in ast.walk(node.test)):
        # ``if not PY_3_10_PLUS: collect_ignore.extend([...])``: the settings comparison
        # reads collect_ignore; the condition alone changes no verdict.
        return all(_collect_ignore(child) for child in (*node.body, *node.orelse))
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True
    return isinstance(node, (ast.Assign, ast.AnnAssign)) and "pytest_plugins" not in text \
        and not any(isinstance(n, ast.Call) for n in ast.walk(node))


def _collect_ignore(node: ast.stmt) -> bool:
    """A statement that only sets or extends ``collect_ignore``/``collect_ignore_glob``."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id.startswith("collect_ignore") \
            and func.attr in ("append", "extend", "insert")
    targets = node.targets if isinstance(node, ast.Assign) else \
        [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
    return bool(targets) and all(isinstance(t, ast.Name) and t.id.startswith("collect_ignore")
                                 for t in targets)


def _blind_hook(node: ast.stmt) -> bool:
    """A hook that takes no argument, returns nothing, exits nothing, imports and assigns
    nothing (``def pytest_collection_finish(): gc.freeze()``): it cannot reach an item, a
    report or pytest itself, so it cannot change a verdict."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list:
        return False
    args = node.args
    if args.posonlyargs or args.args or args.kwonlyargs or args.vararg or args.kwarg:
        return False
    return not any((isinstance(n, ast.Return) and n.value is not None)
                   or (isinstance(n, ast.Attribute) and (n.attr in ("exit", "_exit", "abort")
                                                         or isinstance(n.ctx, ast.Store)))
                   or (isinstance(n, ast.Name) and n.id in ("pytest", "_pytest", "setattr"))
                   or isinstance(n, (ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom))
                   for n in ast.walk(node))


def _hook_digest(path: Path) -> str:
    """What can change pytest's verdict in a conftest: its ``pytest_*`` hooks, hook
    decorators, ``pytest_plugins`` and module-level code; ``""`` for fixtures only."""
    try:
        tree = parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        tree = None
    if tree is None:
        return _sha(path)
    parts = []
    for node in tree.body:
        text = ast.unparse(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if (node.name.startswith("pytest_") or "hookimpl" in text or "hookwrapper" in text) \
                    and not _blind_hook(node) and not orders_or_marks(node):
                parts.append(text)
        elif not _inert(node, text):
            parts.append(text)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16] if parts else ""


def _plugin_names(text: str) -> list[str]:
    """Modules a conftest names in ``pytest_plugins``."""
    tree = parse(text)
    if tree is None:
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in node.targets):
            value = node.value
            items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            names += [i.value for i in items
                      if isinstance(i, ast.Constant) and isinstance(i.value, str)]
    return names


def _addopts_plugins(settings: list[Setting]) -> list[str]:
    names = []
    for setting in settings:
        if setting.key == "pytest.addopts" and isinstance(setting.value, list):
            names += [item.split(" ", 1)[1] for item in setting.value
                      if str(item).startswith("-p ") and not str(item).startswith("-p no:")]
            names += [str(item)[2:] for item in setting.value
                      if re.match(r"-p[^\s]", str(item)) and not str(item).startswith("-pno:")]
    return names


def exits(text: str) -> list[tuple[int, str]]:
    """``os._exit(...)``/``sys.exit(...)`` calls (and bare ``exit``/``quit``): (line, source)."""
    tree = parse(text)
    if tree is None:
        return []
    lines = text.splitlines()
    return [(node.lineno, lines[node.lineno - 1].strip()) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and is_exit(node)]


def is_exit(node: ast.Call) -> bool:
    """A call that ends the process: ``os._exit(...)``, ``sys.exit(...)``, ``exit()``..."""
    func = node.func
    return (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and (func.value.id, func.attr) in _EXITS) \
        or (isinstance(func, ast.Name) and func.id in ("exit", "quit", "_exit"))


def take(root: Path, settings: list[Setting]) -> InfraPicture:
    """The infrastructure files (relative path or ``venv:NAME``) with hashes, and their
    exits (a test file's are its facts: the picture adds them)."""
    files, venvs = _walk(root)
    infra: dict[str, str] = {}
    for rel in files:
        name = rel.rsplit("/", 1)[-1]
        if name == "conftest.py" or name in STARTUP_NAMES or name.endswith(".pth"):
            infra[rel] = "conftest" if name == "conftest.py" else "startup"
    plugins = _addopts_plugins(settings)
    for rel in [r for r, kind in infra.items() if kind == "conftest"]:
        plugins += _plugin_names(read_text(root / rel))
    for name in plugins:
        module = module_file(root, name)
        if module is not None:
            infra[module] = "plugin"
    hashes = {rel: [kind, _hook_digest(root / rel) if kind == "conftest" else _sha(root / rel)]
              for rel, kind in infra.items()}
    for venv in venvs:
        for site in venv.glob("lib/python*/site-packages"):
            installed = _installed(site)
            for path in sorted(site.iterdir()):
                if (path.name in STARTUP_NAMES or path.name.endswith(".pth")) \
                        and path.name not in installed:
                    key = f"{path.relative_to(root).as_posix()}"
                    hashes[key] = ["startup", _sha(path)]
    found_exits: dict[str, list[list[Any]]] = {}
    for rel in sorted(infra):
        calls = exits(read_text(root / rel))
        if calls:
            found_exits[rel] = [[line, source] for line, source in calls]
    return InfraPicture(hashes, found_exits)


def _installed(site: Path) -> set[str]:
    """Start-up files pip installed in ``site`` as it wrote them (named, with their hash, in
    a distribution's ``RECORD``): an editable install's ``.pth``, setuptools'
    ``distutils-precedence.pth``. One written or edited by hand matches no record."""
    import base64

    names: set[str] = set()
    for record in site.glob("*.dist-info/RECORD"):
        try:
            lines = record.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            name, _, digest = line.partition(",")
            if "/" in name or not digest.startswith("sha256=") \
                    or not (name.endswith(".pth") or name in STARTUP_NAMES):
                continue
            try:
                data = (site / name).read_bytes()
            except OSError:
                continue
            real = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            if digest.split(",", 1)[0] == f"sha256={real.decode()}":
                names.add(name)
    return names


def facts(src: Source, out: FileFacts) -> None:
    """A test file's process exits."""
    if is_test_file(src.rel):
        out.exits = [list(call) for call in exits(src.text)]


_WHY = {
    "conftest": "a conftest.py runs inside pytest and can rewrite reports or deselect tests",
    "plugin": "a pytest plugin (pytest_plugins or -p in addopts) can rewrite reports or "
              "deselect tests",
    "startup": "it runs at every Python start-up, before pytest",
}


def compare(pair: Pair) -> list[Failure]:
    """New or changed test infrastructure, new process exits in test code."""
    before, after, root = pair.before, pair.after, pair.root
    if before.infra is None or after.infra is None:
        return []  # a baseline from an older version
    failures = []
    old, new = before.infra.files, after.infra.files
    protected = set(before.protected)
    for path, (kind, digest) in sorted(new.items()):
        if (path in old and old[path][1] == digest) or path in protected \
                or (kind == "conftest" and not digest and not (old.get(path) or ["", ""])[1]):
            continue  # unchanged, reported as a protected file, or fixtures only
        line = _first_hook_line(root / path) if kind != "startup" else 1
        what = "new" if path not in old else "changed"
        failures.append(Failure(
            message=f"{what} test infrastructure {path}:{line}: {_WHY[kind]}; fix the "
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


def _first_hook_line(path: Path) -> int:
    """The line of the first ``pytest_*`` hook of a module (1 when there is none)."""
    tree = parse(read_text(path))
    if tree is None:
        return 1
    lines = [node.lineno for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and node.name.startswith("pytest_")]
    return min(lines, default=1)
