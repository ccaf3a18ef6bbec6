"""The public face: ``ralph_verify`` names everything a hook receives or returns, cheaply.

A plugin (the first-party ``plugins/ralph-verify-diffcover`` included) needs no import
from ralph-verify's private modules, and ``import ralph_verify`` loads none of them.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

import ralph_verify
from ralph_verify import Config, hookimpl, hookspec
from ralph_verify.testing import Ralph

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_SOURCES = sorted((ROOT / "plugins" / "ralph-verify-diffcover").rglob("*.py"))
PUBLIC: dict[str, Any] = {name: getattr(ralph_verify, name) for name in ralph_verify.__all__}
HOOKS = sorted(name for name in vars(hookspec) if name.startswith("ralph_"))


def test_every_public_name_is_listed_and_importable() -> None:
    assert ralph_verify.__all__ == sorted(ralph_verify.__all__)
    assert len(set(ralph_verify.__all__)) == len(ralph_verify.__all__)
    for name in ralph_verify.__all__:
        assert getattr(ralph_verify, name) is not None
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        ralph_verify.Nope  # type: ignore[attr-defined]  # noqa: B018  # the point: an unknown name fails, for mypy too


def _private_types(tp: Any) -> list[str]:
    """Classes of ralph_verify inside the type ``tp`` that the face does not export."""
    found: list[str] = []
    for arg in typing.get_args(tp):
        found += _private_types(arg)
    origin = typing.get_origin(tp)
    if origin is None and isinstance(tp, type) and tp.__module__.startswith("ralph_verify") \
            and PUBLIC.get(tp.__name__) is not tp:
        found.append(f"{tp.__module__}.{tp.__qualname__}")
    return found


def _hints(obj: Any) -> dict[str, Any]:
    """``obj``'s annotations, resolved with its module's names plus the public ones only.

    A name its module imports only for type checking resolves only if it is public.
    """
    module = sys.modules[obj.__module__]
    names = {k: v for k, v in vars(module).items() if not isinstance(v, type)
             or not v.__module__.startswith("ralph_verify")}
    names.update(PUBLIC)
    names.update({k: v for k, v in vars(module).items()
                  if isinstance(v, type) and v.__module__ == obj.__module__})
    return typing.get_type_hints(obj, globalns=names)


@pytest.mark.parametrize("name", HOOKS)
def test_everything_a_hook_receives_or_returns_is_public(name: str) -> None:
    hints = _hints(getattr(hookspec, name))
    assert set(hints) >= set(inspect.signature(getattr(hookspec, name)).parameters)
    private = [p for tp in hints.values() for p in _private_types(tp)]
    assert not private, f"{name} passes classes that 'ralph_verify' does not export: {private}"


def _reachable(roots: list[Any]) -> tuple[dict[str, Any], list[str]]:
    """The classes of ralph_verify reachable from ``roots`` through dataclass fields, and the
    fields whose annotation names a class the face does not export."""
    seen: dict[str, Any] = {}
    unresolved: list[str] = []
    todo = list(roots)
    while todo:
        tp = todo.pop()
        todo += typing.get_args(tp)
        if isinstance(tp, type) and tp.__module__.startswith("ralph_verify") \
                and tp.__qualname__ not in seen:
            seen[tp.__qualname__] = tp
            if dataclasses.is_dataclass(tp):
                try:
                    todo += _hints(tp).values()
                except NameError as exc:
                    unresolved.append(f"{tp.__qualname__}: {exc}")
    return seen, unresolved


def test_the_fields_of_what_hooks_receive_are_public_too() -> None:
    roots = [tp for name in HOOKS for tp in _hints(getattr(hookspec, name)).values()]
    reachable, unresolved = _reachable(roots)
    assert {"Session", "Iteration", "Verification", "AgentResult", "CheckResult"} <= set(reachable)
    private = sorted(f"{tp.__module__}.{tp.__qualname__}" for name, tp in reachable.items()
                     if PUBLIC.get(name) is not tp) + unresolved
    assert not private, f"reachable from a hook but not exported by 'ralph_verify': {private}"


def test_what_a_config_carries_is_public(ralph: Ralph) -> None:
    """``config`` reaches nearly every hook: its registry, parser, command and stash too."""
    seen: list[str] = []

    class Probe:
        @hookimpl
        def ralph_configure(self, config: Config) -> None:
            seen.extend(f"{type(value).__module__}.{type(value).__qualname__}"
                        for value in vars(config).values()
                        if type(value).__module__.startswith("ralph_verify")
                        and PUBLIC.get(type(value).__name__) is not type(value))
            seen.append("configured")

    ralph.run("checks", plugins=[Probe()])
    assert seen == ["configured"], f"not exported by 'ralph_verify': {seen[:-1]}"


def _ralph_imports(path: Path) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` of every ``from ralph_verify... import name`` in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                (node.module == "ralph_verify" or node.module.startswith("ralph_verify.")):
            found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, "") for alias in node.names
                      if alias.name.startswith("ralph_verify.")]
    return found


def test_the_first_party_plugin_imports_only_public_names() -> None:
    assert PLUGIN_SOURCES, "plugins/ralph-verify-diffcover has no Python sources"
    imports = [(path.relative_to(ROOT), *found) for path in PLUGIN_SOURCES
               for found in _ralph_imports(path)]
    assert any(name == "hookimpl" for *_, name in imports)
    private = [f"{path}:{line}: {module} {name}".strip() for path, line, module, name in imports
               if module != "ralph_verify" or name not in ralph_verify.__all__]
    assert not private, ("import these from 'ralph_verify' (export them there if a plugin "
                         f"needs them): {private}")


def test_the_import_check_catches_a_private_import(tmp_path: Path) -> None:
    source = tmp_path / "plugin.py"
    source.write_text("from ralph_verify import hookimpl\n"
                      "from ralph_verify.checks.api import Check\n"
                      "import ralph_verify.proc.process\n")
    assert _ralph_imports(source) == [(1, "ralph_verify", "hookimpl"),
                                      (2, "ralph_verify.checks.api", "Check"),
                                      (3, "ralph_verify.proc.process", "")]


def test_importing_the_face_stays_cheap() -> None:
    """``import ralph_verify`` (which ``ralph-verify --help`` does) loads no other module of
    ours but ``errors`` and the ``markers`` leaf, nor pydantic; ``from ralph_verify import
    Session`` loads its module."""
    code = ("import sys, ralph_verify\n"
            "print(sorted(m for m in sys.modules if m.startswith(('ralph_verify', 'pydantic'))))\n"
            "from ralph_verify import Session\n"
            "print(Session.__module__, 'ralph_verify.loop.session' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    first, second = proc.stdout.splitlines()
    assert first == "['ralph_verify', 'ralph_verify.errors']"
    assert second == "ralph_verify.loop.session True"


#: Run in a fresh interpreter: every process started and every file opened for writing,
#: as the interpreter's audit hooks see them (PEP 578), from the import to the very end
#: (the ``atexit`` function registered first runs last).
IMPORT_ONLY = """
import atexit, os, sys
seen = []
STARTS = {"subprocess.Popen", "os.system", "os.fork", "os.forkpty", "os.posix_spawn",
          "os.exec", "os.spawn", "pty.spawn"}
