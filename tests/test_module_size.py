"""No module of ralph_verify is over 400 lines: a module that long owns more than one thing.

ARCHITECTURE.md asks for modules of 80-400 lines, each with one thing it owns; a module
that grows past 400 is split along a line of meaning (see hookspec/, guard_policy.py,
junit_case.py, testing_script.py, config/plugins.py, plugins/pytest_run/shared.py). Every
dataclass has a docstring of its own.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ralph_verify"
LIMIT = 400
#: Modules allowed past the limit, each with why. Keep it empty.
EXCEPTIONS: dict[str, str] = {}


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def too_long(package: Path) -> list[str]:
    return sorted(f"{path.relative_to(package.parent)}: {lines(path)} lines"
                  for path in package.rglob("*.py")
                  if lines(path) > LIMIT and path.relative_to(package).as_posix() not in EXCEPTIONS)


def test_no_module_is_over_400_lines() -> None:
    found = too_long(PACKAGE)
    assert not found, f"split these along a line of meaning (limit {LIMIT}):\n" + "\n".join(found)


def test_every_exception_still_exists_and_says_why() -> None:
    for name, why in EXCEPTIONS.items():
        assert (PACKAGE / name).is_file(), f"{name} is gone: drop its exception"
        assert why.strip(), f"{name}: say why it may be longer"


def test_the_count_sees_a_long_module(tmp_path: Path) -> None:
    package = tmp_path / "ralph_verify"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "long.py").write_text("x = 1\n" * (LIMIT + 1))
    (package / "short.py").write_text("x = 1\n" * LIMIT)
    assert too_long(package) == [f"ralph_verify/sub/long.py: {LIMIT + 1} lines"]


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
