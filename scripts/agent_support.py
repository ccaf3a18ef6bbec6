"""What each agent CLI is proved to do, and the test that proves it: docs/agents/index.md's table.

Every cell that claims something names the test (``FILE::TEST[ID]``) that would fail if
the claim stopped being true; ``tests/agents/test_agent_support.py`` checks that each named
test exists, runs the real CLI (marked ``agents_e2e``) and that the tested version is the
one the tests install. A "no" backed by a test is written ``no:FILE::TEST`` (the test fails
if the CLI starts to do it, e.g. reports a cost); a bare "no" is a feature the CLI lacks
or ralph-verify does not use, said in the note.
"""

from __future__ import annotations

from dataclasses import dataclass

OFFLINE = "tests/e2e/test_agents_offline_e2e.py::test_cli_loop_offline"
E2E = "tests/e2e/test_agents_e2e.py"
HOOKS = "tests/e2e/test_qwen_gemini_hook_e2e.py"


@dataclass(frozen=True)
class Support:
    """One row: ``None`` where the CLI has no such feature (or it is not tested)."""

    cli: str
    version: str | None
    run: str | None
    stop_hook: str | None
    resume: str | None
    cost: str | None
    note: str = ""


ROWS: dict[str, Support] = {
    "claude": Support("Claude Code", "2.1.330",
                      f"{E2E}::test_claude_two_iterations[fresh-default-permissions]",
                      "tests/e2e/test_claude_hooks_e2e.py::"
                      "test_stop_hook_drives_claude_until_the_tests_pass",
                      f"{E2E}::test_claude_two_iterations[continue-session-yolo]",
                      "tests/agents/test_parsers.py::test_claude_stream_json"),
    "codex": Support("Codex", "0.169.0",
                     f"{E2E}::test_codex_two_iterations[fresh-default-permissions]",
                     "tests/e2e/test_codex_hook_e2e.py::"
                     "test_codex_stop_hook_blocks_until_the_tests_pass",
                     f"{E2E}::test_codex_two_iterations[continue-session-yolo]",
                     f"no:{E2E}::test_codex_two_iterations[fresh-default-permissions]",
                     "Codex reports tokens, no cost"),
    "aider": Support("aider", "0.86.2", f"{E2E}::test_aider_two_iterations[no-price-list]",
                     None, None, f"{E2E}::test_aider_two_iterations[no-price-list]",
                     "aider has no hook; resume is aider's chat history, not tested"),
    "gemini": Support("Gemini CLI", "0.61.0", f"{OFFLINE}[gemini]",
                      f"{HOOKS}::test_gemini_after_agent_hook_blocks_until_the_tests_pass",
                      f"{OFFLINE}[gemini]", f"no:{OFFLINE}[gemini]",
                      "Stop hook: Gemini's AfterAgent; Gemini reports no cost"),
    "qwen": Support("Qwen Code", "0.24.4", f"{OFFLINE}[qwen]",
                    f"{HOOKS}::test_qwen_stop_hook_blocks_until_the_tests_pass",
                    f"{OFFLINE}[qwen]", f"no:{OFFLINE}[qwen]", "Qwen reports no cost"),
    "opencode": Support("OpenCode", "1.18.33", f"{OFFLINE}[opencode]",
                        "no:tests/e2e/test_opencode_stop_e2e.py::"
                        "test_a_plugin_cannot_continue_opencode_run_at_session_idle",
                        f"{OFFLINE}[opencode]", f"{OFFLINE}[opencode]",
                        "OpenCode has no Stop hook: a plugin's session.idle event is not "
                        "awaited, and its follow-up prompt never reaches the model"),
    "copilot": Support("Copilot CLI", "1.0.102", f"{OFFLINE}[copilot]",
                       "tests/e2e/test_copilot_hook_e2e.py::"
                       "test_copilot_agent_stop_hook_blocks_until_the_tests_pass",
                       f"{OFFLINE}[copilot]", f"no:{OFFLINE}[copilot]",
                       "Stop hook: Copilot's agentStop (.github/hooks, a trusted folder); "
                       "it reports premium requests, no cost"),
    "amp": Support("Amp", None, None, None, None, None,
                   "not tested offline: Amp talks only to its own service"),
}


#: What docs/agents/NAME.md tells a user to type for ``run``: gen_docs.py writes it on the
#: page and tests/e2e/test_docs_agents_e2e.py runs it as written with the real CLI offline
#: (every CLI but Amp, which talks only to its own service).
RUN_MODE: dict[str, str] = {
    name: f"ralph-verify run --agent {name} --until tests 'make the tests pass'"
    for name in ROWS}
# Without a model Gemini CLI's router spends a model call on every turn to pick one.
RUN_MODE["gemini"] = ("ralph-verify run --agent gemini --model gemini-2.5-pro --until tests "
                      "'make the tests pass'")


def cell(value: str | None, yes: str = "yes") -> str:
    """A table cell: the claim linked to its test, or "no"."""
    if value is None:
        return "no"
    if value.startswith("no:"):
        return cell(value[3:], "no")
    path, _, test = value.partition("::")
    return f"{yes} ([test](../../{path}): `{test}`)"


def table() -> list[str]:
    """The Markdown table of docs/agents/index.md."""
    lines = ["| agent | CLI | tested version | run | Stop hook | session resume | cost "
             "reported | note |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, row in ROWS.items():
        lines.append(
            f"| [`{name}`]({name}.md) | {row.cli} | {row.version or 'not tested'} | "
            f"{cell(row.run)} | {cell(row.stop_hook)} | {cell(row.resume)} | "
            f"{cell(row.cost)} | {row.note} |")
    return lines
