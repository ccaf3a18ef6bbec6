"""The verification cache: an unchanged tree is answered from the cache, anything that could
change a result runs the checks again, and a loop never ends ``complete`` on a stored result."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph, RunResult
from tests.loop_helpers import agent, state

CALC = "def add(a, b):\n    return a + b\n"
TEST_CALC = """\
import os
from pathlib import Path

from calc import add


def test_add(expected):
    assert add(1, 2) == expected


def test_data():
    assert Path("data.txt").read_text() == "3\\n"


def test_environment():
    assert os.environ.get("CALC_EXPECTED", "3") == "3"
"""
CONFTEST = "import pytest\n\n\n@pytest.fixture\ndef expected():\n    return 3\n"


def check(ralph: Ralph, *args: str, until: str = "tests,lint,types") -> RunResult:
    return ralph.run("check", "--until", until, *args)


def cached(result: RunResult) -> list[str]:
    return [line.split()[1] for line in result.out.splitlines() if line.endswith("(cached)")]


@pytest.fixture
def project(ralph: Ralph) -> Ralph:
    ralph.makepyfile(calc=CALC, test_calc=TEST_CALC, conftest=CONFTEST)
    ralph.makefile("data.txt", "3\n")
    first = check(ralph)
    assert first.ret == 0, first
    assert cached(first) == []
    return ralph


def test_an_unchanged_tree_is_answered_from_the_cache(project: Ralph) -> None:
    again = check(project, "--json", "-")
    assert again.ret == 0, again
    assert [c["cached"] for c in again.json()["checks"]] == [True, True, True]
    third = check(project)
    assert sorted(cached(third)) == ["lint", "tests", "types"], third
    third.stdout.fnmatch_lines(["PASSED: all 3 checks passed, 3 cached in *"])


def test_no_cache_on_the_command_line_or_in_the_config(project: Ralph) -> None:
    assert cached(check(project, "--no-cache")) == []
    project.makefile("pyproject.toml", (project.path / "pyproject.toml").read_text()
                     + "\n[tool.ralph-verify]\ncache = false\n")
    assert cached(check(project)) == []
    assert cached(check(project)) == []


def test_one_byte_changed_at_the_same_size_and_time_runs_again(project: Ralph) -> None:
    calc = project.path / "calc.py"
    before = calc.stat()
    calc.write_text(CALC.replace("a + b", "a - b"))
    os.utime(calc, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert calc.stat().st_size == before.st_size
    result = check(project)
    assert result.ret == 1, result
    assert cached(result) == ["lint"] or cached(result) == []
    result.stdout.fnmatch_lines(["FAILED  tests *1 failed*"])


@pytest.mark.parametrize("name, content", [
    ("conftest.py", CONFTEST.replace("return 3", "return 4")),     # pytest's own config
    ("data.txt", "4\n"),                                           # a data file a test reads
    ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-p no:nothing-here'\n"),
    ("setup.cfg", "[mypy]\ndisallow_untyped_defs = True\n"),
    ("ruff.toml", "[lint]\nselect = ['ANN']\n"),
    (".env", "CALC=1\n"),                                          # git-ignored, read by tools
])
def test_a_changed_config_or_data_file_runs_again(project: Ralph, name: str,
                                                  content: str) -> None:
    if name == ".env":
        project.makefile(".gitignore", ".env\n")
        project.git_init()
        assert cached(check(project)) == []
        assert len(cached(check(project))) == 3
    path = project.path / name
    previous = path.read_text() if path.exists() else ""
    path.write_text(previous + content if name == "pyproject.toml" else content)
    result = check(project)
    assert cached(result) == [], result


def test_config_changes_give_the_new_verdict_not_a_stale_one(project: Ralph) -> None:
    project.makefile("setup.cfg", "[mypy]\ndisallow_untyped_defs = True\n")
    project.makefile("ruff.toml", "[lint]\nselect = ['ANN']\n")
    (project.path / "conftest.py").write_text(CONFTEST.replace("return 3", "return 4"))
    result = check(project)
    assert result.ret == 1, result
    # Each line as its check is decided: in the order they finish.
    for name in ("tests", "lint", "types"):
        result.stdout.fnmatch_lines([f"FAILED  {name} *"])


def test_an_environment_variable_runs_again(project: Ralph) -> None:
    project.env["CALC_EXPECTED"] = "4"
    result = check(project)
    assert result.ret == 1 and cached(result) == [], result
    project.env["PYTEST_ADDOPTS"] = "-k nothing_matches"
    assert cached(check(project)) == []


def _wheel(folder: Path, name: str, version: str) -> Path:
    """A pure-Python wheel of one module, built by hand (no build backend needed)."""
    dist = f"{name}-{version}.dist-info"
    files = {f"{name}.py": b"VALUE = 1\n",
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                 .encode(),
             f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
                              b"Tag: py3-none-any\n"}
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        writer.writerow([path, f"sha256={digest}", len(data)])
    writer.writerow([f"{dist}/RECORD", "", ""])
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
        archive.writestr(f"{dist}/RECORD", record.getvalue())
    return wheel


def test_installing_or_removing_a_package_in_the_venv_runs_again(ralph: Ralph) -> None:
    """The project's .venv sees our tools (pytest) through a .pth; tinypkg comes and goes."""
    venv = ralph.path / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    ours = sysconfig.get_path("purelib")
    (site / "ours.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    ralph.makepyfile(test_pkg="def test_pkg():\n    import tinypkg\n    assert tinypkg.VALUE\n")
    assert check(ralph, until="tests").ret == 1
    again = check(ralph, until="tests")
    assert again.ret == 1 and cached(again) == ["tests"], again

    pip = [sys.executable, "-m", "pip", "--python", str(python), "-q"]
    subprocess.run([*pip, "install", "--no-index", "--no-deps",
                    str(_wheel(ralph.path.parent, "tinypkg", "1.0"))], check=True)
    installed = check(ralph, until="tests")
    assert installed.ret == 0 and cached(installed) == [], installed
    assert cached(check(ralph, until="tests")) == ["tests"]

    subprocess.run([*pip, "uninstall", "-y", "tinypkg"], check=True)
    removed = check(ralph, until="tests")
    assert removed.ret == 1, removed  # never the stored pass of the installed state


def _forge_passes(cache: Path) -> int:
    """What an agent running as the same user could do: turn every stored result into a pass."""
    forged = 0
    for path in (cache / "verifications").rglob("*.json"):
        data = json.loads(path.read_text())
        data["result"].update(status="passed", summary="forged", failures=[], counts={})
        path.write_text(json.dumps(data))
        forged += 1
    return forged


FORGE = """\
import json
for path in pathlib.Path(os.environ["RALPH_VERIFY_CACHE_DIR"], "verifications").rglob("*.json"):
    data = json.loads(path.read_text())
    data["result"].update(status="passed", summary="forged", failures=[], counts={})
    path.write_text(json.dumps(data))
print("forged")
"""


def test_a_forged_cache_entry_never_ends_a_loop_complete(ralph: Ralph) -> None:
    ralph.makepyfile(calc=CALC.replace("a + b", "a - b"), test_calc=TEST_CALC,
                     conftest=CONFTEST)
    ralph.makefile("data.txt", "3\n")
    cache = Path(ralph.env["RALPH_VERIFY_CACHE_DIR"])
    assert check(ralph, until="tests").ret == 1
    assert _forge_passes(cache) == 1
    fooled = check(ralph, until="tests")  # a plain check trusts the user's own cache...
    assert fooled.ret == 0 and cached(fooled) == ["tests"], fooled

    # ...a loop does not: the agent forges the entries of its own session's baseline too.
    result = ralph.run("run", "--agent", agent(ralph, FORGE), "--until", "tests",
                       "--no-integrity", "--max-iterations", "2", "fix calc")
    assert result.ret != 0, result
    assert state(ralph)["verdict"]["verdict"] != "complete"
    for number in ("001", "002"):
        verification = json.loads((ralph.path / ".ralph" / "iterations" / number /
                                   "verification.json").read_text())
        assert verification["passed"] is False
        assert all(not c["cached"] or c["status"] == "failed" for c in verification["checks"])


def test_a_loop_completes_on_a_real_run_only(ralph: Ralph) -> None:
    """The fixed tree's pass is stored by a plain check; the loop that reaches that very tree
    runs the checks all the same before it says complete."""
    ralph.makepyfile(calc=CALC, test_calc=TEST_CALC, conftest=CONFTEST)
    ralph.makefile("data.txt", "3\n")
    assert check(ralph, until="tests").ret == 0
    assert cached(check(ralph, until="tests")) == ["tests"]
    calc = ralph.path / "calc.py"
    calc.write_text(CALC.replace("a + b", "a - b"))
    fix = "pathlib.Path('calc.py').write_text(pathlib.Path('calc.py').read_text()" \
          ".replace('a - b', 'a + b'))\n"
    result = ralph.run("run", "--agent", agent(ralph, fix), "--until", "tests",
                       "--no-integrity", "fix calc")
    assert result.ret == 0, result
    assert state(ralph)["verdict"]["verdict"] == "complete"
    last = json.loads((ralph.path / ".ralph/iterations/001/verification.json").read_text())
    assert last["passed"] is True
    assert [c["cached"] for c in last["checks"]] == [False]


def test_a_forged_cache_entry_never_lets_a_hook_mode_agent_stop(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CLAUDE_CODE_SESSION_ID", "CLAUDE_PROJECT_DIR"):
        monkeypatch.delenv(name, raising=False)
    ralph.makepyfile(calc=CALC.replace("a + b", "a - b"), test_calc=TEST_CALC,
                     conftest=CONFTEST)
    ralph.makefile("data.txt", "3\n")
    started = ralph.run("start", "--until", "tests", "fix calc")
    assert started.ret == 0, started
    payload = {"session_id": "s-1", "transcript_path": "/nowhere/s-1.jsonl",
               "cwd": str(ralph.path), "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": "done"}
    for turn in (1, 2):
        if turn == 2:  # the agent forges the entries its first stop stored
            assert _forge_passes(Path(ralph.env["RALPH_VERIFY_CACHE_DIR"])) >= 1
        stopped = ralph.run("hook", "claude-stop", stdin=json.dumps(payload))
        assert stopped.ret == 0, stopped
        assert stopped.json()["decision"] == "block", stopped
    verification = json.loads((ralph.path / ".ralph/iterations/002/verification.json")
                              .read_text())
    tests = next(c for c in verification["checks"] if c["name"] == "tests")
    assert tests["status"] == "failed" and tests["summary"] != "forged"


def test_the_stored_results_of_a_project_stay_bounded(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from ralph_verify.checks import cache as verify_cache
    from ralph_verify.checks.api import CheckResult, Status

    monkeypatch.setenv("RALPH_VERIFY_CACHE_DIR", str(tmp_path / "cache"))
    result = CheckResult(name="lint", spec="lint", status=Status.PASSED, summary="0 errors")
    for number in range(verify_cache.KEEP + 1):
        key = f"{number:064d}"
        verify_cache.save(tmp_path, key, result)
        os.utime(verify_cache.store_path(tmp_path, key), (number, number))
    folder = verify_cache.store_path(tmp_path, "x").parent
    assert len(list(folder.glob("*.json"))) == verify_cache.KEEP // 2
    newest = f"{verify_cache.KEEP:064d}"
    assert verify_cache.load(tmp_path, newest) == result
    assert verify_cache.load(tmp_path, f"{0:064d}") is None


def test_commands_always_run(project: Ralph) -> None:
    """A command of one's own may read anything (the clock, the network): never stored."""
    outside = project.path.parent / "outside"
    outside.mkdir()
    runs = outside / "runs.txt"
    (outside / "count.sh").write_text(f"echo ran >> {runs}\n")
    until = f"tests,cmd:sh {outside / 'count.sh'}"
    for _ in range(3):
        assert check(project, until=until).ret == 0
    assert runs.read_text().count("ran") == 3
    assert cached(check(project, until=until)) == ["tests"]  # the stored half of it
    assert runs.read_text().count("ran") == 4
    assert cached(check(project, until="tests,lint")) == [], "another spec is another key"


def test_another_interpreter_runs_again(project: Ralph) -> None:
    venv = project.path.parent / "other-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; "
                                "print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "ours.pth").write_text(sysconfig.get_path("purelib") + "\n")
    check(project, until="tests")
    assert cached(check(project, until="tests")) == ["tests"]
    other = check(project, "--python", str(venv / "bin" / "python"), until="tests")
    assert other.ret == 0 and cached(other) == [], other


def test_a_package_added_to_a_site_folder_shared_through_a_pth_file_runs_again(
        project: Ralph) -> None:
    """Such a folder is described by the distributions it holds (not hashed file by file)."""
    shared = project.path.parent / "shared-site"
    (shared / "sharedpkg-1.0.dist-info").mkdir(parents=True)
    venv = project.path.parent / "shared-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; "
                                "print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "shared.pth").write_text(f"{sysconfig.get_path('purelib')}\n{shared}\n")
    python = str(venv / "bin" / "python")
    assert check(project, "--python", python, until="tests").ret == 0
    assert cached(check(project, "--python", python, until="tests")) == ["tests"]
    (shared / "otherpkg-2.0.dist-info").mkdir()
    assert cached(check(project, "--python", python, until="tests")) == []
