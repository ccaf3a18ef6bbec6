"""Stand-ins for the project's own code in test infrastructure.

An autouse ``monkeypatch.setattr(kata, "add", ...)`` makes every test run against a
stand-in instead of the code under test. A patch (``setattr``, ``mock.patch``,
``sys.modules[...]``, attribute assignments) in a conftest, plugin, fixture or set-up method
is a finding when its target's first name is one of the project's own top-level modules;
third-party or I/O objects may be patched."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Failure
from ralph_verify.integrity.rule import allowed, failure
from ralph_verify.integrity.sources import is_test_code, is_test_file, parse, source_line

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair, Source
    from ralph_verify.records.integrity import FileFacts

Finding = tuple[str, int, str, str]  # (target, line, source, scope)
_FIXTURE_NAMES = frozenset({"fixture", "yield_fixture"})
_SETUP_NAMES = frozenset({"setUp", "setUpClass", "setup_method", "setup_class",
                          "setup_function", "setup_module", "setup", "asyncSetUp"})
_NOT_PACKAGES = frozenset({"setup", "noxfile", "tasks", "conftest", "docs", "doc", "tests",
                           "test", "testing", "benchmarks", "examples", "scripts", "tools"})


def project_names(files: Iterable[str]) -> set[str]:
    """The project's own top-level import names, from its non-test Python files."""
    names: set[str] = set()
    for rel in files:
        if not rel.endswith(".py"):
            continue
        parts = rel.split("/")
        if parts[0] == "src" and len(parts) > 1:
            parts = parts[1:]
        top = parts[0].removesuffix(".py")
        if top.isidentifier() and top not in _NOT_PACKAGES and not top.startswith(("test", "_")):
            names.add(top)
    return names


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted object it names, from the module-level imports (those under
    a top-level ``if``/``try`` too): what its fixtures and tests see."""
    found: dict[str, str] = {}
    nodes: list[ast.AST] = []
    for top in tree.body:
        nodes += list(ast.walk(top)) if isinstance(top, ast.If | ast.Try) else [top]
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = alias.name
                else:
                    top_name = alias.name.split(".")[0]
                    found[top_name] = top_name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def _dotted(node: ast.expr, imports: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return imports.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, imports)
        return f"{base}.{node.attr}" if base else None
    return None


def _call_name(func: ast.expr) -> str:
    """``mock.patch.object`` -> ``patch.object``; ``monkeypatch.setattr`` -> ``setattr``."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.insert(0, func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.insert(0, func.id)
    if len(parts) >= 2 and parts[-2] == "patch":
        return "patch." + parts[-1]
    return parts[-1] if parts else ""


def _str(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) \
        else None


def _target(call: ast.Call, imports: dict[str, str]) -> str | None:
    """The dotted object a patching call replaces, or ``None`` when it patches nothing."""
    name = _call_name(call.func)
    args = call.args
    if name in ("patch", "setattr", "delattr", "setenv") and args and _str(args[0]):
        if name == "setenv":
            return None
        text = _str(args[0])
        if name in ("setattr", "delattr") and len(args) >= 2 and _str(args[1]) is None \
                and isinstance(call.func, ast.Name):
            return None
        if text and "." in text and (name == "patch" or len(args) <= 2):
            return text
    if name in ("patch.object", "setattr", "delattr", "patch.multiple") and len(args) >= 2 \
            and (_str(args[1]) or name == "patch.multiple"):
        base = _dotted(args[0], imports)
        if base:
            return f"{base}.{_str(args[1])}" if _str(args[1]) else base
        if _str(args[1]) and not isinstance(call.func, ast.Name):
            return f"?.{_str(args[1])}"  # an object we cannot name: judged by the attribute
    if name == "setitem" and len(args) >= 2 and _dotted(args[0], imports) == "sys.modules":
        return _str(args[1])
    return None


