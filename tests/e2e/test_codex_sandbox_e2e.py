"""The real Codex CLI whose own sandbox fails every command: the loop says so at once.

Codex's ``workspace-write`` sandbox runs each command under the system's bubblewrap when
one is on PATH. Here (as root, ``CODEX_HOME`` under ``/tmp``) that bubblewrap cannot start
Codex's sandbox helper, so every command fails with ``bwrap: ...`` and Codex, exiting 0,
has changed nothing. ``ralph-verify run`` must end the first iteration as ``agent-error``
with Codex's own words and the fix, not spend iterations on "changed 0 files" until the
stall breaker stops the loop.

Deterministic by construction: the scripted model answers each request from what the
request holds, not from its place in the script. A first version scripted "the command,
then the last words" in order and failed 2 of 13 runs (its record: Codex's command step
answered another request); it did not fail again in 17 runs at load 12-20, so the cause
was not seen. Two things could do it: a request Codex sends besides
the two expected (a retried turn, a poll of the command's session) shifts every later
positional reply, and ``exec_command`` returns the command's output only within its yield
time (10 s by default; past it, a session id to poll). Here a request that already
carries the command's output gets the last words, any other gets the command: whatever
Codex sends, in whatever order, the turn is the same; and the command asks for the longest
yield Codex allows (30 s; the failing ``bwrap`` answers within a second).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import ModelServer, RecordedRequest, Reply, text, tool
from tests.agents_setup import MODEL, AgentCLI
from tests.e2e.test_agents_e2e import SAID, WRONG, make_project
from tests.e2e.test_agents_offline_e2e import run_offline
from tests.guard.test_sandbox import bwrap  # noqa: F401 - the fixture: bubblewrap installed
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e

COMMAND = f"cat > calc.py <<'EOF'\n{WRONG}EOF"
#: More steps than any run needs: a spare request gets an answer, never "no more steps".
SPARE_STEPS = 8


def outputs(request: RecordedRequest) -> list[str]:
    """The command outputs Codex sent back in this request."""
    items: list[Any] = request.body.get("input") or [] if isinstance(request.body, dict) else []
    return [str(item.get("output")) for item in items
            if isinstance(item, dict) and item.get("type") == "function_call_output"]


def codex_turn(request: RecordedRequest) -> Reply:
    """The command until Codex has sent its output back, then the last words."""
    if outputs(request):
        return text(SAID)
    return tool("exec_command", cmd=COMMAND, yield_time_ms=30000)


def test_codex_s_failing_sandbox_is_an_agent_error_on_the_first_iteration(
        ralph: Ralph, codex_cli: AgentCLI, agent_home: Path, offline_net: OfflineNet,
        offline_server: ModelServer, bwrap: str) -> None:  # noqa: F811
    make_project(ralph)
    offline_server.script(*[codex_turn] * SPARE_STEPS)
    env = codex_cli.env(agent_home, offline_server.url, quiet=False)
    env["PATH"] = f"{Path(bwrap).parent}{os.pathsep}{env['PATH']}"  # the system's bubblewrap
    proc = run_offline(ralph, offline_net, env, "--agent", "codex", "--model", MODEL)
    requests = offline_server.model_requests("responses")
    seen = [(r.step, [o[-80:] for o in outputs(r)]) for r in requests]
    result = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert result["verdict"] == "agent-error", (result, seen, proc.stderr[-2000:])
    assert len(result["iterations"]) == 1, (result, seen)
    reason = result["iterations"][0]["verdict"]["reason"]
    assert reason.startswith("codex refused to work: 'bwrap: "), reason
    assert "take bwrap off Codex's PATH" in reason.split("fix: ", 1)[1], reason
    # Codex's own sandbox really failed: the command's output it sent back says so.
    assert any(o.startswith("bwrap: ") or "\nbwrap: " in o
               for _, found in seen for o in found), seen
    assert result["iterations"][0]["files_changed"] == [], result
    assert "raise NotImplementedError" in (ralph.path / "calc.py").read_text()
    assert not offline_server.errors, [r.error for r in offline_server.errors]
    assert offline_net.outbound_attempts() == 0, offline_net.counters()
