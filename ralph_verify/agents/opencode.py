"""``opencode``: OpenCode, headless (``opencode run``). Tested offline with version 1.18.33.

Invocation: ``opencode run --format json --title TITLE -- PROMPT``. The output is one
JSON event per line with ``sessionID``: ``text`` (``part.text``), ``step_finish``
(``part.tokens.input`` / ``output``, ``part.cost``: one per model call) and
``error``. Falls back to the plain text when there are no such events. ``--title``
names the session, which spares the extra model call OpenCode makes to title it.

Quiet: ``OPENCODE_DISABLE_MODELS_FETCH`` (the model list from models.dev, fetched on
every run), ``OPENCODE_DISABLE_AUTOUPDATE`` (the npm registry check),
``OPENCODE_DISABLE_LSP_DOWNLOAD``, ``OPENCODE_DISABLE_SHARE`` and
``OPENCODE_DISABLE_DEFAULT_PLUGINS``, unless the user set them. Not switched off, since
1.18.33 has no setting or variable for it: on every run OpenCode installs
``@opencode-ai/plugin`` into its config folder (``~/.config/opencode``, and each
``.opencode`` folder of the project) from the npm registry of the user's npm
configuration (registry.npmjs.org by default), in the background, unless the folder is
not writable or its ``package-lock.json`` already lists the package (after one install
that succeeded). Offline each attempt fails and the run still completes. Once it is
installed, the offline test run makes no call but the model's
(tests/e2e/test_agents_offline_e2e.py).

Set-up: ``npm install -g opencode-ai@1.18.33``. Your own endpoint is a provider block in
``~/.config/opencode/opencode.json`` (or the project's ``opencode.json``)::

    {"provider": {"mine": {"npm": "@ai-sdk/openai-compatible",
                           "options": {"baseURL": "http://HOST:PORT/v1", "apiKey": "KEY"},
                           "models": {"NAME": {"tool_call": true,
                                               "cost": {"input": 1.0, "output": 2.0}}}}}}

and ``--model mine/NAME``; the ``cost`` (USD per million tokens) is what OpenCode reports
each call's cost from. Without any provider OpenCode falls back to its own service: offline
that fails after about 80 s, read as an ``agent-error`` with this fix. Its tools
refuse to overwrite a file the session has not read.

Permissions: OpenCode's own configuration by default; with ``--yolo``
``--auto`` (approve every request not explicitly denied).
``--continue-session``: ``--session ID`` (``--continue`` when the id is
unknown). ``--model`` takes ``provider/model``.

Hook mode: not possible with 1.18.33, OpenCode has no Stop hook. Its plugins
(``.opencode/plugin/*.js``) transform calls (``chat.params``, ``tool.execute.before`` ...)
and get bus events (``session.idle``) through an ``event`` handler that OpenCode calls
without awaiting it or reading its answer: nothing asks a plugin before the agent stops,
so none can block the stop with feedback. Nor can one continue the session instead: a
plugin that sends a follow-up prompt through its SDK client the moment ``session.idle``
arrives sees the call answered, but the prompt never reaches the model and ``opencode
run`` exits after the first answer (tests/e2e/test_opencode_stop_e2e.py, which fails the day
OpenCode lets it through). Use ``ralph-verify run --agent opencode``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ralph_verify.agents import AgentRequest
from ralph_verify.agents.cli import CLIAgent, Parsed, add, as_dict, number
from ralph_verify.agents.vetting import Refusal, json_lines

QUIET_ENV = {name: "1" for name in (
    "OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_LSP_DOWNLOAD",
    "OPENCODE_DISABLE_SHARE", "OPENCODE_DISABLE_DEFAULT_PLUGINS")}

REFUSALS = (
    Refusal(r"ProviderModelNotFoundError|\bModel not found\b",
            "name a model of a configured provider with --model provider/model (a provider "
            "block in opencode.json gives your own endpoint)"),
    Refusal(r"ProviderInitError|API key is missing",
            "configure a provider in opencode.json (or `opencode auth login`)"),
    # No provider configured: OpenCode falls back to its own service and, offline, cannot
    # reach it (after about 80 s). The user's own endpoint failing is an outage instead.
    Refusal(r"Cannot connect to API.*opencode\.ai/zen",
            "no model provider is configured, so OpenCode tried its own service: add a "
            "provider block for your endpoint to opencode.json and pass --model provider/model"),
)


class OpenCodeAgent(CLIAgent):
    name = "opencode"
    program = "opencode"
    install = "npm install -g opencode-ai"
    tested_versions = ("1.18.33", "1.19.0")
    refusals = REFUSALS

    def quiet_environment(self, request: AgentRequest) -> dict[str, str]:
        return dict(QUIET_ENV)

    def command(self, request: AgentRequest) -> list[str]:
        argv = ["run", "--format", "json", "--title", f"ralph-verify {request.iteration}"]
        if self.options.bypass_permissions:
            argv.append("--auto")
        if self.options.model:
            argv += ["--model", self.options.model]
        if self.continuing(request):
            argv += ["--session", self.session_id] if self.session_id else ["--continue"]
        return [*argv, *self.options.extra_args, "--", request.prompt]

    def parse(self, lines: Iterable[str]) -> Parsed:
        return parse_opencode_events(lines)


def parse_opencode_events(lines: Iterable[str]) -> Parsed:
    parsed = Parsed()
    texts: list[str] = []
    for event in json_lines(lines):
        if isinstance(event.get("sessionID"), str):
            parsed.session_id = event["sessionID"]
        part = as_dict(event.get("part"))
        kind = event.get("type")
        if kind in ("text", "step_start", "step_finish", "tool_use", "error"):
            parsed.structured = True
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "step_finish":
            parsed.turns = add(parsed.turns, 1)
            tokens = as_dict(part.get("tokens"))
            parsed.input_tokens = add(parsed.input_tokens, tokens.get("input"))
            parsed.output_tokens = add(parsed.output_tokens, tokens.get("output"))
            cost = number(part.get("cost"))
            if cost is not None:
                parsed.cost_usd = (parsed.cost_usd or 0.0) + cost
        elif kind == "error":
            error = as_dict(event.get("error")) or part
            message = as_dict(error.get("data")).get("message") or error.get("message")
            parsed.error = str(message or error.get("name") or kind)
    parsed.text = "\n\n".join(texts)
    return parsed