WRITES = {"os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.symlink", "os.link",
          "os.truncate", "shutil.copyfile", "shutil.rmtree"}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

def audit(event, args):
    if event in STARTS or event in WRITES:
        seen.append(f"{event} {args[0]!r}")
    elif event == "open" and (any(c in (args[1] or "") for c in "wax+")
                              or (args[2] or 0) & WRITE_FLAGS):
        seen.append(f"open {args[0]!r} {args[1]!r}")

def report():
    try:
        os.waitpid(-1, os.WNOHANG)
        seen.append("a child process")
    except ChildProcessError:
        pass
    print(seen, flush=True)

atexit.register(report)
sys.addaudithook(audit)
# As the command's own import sees it: its arguments.
sys.argv = ["ralph-verify", "check", "--until", "tests,lint"]
sys.orig_argv = [sys.executable, "-m", "ralph_verify", *sys.argv[1:]]
import ralph_verify
import ralph_verify.cli  # what the console script imports before it calls main()
"""


def test_importing_the_package_starts_no_process_and_writes_no_file(tmp_path: Path) -> None:
    """Not even as the ``ralph-verify`` command's own import, whose arguments it could read:
    the audit hooks see no start and no write, and a fresh home, cache and temporary folder
    (and the folder it ran in) stay empty."""
    folders = {name: tmp_path / name for name in ("home", "cache", "xdg", "tmp", "cwd")}
    for folder in folders.values():
        folder.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(folders["home"]),
           "XDG_CACHE_HOME": str(folders["xdg"]), "TMPDIR": str(folders["tmp"]),
           "RALPH_VERIFY_CACHE_DIR": str(folders["cache"]),
           "PYTHONDONTWRITEBYTECODE": "1"}  # the interpreter's own .pyc files are not ours
    proc = subprocess.run([sys.executable, "-c", IMPORT_ONLY], cwd=folders["cwd"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout
    assert {name: sorted(folder.rglob("*")) for name, folder in folders.items()} == {
        name: [] for name in folders}
