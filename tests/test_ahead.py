"""The tool a ``check`` started first is started ahead by the next same command.

``ralph-verify check`` keeps a plan of its first tool (pytest); the same command next time
starts it before it has imported itself, behind a gate, and lets it go only if what the
command computes is exactly the plan's. These tests run the real command twice in a real
project and look at what pytest itself saw (``sys.orig_argv``): the gate's file in it means
the tool was started ahead. The verdict must never depend on it.
"""

from __future__ import annotations

import ast
import json
import marshal
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ralph_verify.proc import ahead, gate, info, plans
from ralph_verify.project import caches
from ralph_verify.testing import Ralph, RunResult
from tests.loop_helpers import pid_alive, wait_for

#: Each pytest run appends what it was started as, and where its conftest came from.
CONFTEST = """\
import os, sys

def pytest_configure(config):
    with open(os.environ["ARGV_LOG"], "a") as log:
        log.write(repr(sys.orig_argv) + "\\n")
    if os.path.exists(os.environ["HANG_FLAG"]):
        with open(os.environ["HANG_FLAG"], "w") as flag:
            flag.write(str(os.getpid()))
        import time
        time.sleep(120)
"""


@pytest.fixture
def project(ralph: Ralph, tmp_path: Path) -> Ralph:
    ralph.makepyfile(calc="def add(a, b):\n    return a + b\n",
                     conftest=CONFTEST, **{
                         "tests/test_calc": "from calc import add\n\n"
                                            "def test_add():\n    assert add(1, 2) == 3\n\n"
                                            "def test_more():\n    assert add(2, 2) == 4\n"})
    ralph.env.update(ARGV_LOG=str(tmp_path / "argv.log"), HANG_FLAG=str(tmp_path / "hang"),
                     TMPDIR=str(tmp_path / "tmp"), PYTHONPATH=str(ralph.path))
    (tmp_path / "tmp").mkdir()
    return ralph


def started_as(ralph: Ralph) -> list[list[str]]:
    """What each check's pytest run so far was started as (its ``sys.orig_argv``); not the
    re-runs of failed tests (``rerun.xml``), which come after it and are not started ahead."""
    log = Path(ralph.env["ARGV_LOG"])
    runs = [ast.literal_eval(line) for line in log.read_text().splitlines()] \
        if log.exists() else []
    return [argv for argv in runs if not any(arg.endswith("rerun.xml") for arg in argv)]


def ahead_of_time(argv: list[str]) -> bool:
    return any(Path(arg).name == "gate.py" for arg in argv)


def check(ralph: Ralph, *args: str) -> RunResult:
    return ralph.run_subprocess("check", "--until", "tests", "--no-cache", *args)


def _timeless(text: str) -> str:
    return re.sub(r"\d+\.\d+s", "Ns", text)


def leftovers(ralph: Ralph) -> list[str]:
    return sorted(p.name for p in Path(ralph.env["TMPDIR"]).iterdir())


@pytest.mark.parametrize("failing", [False, True])
def test_the_same_check_again_starts_pytest_ahead_with_the_same_verdict(
        project: Ralph, failing: bool) -> None:
    if failing:
        project.makepyfile(calc="def add(a, b):\n    return a - b\n")
    first = check(project)
    second = check(project)
    third = check(project)
    assert [ahead_of_time(argv) for argv in started_as(project)] == [False, True, True]
    for run in (first, second, third):
        assert run.ret == (1 if failing else 0), run
    # The same report, but for the times taken.
    assert len({_timeless(run.out) for run in (first, second, third)}) == 1
    second.stdout.fnmatch_lines(["FAILED  tests 2 failed, 0 passed  (*s)"] if failing
                                else ["PASSED  tests 2 passed  (*s)"])
    # What pytest was asked to run is the same, but for the gate and the work folder's name.
    plain, gated = started_as(project)[:2]
    assert gated[0] == plain[0] and gated[2:4] == plain[1:3] == ["-m", "pytest"]
    assert len(gated) == len(plain) + 1
    assert leftovers(project) == []  # the work folder the plan made is gone too
    (plan,) = (Path(project.env["RALPH_VERIFY_CACHE_DIR"]) / "ahead").iterdir()
    assert plan.stat().st_size > 0


