"""A tool's file names made relative to the project: the string shortcut answers as pathlib."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_verify.checks.tool_output import relative_path

ROOTS = ["/", "/root/x", "/root/x/", "rel", ".", "/root/x y", "/r/.cache/p", "/a/../b"]
PATHS = ["/root/x/a.py", "/root/x/", "/root/x", "/root/x/sub/b.py", "/root/xy/a.py",
         "/root/x/./a.py", "/root/x//a.py", "/root/x///a", "//root/x/a", "/root/x/../a.py",
         "/a/b", "rel/a.py", "a.py", "/", "/root/x y/q.py", "/root/x/dir/",
         "/root/x/.hidden/a.py", "/root/x/sub/.a.py", "/root/x/a..py", "/r/.cache/p/a.py",
         "/r/.cache/p/.x", "/r/.cache/p/../q", "/a/../b/c.py", "/b/c.py"]


def by_pathlib(path: str, root: Path) -> str:
    candidate = Path(path)
    if candidate.is_absolute():
        for base in (root, root.resolve()):
            try:
                return candidate.relative_to(base).as_posix()
            except ValueError:
                continue
    return candidate.as_posix()


@pytest.mark.parametrize("root", ROOTS)
def test_relative_path_answers_as_pathlib(root: str) -> None:
    for path in PATHS:
        assert relative_path(path, Path(root)) == by_pathlib(path, Path(root)), path


def test_a_file_under_the_root_is_named_from_it(tmp_path: Path) -> None:
    assert relative_path(f"{tmp_path}/src/app.py", tmp_path) == "src/app.py"
    assert relative_path("/elsewhere/app.py", tmp_path) == "/elsewhere/app.py"
