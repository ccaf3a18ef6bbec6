"""The real Codex CLI with the Stop hook from ``ralph-verify init codex``, offline."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import ModelServer, codex_exec, text
from tests.agents_setup import AgentCLI
from tests.guard.test_sandbox import bwrap  # noqa: F401 - the fixture: bubblewrap installed

pytestmark = pytest.mark.agents_e2e

WRONG = "def add(a, b):\n    return a - b\n"
RIGHT = "def add(a, b):\n    return a + b\n"
FAILURE = "assert -1 == 5"


def test_codex_stop_hook_blocks_until_the_tests_pass(
        ralph: Ralph, codex_cli: AgentCLI, agent_home: Path, model_server: ModelServer) -> None:
    ralph.makepyfile(calc="def add(a, b):\n    raise NotImplementedError\n",
                     **{"tests/test_calc": "from calc import add\n\n\n"
                                           "def test_add():\n    assert add(2, 3) == 5\n"})
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()
    env = codex_cli.env(agent_home, model_server.url)
    ralph.env["CODEX_HOME"] = env["CODEX_HOME"]
    hook = f"{shlex.quote(sys.executable)} -m ralph_verify"
    assert ralph.run("init", "codex", "--hook-command", hook).ret == 0
    assert (Path(env["CODEX_HOME"]) / "hooks.json").is_file()
    started = ralph.run("start", "--until", "tests", "--max-iterations", "4",
                        "--agent-name", "codex")
    assert started.ret == 0, started
    model_server.script(codex_exec(f"cat > calc.py <<'EOF'\n{WRONG}EOF"),
                        text("Implemented add()."),
                        codex_exec(f"cat > calc.py <<'EOF'\n{RIGHT}EOF"),
                        text("Fixed the sign."))
    proc = subprocess.run(
        [str(codex_cli.executable), "exec", "--dangerously-bypass-approvals-and-sandbox",
         "--dangerously-bypass-hook-trust", "Implement add() in calc.py."],
        cwd=ralph.path, env=env, capture_output=True, text=True, timeout=240,
        stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    requests = model_server.model_requests("responses")
    assert len(requests) == 4, [r.text[-300:] for r in requests]
    assert FAILURE in requests[2].text and "iteration 1 of 4" in requests[2].text
    assert FAILURE not in requests[1].text
    assert (ralph.path / "calc.py").read_text() == RIGHT
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert data["verdict"]["verdict"] == "complete" and data["iteration"] == 2
    assert data["hook"]["agent"] == "codex"


def test_the_guard_refuses_a_tool_call_of_the_real_codex(
        ralph: Ralph, codex_cli: AgentCLI, agent_home: Path, model_server: ModelServer,
        tmp_path: Path) -> None:
    """``init codex`` installs the same guard as PreToolUse: Codex's shell call that would
    delete a folder outside the project is refused, and the model reads why."""
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "keep.txt").write_text("keep\n")
    ralph.makefile("README.md", "hi\n")
    ralph.git_init()
    env = codex_cli.env(agent_home, model_server.url)
    ralph.env["CODEX_HOME"] = env["CODEX_HOME"]
    hook = f"{shlex.quote(sys.executable)} -m ralph_verify"
    assert ralph.run("init", "codex", "--hook-command", hook).ret == 0
    model_server.script(codex_exec(f"busybox rm -rf {precious} || rm -rf {precious}"),
                        text("Could not delete it."))
    proc = subprocess.run(
        [str(codex_cli.executable), "exec", "--dangerously-bypass-approvals-and-sandbox",
         "--dangerously-bypass-hook-trust", "Clean up."],
        cwd=ralph.path, env=env, capture_output=True, text=True, timeout=240,
        stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (precious / "keep.txt").read_text() == "keep\n"
    requests = model_server.model_requests("responses")
    assert len(requests) == 2, [r.text[-300:] for r in requests]
    assert "ralph-verify guard refused" in requests[1].text and "rm-outside" in requests[1].text
    records = [json.loads(line) for line in
               (ralph.path / ".ralph" / "guard.jsonl").read_text().splitlines()]
    assert [(r["agent"], r["rule"]) for r in records] == [("codex", "rm-outside")]


@pytest.mark.parametrize("guard", [True, False], ids=["guard", "sandbox-only"])
def test_run_gives_codex_the_guard_and_the_sandbox(
        ralph: Ralph, codex_cli: AgentCLI, agent_home: Path, model_server: ModelServer,
        guard: bool, bwrap: str) -> None:  # noqa: F811
    """``run --agent codex`` with no flag: the guard refuses a deletion outside the project;
    with the guard switched off, the sandbox (``auto``) makes it fail; the loop completes."""
    import shutil
    import tempfile

    # In the home folder, which the sandbox shows read-only (/tmp and /var/tmp are private).
    precious = Path(tempfile.mkdtemp(prefix=".ralph-precious-", dir=Path.home()))
    try:
        (precious / "keep.txt").write_text("keep\n")
        ralph.makepyfile(calc="def add(a, b):\n    raise NotImplementedError\n",
                         **{"tests/test_calc": "from calc import add\n\n\n"
                                               "def test_add():\n    assert add(2, 3) == 5\n"})
        ralph.makefile(".gitignore", ".ralph/\n")
        if not guard:
            ralph.makepyproject("[tool.ralph-verify.guard]\nenabled = false\n")
        ralph.git_init()
        # (Codex itself rejects a plain ``rm -rf``; the same deletion as inline Python.)
        model_server.script(codex_exec(f"python3 -c \"import shutil; shutil.rmtree("
                                       f"'{precious}')\""),
                            codex_exec(f"cat > calc.py <<'EOF'\n{RIGHT}EOF"), text("Done."))
        env = codex_cli.env(agent_home, model_server.url)
        env.pop("RALPH_VERIFY_SANDBOX", None)  # the default: auto
        env["PATH"] = f"{Path(bwrap).parent}{os.pathsep}{env['PATH']}"
        proc = subprocess.run(
            [sys.executable, "-m", "ralph_verify", "run", "--until", "tests", "--yolo",
             "--max-iterations", "2", "--agent-timeout", "120", "--agent", "codex",
             "--model", "test-model", "Implement add() in calc.py."],
            cwd=ralph.path, env=env, capture_output=True, text=True, timeout=300,
            stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert "without a sandbox" not in proc.stderr
        assert (precious / "keep.txt").read_text() == "keep\n"
        second = model_server.model_requests("responses")[1].text
        if guard:
            # inline-code, or read-secrets where the home folder is /root (a secret place)
            assert "ralph-verify guard refused" in second and (
                "inline-code" in second or "read-secrets" in second), second[-2000:]
        else:
            assert "Read-only file system" in second, second[second.find("rm -rf"):][:1500]
        assert (ralph.path / "calc.py").read_text() == RIGHT
    finally:
        shutil.rmtree(precious, ignore_errors=True)
