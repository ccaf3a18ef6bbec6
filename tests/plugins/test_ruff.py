"""``lint`` and ``format``: the real ruff on small projects, and ruff's recorded JSON output."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from collections import Counter
from pathlib import Path

import pytest

from ralph_verify.checks.api import Failure
from ralph_verify.checks.tool_output import count_summary
from ralph_verify.plugins.ruff import (
    parse_format_json,
    parse_format_text,
    read_check_output,
    split_diff,
)
from ralph_verify.proc.process import ToolError, ToolRun
from ralph_verify.testing import Ralph

DATA = Path(__file__).parent.parent / "data" / "ruff"
#: The recordings were made in /tmp/rt (see tests/data/ruff/README.md).
RECORDED_ROOT = Path("/tmp/rt")

DIRTY = """\
import os
import sys


def greet(name):
    unused = 1
    return "hi " + name
"""


def ruff_exe() -> str:
    """The ruff that ralph-verify finds in the dev environment, to compare against."""
    for folder in (Path(sysconfig.get_path("scripts")), Path(sys.executable).parent):
        candidate = folder / "ruff"
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("ruff")
    assert found, "the dev environment has ruff"
    return found


def toml_list(items: list[str]) -> str:
    return json.dumps(items)  # a JSON array of plain strings is a valid TOML array


# -- through the front door, real ruff ----------------------------------------------------


def test_clean_project_passes_lint_and_format(ralph: Ralph) -> None:
    ralph.makepyfile(app="def add(a: int, b: int) -> int:\n    return a + b\n")
    result = ralph.run("check", "--until", "lint,format")
    assert result.ret == 0, result
    # each check's line comes as it is decided: in either order
    result.stdout.fnmatch_lines(["PASSED*lint*0 errors*"])
    result.stdout.fnmatch_lines(["PASSED*format*all files formatted*"])


def test_lint_counts_what_ruff_counts(ralph: Ralph) -> None:
    ralph.makepyfile(app=DIRTY, **{"pkg/mod": "import json\n"})
    result = ralph.run("check", "--until", "lint", "--json")
    assert result.ret == 1, result
    check = result.json()["checks"][0]

    direct = subprocess.run([ruff_exe(), "check", "--output-format", "json", "--no-fix"],
                            cwd=ralph.path, capture_output=True, text=True, check=False)
    violations = json.loads(direct.stdout)
    assert len(violations) >= 4
    assert check["metric"] == len(violations) == len(check["failures"])
    assert check["counts"] == {"errors": len(violations), "files": 2}
    by_code = Counter(v["code"] for v in violations)
    assert check["summary"].startswith(f"{len(violations)} errors ({by_code['F401']} F401")

    unused_os = next(f for f in check["failures"] if "`os`" in f["message"])
    assert unused_os["code"] == "F401"
    assert unused_os["message"] == "F401 `os` imported but unused"
    assert (unused_os["location"], unused_os["path"], unused_os["line"]) == ("app.py:1:8",
                                                                              "app.py", 1)
    assert unused_os["detail"] == "fix (safe): Remove unused import: `os`"
    assert {f["path"] for f in check["failures"]} == {"app.py", "pkg/mod.py"}
    # ruff only reported: nothing was fixed.
    assert (ralph.path / "app.py").read_text().startswith("import os\n")


def test_lint_threshold_on_the_count(ralph: Ralph) -> None:
    ralph.makepyfile(app="import os\nimport sys\n")
    result = ralph.run("check", "--until", "lint<=2,lint<2,ruff>=1", "--json")
    assert result.ret == 1, result
    at_most_two, under_two, alias = result.json()["checks"]
    assert (at_most_two["status"], at_most_two["metric"]) == ("passed", 2)
    assert at_most_two["summary"] == "2 errors (2 F401), within <=2"
    assert at_most_two["failures"] == []
    assert under_two["status"] == "failed"
    assert under_two["summary"] == "2 errors (2 F401), wanted <2"
    assert (alias["name"], alias["status"]) == ("lint", "passed")


@pytest.mark.parametrize(("filename", "table"), [
    ("pyproject.toml", "[tool.ruff]\nline-length = 40\n[tool.ruff.lint]\n"),
    ("ruff.toml", "line-length = 40\n[lint]\n"),
    (".ruff.toml", "line-length = 40\n[lint]\n"),
])
def test_lint_uses_the_projects_ruff_config(ralph: Ralph, filename: str, table: str) -> None:
    ralph.makepyfile(app="import os\n\nGREETING = 'a string long enough to pass forty chars'\n")
    assert ralph.run("check", "--until", "lint").ret == 1
    config = table + 'ignore = ["F401"]\nextend-select = ["E501"]\n'
    if filename == "pyproject.toml":
        ralph.makepyproject(config)
    else:
        ralph.makefile(filename, config)
    result = ralph.run("check", "--until", "lint", "--json")
    assert result.ret == 1, result
    failures = result.json()["checks"][0]["failures"]
    assert [(f["code"], f["location"]) for f in failures] == [("E501", "app.py:3:41")]


def test_lint_args_choose_what_ruff_checks(ralph: Ralph) -> None:
    ralph.makepyfile(**{"src/app": "x = 1\n", "scripts/tool": "import os\n"})
    ralph.makepyproject('[tool.ralph-verify.checks.lint]\nargs = ["src"]\n')
    assert ralph.run("check", "--until", "lint").ret == 0


def test_bad_ruff_config_is_an_error_with_ruffs_message(ralph: Ralph) -> None:
    ralph.makepyfile(app="x = 1\n")
    ralph.makepyproject('[tool.ruff.lint]\nselect = ["F", "XYZ9"]\n')
    result = ralph.run("check", "--until", "lint,format")
    assert result.ret == 3, result
    # ruff reads the whole config for either command, so both checks stop.
    # the two checks' lines come as each is decided, in either order; the feedback after them
    result.stdout.fnmatch_lines(["ERROR*lint*ruff check failed (exit 2): Unknown rule selector "
                                 "`XYZ9`*"])
    result.stdout.fnmatch_lines(["ERROR*format*ruff format failed (exit 2): Unknown rule "
                                 "selector `XYZ9`*"])
    result.stdout.fnmatch_lines([  # under the check's line, the last lines of ruff's output
        "ERROR*lint*",
        "  *ruff failed",
        "    Cause: Unknown rule selector `XYZ9` in `select` from `*pyproject.toml`",
    ])


def test_missing_ruff_names_the_package(ralph: Ralph) -> None:
    ralph.makepyfile(app="x = 1\n")
    ralph.makepyproject('[tool.ralph-verify.checks.lint]\ncommand = ["/nonexistent/ruff"]\n'
                        '[tool.ralph-verify.checks.format]\ncommand = ["/nonexistent/ruff"]\n')
    result = ralph.run("check", "--until", "lint,format", "--json")
    assert result.ret == 3, result
    for check in result.json()["checks"]:
        assert check["status"] == "error"
        assert check["summary"] == (
            "/nonexistent/ruff not found: install it with 'pip install ruff', or fix 'command' "
            f"in [tool.ralph-verify.checks.{check['name']}]")


def test_format_fails_on_unformatted_file_then_passes(ralph: Ralph) -> None:
    ralph.makepyfile(app="x = {  'a':1 }\n", ok="y = 2\n")
    result = ralph.run("check", "--until", "format", "--json")
    assert result.ret == 1, result
    check = result.json()["checks"][0]
    assert check["summary"] == "1 file would be reformatted: app.py"
    assert check["metric"] == 1
    [failure] = check["failures"]
    assert (failure["code"], failure["path"], failure["location"]) == ("unformatted", "app.py",
                                                                        "app.py:1:6")
    assert failure["message"] == "file would be reformatted by ruff format"
    assert "-x = {  'a':1 }" in failure["detail"] and '+x = {"a": 1}' in failure["detail"]
    assert (ralph.path / "app.py").read_text() == "x = {  'a':1 }\n"  # checked, not changed

    subprocess.run([ruff_exe(), "format", "."], cwd=ralph.path, check=True,
                   capture_output=True)
    result = ralph.run("check", "--until", "format")
    assert result.ret == 0, result


def test_format_reports_a_file_that_does_not_parse(ralph: Ralph) -> None:
    ralph.makepyfile(bad="def f(:\n")
    result = ralph.run("check", "--until", "format", "--json")
    assert result.ret == 1, result
    check = result.json()["checks"][0]
    assert check["summary"] == "1 cannot be parsed"
    assert [(f["code"], f["location"]) for f in check["failures"]] == [("invalid-syntax",
                                                                         "bad.py:1:7")]


# -- recorded output replayed through the front door --------------------------------------


def replay_command(script: Path, body: str) -> list[str]:
    script.write_text("import sys\n" + body, encoding="utf-8")
    return [sys.executable, str(script)]


def test_truncated_json_is_a_clear_error(ralph: Ralph, tmp_path: Path) -> None:
    command = replay_command(tmp_path / "replay.py", (
        f"sys.stdout.write(open({str(DATA / 'check-truncated.json')!r}).read())\n"
        "sys.exit(1)\n"))
    ralph.makepyproject(f"[tool.ralph-verify.checks.lint]\ncommand = {toml_list(command)}\n")
    result = ralph.run("check", "--until", "lint")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*lint*ruff check output line 1 is not one of ruff's "
                                 "json-lines violations: truncated, or another format*"])
    assert "Traceback" not in result.out + result.err


def test_format_falls_back_to_text_on_a_ruff_without_json(ralph: Ralph,
                                                          tmp_path: Path) -> None:
    """Replays ruff 0.4.10, recorded: it refuses --output-format for format."""
    command = replay_command(tmp_path / "ruff_0_4.py", f"""
