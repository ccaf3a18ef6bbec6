"""The recorder with thousands of failing tests: every failure counted with its own id and
message, the detail kept bounded (a truncation marker), and the reader's memory flat."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ralph_verify.recorder import plugin as recorder
from ralph_verify.recorder.read import read_record
from ralph_verify.recorder.sources import PLUGIN_NAME, write_sources

FAILING = 2000
PER_FILE = 100
#: A failure whose text is far past what is kept (pytest shows the whole string).
HUGE = "def test_huge():\n    assert 'x' * 200_000 == 'y', 'huge: ' + 'z' * 200_000\n"


def _suite(root: Path) -> None:
    tests = root / "tests"
    tests.mkdir()
    for first in range(0, FAILING, PER_FILE):
        (tests / f"test_part_{first // PER_FILE:03d}.py").write_text("".join(
            f"\n\ndef test_case_{i}():\n    assert {i} == -1, 'case {i} fails'\n"
            for i in range(first, first + PER_FILE)))
    (tests / "test_huge.py").write_text(HUGE)


def _run(root: Path, record: Path) -> None:
    plugins = root.parent / "plugins"
    plugins.mkdir()
    write_sources(plugins)
    env = {**os.environ, "PYTHONPATH": str(plugins), "RALPH_VERIFY_RECORD_DIR": str(record)}
    env.pop("PYTEST_ADDOPTS", None)
    # --tb=line: pytest's own cost per failure, not ours, is what a long traceback makes slow.
    subprocess.run([sys.executable, "-m", "pytest", "-p", PLUGIN_NAME, "-p", "no:cacheprovider",
                    "-q", "--tb=line", "tests"], cwd=root, env=env, timeout=600,
                   stdout=subprocess.DEVNULL, check=False)


def test_thousands_of_failures_are_all_counted_with_their_ids_and_messages(
        tmp_path: Path) -> None:
    root, record = tmp_path / "proj", tmp_path / "record"
    root.mkdir()
    record.mkdir()
    _suite(root)
    _run(root, record)
    report = read_record(record, max_problems=FAILING + 10)
    assert report is not None
    assert report.failed == FAILING + 1 and report.passed == 0
    messages = {case.id: case.message for case in report.problems}
    for i in range(FAILING):
        test_id = f"tests/test_part_{i // PER_FILE:03d}.py::test_case_{i}"
        assert f"case {i} fails" in messages[test_id], messages.get(test_id)
    # The huge failure: its message cut, its text kept with a marker in the middle.
    lines = [json.loads(line) for path in record.glob("record-*.jsonl")
             for line in path.read_text().splitlines()]
    huge = next(r for r in lines if r.get("id") == "tests/test_huge.py::test_huge")
    assert len(huge["msg"]) <= 1000
    assert "[...]" in huge["text"] and len(huge["text"]) <= recorder.TEXT_CHARS + 10
    texts = [r for r in lines if "text" in r]
    assert len(texts) <= recorder.MAX_TEXTS * 6  # the first ones and one per root cause
    # Read with a smaller bound: all counted, only that many kept.
    small = read_record(record, max_problems=50)
    assert small is not None
    assert small.failed == FAILING + 1 and len(small.problems) == 50
    assert [c.id for c in small.problems] == [c.id for c in report.problems[:50]]


def test_is_project_is_answered_once_per_file_and_bounded() -> None:
    recorder._project_files.clear()
    old_root = recorder._root
    recorder._root = "/proj"
    try:
        assert recorder.is_project("/proj/pkg/mod.py")
        assert not recorder.is_project("/proj/.venv/lib/site.py")
        assert not recorder.is_project("/elsewhere/mod.py")
        assert recorder._project_files == {"/proj/pkg/mod.py": True,
                                           "/proj/.venv/lib/site.py": False,
                                           "/elsewhere/mod.py": False}
        for i in range(recorder.MAX_FILES_KNOWN + 10):
            recorder.is_project(f"/proj/m{i}.py")
        assert len(recorder._project_files) == recorder.MAX_FILES_KNOWN
    finally:
        recorder._root = old_root
        recorder._project_files.clear()


def test_relative_is_answered_once_per_file_and_bounded() -> None:
    recorder._relative.clear()
    old_root = recorder._root
    recorder._root = "/proj"
    try:
        assert recorder.relative("/proj/pkg/mod.py") == "pkg/mod.py"
        assert recorder.relative("/elsewhere/mod.py") == "/elsewhere/mod.py"
        assert recorder._relative == {"/proj/pkg/mod.py": "pkg/mod.py",
                                      "/elsewhere/mod.py": "/elsewhere/mod.py"}
        assert recorder.relative("/proj/pkg/mod.py") == "pkg/mod.py"  # from the memo
        for i in range(recorder.MAX_FILES_KNOWN + 10):
            assert recorder.relative(f"/proj/m{i}.py") == f"m{i}.py"
        assert len(recorder._relative) == recorder.MAX_FILES_KNOWN
        assert recorder.relative("/proj/late.py") == "late.py"  # past the bound: still right
    finally:
        recorder._root = old_root
        recorder._relative.clear()


TEARDOWN_SUITE = '''
import pytest


@pytest.fixture
def noisy(request):
    yield
    print("teardown of " + request.node.name)


def test_ok(noisy):
    pass


@pytest.mark.parametrize("n", range(3))
def test_fails(noisy, n):
    assert n == -1, f"case {n}"
'''

def test_the_summary_with_teardown_output_is_pytests_own(tmp_path: Path) -> None:
    # The recorder leaves pytest's terminal alone: the output is pytest's own, to the byte.
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_teardown.py").write_text(TEARDOWN_SUITE)
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    write_sources(plugins)
    outputs: dict[str, list[str]] = {}
    for name, extra, env_extra in (
            ("plain", [], {}),
            ("recorded", ["-p", PLUGIN_NAME], {"PYTHONPATH": str(plugins),
                                               "RALPH_VERIFY_RECORD_DIR": str(tmp_path)})):
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
        proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *extra,
                               "tests"], cwd=root, env={**env, **env_extra}, timeout=300,
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 1, proc.stdout
        outputs[name] = [line for line in proc.stdout.splitlines()
                         if " in " not in line or "failed" not in line]  # not the timing
    for n in range(3):
        assert f"teardown of test_fails[{n}]" in "\n".join(outputs["recorded"])
    assert "Captured stdout teardown" in "\n".join(outputs["recorded"])
    assert outputs["recorded"] == outputs["plain"]
