"""Fixtures of the tests folder: the real agent CLIs (see ``tests/agents_setup.py``), a
loopback-only network namespace to run them in (``tests/offline_net.py``) and the loop's two
drivers (``tests/drivers.py``)."""

import os
from pathlib import Path

from tests.agents_setup import (
    agent_home,
    aider_cli,
    claude_cli,
    codex_cli,
    copilot_cli,
    gemini_cli,
    opencode_cli,
    qwen_cli,
)
from tests.drivers import driver
from tests.offline_net import offline_net, offline_server

# The tests' agents are scripts beside their project in tmp_path, and the sandbox (on by
# default where bubblewrap works) gives an agent a private /tmp: the temporary folders live
# where the sandbox shows them (pytest's documented PYTEST_DEBUG_TEMPROOT; a user's own wins).
if "PYTEST_DEBUG_TEMPROOT" not in os.environ:
    _TEMPROOT = Path.home() / ".local" / "share" / "ralph-verify-tests"
    _TEMPROOT.mkdir(parents=True, exist_ok=True)
    os.environ["PYTEST_DEBUG_TEMPROOT"] = str(_TEMPROOT)

__all__ = ["agent_home", "aider_cli", "claude_cli", "codex_cli", "copilot_cli", "driver",
           "gemini_cli", "offline_net", "offline_server", "opencode_cli", "qwen_cli"]