def test_a_changed_configuration_runs_what_it_says_and_kills_the_tool_started_ahead(
        project: Ralph) -> None:
    assert check(project).ret == 0
    project.makepyproject("""
        [tool.ralph-verify.checks.tests]
        args = ["-k", "more"]
    """)
    changed = check(project, "--json")
    assert changed.ret == 0, changed
    (result,) = changed.json()["checks"]
    assert "1 passed" in result["summary"], result  # -k more: the new command ran
    again = check(project, "--json")
    # The second run's plan (pytest -k more) was dropped; the third starts it ahead.
    assert [ahead_of_time(argv) for argv in started_as(project)] == [False, False, True]
    assert "-k" in started_as(project)[1] and "-k" in started_as(project)[2]
    assert again.json()["checks"][0]["summary"] == result["summary"]
    assert leftovers(project) == []


def test_an_answer_from_the_cache_kills_the_tool_started_ahead_and_rests_the_plan(
        project: Ralph) -> None:
    """A tool started for a check the cache answers is CPU thrown away: it is killed, and
    the same command starts nothing ahead until it has run its tool again."""
    def plan() -> dict[str, object]:
        (path,) = (Path(project.env["RALPH_VERIFY_CACHE_DIR"]) / "ahead").iterdir()
        loaded: dict[str, object] = marshal.loads(path.read_bytes())
        return loaded

    def cached_check() -> RunResult:
        run = project.run_subprocess("check", "--until", "tests")
        assert run.ret == 0, run
        return run

    assert "(cached)" not in cached_check().out
    assert not plan().get("rested")
    assert "(cached)" in cached_check().out  # started ahead, killed: nothing of it is left
    tmp = project.env["TMPDIR"]
    assert [pid for pid in os.listdir("/proc") if pid.isdigit() and _cmdline_has(pid, tmp)] \
        == []
    assert plan().get("rested") is True
    assert "(cached)" in cached_check().out  # nothing started ahead
    assert plan().get("rested") is True
    project.makepyfile(calc="def add(a, b):\n    return b + a\n")
    assert "(cached)" not in cached_check().out  # not ahead: the plan was resting
    assert not plan().get("rested")
    project.makepyfile(calc="def add(a, b):\n    return a + b  # again\n")
    assert "(cached)" not in cached_check().out  # ahead again
    assert [ahead_of_time(argv) for argv in started_as(project)] == [False, False, True]
    assert leftovers(project) == []


def _cmdline_has(pid: str, text: str) -> bool:
    try:
        return text.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_kill_9_of_ralph_verify_ends_the_pytest_it_let_go(project: Ralph) -> None:
    assert check(project).ret == 0
    flag = Path(project.env["HANG_FLAG"])
    flag.write_text("")
    command = subprocess.Popen(
        [sys.executable, "-m", "ralph_verify", "check", "--until", "tests", "--no-cache"],
        cwd=project.path, env={**os.environ, **project.env}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: flag.read_text().strip(), what="pytest to start its hang")
        pytest_pid = int(flag.read_text())
        assert ahead_of_time(started_as(project)[-1])
        command.send_signal(signal.SIGKILL)
        command.wait()
        wait_for(lambda: not pid_alive(pytest_pid), timeout=5,
                 what="the pytest started ahead to die with ralph-verify")
    finally:
        command.kill()
        command.wait()


def test_an_unreadable_plan_is_no_plan(project: Ralph) -> None:
    assert check(project).ret == 0
    (plan,) = (Path(project.env["RALPH_VERIFY_CACHE_DIR"]) / "ahead").iterdir()
    plan.write_bytes(b"\x00not a plan")
    assert check(project).ret == 0
    assert check(project).ret == 0  # the second run kept a good plan again
    assert [ahead_of_time(argv) for argv in started_as(project)] == [False, False, True]
    assert leftovers(project) == []


