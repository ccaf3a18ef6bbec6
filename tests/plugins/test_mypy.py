"""``types``: the real mypy on small projects (few runs: each takes a second), and mypy's
recorded output (JSON from mypy 2.4, the line format from mypy 1.10)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ralph_verify.plugins.mypy import (
    json_unsupported,
    parse_json_lines,
    to_failures,
)
from ralph_verify.plugins.mypy.targets import config_names_targets, default_targets
from ralph_verify.proc.process import ToolError, ToolRun
from ralph_verify.testing import Ralph

DATA = Path(__file__).parent.parent / "data" / "mypy"
ROOT = Path("/tmp/rm")  # where the recordings were made; mypy prints relative paths

TYPE_ERRORS = """\
def add(a: int, b: int) -> int:
    return a + b


add("x", 2)


class A:
    def f(self, x: int) -> None: ...


class B(A):
    def f(self, x: str) -> None: ...
"""


def toml_list(items: list[str]) -> str:
    return json.dumps(items)  # a JSON array of plain strings is a valid TOML array


def make_venv(path: Path) -> Path:
    """A virtual environment without pip (fast); its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / ("Scripts" if sys.platform == "win32" else "bin") / "python"


def purelib(python: Path | str) -> Path:
    code = "import sysconfig; print(sysconfig.get_path('purelib'))"
    return Path(subprocess.run([str(python), "-c", code], check=True, capture_output=True,
                               text=True).stdout.strip())


# -- through the front door, real mypy -----------------------------------------------------


def test_type_errors_reported_with_location_code_and_notes(ralph: Ralph) -> None:
    ralph.makepyfile(app=TYPE_ERRORS)
    # Build output and a virtualenv that mypy would walk into: ralph-verify leaves them out.
    ralph.makepyfile(**{"build/lib/app": TYPE_ERRORS, "venv/lib/bad": "x: int = 'no'\n"})
    ralph.makefile("venv/pyvenv.cfg", "home = /usr/bin\n")
    result = ralph.run("check", "--until", "types,mypy<=2", "--json")
    assert result.ret == 1, result
    types, at_most_two = result.json()["checks"]
    assert (types["status"], types["metric"]) == ("failed", 2)
    assert types["summary"] == ("2 errors (1 arg-type, 1 override); "
                                "checked the whole project except venv/, build/")
    arg_type, override = types["failures"]
    assert arg_type == {
        "fingerprint": arg_type["fingerprint"],
        "location": "app.py:5:5",
        "message": 'Argument 1 to "add" has incompatible type "str"; expected "int"  [arg-type]',
        "detail": "",
        "code": "arg-type",
        "path": "app.py",
        "line": 5,
        "pre_existing": False,
    }
    assert (override["location"], override["code"]) == ("app.py:13:17", "override")
    assert override["detail"].splitlines()[0] == (
        "note: This violates the Liskov substitution principle")
    assert (at_most_two["name"], at_most_two["status"]) == ("types", "passed")
    assert at_most_two["summary"].startswith("2 errors (1 arg-type, 1 override), within <=2;")
    result.stderr.fnmatch_lines(["FAILED*types*2 errors (1 arg-type, 1 override)*"])


def test_notes_alone_are_not_errors(ralph: Ralph) -> None:
    """mypy --output json exits 1 on notes alone; its text mode says "Success" and exits 0."""
    ralph.makepyfile(app="def untyped():\n    count: int = 1\n    return count\n")
    result = ralph.run("check", "--until", "types")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["PASSED*types*0 errors, 1 note*"])
    assert "annotation-unchecked" not in result.out + result.err
    assert "Feedback" not in result.out


