"""Fixtures of the tests folder: the real agent CLIs (see ``tests/agents_setup.py``) and a
loopback-only network namespace to run them in (``tests/offline_net.py``)."""

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
from tests.offline_net import offline_net, offline_server

__all__ = ["agent_home", "aider_cli", "claude_cli", "codex_cli", "copilot_cli", "gemini_cli",
           "offline_net", "offline_server", "opencode_cli", "qwen_cli"]