def test_a_plan_whose_files_are_not_the_commands_starts_nothing_it_keeps(
        project: Ralph) -> None:
    """The files the plan writes on the tool's PYTHONPATH (our sitecustomize and plugins,
    read as the tool starts) must be those the command writes: else the started tool read
    others, and is not let go (here: the plan's plugins were of another version)."""
    assert check(project).ret == 0
    (path,) = (Path(project.env["RALPH_VERIFY_CACHE_DIR"]) / "ahead").iterdir()
    plan = marshal.loads(path.read_bytes())
    assert any(name.endswith("sitecustomize.pyc") for name in plan["files"]), plan["files"]
    plan["files"] = {name: data + b"\n# another version" for name, data in plan["files"].items()}
    path.write_bytes(marshal.dumps(plan))
    run = check(project)
    assert run.ret == 0, run
    assert [ahead_of_time(argv) for argv in started_as(project)] == [False, False]
    assert leftovers(project) == []


def test_a_plan_naming_files_outside_its_work_folder_writes_nothing(project: Ralph) -> None:
    assert check(project).ret == 0
    (path,) = (Path(project.env["RALPH_VERIFY_CACHE_DIR"]) / "ahead").iterdir()
    plan = marshal.loads(path.read_bytes())
    outside = project.path.parent / "outside.txt"
    rel = os.path.relpath(outside, Path(plan["workdir"]))
    path.write_bytes(marshal.dumps({**plan, "files": {**plan["files"], rel: b"x"}}))
    assert check(project).ret == 0
    assert not outside.exists()
    assert [ahead_of_time(argv) for argv in started_as(project)] == [False, False]
    assert leftovers(project) == []


def test_only_the_plans_last_written_are_kept(project: Ralph) -> None:
    assert check(project).ret == 0
    folder = Path(project.env["RALPH_VERIFY_CACHE_DIR"]) / "ahead"
    (kept,) = folder.iterdir()
    for n in range(plans.MAX_PLANS + 5):  # older plans of other command lines
        old = folder / f"{n:08x}"
        old.write_bytes(b"")
        os.utime(old, ns=(n, n))
    assert check(project).ret == 0
    left = sorted(path.name for path in folder.iterdir())
    assert len(left) == plans.MAX_PLANS and kept.name in left
    assert "00000000" not in left and f"{plans.MAX_PLANS + 4:08x}" in left


def test_a_check_of_another_folder_keeps_no_plan(project: Ralph) -> None:
    """posix_spawn starts a process in our own folder only: with --root elsewhere there is
    nothing to start ahead, and no plan is written at every run for nothing."""
    env = {**os.environ, **project.env}
    for _ in range(2):
        run = subprocess.run([sys.executable, "-m", "ralph_verify", "check", "--until",
                              "tests", "--no-cache", "--root", str(project.path)],
                             cwd=project.path.parent, env=env, capture_output=True,
                             text=True, check=False)
        assert run.returncode == 0, run.stdout + run.stderr
    assert not list((Path(project.env["RALPH_VERIFY_CACHE_DIR"]) / "ahead").glob("*"))
    assert [ahead_of_time(argv) for argv in started_as(project)] == [False, False]


def test_ralph_verify_ahead_0_starts_nothing_ahead(project: Ralph) -> None:
    project.env[ahead.SWITCH_VAR] = "0"
    assert check(project).ret == 0
    assert check(project).ret == 0
    assert [ahead_of_time(argv) for argv in started_as(project)] == [False, False]
    assert not (Path(project.env["RALPH_VERIFY_CACHE_DIR"]) / "ahead").exists()


@pytest.mark.parametrize(("args", "check"), [
    (["check", "--until", "tests"], True), (["-p", "no:cache", "check"], True),
    (["-pno:cache", "check"], True), (["run", "--until", "check"], False),
    (["hook", "stop"], False), (["start"], False), ([], False), (["--help"], False)])
def test_only_check_starts_a_tool_ahead(args: list[str], check: bool) -> None:
    assert ahead.is_check(args) is check


