"""Every file under ``.ralph/`` is read through one validated loader: a corrupted
``state.json``, ``history.jsonl`` or ``verification.json`` is a one-line error naming the file
and how to start afresh, in ``status``, ``report`` and ``run --resume``; never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.testing import Ralph

CHECK = {"name": "tests", "spec": "tests", "status": "failed", "summary": "1 failed, 0 passed",
         "metric": 0.0, "counts": {"passed": 0, "failed": 1}, "failures": 1,
         "pre_existing": 1, "fingerprints": ["ea9d8232bfff"]}


def _state(root: Path) -> dict[str, Any]:
    return {"version": 1, "session": "20261125-172030-8dc8", "pid": 1, "root": str(root),
            "status": "finished", "phase": "finished", "started_at": "2026-11-25T17:20:30+00:00",
            "elapsed_s": 31.7, "iteration": 1, "max_iterations": 2, "agent": "cmd:true",
            "until": ["tests"], "task": "do it", "settings": {}, "passed": False,
            "checks": [CHECK], "verdict": {"verdict": "max-iterations", "reason": "limit",
                                           "source": "max_iterations"}}


def _verification(root: Path) -> dict[str, Any]:
    return {"passed": False, "root": str(root), "started_at": "2026-11-25T17:20:41+00:00",
            "duration_s": 1.0, "feedback": "fix it",
            "checks": [{**CHECK, "failures": [{"message": "assert False",
                                                "location": "test_a.py::test_a"}]}]}


HISTORY = {"iteration": 1, "started_at": "2026-11-25T17:20:41+00:00", "duration_s": 9.8,
           "prompt": ".ralph/iterations/001/prompt.md",
           "agent": {"exit_code": 0, "duration_s": 0.1, "cost_usd": None, "retries": 0},
           "files_changed": ["notes.txt"], "promises": [], "passed": False, "checks": [CHECK]}


def _session(ralph: Ralph) -> None:
    """A finished session's files as ``run`` writes them."""
    ralph.makefile(".ralph/state.json", json.dumps(_state(ralph.path)))
    ralph.makefile(".ralph/history.jsonl", json.dumps(HISTORY) + "\n")
    for number in ("000", "001"):
        ralph.makefile(f".ralph/iterations/{number}/verification.json",
                       json.dumps(_verification(ralph.path)))


def _corrupt_state() -> list[tuple[str, str]]:
    cases = [(f"{key}={json.dumps(bad)}", key) for key, bad in [
        ("checks", "x"), ("checks", 5), ("checks", [1, 2]), ("checks", [{"name": 5}]),
        ("checks", [{"status": []}]), ("checks", [{"failures": "many"}]),
        ("verdict", "x"), ("verdict", 5), ("verdict", [1]), ("verdict", {"verdict": 5}),
        ("verdict", {"reason": []}), ("until", 5), ("until", [1, 2]), ("until", "tests"),
        ("elapsed_s", "x"), ("elapsed_s", [1]), ("iteration", "x"), ("iteration", 1.5),
        ("iteration", True), ("max_iterations", "2"), ("session", 5), ("status", []),
        ("phase", {}), ("root", 5), ("agent", 5), ("task", []), ("settings", "x"),
        ("passed", "yes"), ("started_at", 5), ("plugin_state", []), ("version", "1"),
    ]]
    return cases


STATE_CASES = _corrupt_state()
#: Whole-file corruptions of state.json.
STATE_FILES = ["[]", "5", '"s"', "{", "", "null", "\x00\x01", "[" * 100_000,
               '{"a": ' + "1" * 5000 + "}"]
HISTORY_LINES = ["5", "[1]", '{"iteration": "x"}', '{"checks": 5}', '{"checks": [1]}',
                 '{"agent": 5}', '{"iteration": 1, "checks": [{"status": 7}]}',
                 '{"duration_s": "x", "iteration": 1}', '{"agent": {"cost_usd": "x"}}',
                 '{"files_changed": "a.py"}', '{"passed": "no"}']
