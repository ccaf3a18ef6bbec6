"""``gemini``: Gemini CLI, headless (``gemini -p``); its page: scripts/agent_docs/gemini.rst."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ralph_verify.agents import AgentRequest
from ralph_verify.agents.cli import CLIAgent, Parsed, add, as_dict, session_file, tail_text
from ralph_verify.agents.vetting import Refusal, Refused, shell_fix, since

#: Settings that stop every call but the model's (lowest settings layer: the user's win).
QUIET_SETTINGS: dict[str, Any] = {
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}

REFUSALS = (
    Refusal(r"not running in a trusted directory",
            "ralph-verify passes --skip-trust (Gemini CLI 0.61 and later); with an older "
            "Gemini CLI set GEMINI_CLI_TRUST_WORKSPACE=true or trust the folder in gemini"),
    Refusal(r"must specify the GEMINI_API_KEY|Please set an Auth method|auth method",
            "set GEMINI_API_KEY (and GOOGLE_GEMINI_BASE_URL for your own endpoint) and "
            'security.auth.selectedType "gemini-api-key" in ~/.gemini/settings.json'),
    Refusal(r"models/\S+ is not found|ModelNotFoundError",
            "name a model your endpoint serves with --model"),
)

#: Gemini's tools its approval mode leaves out headless, and the fix when the driver's is not
#: it: edits (all but ``default`` mode allow them), the shell (only ``--yolo`` allows it).
LEFT_OUT = {"write_file": None, "replace": None,
            "run_shell_command": shell_fix("Gemini CLI", "gemini")}


def gemini_refusal(messages: Iterable[dict[str, Any]], start: float = 0.0) -> Refused | None:
    """The first call since ``start`` to a tool of :data:`LEFT_OUT` that the transcript
    records as not found: left out by the approval mode."""
    for message in messages:
        for call in map(as_dict, message.get("toolCalls") or []):
            name, said = call.get("name"), call.get("resultDisplay")
            if name in LEFT_OUT and call.get("status") == "error" and since(call, start) \
                    and isinstance(said, str) and said.startswith(f'Tool "{name}" not found'):
                return Refused(said, LEFT_OUT[name])
    return None


def parse_gemini_json(lines: Iterable[str]) -> Parsed:
    parsed = Parsed()
    data = last_json_object(lines)
    if data is None:
        return parsed
    parsed.structured = "response" in data or "stats" in data or "error" in data
    if isinstance(data.get("response"), str):
        parsed.text = data["response"]
    if isinstance(data.get("session_id"), str):
        parsed.session_id = data["session_id"]
    for model in as_dict(as_dict(data.get("stats")).get("models")).values():
        if not isinstance(model, dict):
            continue
        tokens = as_dict(model.get("tokens"))
        parsed.input_tokens = add(parsed.input_tokens, tokens.get("prompt"))
        parsed.output_tokens = add(parsed.output_tokens, tokens.get("candidates"))
        api = as_dict(model.get("api"))
        parsed.turns = add(parsed.turns, api.get("totalRequests"))
    error = data.get("error")
    if isinstance(error, dict) and error.get("message"):
        parsed.error = str(error["message"])
    return parsed


class GeminiAgent(CLIAgent):
    name = "gemini"
    program = "gemini"
    install = "npm install -g @google/gemini-cli"
    tested_versions = ("0.61.0", "0.62.0")
    refusals = REFUSALS
    write_fix = ("ralph-verify run gives Gemini CLI --approval-mode auto_edit: drop the "
                 "--agent-arg that overrides it")
    parse = staticmethod(parse_gemini_json)
    transcripts = (("GEMINI_CLI_HOME",), "", ".gemini/tmp/*/chats/session-*-{id:.8}.jsonl")

    def quiet_environment(self, request: AgentRequest) -> dict[str, str]:
        env = {**os.environ, **request.env}
        if env.get("GEMINI_CLI_HOME"):
            return {"GEMINI_TELEMETRY_ENABLED": "false"}
        home = quiet_home(request, Path(env.get("HOME") or Path.home()) / ".gemini")
        return {"GEMINI_TELEMETRY_ENABLED": "false", "GEMINI_CLI_HOME": str(home)}

    def environment(self, request: AgentRequest) -> dict[str, str]:
        # --skip-trust avoids the refusal but loads none of the project's settings (hooks,
        # MCP servers): Gemini reads them before it takes the flag. This trusts the project
        # for the run, as the user's own Gemini does once the folder is trusted.
        if "GEMINI_CLI_TRUST_WORKSPACE" in {**os.environ, **request.env}:
            return {}
        return {"GEMINI_CLI_TRUST_WORKSPACE": "true"}

    def command(self, request: AgentRequest) -> list[str]:
        argv = ["--skip-trust", "--output-format", "json"]
        argv += ["--yolo"] if self.options.bypass_permissions else ["--approval-mode", "auto_edit"]
        if self.options.model:
            argv += ["--model", self.options.model]
        if self.continuing(request):
            argv += ["--resume", self.session_id or "latest"]
        return [*argv, *self.options.extra_args, f"--prompt={request.prompt}"]


def quiet_home(request: AgentRequest, user_dir: Path) -> Path:
    """``.ralph/agent/gemini-home``: the user's ``~/.gemini`` with quiet settings added."""
    home = session_file(request, "gemini-home")
    folder = home / ".gemini"
    folder.mkdir(parents=True, exist_ok=True)
    settings: dict[str, Any] = {}
    if user_dir.is_dir():
        for entry in user_dir.iterdir():
            link = folder / entry.name
            if entry.name in ("settings.json", "tmp") or link.exists() or link.is_symlink():
                continue
            link.symlink_to(entry)
        with contextlib.suppress(OSError, ValueError):
            loaded = json.loads((user_dir / "settings.json").read_text(encoding="utf-8"))
            settings = loaded if isinstance(loaded, dict) else {}
    for section, values in QUIET_SETTINGS.items():
        mine = settings.setdefault(section, {})
        if isinstance(mine, dict):
            for key, value in values.items():
                mine.setdefault(key, value)
    (folder / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    return home


def last_json_object(lines: Iterable[str]) -> dict[str, Any] | None:
    """The last top-level JSON object in the output (pretty-printed or not), or None."""
    text = tail_text(lines)
    decoder = json.JSONDecoder()
    found: dict[str, Any] | None = None
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            found = value
        start = text.find("{", end)
    return found