def test_a_loop_never_starts_a_tool_ahead(project: Ralph) -> None:
    """A plan keyed for a loop's command line (as an agent could write one) starts nothing:
    the face reads plans for ``check`` only."""
    assert check(project).ret == 0
    (path,) = (Path(project.env["RALPH_VERIFY_CACHE_DIR"]) / "ahead").iterdir()
    plan = marshal.loads(path.read_bytes())
    args = ["run", "--agent", "cmd:true", "--until", "tests", "--max-iterations", "1",
            "make the tests pass"]
    env = {**os.environ, **project.env}
    # What the face of 'ralph-verify run ...' would look for, forged from the check's plan.
    key, name = json.loads(subprocess.run(
        [sys.executable, "-c", "import json, os, sys; from ralph_verify.proc import plans; "
                               "key = plans.plan_key(sys.argv[1:]); "
                               "print(json.dumps([key, os.path.basename(plans.plan_path(key))]))",
         *args], cwd=project.path, env=env, capture_output=True, text=True, check=True).stdout)
    forged = path.with_name(name)
    # Its tool leaves a trace as soon as the gate imports it.
    tracer = project.path.parent / "tracer"
    (tracer / "tracer").mkdir(parents=True)
    trace = project.path.parent / "traced"
    (tracer / "tracer" / "__init__.py").write_text(f"open({str(trace)!r}, 'w').close()\n")
    (tracer / "tracer" / "__main__.py").write_text("")
    forged.write_bytes(marshal.dumps({**plan, "key": key, "dirs": [], "files": {}, "tool": {
        "argv": [sys.executable, "-m", "tracer"], "cwd": str(project.path),
        "env": {**env, "PYTHONPATH": str(tracer)}, "output": "."}}))
    project.git_init()
    looped = project.run_subprocess(*args)
    assert looped.ret == 0, looped
    assert not trace.exists()
    assert not any(ahead_of_time(argv) for argv in started_as(project))
    assert leftovers(project) == []


# The gate on its own: a module run behind it is run as 'python -m' runs it.

SHOW = """\
import json, os, sys
print(json.dumps({"argv": sys.argv, "path0": sys.path[0], "name": __name__,
                  "spec": __spec__.name, "env": sorted(k for k in os.environ
                                                       if k.startswith("RALPH_VERIFY_GATE"))}))
"""


def _behind_gate(module: str, cwd: Path, env: dict[str, str], answer: bytes,
                 *args: str) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    gate_env = {**env, gate.GATE_VAR: str(read_end), gate.PYTHON_VAR: sys.executable,
                gate.PARENT_VAR: str(os.getpid())}
    proc = subprocess.Popen([sys.executable, gate.__file__, "-m", module, *args], cwd=cwd,
                            env=gate_env, pass_fds=(read_end,), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    os.close(read_end)
    os.write(write_end, answer)
    os.close(write_end)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_the_gate_runs_a_module_as_python_dash_m_does(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "show.py").write_text(SHOW)
    (tmp_path / "work").mkdir()
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "lib")}
    plain = subprocess.run([sys.executable, "-m", "show", "a", "b"], cwd=tmp_path / "work",
                           env=env, capture_output=True, text=True, check=True)
    gated = _behind_gate("show", tmp_path / "work", env, b"g", "a", "b")
    assert gated.returncode == 0, gated.stderr
    assert json.loads(gated.stdout) == json.loads(plain.stdout)
    assert json.loads(plain.stdout)["path0"] == str(tmp_path / "work")


def test_a_closed_gate_runs_nothing(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "show.py").write_text(SHOW)
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "lib")}
    closed = _behind_gate("show", tmp_path, env, b"")
    assert (closed.returncode, closed.stdout) == (0, "")


def test_a_tool_of_the_project_itself_is_run_afresh(tmp_path: Path) -> None:
    """Imported before the gate, the project's own code was read before ralph-verify vetted
    its bytecode: the gate starts the real command instead."""
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__init__.py").write_text("")
    (tmp_path / "tool" / "__main__.py").write_text(SHOW + "print(json.dumps(sys.orig_argv))\n")
    gated = _behind_gate("tool", tmp_path, dict(os.environ), b"g", "x")
    assert gated.returncode == 0, gated.stderr
    shown, orig_argv = (json.loads(line) for line in gated.stdout.splitlines())
    assert orig_argv == [sys.executable, "-m", "tool", "x"]
    assert shown["argv"] == [str(tmp_path / "tool" / "__main__.py"), "x"]


