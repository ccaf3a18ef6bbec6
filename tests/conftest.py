"""Fixtures of the tests folder: the real agent CLIs (see ``tests/agents_setup.py``)."""

from tests.agents_setup import agent_home, aider_cli, claude_cli, codex_cli

__all__ = ["agent_home", "aider_cli", "claude_cli", "codex_cli"]
