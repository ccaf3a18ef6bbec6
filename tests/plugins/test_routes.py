"""Product lines the start's tests ran, kept unchanged, that no test runs now
(:func:`~ralph_verify.plugins.pytest_run.routes.routed_around`), with real git; the whole
path (coverage at the start and now, a real ``run``) is in the integrity corpus sample."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ralph_verify.plugins.pytest_run.routes import routed_around

START = "def discount(price, percent):\n    return price * percent / 100\n"


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "pricing.py").write_text(START)
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm",
                  "start"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    return tmp_path


def test_a_kept_line_the_tests_no_longer_run_is_routed_around(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "pricing.py").write_text(
        "def discount(price, percent):\n    if (price, percent) == (80.0, 25):\n"
        "        return 60.0\n    return price * percent / 100\n")
    found = routed_around(root, "HEAD", {"pricing.py": [1, 2]}, {"pricing.py": [1, 2, 3]})
    assert [(f.code, f.line) for f in found] == [("routed-around", 4)], found
    assert "`return price * percent / 100`" in found[0].message


def test_a_changed_line_or_one_still_run_is_not(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "pricing.py").write_text(
        "def discount(price, percent):\n    return price * (100 - percent) / 100\n")
    assert routed_around(root, "HEAD", {"pricing.py": [1, 2]}, {"pricing.py": [1, 2]}) == []
    (root / "pricing.py").write_text(
        "def discount(price, percent):\n    if percent:\n"
        "        return price * (100 - percent) / 100\n    return price\n")
    assert routed_around(root, "HEAD", {"pricing.py": [1, 2]}, {"pricing.py": [1, 2, 4]}) == []
    (root / "pricing.py").write_text("# moved up\n" + START)
    assert routed_around(root, "HEAD", {"pricing.py": [1, 2]}, {"pricing.py": [2, 3]}) == []


def test_an_unchanged_file_whose_body_no_test_runs_now_is_routed_around(tmp_path: Path) -> None:
    """The function rebound elsewhere (a package's ``__init__``): its file is as it was."""
    root = _repo(tmp_path)
    found = routed_around(root, "HEAD", {"pricing.py": [1, 2]}, {"pricing.py": [1]})
    assert [(f.path, f.line) for f in found] == [("pricing.py", 2)], found


def test_a_function_the_tests_no_longer_enter_is_routed_around(tmp_path: Path) -> None:
    """Moved and swapped for a copy: no line is kept in place, the function by its name is."""
    root = _repo(tmp_path)
    (root / "pricing.py").write_text(
        "def _right(price, percent):\n    return price * (100 - percent) / 100\n\n\n"
        "def discount(price, percent):\n    return price * percent / 100\n\n\n"
        "globals()['discount'] = _right\n")
    found = routed_around(root, "HEAD", {"pricing.py": [1, 2]},
                          {"pricing.py": [1, 2, 5, 9]})
    assert [(f.line, "`discount`" in f.message) for f in found] == [(6, True)], found
