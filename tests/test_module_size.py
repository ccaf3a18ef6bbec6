"""One idea per module: what a module owns decides its size, not a line count.

A module of ``plugins/`` is a plugin (it implements a hook) or lives in the sub-package of
the plugin it serves (``plugins/pytest_run/``, ``plugins/mypy/``), as pytest's
``assertion/`` and ``mark/``. No module is cut at a length: a generous guard only flags
one past :data:`LIMIT` lines, which has grown a second idea (STYLE.md). Every dataclass
has a docstring of its own.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ralph_verify"
LIMIT = 800
#: Modules allowed past the limit, each with why. Keep it empty.
EXCEPTIONS: dict[str, str] = {}


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def too_long(package: Path) -> list[str]:
    return sorted(f"{path.relative_to(package.parent)}: {lines(path)} lines"
                  for path in package.rglob("*.py")
                  if lines(path) > LIMIT and path.relative_to(package).as_posix() not in EXCEPTIONS)


def implements_a_hook(path: Path) -> bool:
    """Whether a function of ``path`` is decorated ``@hookimpl`` (plain or with arguments)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ast.unparse(target).split(".")[-1] == "hookimpl":
                    return True
    return False


def not_plugins(plugins: Path) -> list[str]:
    """Modules of ``plugins/`` that implement no hook and are no part of a plugin's own
    sub-package (a folder whose ``__init__.py`` implements a hook)."""
    found = []
    for path in sorted(plugins.rglob("*.py")):
        if path.name == "__init__.py" and not implements_a_hook(path):
            continue  # a plain package: its modules answer for themselves
        if implements_a_hook(path) or implements_a_hook(path.parent / "__init__.py"):
            continue
        found.append(path.relative_to(plugins).as_posix())
    return found


def test_every_module_of_plugins_is_a_plugin_or_part_of_one() -> None:
    found = not_plugins(PACKAGE / "plugins")
    assert not found, ("modules of plugins/ that are no plugin: fold each into the plugin it "
                       "serves, or make that plugin a sub-package holding it:\n" +
                       "\n".join(found))


def test_no_module_is_over_the_limit() -> None:
    found = too_long(PACKAGE)
    assert not found, (f"past {LIMIT} lines: has the module grown a second idea? Move that "
                       "idea out (not the last lines):\n" + "\n".join(found))


def test_every_exception_still_exists_and_says_why() -> None:
    for name, why in EXCEPTIONS.items():
        assert (PACKAGE / name).is_file(), f"{name} is gone: drop its exception"
        assert why.strip(), f"{name}: say why it may be longer"


def test_the_checks_see_a_stray_module_and_a_long_one(tmp_path: Path) -> None:
    package = tmp_path / "ralph_verify"
    plugins = package / "plugins"
    (plugins / "big").mkdir(parents=True)
    (plugins / "__init__.py").write_text('"""Built-ins."""\n')
    (plugins / "one.py").write_text("@hookimpl\ndef ralph_configure(config): ...\n")
    (plugins / "two.py").write_text("@hookimpl(tryfirst=True)\ndef ralph_configure(config): ...\n")
    (plugins / "helper.py").write_text("def helper(): ...\n")
    (plugins / "big" / "__init__.py").write_text("@markers.hookimpl\ndef ralph_configure(c): ...\n")
    (plugins / "big" / "part.py").write_text("def part(): ...\n")
    (plugins / "long.py").write_text("x = 1\n" * (LIMIT + 1))
    (package / "short.py").write_text("x = 1\n" * LIMIT)
    assert not_plugins(plugins) == ["helper.py", "long.py"]
    assert too_long(package) == [f"ralph_verify/plugins/long.py: {LIMIT + 1} lines"]


def test_every_dataclass_has_a_docstring() -> None:
    # Without one, dataclasses writes one from inspect.signature (0.1-0.3 ms a class, at every
    # start that builds it).
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    "dataclass" in ast.unparse(decorator) for decorator in node.decorator_list) \
                    and ast.get_docstring(node) is None:
                missing.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}")
    assert missing == []