def _infra_functions(tree: ast.Module) -> list[ast.AST]:
    """Fixtures and set-up methods: the test-module code that runs around the tests."""
    found: list[ast.AST] = []
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    for node in [*tree.body, *(item for c in classes for item in c.body)]:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        decorated = any(_call_name(d.func if isinstance(d, ast.Call) else d) in _FIXTURE_NAMES
                        for d in node.decorator_list)
        if decorated or node.name in _SETUP_NAMES:
            found.append(node)
    return found


def scan(text: str, own: set[str], *, whole: bool) -> list[Finding]:
    """Patches of the project's objects: in the whole module (``whole``: a conftest or
    plugin) or in its fixtures and set-up methods only (a test module)."""
    tree = parse(text)
    if tree is None:
        return []
    imports = _imports(tree)
    lines = text.splitlines()
    scopes: list[tuple[str, ast.AST]] = [("module", tree)] if whole else [
        (getattr(f, "name", "?"), f) for f in _infra_functions(tree)]
    found: list[Finding] = []
    seen: set[int] = set()
    for scope, root in scopes:
        for node in ast.walk(root):
            target: str | None = None
            if isinstance(node, ast.Call):
                target = _target(node, imports)
            elif isinstance(node, ast.Assign):
                for lhs in node.targets:
                    if isinstance(lhs, ast.Attribute):
                        base = _dotted(lhs.value, imports)
                        target = f"{base}.{lhs.attr}" if base else None
                    elif isinstance(lhs, ast.Subscript) \
                            and _dotted(lhs.value, imports) == "sys.modules":
                        target = _str(lhs.slice)
            if target is None or target.split(".")[0] not in {*own, "?"} or id(node) in seen:
                continue
            seen.add(id(node))
            line = getattr(node, "lineno", 1)
            found.append((target, line, source_line(lines, line), scope))
    return sorted(found, key=lambda f: f[1])


def project_imports(tree: ast.Module, own: set[str]) -> dict[str, str]:
    """Names a module imports from the project (``from kata import add``: add -> kata.add)."""
    return {name: dotted for name, dotted in _imports(tree).items()
            if dotted.split(".")[0] in own and "." in dotted}


def resolve(target: str, imported: dict[str, str]) -> str | None:
    """A finding's target as the project object it replaces; ``None``: not the project's.

    ``?.add`` (an attribute of an object we could not name, such as ``request.module``)
    is the project's ``add`` when the tests import a project object by that name."""
    if target.startswith("?."):
        return imported.get(target[2:])
    return target


WHY = ("replaces an object of the project's own package while its tests run, so the tests "
       "exercise a stand-in instead of the code; fix the code instead (patch only third-party "
       "or I/O objects)")


def facts(src: Source, out: FileFacts) -> None:
    """The stand-ins a file installs; the project names a test module imports."""
    if src.tree is None:
        return
    if (src.rel.endswith(".py") and is_test_code(src.rel)) or src.rel in src.plugins:
        whole = src.rel.rsplit("/", 1)[-1] == "conftest.py" or src.rel in src.plugins
        out.standins = [list(f) for f in scan(src.text, set(src.own), whole=whole)]
    if is_test_file(src.rel):
        out.imports = project_imports(src.tree, set(src.own))


def compare(pair: Pair) -> list[Failure]:
    """Stand-ins new since the start that replace an object of the project."""
    allow = pair.before.allow
    imported = {k: v for entry in (pair.after.facts.files.values() if pair.after.facts else ())
                for k, v in entry.imports.items()}
    out = []
    for rel, was, entry in pair.changed():
        old = Counter((t, s) for t, _, s, _ in was.standins)
        for raw, line, source, scope in entry.standins:
            if old[(raw, source)] > 0:
                old[(raw, source)] -= 1
                continue
            target = resolve(raw, imported)
            if target is None or allowed(rel, "stand-in", target, allow) \
                    or allowed(rel, "stand-in", scope, allow):
                continue
            out.append(failure(rel, line, "stand-in", f"`{source}` in {scope} {WHY}; it "
                               f"replaces {target} (allow it on purpose with allow = "
                               f'["{rel}:{target}"])', source))
    return out
