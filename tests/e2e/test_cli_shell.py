"""What a user typing into bash gets: a closed pipe or an unquoted spec never fake a verdict."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ralph_verify.testing import Ralph

BASH = shutil.which("bash") or "/bin/bash"


def _bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in the real bash with ``ralph-verify`` on PATH (this interpreter's)."""
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([BASH, "-c", script], cwd=cwd, capture_output=True, text=True,
                          env=env, stdin=subprocess.DEVNULL, check=False, timeout=300)


def test_a_closed_pipe_never_turns_a_failure_into_success(ralph: Ralph) -> None:
    """`check | head -1` under pipefail: the failing verdict survives `head` closing the pipe,
    every time (the race showed in 4 runs of 6 before)."""
    assert shutil.which("ralph-verify", path=str(Path(sys.executable).parent))
    ralph.makepyfile(app="import os\nimport sys\nimport json\n" + "x = 1\n" * 3)
    script = ("set -o pipefail; for i in $(seq 20); do "
              "ralph-verify check --until lint | head -1 >/dev/null; echo \"rc=$?\"; done")
    proc = _bash(script, ralph.path)
    codes = [line for line in proc.stdout.splitlines() if line.startswith("rc=")]
    assert codes == ["rc=1"] * 20, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "INTERNAL ERROR" not in proc.stderr


def test_a_closed_pipe_keeps_a_pass_a_pass(ralph: Ralph) -> None:
    proc = _bash("set -o pipefail; ralph-verify checks | head -1", ralph.path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr


def _failing_coverage_project(ralph: Ralph) -> None:
    ralph.makepyfile(**{"app": "def f(x):\n    if x:\n        return 1\n    return 2\n\n\n"
                               "def g():\n    return 3\n",
                        "tests/test_app": "from app import f\n\n\ndef test_f():\n"
                                          "    assert f(1) == 1\n"})
    ralph.makepyproject('[tool.pytest.ini_options]\npythonpath = ["."]\n')


def test_an_unquoted_threshold_is_caught_not_passed(ralph: Ralph) -> None:
    """Pasted unquoted, `coverage>=80` is `coverage` with stdout redirected to a file `=80`:
    that must be a usage error naming the fix, not a pass at any coverage."""
    _failing_coverage_project(ralph)
    proc = _bash("ralph-verify check --until tests,coverage>=80", ralph.path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "ERROR: the shell took '>=80' as a redirection" in proc.stderr
    assert "--until 'tests,coverage>=80'" in proc.stderr
    assert "coverage.min=80" in proc.stderr
    assert not (ralph.path / ".ralph").exists()
    # Nothing of the user's is removed: the stray file is only named.
    assert (ralph.path / "=80").is_file()


def test_the_spelling_without_shell_metacharacters_works_unquoted(ralph: Ralph) -> None:
    _failing_coverage_project(ralph)
    proc = _bash("ralph-verify check --until tests,coverage.min=80", ralph.path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAILED" in proc.stdout and "coverage" in proc.stdout
    proc = _bash("ralph-verify check --until tests,coverage.max=100 > out.txt", ralph.path)
    assert proc.returncode == 0, proc.stderr
    proc = _bash("ralph-verify check --until tests,coverage > result.txt", ralph.path)
    assert proc.returncode == 0, proc.stderr  # a deliberate redirect to a real name is fine


def test_the_command_exits_as_a_program_does(ralph: Ralph) -> None:
    """A plugin's ``atexit`` function runs, a thread it left running is waited for, all the
    output reaches a file, and the exit code is the command's."""
    ralph.makefile("late_plugin.py", (
        "import atexit, pathlib, threading, time\n"
        "from ralph_verify import hookimpl\n"
        "def _late():\n"
        "    time.sleep(0.5)\n"
        "    pathlib.Path('thread-done').write_text('yes')\n"
        "@hookimpl\n"
        "def ralph_configure(config):\n"
        "    atexit.register(lambda: print('printed at exit'))\n"
        "    threading.Thread(target=_late).start()\n"))
    ralph.makepyfile(app="import os\n")
    proc = _bash("PYTHONPATH=. RALPH_VERIFY_PLUGINS=late_plugin "
                 "ralph-verify check --until lint > out.txt 2>&1; echo rc=$?", ralph.path)
    assert proc.stdout.strip() == "rc=1", proc.stdout + proc.stderr
    assert (ralph.path / "thread-done").read_text() == "yes"
    out = (ralph.path / "out.txt").read_text()
    lines = out.splitlines()
    assert lines[-2].startswith("FAILED: 1 check failed (lint)"), out
    assert lines[-1] == "printed at exit" and "F401" in out
    assert "Traceback" not in out