if "--output-format" in sys.argv:
    sys.stderr.write(open({str(DATA / 'format-0.4.10-no-output-format.stderr.txt')!r}).read())
    sys.exit(2)
if "--check" in sys.argv:
    sys.stdout.write(open({str(DATA / 'format-0.4.10.txt')!r}).read())
    sys.stderr.write(open({str(DATA / 'format-0.4.10.stderr.txt')!r}).read())
    sys.exit(2)
sys.stdout.write(open({str(DATA / 'format-diff.txt')!r}).read())
sys.exit(1)
""")
    ralph.makepyproject(f"[tool.ralph-verify.checks.format]\ncommand = {toml_list(command)}\n")
    result = ralph.run("check", "--until", "format", "--json")
    assert result.ret == 1, result
    check = result.json()["checks"][0]
    assert check["summary"] == ("2 files would be reformatted: app.py, pkg/mod.py; "
                                "1 cannot be parsed")
    locations = [f["location"] for f in check["failures"]]
    assert locations == ["app.py", "pkg/mod.py", "pkg/bad.py:1:7"]
    assert check["failures"][1]["detail"] == "@@ -1,2 +1,3 @@\n import json\n-y=2\n+\n+y = 2"


# -- parsers on recorded output ------------------------------------------------------------


def _read_check(tmp_path: Path, name: str, *, as_lines: bool = True) -> list[Failure]:
    """A recorded ``ruff check`` output read as the check reads it (``json-lines``: the
    recorded JSON list, one violation a line)."""
    text = (DATA / name).read_text()
    if as_lines:
        text = "".join(json.dumps(entry) + "\n" for entry in json.loads(text))
    stdout = tmp_path / "stdout"
    stdout.write_text(text)
    run = ToolRun(["ruff", "check"], 1, 0.1, stdout, tmp_path / "stderr")
    return read_check_output(run, RECORDED_ROOT).failures


def test_read_check_output(tmp_path: Path) -> None:
    failures = _read_check(tmp_path, "check.json")
    assert Counter(f.code for f in failures) == {"F401": 3, "I001": 2, "invalid-syntax": 2,
                                                 "B006": 1, "E501": 1}
    b006 = next(f for f in failures if f.code == "B006")
    assert (b006.location, b006.path, b006.line) == ("app.py:5:23", "app.py", 5)
    assert b006.detail == ("fix (unsafe): Replace with `None`; initialize within function")
    syntax = [f for f in failures if f.code == "invalid-syntax"]
    assert [f.location for f in syntax] == ["pkg/bad.py:1:7", "pkg/bad.py:2:1"]
    assert syntax[0].detail == ""
    assert count_summary(failures, "error") == ("9 errors (3 F401, 2 I001, 2 invalid-syntax, "
                                                "1 B006, 1 E501)")


def test_read_check_output_of_ruff_0_4(tmp_path: Path) -> None:
    failures = _read_check(tmp_path, "check-0.4.10-syntax.json")
    assert [(f.code, f.location) for f in failures] == [("E999", "pkg/bad.py:1:7"),
                                                        ("E999", "pkg/bad.py:2:1")]


@pytest.mark.parametrize(("name", "as_lines", "problem"), [
    ("check-truncated.json", False, "ruff check output line 1 is not one of ruff's json-lines"),
    ("check-concise.txt", False, "ruff check output line 1 is not one of ruff's json-lines"),
    ("check-not-a-list.json", False, "ruff check output has a violation without filename"),
    ("check-missing-filename.json", True, "ruff check output has a violation without filename"),
])
def test_unreadable_check_output_is_a_tool_error(tmp_path: Path, name: str, as_lines: bool,
                                                 problem: str) -> None:
    with pytest.raises(ToolError) as excinfo:
        _read_check(tmp_path, name, as_lines=as_lines)
    assert str(excinfo.value).startswith(problem)


def test_parse_format_json() -> None:
    failures, problems = parse_format_json((DATA / "format.json").read_text(), RECORDED_ROOT)
    assert problems == []
    assert [(f.code, f.location) for f in failures] == [
        ("unformatted", "app.py:6:12"), ("invalid-syntax", "pkg/bad.py:1:7"),
        ("unformatted", "pkg/mod.py:2:1")]
    failures, problems = parse_format_json((DATA / "format-io.json").read_text(), RECORDED_ROOT)
    assert failures == []
    assert problems == ["io: /tmp/rt/nothere.py: No such file or directory (os error 2)"]


def test_parse_format_text_of_ruff_0_4() -> None:
    failures, problems = parse_format_text((DATA / "format-0.4.10.txt").read_text(),
                                           (DATA / "format-0.4.10.stderr.txt").read_text())
    assert problems == []
    assert [(f.code, f.location) for f in failures] == [
        ("unformatted", "app.py"), ("unformatted", "pkg/mod.py"),
        ("invalid-syntax", "pkg/bad.py:1:7")]
    _, problems = parse_format_text("", (DATA / "format-0.4.10-no-output-format.stderr.txt")
                                    .read_text())
    assert problems == ["error: unexpected argument '--output-format' found"]


def test_split_diff_gives_a_bounded_excerpt_per_file() -> None:
    diff = (DATA / "format-diff.txt").read_text()
    excerpts = split_diff(diff, RECORDED_ROOT)
    assert list(excerpts) == ["app.py", "pkg/mod.py"]
    assert excerpts["app.py"].splitlines()[0] == "@@ -3,7 +3,11 @@"
    assert excerpts["app.py"].splitlines()[-1] == '+x = {"a": 1}'
    assert excerpts["pkg/mod.py"] == "@@ -1,2 +1,3 @@\n import json\n-y=2\n+\n+y = 2"

    longer = diff.replace("+x = {\"a\": 1}\n", "+x = {\"a\": 1}\n+y = 2\n+z = 3\n")
    excerpt = split_diff(longer, RECORDED_ROOT)["app.py"]
    assert excerpt.splitlines()[-2:] == ['+x = {"a": 1}', "... (2 more diff lines)"]


def test_a_read_only_tree_is_linted_without_ruffs_cache(ralph: Ralph) -> None:
    """ruff stops (exit 2) when it cannot create ``.ruff_cache``: the tree, bound read-only
    in a mount namespace of the test's own, is judged all the same."""
    unshare = shutil.which("unshare")
    assert unshare is not None, "the test needs util-linux's unshare (apt-get install util-linux)"
    ralph.makepyfile(a="import os\n")
    root = str(ralph.path)
    script = ('mount --bind -o ro "$1" "$1" && cd "$1" && "$2" -m ralph_verify check '
              "--until lint --no-cache")
    done = subprocess.run([unshare, "--mount", "sh", "-c", script, "sh", root, sys.executable],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 1, done
    assert "FAILED  lint 1 error (1 F401)" in done.stdout, done
    assert "a.py:1:8: F401" in done.stdout, done
    assert not (ralph.path / ".ruff_cache").exists()
