"""The agent cannot end its own run ``cancelled``; the user's ``ralph-verify cancel`` can.

Without the sandbox the agent can read every file the user can and run ralph-verify itself:
it runs ``ralph-verify cancel`` (directly and as a daemon that left its parent), writes
``.ralph/cancel`` in every spelling; none ends the run, and the run says why. The user's
``cancel`` still ends it (``tests/loop/test_cancel.py``).
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from ralph_verify.loop import cancel_key
from ralph_verify.loop.verdict import EXIT_CODES, Verdict
from ralph_verify.testing import Ralph
from tests.hookmode.test_stophook import answer, start, stop
from tests.loop_helpers import state

#: Asks for a cancel itself (and through a daemon), forges the cancel file, waits to be seen.
CANCELLER = """\
out = pathlib.Path(sys.argv[1])
cancel = [sys.executable, "-m", "ralph_verify", "cancel", "--wait", "1"]
said = subprocess.run(cancel, capture_output=True, text=True)
out.write_text(json.dumps([said.returncode, said.stderr]))
daemon = " ".join(cancel) + f" > {out}.daemon 2>&1 &"
subprocess.run(["sh", "-c", f"(setsid {daemon})"])  # its parent gone: a daemon
for text in ("", "cancel\\n", "cancel requested by pid 1\\nkey " + "0" * 32 + "\\n"):
    pathlib.Path(".ralph/cancel").write_text(text)
    time.sleep(0.6)
time.sleep(2)
"""


@pytest.mark.parametrize("sandbox", ["--sandbox", "--no-sandbox"])
def test_an_agent_cannot_cancel_its_own_run(ralph: Ralph, sandbox: str) -> None:
    # In the project: the sandbox shows the agent no other /tmp.
    ralph.makefile("canceller.py", "import json, os, pathlib, subprocess, sys, time\n" + CANCELLER)
    ralph.git_init()
    out = ralph.path / "cancel.json"
    command = f"cmd:{sys.executable} canceller.py {out}"
    result = ralph.run("run", "--agent", command, "--until", "files:done.txt",
                       "--max-iterations", "1", sandbox, "go")
    assert result.ret == EXIT_CODES[Verdict.MAX_ITERATIONS], result
    assert state(ralph)["verdict"]["verdict"] == "max-iterations"
    ret, err = json.loads(out.read_text())
    assert ret in (1, 2), err  # refused, or (in the sandbox's PID namespace) no run it can see
    if sandbox == "--no-sandbox":  # the run heard both requests and refused them
        assert "refused: pid" in err and "runs under this run" in err, err
        assert result.out.count("ralph-verify: refused a cancel request: pid ") == 2, result.out
        assert "runs under this run" in (out.parent / f"{out.name}.daemon").read_text()
        assert cancel_key.FORGED in result.out  # the forged files, removed and said
    else:  # .ralph/ is read-only in the sandbox: no cancel file could be written
        assert cancel_key.FORGED not in result.out
    assert not cancel_key.key_path(ralph.path, {**os.environ, **ralph.env}).exists()


def test_an_agents_cancel_file_does_not_end_a_stop_hook_loop(ralph: Ralph) -> None:
    start(ralph)
    (ralph.path / ".ralph" / "cancel").write_text("cancel requested by pid 1\nkey " + "0" * 32)
    result = answer(stop(ralph))
    assert result.get("decision") == "block", result
    assert not (ralph.path / ".ralph" / "cancel").exists()
    assert cancel_key.FORGED in (ralph.path / ".ralph" / "progress.md").read_text()
    user = ralph.run("cancel")  # the user's: the loop ends
    assert user.ret == 0 and "cancelled the" in user.out, user
    assert state(ralph)["verdict"]["verdict"] == "cancelled"