def test_project_mypy_config_is_respected(ralph: Ralph) -> None:
    ralph.makepyfile(**{"src/pkg/__init__": "def double(x):\n    return x * 2\n",
                        "scripts/tool": 'x: int = "not checked: outside files"\n'})
    ralph.makepyproject('[tool.mypy]\nfiles = ["src"]\n')
    clean = ralph.run("check", "--until", "types")
    assert clean.ret == 0, clean
    clean.stdout.fnmatch_lines(["PASSED*types*0 errors*"])

    ralph.makepyproject('[tool.mypy]\nfiles = ["src"]\nstrict = true\n')
    strict = ralph.run("check", "--until", "types", "--json")
    assert strict.ret == 1, strict
    [failure] = strict.json()["checks"][0]["failures"]
    assert (failure["code"], failure["location"]) == ("no-untyped-def",
                                                      "src/pkg/__init__.py:1:1")


def test_src_layout_checks_the_package_not_the_tests(ralph: Ralph) -> None:
    """No 'files' in the mypy config: the package is checked, as the project's CI does."""
    ralph.makepyproject("[tool.mypy]\nwarn_unused_ignores = true\n")
    ralph.makepyfile(**{"src/sample/__init__": "def double(x: int) -> int:\n    return x * 2\n",
                        "tests/test_double": "from sample import double\n\ndouble('no')\n",
                        "docs/conf": "year: int = '2024'\n"})
    result = ralph.run("check", "--until", "types")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["PASSED*types*0 errors; checked src/sample*"])

    ralph.makepyfile(**{"src/sample/more": "wrong: int = 'x'\n"})
    failing = ralph.run("check", "--until", "types", "--json")
    assert failing.ret == 1, failing
    [failure] = failing.json()["checks"][0]["failures"]
    assert failure["location"] == "src/sample/more.py:1:14"


def test_flat_layout_checks_the_top_level_package(ralph: Ralph) -> None:
    ralph.makepyproject("")  # project 'sample', no package of that name
    ralph.makepyfile(**{"calc/__init__": "def add(a: int, b: int) -> int:\n    return a + b\n",
                        "tests/__init__": "", "tests/test_calc": "from calc import add\n\n"
                                                                "add('1', 2)\n",
                        "examples/__init__": "", "examples/demo": "n: int = 'x'\n",
                        "setup": "version: int = '1'\n"})
    result = ralph.run("check", "--until", "types")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["PASSED*types*0 errors; checked calc*"])
    # The project's own choice still wins.
    ralph.makepyproject('[tool.ralph-verify.checks.types]\ntargets = ["calc", "tests"]\n')
    both = ralph.run("check", "--until", "types")
    assert both.ret == 1, both
    both.stdout.fnmatch_lines(["FAILED*types*1 error (1 arg-type); checked calc, tests*"])


def test_project_venv_without_mypy_gets_ours_aimed_at_it(ralph: Ralph) -> None:
    """The project's packages resolve: an error inside their types proves mypy saw them."""
    python = make_venv(ralph.path / ".venv")
    site = purelib(python)
    (site / "typedpkg").mkdir()
    (site / "typedpkg" / "__init__.py").write_text("def answer() -> int:\n    return 42\n")
    (site / "typedpkg" / "py.typed").write_text("")
    ralph.makepyfile(app="from typedpkg import answer\n\ntext: str = answer()\n")
    result = ralph.run("check", "--until", "types", "--python", str(python), "--json")
    assert result.ret == 1, result
    [failure] = result.json()["checks"][0]["failures"]
    assert (failure["code"], failure["location"]) == ("assignment", "app.py:3:13")


def test_project_venv_with_mypy_runs_its_own(ralph: Ralph) -> None:
    """A mypy plugin only the project's venv can import: only its own mypy can load it."""
    python = make_venv(ralph.path / ".venv")
    site = purelib(python)
    (site / "dev.pth").write_text(purelib(sys.executable).as_posix() + "\n")  # gives it mypy
    (site / "probe_plugin.py").write_text(
        "from mypy.plugin import Plugin\n\n\ndef plugin(version: str) -> type[Plugin]:\n"
        "    return Plugin\n")
    ralph.makepyfile(app="x: int = 1\n")
    ralph.makepyproject('[tool.mypy]\nplugins = ["probe_plugin"]\n')
    result = ralph.run("check", "--until", "types", "--python", str(python))
    assert result.ret == 0, result


