"""Affected-tests-first's recorder before Python 3.12: marks compiled into the project's code.

Loaded as ``ralph_verify_affected_marks`` beside :mod:`ralph_verify.recorder.affected_plugin`
(which imports it) into the project's interpreter; imports nothing but the standard library.

Before 3.12 any trace or profile function (cProfile's C core, coverage's C tracer) makes
the interpreter run *every* frame unspecialised, the standard library's and pytest's too:
a plain run of click's suite took 1.46x its CPU under cProfile and 2.1x under coverage with
a context per test. So instead, while a run records the map, each module of the project is
compiled with a *mark* at the entry of each of its functions, lambdas and generator
expressions, after each ``yield`` and ``await`` of a function (where a generator resumes),
and at the top of the module: a call of ``set.add`` with a constant that names the file and
the code's first line (as ``co_firstlineno`` does: the first decorator's). Code that is not
the project's runs untouched and specialised. The mark sits on the line of the statement it
precedes (tracebacks and coverage's lines are unchanged), after a docstring and
``from __future__`` imports.

The project's modules are compiled from source when imported (a meta path finder that
swaps Python's source loader for :class:`MarkLoader`; the bytecode cache is neither read
nor written), and those pytest rewrites (test and conftest files) through pytest's own
rewriting with the marks added (its cache of rewritten modules bypassed for the run). A
project module that was loaded another way (before the finder, by another import hook)
ran unmarked: :func:`unmarked` names it, and the recorder then says the run could not be
followed (no map). :func:`usable` says when this applies at all.
"""

from __future__ import annotations

import ast
import builtins
import os
import sys
from collections.abc import Callable
from importlib.machinery import ModuleSpec, SourceFileLoader
from typing import Any

#: The name of the mark in the builtins: no module's namespace gains a name.
HIT = "__ralph_verify_hit__"
#: The marks seen since the last :func:`take`: (file name, first line).
_seen: set[tuple[str, int]] = set()
#: The files compiled with marks (file names as their code objects name them).
_marked: set[str] = set()
_project: list[Callable[[str], str]] = []  # file name -> relative path, or "" (not ours)
#: The folder whose files get marks (pytest's root is not known yet when modules are first
#: imported: conftest files load before ``pytest_configure``): the working directory.
_root: list[str] = []
_OUTSIDE = ("site-packages", "dist-packages", ".venv", "venv", ".tox", ".nox")
#: This file's folder: ralph-verify's plugins, never the project's.
_OWN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


def usable() -> bool:
    """Marks where a tracer would slow everything: Python before 3.12 (3.12 and later have
    ``sys.monitoring``, nearly free)."""
    return sys.version_info < (3, 12) and not hasattr(sys, "monitoring")


def install(project_file: Callable[[str], str]) -> None:
    """Compile the project's modules imported from now on with marks; ``project_file``
    names a file relative to the root if it is the project's, else returns "" (asked only
    after ``pytest_configure``)."""
    _project[:] = [project_file]
    _root[:] = [os.path.join(os.getcwd(), "")]
    setattr(builtins, HIT, _seen.add)
    _patch_pytest_rewrite()
    sys.meta_path.insert(0, _Finder)


def take() -> dict[str, list[int]]:
    """The first lines of the project's code that ran since the last call, per file (a
    module's own code: 0), as :func:`ralph_verify.recorder.affected_plugin` records them."""
    seen = list(_seen)
    _seen.difference_update(seen)  # not clear(): another thread may be adding
    lines: dict[str, list[int]] = {}
    for filename, first in seen:
        rel = _project[0](filename)
        if rel:
            lines.setdefault(rel, []).append(first)
    return lines


def _ours(filename: str) -> bool:
    """Whether to mark ``filename``: under the working directory, not in an environment."""
    if not _root or not filename.startswith(_root[0]) or filename.startswith(_OWN):
        return False
    parts = filename[len(_root[0]):].split(os.sep)
    return not any(part.startswith(_OUTSIDE) for part in parts)


def unmarked() -> str:
    """A project module loaded without marks (its code ran unrecorded), else ""."""
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if isinstance(filename, str) and filename.endswith(".py") and filename not in _marked \
                and not filename.startswith(_OWN) and _project and _project[0](filename):
            return filename
    return ""


class _Finder:
    """Asks the finders after it; gives a project module found as source our loader."""

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is cls or find is None:
                continue
            spec: ModuleSpec | None = find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        # Exactly Python's loader: another hook's (typeguard, beartype) is left alone.
        if type(loader) is SourceFileLoader and spec.origin and _ours(spec.origin):
            spec.loader = MarkLoader(loader.name, loader.path)
        return spec


