"""Other libraries' private names: each one ralph_verify still uses is a row of the table in
docs/architecture.md ("Other libraries' private names"), and each row's feature test is here
(or names its own test file): a release that drops the name fails a test, not a user."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from ralph_verify import redact

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ralph_verify"
DOC = ROOT / "docs" / "architecture.md"
SECTION = "## Other libraries' private names"

#: Found in the package but owned by another part of issue 37 (the recorder: its rows are
#: written with its review). A name here that is no longer found fails the test below: take
#: it out of this set then.
PENDING: frozenset[str] = frozenset()


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_names(trees: list[ast.Module]) -> set[str]:
    """Every name ralph_verify binds itself (its functions, classes, attributes, variables,
    parameters): ``x._name`` of one of these is our own private name, not another library's."""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    return names


def private_names_used() -> dict[str, list[str]]:
    """Other libraries' private names in the package, each with where: ``mod._name`` of a name
    ralph_verify does not define, ``getattr(obj, "_name")`` of an object not our own, an
    import of a private module or name, and a private module's dotted name as a string."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted(PACKAGE.rglob("*.py"))}
    own = _own_names(list(trees.values()))
    found: dict[str, list[str]] = {}
    for path, tree in trees.items():
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own:
                names.append(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) > 1 \
                    and isinstance(node.args[1], ast.Constant) \
                    and isinstance(node.args[1].value, str) and _private(node.args[1].value) \
                    and not (isinstance(node.args[0], ast.Name)
                             and node.args[0].id in ("self", "cls")):
                names.append(node.args[1].value)
            elif isinstance(node, ast.Import):
                names += [alias.name.split(".")[0] for alias in node.names
                          if any(map(_private, alias.name.split(".")))]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 \
                    and not (node.module or "").startswith("ralph_verify"):
                module = node.module or ""
                if any(map(_private, module.split("."))):
                    names.append(module)
                names += [alias.name for alias in node.names if _private(alias.name)]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and re.fullmatch(r"_[a-z]\w*(\.[a-z_]\w*)+", node.value) \
                    and importlib.util.find_spec(node.value.split(".")[0]) is not None:
                names.append(node.value)  # a private module named (not a file's suffix)
            for name in names:
                found.setdefault(name, []).append(
                    f"{path.relative_to(ROOT).as_posix()}:{getattr(node, 'lineno', 0)}")
    return found


def listed_names() -> list[str]:
    """The first column of the table in the section, without its backticks."""
    text = DOC.read_text(encoding="utf-8")
    assert SECTION in text, f"{DOC} has no section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [row.split("|")[1].strip().strip("`") for row in rows]


def test_every_private_name_the_package_uses_is_listed() -> None:
    listed = listed_names()
    assert listed, "the table has no rows"
    found = private_names_used()
    missing = {name: where for name, where in found.items() if name not in PENDING and not any(
        re.search(rf"(^|[.`\s]){re.escape(name)}($|[.`\s(])", row) for row in listed)}
    assert missing == {}, ("list each in docs/architecture.md, " + SECTION.lstrip("# ")
                           + ", with why, versions, a feature test and a public fallback")
    assert sorted(PENDING - set(found)) == [], "no longer used: take these out of PENDING"


def test_each_row_names_a_feature_test_that_exists() -> None:
    text = DOC.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]
    for row in (line for line in text.splitlines() if line.startswith("| `")):
        tests = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", row)
        assert tests, f"no feature test named in: {row}"
        for file, name in tests:
            assert f"def {name}(" in (ROOT / file).read_text(encoding="utf-8"), (file, name)


# --- the feature tests of the rows ------------------------------------------------------


def test_os_exit_ends_the_process_at_once_with_its_code() -> None:
    # What the Stop hook's last resort and a forked child rely on: no finally, no atexit;
    # the exit code given.
    code = textwrap.dedent("""\
        import atexit, os, sys
        atexit.register(lambda: print("atexit ran", flush=True))
        try:
            os._exit(7)
        finally:
            print("finally ran", flush=True)
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (7, "", "")


def test_os_environ_keeps_its_store_in_data(monkeypatch: pytest.MonkeyPatch) -> None:
    # redact reads the process's secrets again only when os.environ's store changed: the
    # store must be a dict that every change through os.environ reaches.
    store = getattr(os.environ, "_data", None)
    assert isinstance(store, dict), "os.environ has no _data dict: redact reads it each time"
    before = dict(store)
    monkeypatch.setenv("RALPH_VERIFY_FEATURE_TEST", "one")
    assert store != before
    changed = dict(store)
    monkeypatch.setenv("RALPH_VERIFY_FEATURE_TEST", "two")
    assert store != changed
    monkeypatch.delenv("RALPH_VERIFY_FEATURE_TEST")
    assert store == before


def test_redact_reads_an_environment_without_data_each_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The public fallback: an os.environ without the private store (another Python) is
    # read at each call, so a change is seen at once all the same.
    environ = {"DEPLOY_TOKEN": "tok-" + "x" * 30}
    monkeypatch.setattr(redact, "os", SimpleNamespace(environ=environ))
    assert redact.secret_values() == {environ["DEPLOY_TOKEN"]: "DEPLOY_TOKEN"}
    environ["DEPLOY_TOKEN"] = "tok-" + "y" * 30
    assert redact.redact(f"token {environ['DEPLOY_TOKEN']}") == \
        "token [redacted:DEPLOY_TOKEN]"