def test_syntax_error_is_a_failure_not_an_error(ralph: Ralph) -> None:
    ralph.makepyfile(bad="def f(:\n    pass\n")
    result = ralph.run("check", "--until", "types", "--json")
    assert result.ret == 1, result
    check = result.json()["checks"][0]
    assert check["status"] == "failed"
    # mypy's own text output says column 8 here too (its syntax errors count from 1 in JSON).
    first = check["failures"][0]
    assert (first["code"], first["location"]) == ("syntax", "bad.py:1:8")


def test_mypy_that_cannot_start_is_an_error(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.mypy]\nfiles = ["nothere.py"]\n')
    result = ralph.run("check", "--until", "types")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines([
        "ERROR*types*mypy failed (exit 2): nothere.py: error: Cannot read file*"])


def test_missing_mypy_names_the_package(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify.checks.types]\ncommand = ["/nonexistent/mypy"]\n')
    result = ralph.run("check", "--until", "types")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*types*/nonexistent/mypy not found: *"])
    assert ("/nonexistent/mypy not found: install it with 'pip install mypy', or fix 'command' "
            "in [tool.ralph-verify.checks.types]  (") in result.out


# -- recorded output replayed through the front door --------------------------------------


def replay(ralph: Ralph, tmp_path: Path, body: str) -> None:
    script = tmp_path / "replay_mypy.py"
    script.write_text("import sys\n" + body, encoding="utf-8")
    command = toml_list([sys.executable, str(script)])
    ralph.makepyproject(f"[tool.ralph-verify.checks.types]\ncommand = {command}\n")


def test_truncated_json_is_a_clear_error(ralph: Ralph, tmp_path: Path) -> None:
    replay(ralph, tmp_path, f"print(open({str(DATA / 'truncated.jsonl')!r}).read())\n"
                            "sys.exit(1)\n")
    result = ralph.run("check", "--until", "types")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*types*mypy's JSON output is unreadable at line 4 "
                                 "(Unterminated string*): truncated, or not mypy's JSON format*"])
    assert "Traceback" not in result.out + result.err


def test_a_mypy_that_prints_nothing_and_exits_0_is_an_error(ralph: Ralph,
                                                           tmp_path: Path) -> None:
    """mypy's JSON output of a pass is empty: its report (written on every run) is the
    proof that it ran; a shim that does nothing must not pass."""
    replay(ralph, tmp_path, "sys.exit(0)\n")
    result = ralph.run("check", "--until", "types")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines([f"ERROR*types*{sys.executable} {tmp_path}/replay_mypy.py "
                                 "exited 0 but wrote no mypy report (--junit-xml), which mypy "
                                 "writes on every run: it did not run mypy*"])
    ralph.makepyfile(app="x: int = 1\n")
    ralph.makepyproject("")
    real = ralph.run("check", "--until", "types")
    assert real.ret == 0, real


def test_falls_back_to_the_line_format_of_an_old_mypy(ralph: Ralph, tmp_path: Path) -> None:
    """Replays mypy 1.10.1, recorded: it has no --output json."""
    replay(ralph, tmp_path, f"""
if "--output" in sys.argv:
    sys.stderr.write(open({str(DATA / 'no-json-1.10.1.stderr.txt')!r}).read())
    sys.exit(2)
assert "--show-column-numbers" in sys.argv, sys.argv
sys.stdout.write(open({str(DATA / 'plain-1.10.1.txt')!r}).read())
sys.exit(1)
""")
    result = ralph.run("check", "--until", "types", "--json")
    assert result.ret == 1, result
    check = result.json()["checks"][0]
    assert check["summary"] == ("5 errors (1 arg-type, 1 assignment, 1 attr-defined, "
                                "1 import-not-found, 1 override), 1 note; "  # reveal_type
                                "checked the whole project")
    assert check["failures"][0]["location"] == "app.py:1:1"
    assert check["failures"][0]["detail"] == (
        "note: See https://mypy.readthedocs.io/en/stable/running_mypy.html#missing-imports")


# -- parsers on recorded output ------------------------------------------------------------


