"""ralph-verify's bytecode prefix holds the project's code only: a cold start compiles the
project, not pytest, its plugins or the standard library (which have compiled copies)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.recorder.bytecode import ProjectPrefix, router
from ralph_verify.testing import Ralph

#: A plugin the project's pytest loads from site-packages-like code outside the project,
#: rewritten by pytest (as pytest rewrites every plugin it loads by entry point or ``-p``).
OUTSIDE_PLUGIN = "def pytest_configure(config):\n    assert config is not None\n"


def _project(ralph: Ralph) -> None:
    ralph.makepyfile(calc="import json\n\n\ndef add(a, b):\n    return json.loads(str(a + b))\n",
                     **{"tests/test_calc": "import decimal\n\nfrom calc import add\n\n\n"
                                           "def test_add():\n    assert add(2, 3) == 5\n"
                                           "    assert decimal.Decimal(1)\n"})
    ralph.makepyproject('[tool.pytest.ini_options]\npythonpath = ["."]\n')


def _compiled(cache: Path) -> list[Path]:
    return sorted((cache / "pycache").rglob("*.pyc"))


def test_a_cold_run_compiles_the_project_and_nothing_else_into_the_prefix(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    cache = tmp_path_factory.mktemp("cache")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "outside_plugin.py").write_text(OUTSIDE_PLUGIN)
    ralph.env["RALPH_VERIFY_CACHE_DIR"] = str(cache)
    ralph.env["PYTHONPATH"] = str(outside)
    _project(ralph)
    ralph.makepyproject('[tool.pytest.ini_options]\npythonpath = ["."]\n'
                        'addopts = ["-p", "outside_plugin"]\n')
    result = ralph.run("check", "--until", "tests", "--no-cache")
    assert result.ret == 0, result
    root = ralph.path.resolve()
    mirror = cache / "pycache" / root.relative_to(root.anchor)
    compiled = _compiled(cache)
    # The project's module and its rewritten test, nothing of pytest, the standard library
    # (json, decimal), site-packages or the plugin outside the project.
    assert sorted(p.relative_to(mirror).as_posix().split(".")[0] for p in compiled) == [
        "calc", "tests/test_calc"], compiled
    for folder in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"], outside):
        assert not (cache / "pycache" / Path(folder).resolve().relative_to("/")).exists()
    # Still none in the project itself; the plugin outside got its bytecode where pytest
    # keeps it without a prefix.
    assert not list(ralph.path.rglob("__pycache__"))
    assert list((outside / "__pycache__").glob("outside_plugin.*pytest*.pyc"))


def test_the_sitecustomize_it_hides_still_runs_and_a_users_prefix_is_kept(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The plugin folder's sitecustomize comes first on PYTHONPATH: the user's own still
    runs, and modules outside the project keep the user's PYTHONPYCACHEPREFIX."""
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    cache, users = tmp_path_factory.mktemp("cache"), tmp_path_factory.mktemp("users-prefix")
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text("import os\nos.environ['USER_SITE_RAN'] = 'yes'\n")
    (site / "helper_outside.py").write_text("VALUE = 5\n")
    ralph.env.update({"RALPH_VERIFY_CACHE_DIR": str(cache), "PYTHONPATH": str(site),
                      "PYTHONPYCACHEPREFIX": str(users)})
    ralph.makepyfile(calc="def add(a, b):\n    return a + b\n",
                     **{"tests/test_calc": "import os\n\nimport helper_outside\nfrom calc "
                                           "import add\n\n\ndef test_add():\n"
                                           "    assert os.environ.get('USER_SITE_RAN') == 'yes'\n"
                                           "    assert add(2, 3) == helper_outside.VALUE\n"})
    ralph.makepyproject('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    result = ralph.run("check", "--until", "tests", "--no-cache")
    assert result.ret == 0, result
    assert list((users / site.resolve().relative_to("/")).glob("helper_outside.*.pyc"))
    assert not list(users.rglob("calc.*.pyc"))
    assert [p.name.split(".")[0] for p in _compiled(cache)] == ["calc", "test_calc"]


def test_the_prefix_covers_the_project_but_not_an_environment_inside_it(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    prefix = ProjectPrefix("/cache", [str(root)], None, [str(root / ".venv"), sys.prefix])
    assert prefix.covers(str(root / "pkg" / "mod.py"))
    assert not prefix.covers(str(root / ".venv" / "lib" / "site.py"))
    assert not prefix.covers(str(tmp_path / "projector" / "mod.py"))  # not a prefix match
    assert prefix.elsewhere(str(tmp_path)) == str(tmp_path / "__pycache__")
    # A project inside an environment's folder is still the project.
    inside = ProjectPrefix("/cache", [str(root)], "/users", [str(tmp_path)])
    assert inside.covers(str(root / "mod.py"))
    assert inside.elsewhere("/usr/lib") == "/users/usr/lib"


@pytest.mark.parametrize("outer", [None, "/users/prefix"])
def test_the_router_sends_each_file_where_covers_and_elsewhere_say(tmp_path: Path,
                                                                   outer: str | None) -> None:
    # The router takes a shortcut with string operations for absolute paths: it must agree
    # with the general rule everywhere, also for a file at the root and relative paths.
    import _frozen_importlib_external as bootstrap

    root = tmp_path / "proj"
    prefix = ProjectPrefix(str(tmp_path / "cache"), [str(root)], outer, [str(root / ".venv")])

    def original(path: str, debug_override: Any = None, *, optimization: Any = None) -> str:
        saved, sys.pycache_prefix = sys.pycache_prefix, prefix.prefix
        try:
            return str(bootstrap.cache_from_source(path, debug_override,
                                                   optimization=optimization))
        finally:
            sys.pycache_prefix = saved

    route = router(prefix, original)
    for path in [str(root / "pkg" / "mod.py"), str(root / ".venv" / "lib" / "site.py"),
                 str(tmp_path / "projector" / "mod.py"), "/usr/lib/python3/json/__init__.py",
                 "/mod.py", "rel/mod.py", "mod.py", Path(root / "x.py")]:
        cached = original(str(path))
        expected = cached if prefix.covers(str(path)) else os.path.join(
            prefix.elsewhere(os.path.dirname(str(path))), os.path.basename(cached))
        assert route(path) == expected, path
        assert route(path, optimization=2).endswith(".opt-2.pyc")


def test_imported_by_its_package_name_it_changes_nothing() -> None:
    # Compared with the state before the import (a test run under ralph-verify itself starts
    # with its prefix already set by the plugin folder's sitecustomize).
    code = ("import sys, importlib._bootstrap_external as b; before = b.cache_from_source; "
            "prefix = sys.pycache_prefix; import ralph_verify.recorder.bytecode; "
            "assert b.cache_from_source is before and sys.pycache_prefix == prefix")
    env = {**os.environ, "RALPH_VERIFY_PYCACHE_PREFIX": "/nowhere",
           "RALPH_VERIFY_PYCACHE_ROOTS": "/"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)
