"""The judging tree: today's files with some served from a base, built in real git repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ralph_verify.project.judging_tree import changed_since, judging_tree


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                          capture_output=True, text=True, check=True).stdout


def _files(root: Path) -> dict[str, bytes]:
    """Every file under *root* (links followed), but git's own."""
    found = {}
    for folder, dirs, names in os.walk(root, followlinks=True):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = Path(folder) / name
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose first commit is the base; returns it and that commit."""
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "pkg.py").write_text("def f():\n    return 1\n")
    (root / "tests" / "test_f.py").write_text("def test_f():\n    assert f() == 1\n")
    (root / "tests" / "data.txt").write_text("base data\n")
    (root / ".gitignore").write_text(".venv/\nbuild/\n*.so\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    return root, _git(root, "rev-parse", "HEAD").strip()


def _is_test(rel: str) -> bool:
    return rel.startswith("tests/")


def test_base_content_served_for_reverted_paths_and_added_paths_absent(
        project: tuple[Path, str]) -> None:
    root, base = project
    (root / "pkg.py").write_text("def f():\n    return 2\n")
    (root / "tests" / "test_f.py").write_text("def test_f():\n    assert True\n")
    (root / "tests" / "data.txt").unlink()
    (root / "tests" / "conftest.py").write_text("stand_in = 1\n")  # untracked, not ignored
    _git(root, "add", "tests/conftest.py")
    (root / "tests" / "helper.py").write_text("x = 1\n")  # untracked only
    (root / "new.py").write_text("y = 2\n")
    before = _files(root)
    assert changed_since(root, base) == {"pkg.py", "tests/test_f.py", "tests/data.txt",
                                          "tests/conftest.py", "tests/helper.py", "new.py"}
    with judging_tree(root, base, keep_now=lambda rel: not _is_test(rel)) as tree:
        assert tree.name == root.name and tree != root
        seen = _files(tree)
        assert seen["pkg.py"] == b"def f():\n    return 2\n"  # kept as now
        assert seen["new.py"] == b"y = 2\n"
        assert seen["tests/test_f.py"] == b"def test_f():\n    assert f() == 1\n"  # reverted
        assert seen["tests/data.txt"] == b"base data\n"  # deleted now, served from base
        assert "tests/conftest.py" not in seen and "tests/helper.py" not in seen  # absent
        assert seen[".gitignore"] == before[".gitignore"]
    assert _files(root) == before
    assert not tree.exists()


def test_the_other_way_round_keeps_tests_and_reverts_the_product(
        project: tuple[Path, str]) -> None:
    root, base = project
    (root / "pkg.py").write_text("def f():\n    return 2\n")
    (root / "tests" / "test_new.py").write_text("def test_new():\n    assert f() == 2\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the agent's own commit")
    with judging_tree(root, base, keep_now=_is_test) as tree:
        assert (tree / "pkg.py").read_text() == "def f():\n    return 1\n"
        assert (tree / "tests" / "test_new.py").read_text().endswith("== 2\n")


def test_files_from_the_base_are_new_files_never_written_through_a_link(
        project: tuple[Path, str]) -> None:
    root, base = project
    (root / "tests" / "test_f.py").write_text("changed\n")
    with judging_tree(root, base, keep_now=lambda rel: not _is_test(rel)) as tree:
        served, linked = tree / "tests" / "test_f.py", tree / "pkg.py"
        assert served.stat().st_ino != (root / "tests" / "test_f.py").stat().st_ino
        assert served.stat().st_nlink == 1
        assert linked.stat().st_ino == (root / "pkg.py").stat().st_ino  # unchanged: a link
        served.write_text("scribbled\n")
    assert (root / "tests" / "test_f.py").read_text() == "changed\n"


def test_ignored_folders_are_links_and_caches_are_left_out(project: tuple[Path, str]) -> None:
    root, base = project
    (root / ".venv" / "lib").mkdir(parents=True)
    (root / ".venv" / "lib" / "site.pth").write_text("/somewhere\n")
    (root / "ext.so").write_bytes(b"\x7fELF")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "pkg.cpython-311.pyc").write_bytes(b"pyc")
    (root / ".pytest_cache").mkdir()
    (root / ".coverage").write_text("data")
    (root / ".coveragerc").write_text("[run]\n")
    with judging_tree(root, base, keep_now=lambda rel: True) as tree:
        assert (tree / ".venv").is_symlink()
        assert (tree / ".venv").resolve() == (root / ".venv").resolve()
        assert (tree / "ext.so").read_bytes() == b"\x7fELF"
        assert (tree / ".coveragerc").is_file()  # a setting, not a data file
        for cache in ("__pycache__", ".pytest_cache", ".coverage", ".git"):
            assert not (tree / cache).exists(), cache
    assert (root / ".venv" / "lib" / "site.pth").is_file()  # removing the tree kept them


def test_symlinks_and_modes_are_kept(project: tuple[Path, str]) -> None:
    root, base = project
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "tests" / "link.txt").symlink_to("data.txt")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "more")
    base = _git(root, "rev-parse", "HEAD").strip()
    (root / "run.sh").write_text("#!/bin/sh\necho changed\n")
    (root / "tests" / "link.txt").unlink()
    with judging_tree(root, base, keep_now=lambda rel: False) as tree:
        assert os.access(tree / "run.sh", os.X_OK)
        assert (tree / "run.sh").read_text() == "#!/bin/sh\n"
        assert os.readlink(tree / "tests" / "link.txt") == "data.txt"


def test_removed_when_the_body_raises(project: tuple[Path, str]) -> None:
    root, base = project
    with pytest.raises(RuntimeError), judging_tree(root, base, keep_now=_is_test) as tree:
        assert tree.is_dir()
        raise RuntimeError("boom")
    assert not tree.exists() and not tree.parent.exists()
    assert (root / "pkg.py").is_file()


def test_a_bad_base_is_a_clear_error(project: tuple[Path, str]) -> None:
    from ralph_verify.project.git import GitError

    root, _ = project
    with pytest.raises(GitError, match="no-such-commit") as info, \
            judging_tree(root, "no-such-commit", keep_now=_is_test):
        pass
    assert info.value.returncode != 0 and "no-such-commit" in info.value.said


def test_a_virtual_environment_git_does_not_ignore_is_one_link(
        project: tuple[Path, str]) -> None:
    root, base = project
    (root / ".gitignore").unlink()
    site = root / "venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    (site / "__editable__.pkg.pth").write_text(f"{root}\n")
    assert changed_since(root, base) == {".gitignore"}
    with judging_tree(root, base, keep_now=lambda rel: False) as tree:
        assert (tree / "venv").is_symlink()
        assert (tree / ".gitignore").is_file()  # deleted now, served from the base


def test_two_trees_at_one_place(project: tuple[Path, str], tmp_path: Path) -> None:
    root, base = project
    (root / "tests" / "test_f.py").write_text("now\n")
    at = tmp_path / "judging" / "proj"
    with judging_tree(root, base, keep_now=lambda rel: True, at=at) as tree:
        assert tree == at and (tree / "tests" / "test_f.py").read_text() == "now\n"
    assert not at.exists()
    with judging_tree(root, base, keep_now=lambda rel: False, at=at) as tree:
        assert (tree / "tests" / "test_f.py").read_text().startswith("def test_f")