def test_parse_json_lines() -> None:
    messages, other = parse_json_lines((DATA / "errors.jsonl").read_text())
    assert other == []
    failures, orphans = to_failures(messages, ROOT)
    assert [(f.code, f.location) for f in failures] == [
        ("import-not-found", "app.py:1:1"), ("arg-type", "app.py:8:5"),
        ("override", "app.py:17:17"), ("assignment", "pkg/__init__.py:2:10"),
        ("attr-defined", "pkg/__init__.py:3:5")]
    assert failures[2].detail == (
        "note: This violates the Liskov substitution principle\n"
        "note: See https://mypy.readthedocs.io/en/stable/common_issues.html"
        "#incompatible-overrides")
    assert failures[1].detail == ""  # reveal_type on the next line is not this error's note
    assert orphans == ['app.py:9: note: Revealed type is "def (a: int, b: int) -> int"']


def test_json_and_line_formats_agree() -> None:
    from_json = to_failures(parse_json_lines((DATA / "errors.jsonl").read_text())[0], ROOT)[0]
    plain, other = parse_json_lines((DATA / "plain-1.10.1.txt").read_text())
    assert other == []
    from_text = to_failures(plain, ROOT)[0]
    assert [(f.message, f.location, f.code, f.detail) for f in from_text] == [
        (f.message, f.location, f.code, f.detail) for f in from_json]


def test_blocking_errors_and_text_notes() -> None:
    syntax = to_failures(parse_json_lines((DATA / "syntax.jsonl").read_text())[0], ROOT)[0]
    assert [(f.code, f.location) for f in syntax] == [("syntax", "s/bad.py:1:8"),
                                                      ("syntax", "s/bad.py:2:2")]
    messages, _ = parse_json_lines((DATA / "duplicate-module.jsonl").read_text())
    [duplicate] = to_failures(messages, ROOT)[0]
    assert (duplicate.location, duplicate.line, duplicate.code) == ("b/conftest.py", None, None)
    assert "note: Common resolutions include:" in duplicate.detail
    # mypy prints some notes as text even in JSON mode.
    messages, other = parse_json_lines((DATA / "unused-section.txt").read_text())
    assert other == []
    assert to_failures(messages, ROOT) == (
        [], ["pyproject.toml:: note: unused section(s): module = ['nomod.*']"])


@pytest.mark.parametrize(("name", "problem"), [
    ("truncated.jsonl", "mypy's JSON output is unreadable at line 4 (Unterminated string"),
    ("malformed.jsonl", "mypy's JSON output is unreadable at line 1: line and column must be "
                        "numbers, got 'eight' and None"),
])
def test_unreadable_json_is_a_tool_error(name: str, problem: str) -> None:
    with pytest.raises(ToolError) as excinfo:
        parse_json_lines((DATA / name).read_text())
    assert str(excinfo.value).startswith(problem)


def test_json_unsupported_is_read_from_mypys_refusal(tmp_path: Path) -> None:
    def run(returncode: int, stderr_file: str) -> ToolRun:
        out = tmp_path / "out.txt"
        out.write_text("")
        return ToolRun(["mypy"], returncode, 0.1, out, DATA / stderr_file)

    assert json_unsupported(run(2, "no-json-1.10.1.stderr.txt"))
    assert not json_unsupported(run(1, "no-json-1.10.1.stderr.txt"))
    assert not json_unsupported(run(2, "plain-1.10.1.txt"))


