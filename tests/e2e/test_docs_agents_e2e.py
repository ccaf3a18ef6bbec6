"""The docs are tests: each agent's command lines, run as written, offline.

Two sets of lines, each kept in one place that the pages and this test both read:

- ``RUN_MODE`` (scripts/agent_support.py): the ``ralph-verify run --agent NAME ...`` line of
  docs/agents/NAME.md (generated), for every CLI that can be pointed at our own endpoint.
- ``HOOK_MODE`` (ralph_verify/hookmode/install.py): what a user types after
  ``ralph-verify init AGENT``: ``start``, then the agent in the mode that lets it write.
  ``init`` prints those lines; docs/agents/AGENT.md, docs/hook-mode.md and the README show
  them.

Each line runs by bash, as written, with the real CLI against the scripted model server in
a loopback-only network namespace. The CLI gets only the user's own set-up (endpoint and
key): switching its calls home off is the job of ``run`` or ``init``, and the namespace's
counters prove it was done (0 outbound attempts). The script is a two-iteration fix: a
wrong ``add()``, the failing tests fed back (by ``run``'s next prompt or the Stop hook),
the right one.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.hookmode.install import HOOK_MODE
from ralph_verify.testing import Ralph
from ralph_verify.testing.server import (
    ModelServer,
    Step,
    aider_whole,
    claude_write,
    codex_exec,
    text,
)
from tests.agents_setup import AgentCLI
from tests.e2e.test_agents_e2e import FAILURE, RIGHT, WRONG, make_project
from tests.e2e.test_agents_offline_e2e import CASES, iteration_steps
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e

ROOT = Path(__file__).resolve().parents[2]
API = {"claude": "anthropic", "codex": "responses", "gemini": "gemini", "qwen": "chat",
       "copilot": "chat", "opencode": "chat", "aider": "chat"}


def _agent_support() -> Any:
    """scripts/agent_support.py (scripts/ is not a package), where ``RUN_MODE`` lives."""
    spec = importlib.util.spec_from_file_location("agent_support",
                                                  ROOT / "scripts" / "agent_support.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("agent_support", module)
    spec.loader.exec_module(module)
    return module


RUN_MODE: dict[str, str] = _agent_support().RUN_MODE
#: ``run`` lines shown but not run here, and why.
NOT_RUN = {"amp": "Amp talks only to its own service: it has no endpoint to point at the "
                  "scripted server (its refusals are tested in test_agent_refusals_e2e.py)"}


def _script(name: str) -> list[Step]:
    """The model's two turns: the wrong ``add()``, then (after the blocked stop) the right."""
    if name in CASES:
        first, second = iteration_steps(CASES[name])
        return [*first, *second]
    if name == "codex":
        return [step for content in (WRONG, RIGHT) for step in
                (codex_exec(f"cat > calc.py <<'EOF'\n{content}EOF"), text("Done."))]
    if name == "aider":
        # The prompt names no file: aider adds the one the answer names to the chat and asks
        # again, in each iteration (a fresh context).
        return [aider_whole("calc.py", content, note="Done.")
                for content in (WRONG, WRONG, RIGHT, RIGHT)]
    return [step for content in (WRONG, RIGHT)
            for step in (claude_write("calc.py", content), text("Done."))]


def typed_lines(name: str) -> list[str]:
    return [f"ralph-verify init {name}", *HOOK_MODE[name]]


def _doc_lines(path: Path) -> set[str]:
    """The lines of a page's code blocks, without a trailing comment."""
    return {line.split("  #", 1)[0].strip() for line in path.read_text().splitlines()}


@pytest.mark.parametrize("name", sorted(RUN_MODE))
def test_each_agent_page_shows_the_run_line_the_test_runs(name: str) -> None:
    page = ROOT / "docs" / "agents" / f"{name}.md"
    shown = {line for line in _doc_lines(page) if line.startswith("ralph-verify run ")}
    assert shown == {RUN_MODE[name]}, shown
    assert name in NOT_RUN or name in API, f"{name}: run its line here, or say in NOT_RUN why not"


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


def run_as_typed(lines: list[str], name: str, request: pytest.FixtureRequest, ralph: Ralph,
                 agent_home: Path, net: OfflineNet,
                 server: ModelServer) -> subprocess.CompletedProcess[str]:
    """``lines`` typed in bash, in a fresh project, with the real CLI ``name`` set up as its
    user would (endpoint and key only), inside the loopback-only namespace; then the
    two-iteration fix checked, and 0 outbound attempts."""
    cli: AgentCLI = request.getfixturevalue(f"{name}_cli")
    make_project(ralph)
    steps = _script(name)
    server.script(*steps)
    env = cli.env(agent_home, server.url, quiet=False)
    if name == "aider":  # as a new user has it: no price list cached yet
        shutil.rmtree(agent_home / ".aider")
    script = "\n".join(lines) + "\n"
    proc = subprocess.run([*net.prefix(), "bash", "-e", "-c", script], cwd=ralph.path,
                          env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, pass_fds=(net.fd,))
    output = proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.returncode == 0, output
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert data["verdict"]["verdict"] == "complete" and data["iteration"] == 2, data
    assert (ralph.path / "calc.py").read_text() == RIGHT
    requests = server.model_requests(API[name])
    assert len(requests) == len(steps) and FAILURE in requests[len(steps) // 2].text, output
    assert net.outbound_attempts() == 0, net.counters()
    return proc


@pytest.mark.parametrize("name", sorted(set(RUN_MODE) - set(NOT_RUN)))
def test_run_as_the_docs_say(name: str, request: pytest.FixtureRequest, ralph: Ralph,
                             agent_home: Path, offline_net: OfflineNet,
                             offline_server: ModelServer) -> None:
    run_as_typed([RUN_MODE[name]], name, request, ralph, agent_home, offline_net,
                 offline_server)


@pytest.mark.parametrize("name", sorted(HOOK_MODE))
def test_hook_mode_as_the_docs_say(name: str, request: pytest.FixtureRequest, ralph: Ralph,
                                   agent_home: Path, offline_net: OfflineNet,
                                   offline_server: ModelServer) -> None:
    proc = run_as_typed(typed_lines(name), name, request, ralph, agent_home, offline_net,
                        offline_server)
    assert all(line in proc.stdout for line in HOOK_MODE[name]), proc.stdout  # init printed
