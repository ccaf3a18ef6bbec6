"""The docs are tests: each agent's hook-mode command lines, run as written, offline.

``HOOK_MODE`` (ralph_verify/hookmode/install.py) holds what a user types after
``ralph-verify init AGENT``: ``start``, then the agent in the mode that lets it write.
``init`` prints those lines, docs/agents/AGENT.md (generated), docs/hook-mode.md and the
README show them, and
this test runs them by bash, as written, with the real CLI against the scripted model server
in a loopback-only network namespace. The CLI gets only the user's own set-up (endpoint and
key): switching its calls home off is ``init``'s job, and the namespace's counters prove it
did (0 outbound attempts). The script is a two-iteration fix: a wrong ``add()``, the Stop
hook's feedback, the right one.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ralph_verify.hookmode.install import HOOK_MODE
from ralph_verify.testing import Ralph
from ralph_verify.testing.server import ModelServer, Step, claude_write, codex_exec, text
from tests.agents_setup import AgentCLI
from tests.e2e.test_agents_e2e import FAILURE, RIGHT, WRONG, make_project
from tests.e2e.test_agents_offline_e2e import CASES, iteration_steps
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e

ROOT = Path(__file__).resolve().parents[2]
API = {"claude": "anthropic", "codex": "responses", "gemini": "gemini", "qwen": "chat",
       "copilot": "chat"}

#: Outbound attempts a CLI still makes in hook mode, as its page says.
NOT_QUIET = {"copilot"}


def _script(name: str) -> list[Step]:
    """The model's two turns: the wrong ``add()``, then (after the blocked stop) the right."""
    if name in CASES:
        first, second = iteration_steps(CASES[name])
        return [*first, *second]
    if name == "codex":
        return [step for content in (WRONG, RIGHT) for step in
                (codex_exec(f"cat > calc.py <<'EOF'\n{content}EOF"), text("Done."))]
    return [step for content in (WRONG, RIGHT)
            for step in (claude_write("calc.py", content), text("Done."))]


def typed_lines(name: str) -> list[str]:
    return [f"ralph-verify init {name}", *HOOK_MODE[name]]


def _doc_lines(path: Path) -> set[str]:
    """The lines of a page's code blocks, without a trailing comment."""
    return {line.split("  #", 1)[0].strip() for line in path.read_text().splitlines()}


@pytest.mark.parametrize("name", sorted(HOOK_MODE))
def test_the_docs_show_the_lines_the_test_runs(name: str) -> None:
    for page in (ROOT / "docs" / "hook-mode.md", ROOT / "docs" / "agents" / f"{name}.md"):
        missing = [line for line in typed_lines(name) if line not in _doc_lines(page)]
        assert not missing, f"{page.name} lacks {missing}"
    # The README gives no other line for starting the agent or its loop in hook mode.
    program = next(word for word in HOOK_MODE[name][1].split() if "=" not in word)
    for page in (ROOT / "README.md", ROOT / "docs" / "hook-mode.md"):
        given = {line for line in _doc_lines(page)
                 if line.startswith((f"{program} -", f"{program} exec",
                                     f"ralph-verify start --agent-name {name}"))}
        assert given <= set(HOOK_MODE[name]), f"{page.name}: {given - set(HOOK_MODE[name])}"


@pytest.mark.parametrize("name", sorted(HOOK_MODE))
def test_hook_mode_as_the_docs_say(name: str, request: pytest.FixtureRequest, ralph: Ralph,
                                   agent_home: Path, offline_net: OfflineNet,
                                   offline_server: ModelServer) -> None:
    cli: AgentCLI = request.getfixturevalue(f"{name}_cli")
    make_project(ralph)
    steps = _script(name)
    offline_server.script(*steps)
    env = cli.env(agent_home, offline_server.url, quiet=False)
    script = "\n".join(typed_lines(name)) + "\n"
    proc = subprocess.run([*offline_net.prefix(), "bash", "-e", "-c", script], cwd=ralph.path,
                          env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, pass_fds=(offline_net.fd,))
    output = proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.returncode == 0, output
    assert all(line in proc.stdout for line in HOOK_MODE[name]), output  # init printed them
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert data["verdict"]["verdict"] == "complete" and data["iteration"] == 2, data
    assert (ralph.path / "calc.py").read_text() == RIGHT
    requests = offline_server.model_requests(API[name])
    assert len(requests) == len(steps) and FAILURE in requests[len(steps) // 2].text, output
    # Copilot's calls home stop only with COPILOT_OFFLINE=true, which needs the user's own
    # provider: docs/hook-mode.md says so (this fails the day it is quiet without).
    assert (offline_net.outbound_attempts() > 0) is (name in NOT_QUIET), offline_net.counters()
