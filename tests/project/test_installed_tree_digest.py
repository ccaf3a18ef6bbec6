"""The digest of an editable install outside the project (part of every check's cache key):
the same value as reading every file, without reading again a settled, untouched one."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ralph_verify.checks import cache as vc
from ralph_verify.project.caches import user_cache_dir
from ralph_verify.project.snapshot import digest as real_digest


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RALPH_VERIFY_CACHE_DIR", str(tmp_path / "cache"))
    tree = tmp_path / "src"
    (tree / "pkg" / "__pycache__").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text("")
    (tree / "pkg" / "calc.py").write_text("def f(a, b):\n    return a - b\n")
    (tree / "pkg" / "__pycache__" / "calc.cpython-311.pyc").write_bytes(b"\0")
    (tree / "README").write_text("docs\n")
    (tree / "dangling").symlink_to(tree / "nowhere")
    return tree


def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    read: list[str] = []
    def counting(path: Path | str) -> str:
        read.append(os.path.basename(path))
        return real_digest(path)

    monkeypatch.setattr(vc, "digest", counting)
    return read


def test_the_same_digest_as_reading_every_file(install: Path) -> None:
    assert vc.installed_tree_digest(install) == vc.tree_digest(install)
    assert vc.installed_tree_digest(install) == vc.tree_digest(install)  # from the manifest


def test_settled_untouched_files_are_not_read_again(install: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vc, "SETTLED_NS", 0)  # files written now count as settled
    read = reads(monkeypatch)
    first = vc.installed_tree_digest(install)
    assert sorted(read) == ["README", "__init__.py", "calc.py"]
    read.clear()
    time.sleep(0.01)
    assert vc.installed_tree_digest(install) == first
    assert read == []


def test_a_file_written_just_before_is_read_again(install: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Within the settling time of the last digest nothing is vouched for."""
    read = reads(monkeypatch)
    vc.installed_tree_digest(install)
    read.clear()
    vc.installed_tree_digest(install)
    assert sorted(read) == ["README", "__init__.py", "calc.py"]


def test_a_same_size_rewrite_with_its_mtime_restored_changes_the_digest(
        install: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vc, "SETTLED_NS", 0)
    calc = install / "pkg" / "calc.py"
    before = calc.stat()
    first = vc.installed_tree_digest(install)
    time.sleep(0.01)
    calc.write_text("def f(a, b):\n    return a + b\n")
    os.utime(calc, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (calc.stat().st_size, calc.stat().st_mtime_ns) == (before.st_size,
                                                              before.st_mtime_ns)
    second = vc.installed_tree_digest(install)
    assert second != first
    assert second == vc.tree_digest(install)


def test_added_and_removed_files_change_the_digest(install: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vc, "SETTLED_NS", 0)
    first = vc.installed_tree_digest(install)
    (install / "pkg" / "extra.py").write_text("x = 1\n")
    added = vc.installed_tree_digest(install)
    assert added not in (first,) and added == vc.tree_digest(install)
    (install / "pkg" / "extra.py").unlink()
    assert vc.installed_tree_digest(install) == first


def test_an_unreadable_manifest_only_costs_reading(install: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vc, "SETTLED_NS", 0)
    first = vc.installed_tree_digest(install)
    for manifest in (user_cache_dir() / "installed-trees").iterdir():
        manifest.write_text("{not json")
    read = reads(monkeypatch)
    assert vc.installed_tree_digest(install) == first
    assert sorted(read) == ["README", "__init__.py", "calc.py"]


def test_the_cache_key_describes_an_editable_install_by_it(install: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``distributions`` (the key's installed packages) uses it for a path install."""
    site = tmp_path / "venv" / "site-packages"
    site.mkdir(parents=True)
    (site / "pkg.pth").write_text(f"{install}\n")
    project = tmp_path / "project"
    project.mkdir()
    described = vc.distributions([str(site)], project)
    assert [str(install), vc.tree_digest(install)] in described
    (install / "pkg" / "calc.py").write_text("changed = True\n")
    assert [str(install), vc.tree_digest(install)] in vc.distributions([str(site)], project)
