"""The test environment of the real CLIs: clean, offline, pointed only at the scripted server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

from tests.agents_setup import CODEX_KEY_ENV, MODEL, SPECS, AgentCLI, cache_dir


def test_env_is_clean_and_points_at_the_server(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"ANTHROPIC_API_KEY": "sk-real-secret", "ANTHROPIC_BASE_URL": "https://x",
                        "OPENAI_API_KEY": "sk-other-secret", "CLAUDECODE": "1"}.items():
        monkeypatch.setenv(name, value)
    claude = AgentCLI(SPECS["claude"], tmp_path / "bin" / "claude")
    env = claude.env(tmp_path / "home", "http://127.0.0.1:5/")
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:5"
    assert env["ANTHROPIC_API_KEY"] == "dummy" and env["HOME"] == str(tmp_path / "home")
    assert env["DISABLE_AUTOUPDATER"] == env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert env["PATH"].split(":")[0] == str(tmp_path / "bin")
    assert "OPENAI_API_KEY" not in env and "CLAUDECODE" not in env
    assert not any("secret" in value for value in env.values())


def test_codex_config_and_aider_price_list(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = AgentCLI(SPECS["codex"], tmp_path / "codex").env(home, "http://127.0.0.1:7")
    config = tomllib.loads((home / ".codex" / "config.toml").read_text())
    provider = config["model_providers"][config["model_provider"]]
    assert provider["base_url"] == "http://127.0.0.1:7/v1" and provider["wire_api"] == "responses"
    assert config["check_for_update_on_startup"] is False and not config["analytics"]["enabled"]
    assert env["CODEX_HOME"] == str(home / ".codex") and env[CODEX_KEY_ENV] == "dummy"

    env = AgentCLI(SPECS["aider"], tmp_path / "aider").env(home, "http://127.0.0.1:7")
    prices = json.loads((home / ".aider" / "caches" /
                         "model_prices_and_context_window.json").read_text())
    assert f"openai/{MODEL}" in prices and env["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"


def test_cache_dir_can_be_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RALPH_VERIFY_TEST_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    monkeypatch.delenv("RALPH_VERIFY_TEST_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_dir() == tmp_path / "x" / "ralph-verify-tests"
