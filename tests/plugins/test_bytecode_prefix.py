"""pytest runs with ralph-verify's bytecode prefix: no ``.pyc`` is written into the project,
none left there by an agent's own runs is read, and the project's own sources are compiled
into the prefix, where a changed source loses its bytecode before the next run."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_verify.testing import Ralph


@pytest.mark.parametrize("dont_write", [None, "1"], ids=["bytecode-kept", "dont-write-set"])
def test_the_project_gets_no_pycache_and_its_bytecode_goes_to_the_prefix(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory,
        dont_write: str | None) -> None:
    """Also with ``PYTHONDONTWRITEBYTECODE`` set (Docker images often set it): the prefix is
    ours, so bytecode is kept there and a later run does not compile everything again."""
    if dont_write is None:
        monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    else:
        monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", dont_write)
    cache = tmp_path_factory.mktemp("cache")
    ralph.env["RALPH_VERIFY_CACHE_DIR"] = str(cache)
    ralph.makepyfile(calc="def add(a, b):\n    return a + b\n",
                     **{"tests/test_calc": "from calc import add\n\n\n"
                                           "def test_add():\n    assert add(2, 3) == 5\n"})
    ralph.makepyproject('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    result = ralph.run("check", "--until", "tests", "--no-cache")
    assert result.ret == 0, result
    root = ralph.path.resolve()
    mirror = cache / "pycache" / root.relative_to(root.anchor)
    compiled = sorted(p.relative_to(mirror).as_posix().split(".")[0]
                      for p in mirror.rglob("*.pyc"))
    assert compiled == ["calc", "tests/test_calc"], compiled
    assert not list(ralph.path.rglob("__pycache__"))
    # A changed source is compiled again.
    Path(ralph.path, "calc.py").write_text("def add(a, b):\n    return a - b\n")
    result = ralph.run("check", "--until", "tests", "--no-cache")
    assert result.ret == 1, result