def test_a_package_outside_the_project_is_imported_before_the_gate(tmp_path: Path) -> None:
    (tmp_path / "lib" / "tool").mkdir(parents=True)
    (tmp_path / "lib" / "tool" / "__init__.py").write_text(
        "import sys\nprint('imported', '__main__' in sys.modules)\n")
    (tmp_path / "lib" / "tool" / "__main__.py").write_text(SHOW)
    (tmp_path / "work").mkdir()
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "lib")}
    closed = _behind_gate("tool", tmp_path / "work", env, b"")
    assert (closed.returncode, closed.stdout) == (0, "imported True\n")  # and nothing else
    plain = subprocess.run([sys.executable, "-m", "tool", "a"], cwd=tmp_path / "work",
                           env=env, capture_output=True, text=True, check=True)
    gated = _behind_gate("tool", tmp_path / "work", env, b"g", "a")
    assert gated.stdout == plain.stdout, gated.stderr


def test_a_module_that_cannot_be_imported_fails_as_python_dash_m_does(tmp_path: Path) -> None:
    plain = subprocess.run([sys.executable, "-m", "no_such_module_here"], cwd=tmp_path,
                           capture_output=True, text=True)
    gated = _behind_gate("no_such_module_here", tmp_path, dict(os.environ), b"g")
    assert (gated.returncode, gated.stdout, gated.stderr) == (
        plain.returncode, plain.stdout, plain.stderr)


def test_the_face_and_the_floors_above_name_the_same_things(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The face may not import what knows these names yet: each is spelt twice."""
    assert (ahead.GATE_VAR, ahead.PYTHON_VAR, ahead.PARENT_VAR) == (
        gate.GATE_VAR, gate.PYTHON_VAR, gate.PARENT_VAR)
    assert ahead.MARK_VAR == info.MARK_VAR
    for variables in ({"RALPH_VERIFY_CACHE_DIR": str(tmp_path / "c")},
                      {"XDG_CACHE_HOME": str(tmp_path / "x")}, {"HOME": str(tmp_path)}):
        for name in ("RALPH_VERIFY_CACHE_DIR", "XDG_CACHE_HOME"):
            monkeypatch.delenv(name, raising=False)
        for name, value in variables.items():
            monkeypatch.setenv(name, value)
        assert Path(plans.cache_dir()) == caches.user_cache_dir()


def test_a_tool_let_go_still_dies_with_its_parent(tmp_path: Path) -> None:
    """posix_spawn runs no code in the child: the gate asks for the parent-death signal."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "sleeper.py").write_text(
        "import os, sys, time\nopen(sys.argv[1], 'w').write(str(os.getpid()))\ntime.sleep(120)\n")
    pid_file = tmp_path / "pid"
    parent = subprocess.Popen([sys.executable, "-c", f"""
import os, sys, time
sys.path.insert(0, {str(Path(ahead.__file__).parents[2])!r})
from ralph_verify.proc.bare_spawn import spawn
read_end, write_end = os.pipe()
env = {{**os.environ, "PYTHONPATH": {str(tmp_path / "lib")!r}, "RALPH_VERIFY_GATE": str(read_end),
       "RALPH_VERIFY_GATE_PYTHON": sys.executable, "RALPH_VERIFY_GATE_PARENT": str(os.getpid())}}
out = os.open(os.devnull, os.O_WRONLY)
spawn([sys.executable, {gate.__file__!r}, "-m", "sleeper", {str(pid_file)!r}], os.getcwd(),
      env, out, out, read_end)
os.write(write_end, b"g")
time.sleep(120)
"""], cwd=tmp_path)
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text(), what="the sleeper")
        sleeper = int(pid_file.read_text())
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        wait_for(lambda: not pid_alive(sleeper), timeout=5, what="the sleeper to die")
    finally:
        parent.kill()
        parent.wait()
        if pid_file.exists() and pid_file.read_text() and pid_alive(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_a_started_process_is_waited_for_as_popen_would(tmp_path: Path) -> None:
    from ralph_verify.proc.bare_spawn import Spawned, spawn

    out = os.open(os.devnull, os.O_WRONLY)
    read_end, write_end = os.pipe()
    try:
        command = [sys.executable, "-c", "import sys, time; time.sleep(0.3); sys.exit(3)"]
        child = Spawned(spawn(command, os.getcwd(), dict(os.environ), out, out, read_end),
                        command)
    finally:
        os.close(out)
        os.close(read_end)
        os.close(write_end)
    assert child.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(timeout=0.05)
    started = time.monotonic()
    assert child.wait() == 3 and child.returncode == 3 and child.poll() == 3
    assert time.monotonic() - started < 5
