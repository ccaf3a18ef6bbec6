"""Fixtures of the tests folder: the real agent CLIs (see ``tests/agents_setup.py``), a
loopback-only network namespace to run them in (``tests/offline_net.py``) and the loop's two
drivers (``tests/drivers.py``)."""

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

__all__ = ["agent_home", "aider_cli", "claude_cli", "codex_cli", "copilot_cli", "driver",
           "gemini_cli", "offline_net", "offline_server", "opencode_cli", "qwen_cli"]