class MarkLoader(SourceFileLoader):
    """Python's source loader, compiling with marks, without the bytecode cache."""

    def get_code(self, fullname: str) -> Any:
        path = self.get_filename(fullname)
        tree = ast.parse(self.get_data(path), path)
        return compile(mark(tree, path), path, "exec", dont_inherit=True)


def mark(tree: ast.Module, filename: str) -> ast.Module:
    """``tree`` with marks (see the module docstring), for the file ``filename``."""
    if _ours(filename):
        _Mark(filename).visit(tree)
        _marked.add(filename)
    return tree


def _patch_pytest_rewrite() -> None:
    """Pytest's rewriting of test and conftest files, with marks, never from its cache."""
    rewrite: Any = sys.modules.get("_pytest.assertion.rewrite")
    original = getattr(rewrite, "rewrite_asserts", None)
    if original is None or not all(hasattr(rewrite, n) for n in ("_read_pyc", "_write_pyc")):
        return  # another pytest: its modules stay unmarked, and unmarked() says so

    def rewrite_asserts(mod: ast.Module, source: bytes, module_path: Any = None,
                        config: Any = None) -> None:
        original(mod, source, module_path, config)
        if isinstance(module_path, str):
            mark(mod, module_path)

    rewrite.rewrite_asserts = rewrite_asserts
    rewrite._read_pyc = lambda *args, **kwargs: None
    rewrite._write_pyc = lambda *args, **kwargs: False


_Scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_Suspends = (ast.Yield, ast.YieldFrom, ast.Await)


def _suspends(node: ast.AST) -> bool:
    """Whether ``node`` (a statement's own expressions, not nested scopes') may suspend."""
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, _Suspends):
            return True
        todo.extend(child for child in ast.iter_child_nodes(item)
                    if not isinstance(child, (*_Scopes, ast.stmt)))
    return False


class _Mark(ast.NodeTransformer):
    def __init__(self, filename: str) -> None:
        self.filename = filename

    def _call(self, first: int, at: ast.AST) -> ast.Call:
        value: Any = (self.filename, first)  # a tuple of constants is a constant
        call = ast.Call(ast.Name(HIT, ast.Load()), [ast.Constant(value)], [])
        for node in ast.walk(call):
            ast.copy_location(node, at)
        return call

    def _stmt(self, first: int, at: ast.AST) -> ast.Expr:
        return ast.copy_location(ast.Expr(self._call(first, at)), at)

    def visit_Module(self, node: ast.Module) -> ast.Module:
        self.generic_visit(node)
        at = _after_docstring(node.body)
        while at < len(node.body) and isinstance(node.body[at], ast.ImportFrom) \
                and getattr(node.body[at], "module", None) == "__future__":
            at += 1
        if node.body:
            node.body.insert(at, self._stmt(0, node.body[min(at, len(node.body) - 1)]))
        return node

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        self.generic_visit(node)
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        self._resumes(node.body, first, isinstance(node, ast.AsyncFunctionDef))
        at = _after_docstring(node.body)
        node.body.insert(at, self._stmt(first, node.body[min(at, len(node.body) - 1)]))
        return node

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _resumes(self, body: list[ast.stmt], first: int, is_async: bool) -> None:
        """A mark after each statement of ``body`` where the function may resume."""
        index = 0
        while index < len(body):
            stmt = body[index]
            index += 1
            if isinstance(stmt, _Scopes):
                continue
            blocks = [getattr(stmt, name) for name in ("body", "orelse", "finalbody")
                      if isinstance(getattr(stmt, name, None), list)]
            blocks += [handler.body for handler in getattr(stmt, "handlers", ())]
            blocks += [case.body for case in getattr(stmt, "cases", ())]
            for block in blocks:
                self._resumes(block, first, is_async)
            header = (is_async and isinstance(stmt, (ast.AsyncFor, ast.AsyncWith))) or any(
                _suspends(child) for child in ast.iter_child_nodes(stmt)
                if not isinstance(child, ast.stmt))
            if not header:
                continue
            for block in blocks:
                if block:
                    block.insert(0, self._stmt(first, block[0]))
            if not isinstance(stmt, (ast.Return, ast.Raise)):
                body.insert(index, self._stmt(first, stmt))
                index += 1

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        self.generic_visit(node)
        # None or body: set.add returns None.
        node.body = ast.copy_location(
            ast.BoolOp(ast.Or(), [self._call(node.lineno, node.body), node.body]), node.body)
        return node

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> ast.AST:
        self.generic_visit(node)
        # Its code runs when it is consumed, maybe in a later test: a mark per item.
        check = ast.copy_location(ast.UnaryOp(ast.Not(), self._call(node.lineno, node)), node)
        node.generators[0].ifs.insert(0, check)
        return node


def _after_docstring(body: list[ast.stmt]) -> int:
    first = body[0] if body else None
    return int(isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
               and isinstance(first.value.value, str))
