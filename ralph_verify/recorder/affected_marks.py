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

The project's modules are compiled with marks when imported (a meta path finder that
swaps Python's source loader for :class:`MarkLoader`), and those pytest rewrites (test and
conftest files) through pytest's own rewriting with the marks added. Both keep the marked
bytecode beside the usual one under a name of their own (``*.ralph-marks-3.pyc``, in
ralph-verify's bytecode prefix when it runs pytest), so that a plain run never loads marks
and a recording run compiles only what changed. A project module that was loaded another
way (before the finder, by another import hook) ran unmarked: :func:`unmarked` names it,
and the recorder then says the run could not be followed (no map). :func:`usable` says
when this applies at all.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import hashlib
import marshal
import os
import sys
from collections.abc import Callable
from importlib.machinery import ModuleSpec, SourceFileLoader
from importlib.util import MAGIC_NUMBER, cache_from_source, source_hash
from typing import Any

#: The name of the mark in the builtins: no module's namespace gains a name.
HIT = "__ralph_verify_hit__"
#: The version of the marks, in the cached bytecode's header and name.
_VERSION = b"rvm3"
_TAIL = ".ralph-marks-3.pyc"
#: The last first line a mark tells apart (a later one is taken as this one: the unit that
#: spans it, if any, or the module's code).
_LAST = (1 << 20) - 1
#: The marks seen since the last :func:`take`: each an int, the key of the file (see
#: :func:`_key`) shifted left by ``_SHIFT`` bits, plus the first line (an int hashes as
#: itself: a tuple constant made each mark cost about twice as much).
_seen: set[int] = set()
_SHIFT = 20
#: A file's key -> its path relative to the working directory, for each file marked or
#: loaded marked; and -> its path relative to pytest's root ("": not the project's).
_files: dict[int, str] = {}
_rels: dict[int, str] = {}
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


def install(project_file: Callable[[str], str]) -> bool:
    """Compile the project's modules imported from now on with marks; ``project_file``
    names a file relative to the root if it is the project's, else returns "" (asked only
    after ``pytest_configure``). ``False`` (and nothing done) when a module of the project
    was imported already (a plugin of the project's named before ralph-verify's in
    ``addopts``): the caller records another way."""
    _root[:] = [os.path.join(os.getcwd(), "")]
    if any(_ours(str(getattr(module, "__file__", None) or ""))
           for module in list(sys.modules.values())):
        _root.clear()
        return False
    _project[:] = [project_file]
    setattr(builtins, HIT, _seen.add)
    _patch_pytest_rewrite()
    sys.meta_path.insert(0, _Finder)
    return True


def take() -> dict[str, list[int]]:
    """The first lines of the project's code that ran since the last call, per file (a
    module's own code: 0), as :func:`ralph_verify.recorder.affected_plugin` records them."""
    seen = list(_seen)
    _seen.difference_update(seen)  # not clear(): another thread may be adding
    lines: dict[str, list[int]] = {}
    low = (1 << _SHIFT) - 1
    for mark in seen:
        key = mark >> _SHIFT
        rel = _rels.get(key)
        if rel is None:
            name = _files.get(key)
            rel = _rels[key] = _project[0](os.path.join(_root[0], name)) if name else ""
        if rel:
            lines.setdefault(rel, []).append(mark & low)
    return lines


def _key(rel: str) -> int:
    """A file's key: 40 bits of a hash of its path relative to the working directory (the
    same in every run: the cached marked bytecode holds it), noted for :func:`take`."""
    key = int.from_bytes(hashlib.blake2b(rel.encode("utf-8", "surrogateescape"),
                                         digest_size=5).digest(), "big")
    _files[key] = rel
    return key


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
    """Python's source loader, compiling with marks, with a bytecode cache of its own."""

    def get_code(self, fullname: str) -> Any:
        path = self.get_filename(fullname)
        source = self.get_data(path)
        rel = _rel(path)
        key = MAGIC_NUMBER + _VERSION + source_hash(source + rel.encode("utf-8", "replace"))
        cached = _cache_path(path)
        if cached:
            with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
                with open(cached, "rb") as handle:
                    data = handle.read()
                if data[:len(key)] == key:
                    code = marshal.loads(data[len(key):])
                    _marked.add(path)
                    _key(rel)
                    return code
        code = compile(mark(ast.parse(source, path), path), path, "exec", dont_inherit=True)
        if cached and not sys.dont_write_bytecode:
            _write(cached, key + marshal.dumps(code))
        return code


def _cache_path(path: str) -> str:
    """Where the marked bytecode of ``path`` is kept: beside its ``.pyc`` (in the bytecode
    prefix when there is one), under a name of its own; "" when there is no cache."""
    try:
        pyc = cache_from_source(path)
    except (NotImplementedError, ValueError):
        return ""
    return pyc[:-len(".pyc")] + _TAIL


def _write(path: str, data: bytes) -> None:
    temporary = f"{path}.{os.getpid()}.tmp"
    try:  # a cache: never an error
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _rel(filename: str) -> str:
    """``filename`` relative to the working directory (the marks hold this: a copied
    tree's cached bytecode stays right)."""
    return filename[len(_root[0]):] if _root and filename.startswith(_root[0]) else filename


def mark(tree: ast.Module, filename: str) -> ast.Module:
    """``tree`` with marks (see the module docstring), for the file ``filename``."""
    if not _ours(filename):
        return tree
    _marked.add(filename)
    key = _key(_rel(filename)) << _SHIFT
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    suspends = False
    for node in ast.walk(tree):  # one pass; a node's children are queued before it is seen
        kind = type(node)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            functions.append(node)  # type: ignore[arg-type]  # by its type
        elif kind is ast.Lambda:
            assert isinstance(node, ast.Lambda)
            # None or body: set.add returns None.
            node.body = ast.copy_location(ast.BoolOp(ast.Or(), [
                _call(key, node.lineno, node.body), node.body]), node.body)
        elif kind is ast.GeneratorExp:
            assert isinstance(node, ast.GeneratorExp)
            # Its code runs when it is consumed, maybe in a later test: a mark per item.
            # On the line of its first ``for`` target, evaluated for each item anyway: no
            # line (and no branch) that coverage would not see without the mark.
            target = node.generators[0].target
            node.generators[0].ifs.insert(0, ast.copy_location(
                ast.UnaryOp(ast.Not(), _call(key, node.lineno, target)), target))
        elif kind in _SUSPENDS:
            suspends = True
    for function in functions:
        first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
        if suspends and _suspends(function.body):
            _resumes(function.body, key, first)
        _insert(function.body, _after_docstring(function.body), key, first)
    at = _after_docstring(tree.body)
    while at < len(tree.body) and isinstance(tree.body[at], ast.ImportFrom) \
            and getattr(tree.body[at], "module", None) == "__future__":
        at += 1
    if tree.body:
        _insert(tree.body, at, key, 0)
    return tree


def _patch_pytest_rewrite() -> None:
    """Pytest's rewriting of test and conftest files, with marks, cached by pytest beside
    its own rewritten files under a name of its own."""
    rewrite: Any = sys.modules.get("_pytest.assertion.rewrite")
    original = getattr(rewrite, "rewrite_asserts", None)
    read, write = getattr(rewrite, "_read_pyc", None), getattr(rewrite, "_write_pyc", None)
    if original is None or read is None or write is None:
        return  # another pytest: its modules stay unmarked, and unmarked() says so

    def rewrite_asserts(mod: ast.Module, source: bytes, module_path: Any = None,
                        config: Any = None) -> None:
        original(mod, source, module_path, config)
        if isinstance(module_path, str):
            mark(mod, module_path)

    def read_pyc(source: Any, pyc: Any, *args: Any, **kwargs: Any) -> Any:
        code = read(source, _marked_pyc(pyc), *args, **kwargs)
        if code is not None and _ours(str(source)):
            _marked.add(str(source))
            _key(_rel(str(source)))
        return code

    def write_pyc(state: Any, code: Any, stat: Any, pyc: Any, *args: Any, **kwargs: Any) -> Any:
        return write(state, code, stat, _marked_pyc(pyc), *args, **kwargs)

    rewrite.rewrite_asserts, rewrite._read_pyc, rewrite._write_pyc = (
        rewrite_asserts, read_pyc, write_pyc)


def _marked_pyc(pyc: Any) -> Any:
    name = str(getattr(pyc, "name", pyc))
    marked = name[:-len(".pyc")] + _TAIL if name.endswith(".pyc") else name + _TAIL
    with_name = getattr(pyc, "with_name", None)
    return with_name(marked) if with_name else os.path.join(os.path.dirname(pyc), marked)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_SUSPENDS = (ast.Yield, ast.YieldFrom, ast.Await, ast.AsyncFor, ast.AsyncWith)


def _suspends(nodes: list[Any]) -> bool:
    """Whether ``nodes`` (and what they hold, not nested scopes) may suspend their frame."""
    todo = list(nodes)
    while todo:
        item = todo.pop()
        if isinstance(item, _SUSPENDS):
            return True
        todo.extend(child for child in ast.iter_child_nodes(item)
                    if not isinstance(child, _SCOPES))
    return False


def _resumes(body: list[ast.stmt], key: int, first: int) -> None:
    """A mark after each statement of ``body`` where its function may resume (and at the
    start of the blocks of a statement whose own expressions may suspend)."""
    index = 0
    while index < len(body):
        stmt = body[index]
        index += 1
        if isinstance(stmt, _SCOPES):
            continue
        blocks = [getattr(stmt, name) for name in ("body", "orelse", "finalbody")
                  if isinstance(getattr(stmt, name, None), list)]
        blocks += [handler.body for handler in getattr(stmt, "handlers", ())]
        blocks += [case.body for case in getattr(stmt, "cases", ())]
        for block in blocks:
            _resumes(block, key, first)
        if isinstance(stmt, ast.Try) and _suspends(stmt.body):  # thrown in at a yield
            for block in [handler.body for handler in stmt.handlers] + [stmt.finalbody]:
                if block:
                    _insert(block, 0, key, first)
        if not (isinstance(stmt, (ast.AsyncFor, ast.AsyncWith)) or _suspends(
                [child for child in ast.iter_child_nodes(stmt)
                 if not isinstance(child, (ast.stmt, ast.excepthandler))])):
            continue
        for block in blocks:
            if block:
                _insert(block, 0, key, first)
        # After it, on the line of the next statement (the one that runs next anyway), or
        # of a simple statement itself; never after a last compound one (its own line once
        # more would be a line and a branch coverage would not see without the mark).
        if not isinstance(stmt, (ast.Return, ast.Raise)) and (index < len(body) or not blocks):
            _insert(body, index, key, first)
            index += 1


def _call(key: int, first: int, at: ast.AST) -> ast.Call:
    call = ast.Call(ast.Name(HIT, ast.Load()), [ast.Constant(key | min(first, _LAST))], [])
    for node in ast.walk(call):
        ast.copy_location(node, at)
    return call


def _insert(body: list[ast.stmt], at: int, key: int, first: int) -> None:
    """A mark at ``body[at]``, on the line of the statement it precedes (or follows)."""
    near = body[min(at, len(body) - 1)]
    body.insert(at, ast.copy_location(ast.Expr(_call(key, first, near)), near))


def _after_docstring(body: list[ast.stmt]) -> int:
    first = body[0] if body else None
    return int(isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
               and isinstance(first.value.value, str))