@pytest.mark.parametrize(("files", "expected"), [
    ({"mypy.ini": "[mypy]\nfiles = src, tests\n"}, True),
    ({"mypy.ini": "[mypy]\nstrict = True\n", "setup.cfg": "[mypy]\nfiles = src\n"}, False),
    ({".mypy.ini": "[mypy]\nfiles = src\n"}, True),
    ({"setup.cfg": "[flake8]\nmax-line-length = 100\n"}, False),
    ({"setup.cfg": "[mypy]\npackages = app\n"}, True),
    ({"pyproject.toml": "[tool.mypy]\nstrict = true\n"}, False),
    ({"pyproject.toml": "[tool.mypy]\nfiles = ['src']\n"}, True),
    ({"pyproject.toml": "[tool.black]\n", "setup.cfg": "[mypy]\nmodules = app\n"}, True),
    ({"pyproject.toml": "[tool.mypy\nfiles = ['src']\n"}, False),  # mypy skips a broken file
    # a dotted key or an inline table says "mypy" too; a file that never does is not parsed
    ({"pyproject.toml": "tool.mypy.files = ['src']\n"}, True),
    ({"pyproject.toml": "[tool]\nmypy = { packages = ['app'] }\n"}, True),
    ({"pyproject.toml": "[project]\nname = 'x'\n", "setup.cfg": "[mypy]\nfiles = a\n"}, True),
])
def test_config_names_targets(tmp_path: Path, files: dict[str, str], expected: bool) -> None:
    (tmp_path / ".git").mkdir()  # mypy looks no further up than the repository root
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert config_names_targets(tmp_path) is expected


def test_config_file_option_and_parent_folders(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "mypy.ini").write_text("[mypy]\nfiles = src\n")
    project = tmp_path / "sub"
    project.mkdir()
    (project / "other.ini").write_text("[mypy]\nstrict = True\n")
    assert config_names_targets(project)
    assert not config_names_targets(project, ["--config-file", "other.ini"])


def test_default_targets_leave_out_environments_and_build_output(tmp_path: Path) -> None:
    assert default_targets(tmp_path) == ["."]
    for name in ("build", "dist", "env", "src"):
        (tmp_path / name).mkdir()
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    assert default_targets(tmp_path) == ["--exclude", "^(build|dist|env)/", "."]


def test_a_rewrite_within_the_same_second_is_not_hidden_by_the_cache(ralph: Ralph) -> None:
    ralph.makepyfile(app="def f() -> int:\n    return 12\n")
    assert ralph.run("check", "--until", "types").ret == 0
    app = ralph.path / "app.py"
    before = app.stat()
    app.write_text("def f() -> int:\n    return ''\n")  # same size, now a type error
    os.utime(app, ns=(before.st_atime_ns, before.st_mtime_ns))
    result = ralph.run("check", "--until", "types")
    assert result.ret == 1, result
    result.stdout.fnmatch_lines(["FAILED*types*1 error (1 return-value)*"])


def test_a_same_second_rewrite_of_a_git_ignored_module_is_not_hidden_by_the_cache(
        ralph: Ralph) -> None:
    """mypy checks modules git ignores (generated code) too: their rewrites count as well."""
    ralph.makepyfile(app="from generated import f\n\nX: int = f()\n",
                     generated="def f() -> int:\n    return 12\n")
    ralph.makefile(".gitignore", "generated.py\n")
    ralph.git_init()
    assert ralph.run("check", "--until", "types").ret == 0
    generated = ralph.path / "generated.py"
    before = generated.stat()
    generated.write_text("def f() -> str:\n    return 12\n")  # same size, now two errors
    os.utime(generated, ns=(before.st_atime_ns, before.st_mtime_ns))
    result = ralph.run("check", "--until", "types")
    assert result.ret == 1, result
    result.stdout.fnmatch_lines(["FAILED*types*2 errors*"])


def test_mypy_cache_stays_warm_from_one_verification_to_the_next(ralph: Ralph) -> None:
    """mypy's own log (-v) says how many modules it had to check: none when nothing changed."""
    ralph.makepyfile(app="def f() -> int:\n    return 12\n")
    ralph.makepyproject('[tool.ralph-verify.checks.types]\nargs = ["-v"]\n')

    def checked(expected: int = 0) -> int:
        result = ralph.run("check", "--until", "types", "--no-cache", "--json", "-")
        assert result.ret == expected, result
        built = re.search(r"Build finished in \S+ seconds with (\d+) modules",
                          result.json()["checks"][0]["output"])
        assert built, result
        return int(built.group(1))

    assert checked() > 0   # cold: the standard library's stubs and app.py
    assert checked() == 0  # warm: everything read from the cache
    assert checked() == 0
    (ralph.path / "app.py").write_text("def f() -> int:\n    return ''\n")
    checked(expected=1)    # and a change is seen