VERIFICATIONS = ["5", "[]", "{", '{"checks": 5, "root": "/"}', '{"checks": [5], "root": "/"}',
                 '{"checks": [], "root": 5}', '{"checks": [{"name": "tests"}], "root": "/"}',
                 '{"checks": [{"name": "tests", "spec": "tests", "status": "nonsense"}], '
                 '"root": "/"}', '{"root": "/", "checks": [{"name": "t", "spec": "t", '
                 '"status": "failed", "failures": [{"message": 5}]}]}', "[" * 100_000]


def _assert_clean(ralph: Ralph, *args: str) -> str:
    result = ralph.run(*args)
    text = result.out + result.err
    assert result.ret != 4 and "Traceback" not in text, text
    return text


def test_a_valid_session_reads_cleanly(ralph: Ralph) -> None:
    _session(ralph)
    assert ralph.run("status").ret == 0
    assert ralph.run("report").ret == 0


@pytest.mark.parametrize(("case", "key"), STATE_CASES, ids=[c[0] for c in STATE_CASES])
def test_a_wrong_typed_state_field_names_the_file_and_key(ralph: Ralph, case: str,
                                                         key: str) -> None:
    _session(ralph)
    name, _, value = case.partition("=")
    ralph.makefile(".ralph/state.json", json.dumps({**_state(ralph.path),
                                                    name: json.loads(value)}))
    for command in ("status", "report"):
        result = ralph.run(command)
        assert result.ret == 2, result
        assert ".ralph/state.json is corrupted" in result.err and key in result.err
        assert "to start afresh" in result.err and len(result.err.strip().splitlines()) == 1


@pytest.mark.parametrize("text", STATE_FILES, ids=[repr(t[:12]) for t in STATE_FILES])
def test_a_state_file_that_is_not_an_object_is_an_error(ralph: Ralph, text: str) -> None:
    _session(ralph)
    ralph.makefile(".ralph/state.json", text)
    for command in ("status", "report"):
        text_out = _assert_clean(ralph, command)
        assert "state.json" in text_out


@pytest.mark.parametrize("line", HISTORY_LINES)
def test_a_wrong_typed_history_line_is_named(ralph: Ralph, line: str) -> None:
    _session(ralph)
    ralph.makefile(".ralph/history.jsonl", json.dumps(HISTORY) + "\n" + line + "\n")
    result = ralph.run("report")
    assert result.ret == 2, result
    assert "history.jsonl is corrupted (line 2:" in result.err
    _assert_clean(ralph, "status")


def test_a_history_line_cut_by_a_crash_is_skipped(ralph: Ralph) -> None:
    _session(ralph)
    ralph.makefile(".ralph/history.jsonl", json.dumps(HISTORY) + "\n" + '{"iterat')
    assert ralph.run("report").ret == 0


@pytest.mark.parametrize("text", VERIFICATIONS, ids=[repr(t[:30]) for t in VERIFICATIONS])
def test_a_corrupted_verification_is_named(ralph: Ralph, text: str) -> None:
    _session(ralph)
    ralph.makefile(".ralph/iterations/001/verification.json", text)
    text_out = _assert_clean(ralph, "report")
    assert "verification.json" in text_out or "report:" in text_out


def test_resume_over_a_corrupted_verification_is_a_one_line_error(ralph: Ralph) -> None:
    _session(ralph)
    state = {**_state(ralph.path), "status": "interrupted", "phase": "agent"}
    ralph.makefile(".ralph/state.json", json.dumps(state))
    ralph.makefile(".ralph/iterations/001/verification.json", '{"checks": 5, "root": "/"}')
    result = ralph.run("run", "--resume", "--agent", "cmd:true")
    assert result.ret == 2, result
    assert "verification.json is corrupted (checks is a number)" in result.err


def test_report_to_a_directory_is_a_usage_error(ralph: Ralph, tmp_path: Path) -> None:
    _session(ralph)
    result = ralph.run("report", "-o", str(tmp_path))
    assert result.ret == 2, result
    assert "is a directory" in result.err


def test_a_folder_named_pyproject_toml_stops_init(ralph: Ralph) -> None:
    (ralph.path / "pyproject.toml").unlink()
    (ralph.path / "pyproject.toml").mkdir()
    for args in (("init", "-y"), ("check", "--until", "lint")):
        result = ralph.run(*args)
        assert result.ret == 2, result
        assert "pyproject.toml: cannot be read: a folder, not a file" in result.err
