"""The adapters' output readers on recorded CLI output (tests/data/agents/README.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from ralph_verify.agents.aider import parse_aider_output
from ralph_verify.agents.claude import ClaudeAgent
from ralph_verify.agents.cli import Parsed
from ralph_verify.agents.codex import parse_codex_events
from ralph_verify.agents.copilot import parse_copilot_events, read_usage
from ralph_verify.agents.gemini import parse_gemini_json
from ralph_verify.agents.opencode import parse_opencode_events
from ralph_verify.agents.qwen import parse_qwen_json
from ralph_verify.agents.vetting import json_lines

DATA = Path(__file__).parent.parent / "data" / "agents"


def parse_claude(lines: Iterable[str]) -> Parsed:
    from ralph_verify.agents import AgentOptions

    return ClaudeAgent(None, AgentOptions()).parse(lines)


def read(parser: Callable[[Iterable[str]], Parsed], name: str) -> Parsed:
    with (DATA / name).open(encoding="utf-8", errors="replace") as lines:
        return parser(lines)


def test_claude_stream_json() -> None:
    parsed = read(parse_claude, "claude_stream.jsonl")
    assert parsed.text == "Fixed add(). <promise>COMPLETE</promise>"
    assert (parsed.input_tokens, parsed.output_tokens, parsed.turns) == (25168, 38, 2)
    assert parsed.cost_usd == pytest.approx(0.101432)
    assert parsed.session_id == "a91f36af-adf0-49c8-877f-93c6f2e4758b"
    assert parsed.structured and parsed.error is None


def test_claude_json_array_from_output_format_json() -> None:
    parsed = read(parse_claude, "claude_json_array.json")
    assert parsed.text == "Nothing to do."
    assert (parsed.input_tokens, parsed.output_tokens, parsed.turns) == (12529, 3, 1)
    assert parsed.cost_usd == pytest.approx(0.050176)


def test_claude_api_error() -> None:
    parsed = read(parse_claude, "claude_api_error.jsonl")
    assert parsed.error is not None and parsed.error.startswith("Prompt is too long")
    assert parsed.text == parsed.error  # Claude's own synthetic message, not repeated
    assert parsed.cost_usd == 0.0


def test_claude_truncated_keeps_what_arrived() -> None:
    parsed = read(parse_claude, "claude_truncated.jsonl")
    assert parsed.text == "Fixed add(). <promise>COMPLETE</promise>"
    assert parsed.session_id == "a91f36af-adf0-49c8-877f-93c6f2e4758b"
    assert (parsed.input_tokens, parsed.cost_usd, parsed.turns, parsed.error) == (
        None, None, None, None)


def test_codex_events() -> None:
    parsed = read(parse_codex_events, "codex_events.jsonl")
    assert parsed.text == "Fixed add(). <promise>COMPLETE</promise>"
    assert (parsed.input_tokens, parsed.output_tokens, parsed.turns) == (19975, 26, 1)
    assert parsed.cost_usd is None  # Codex reports none
    assert parsed.session_id == "01a2009e-6bd7-7612-88d0-6ed24ca2b7b7"
    assert parsed.error is None  # the "model metadata not found" item is a warning


def test_codex_api_error_unwraps_the_api_message() -> None:
    parsed = read(parse_codex_events, "codex_api_error.jsonl")
    assert parsed.error == "Invalid 'input': context too long"
    assert parsed.text == "" and parsed.structured


def test_codex_truncated() -> None:
    parsed = read(parse_codex_events, "codex_truncated.jsonl")
    assert parsed.text == "Fixed add(). <promise>COMPLETE</promise>"
    assert (parsed.input_tokens, parsed.turns) == (None, None)


def test_aider_report_lines() -> None:
    parsed = read(parse_aider_output, "aider_output.txt")
    assert (parsed.input_tokens, parsed.output_tokens, parsed.turns) == (875, 22, 1)
    assert parsed.cost_usd == pytest.approx(0.00092)
    assert not parsed.structured and parsed.text == ""  # the output itself is the text


def test_aider_units_cache_and_several_calls() -> None:
    parsed = parse_aider_output([
        "Tokens: 12k sent, 1.2k cache write, 3.4k cache hit, 567 received. "
        "Cost: $0.05 message, $0.05 session.\n",
        "Applied edit to calc.py\n",
        "Tokens: 1.5M sent, 2 received. Cost: $0.07 message, $0.12 session.\n",
    ])
    assert parsed.input_tokens == 12_000 + 1_200 + 3_400 + 1_500_000
    assert (parsed.output_tokens, parsed.turns) == (569, 2)
    assert parsed.cost_usd == pytest.approx(0.12)


def test_aider_api_error() -> None:
    parsed = read(parse_aider_output, "aider_api_error.txt")
    assert parsed.error == "BadRequestError: OpenAIException - context too long"
    assert parsed.turns is None


def test_gemini_json_from_docs() -> None:
    parsed = read(parse_gemini_json, "gemini_docs.json")
    assert parsed.text == "Fixed add() in calc.py. <promise>COMPLETE</promise>"
    assert (parsed.input_tokens, parsed.output_tokens, parsed.turns) == (25939, 140, 4)
    assert parsed.session_id == "c0ffee00-1111-4222-8333-444455556666"
    error = read(parse_gemini_json, "gemini_error_docs.json")
    assert error.error == "Quota exceeded for quota metric" and error.text == ""


def test_qwen_json_array_from_docs() -> None:
    parsed = read(parse_qwen_json, "qwen_docs.json")
    assert parsed.text == "I'll fix add().\n\nDone. <promise>COMPLETE</promise>"
    assert (parsed.input_tokens, parsed.output_tokens, parsed.turns) == (1900, 52, 2)
    assert parsed.session_id == "9a1b2c3d-0000-4000-8000-000000000001"


def test_opencode_events_from_docs() -> None:
    parsed = read(parse_opencode_events, "opencode_docs.jsonl")
    assert parsed.text == "Fixed add(). <promise>COMPLETE</promise>"
    assert (parsed.input_tokens, parsed.output_tokens, parsed.turns) == (24100, 95, 2)
    assert parsed.cost_usd == pytest.approx(0.0156)
    assert parsed.session_id == "ses_3b11bfdcdffeITCXse4fCuIRnU"
    assert read(parse_opencode_events, "opencode_error_docs.jsonl").error == (
        "Rate limit exceeded")


@pytest.mark.parametrize(("parser", "name", "numbers", "session"), [
    (parse_gemini_json, "gemini_run.txt", (20584, 35, None, 2),
     "98786a95-14a5-49da-970a-06548256f517"),
    (parse_qwen_json, "qwen_run.json", (49491, 52, None, 3),
     "f17c9fa8-15cb-48a2-ba60-c6e6b265446e"),
    (parse_opencode_events, "opencode_run.jsonl", (24746, 54, 0.0, 3),
     "ses_dec5f31a6ffejPK5dGem5eMBgG"),
    (parse_copilot_events, "copilot_run.jsonl", (None, None, None, 2),
     "625bb832-0a6d-4ffc-8819-229d72e2fa35"),
], ids=["gemini", "qwen", "opencode", "copilot"])
def test_recorded_real_runs(parser: Callable[[Iterable[str]], Parsed], name: str,
                            numbers: tuple[int | None, int | None, float | None, int],
                            session: str) -> None:
    """Iteration 1 of the offline e2e loop (tests/e2e/test_agents_offline_e2e.py), as logged."""
    parsed = read(parser, name)
    assert parsed.text == "Implemented add()." and parsed.structured and parsed.error is None
    assert (parsed.input_tokens, parsed.output_tokens, parsed.cost_usd, parsed.turns) == numbers
    assert parsed.session_id == session


def test_copilot_usage_file() -> None:
    assert read_usage(DATA / "copilot_usage.json") == (11993, 2)
    assert read_usage(DATA / "garbage.txt") is None
    assert read_usage(DATA / "no-such-file.json") is None


def test_amp_stream_json_from_docs() -> None:
    from ralph_verify.agents import AgentOptions
    from ralph_verify.agents.amp import AmpAgent

    parsed = read(AmpAgent(None, AgentOptions()).parse, "amp_docs.jsonl")
    assert parsed.text == "Fixed add(). <promise>COMPLETE</promise>"
    assert (parsed.input_tokens, parsed.output_tokens, parsed.turns) == (900, 35, 2)
    assert parsed.session_id == "T-7f3c2a10-0000-4000-8000-000000000002"


PARSERS = [parse_claude, parse_codex_events, parse_aider_output, parse_gemini_json,
           parse_qwen_json, parse_opencode_events, parse_copilot_events]


@pytest.mark.parametrize("parser", PARSERS, ids=lambda p: p.__name__)
@pytest.mark.parametrize("name", ["garbage.txt", "claude_stream.jsonl", "codex_events.jsonl",
                                  "aider_output.txt", "gemini_docs.json", "opencode_docs.jsonl",
                                  "copilot_run.jsonl", "qwen_run.json"])
def test_every_reader_survives_any_output(parser: Callable[[Iterable[str]], Parsed],
                                          name: str) -> None:
    """Wrong formats and wrong shapes give no numbers, never a traceback or a bool as a count."""
    parsed = read(parser, name)
    for value in (parsed.input_tokens, parsed.output_tokens, parsed.turns):
        assert value is None or (type(value) is int and value >= 0)
    assert parsed.cost_usd is None or type(parsed.cost_usd) is float
    if name == "garbage.txt":  # events of the right type with bad fields still count as turns
        assert (parsed.input_tokens, parsed.output_tokens, parsed.cost_usd) == (None, None, None)


def test_json_lines_skips_non_json_and_reads_arrays() -> None:
    lines = ['WARNING: x\n', '{"a": 1}\n', '[{"b": 2}, 3]\n', '{"trunc\n', '"str"\n', '[1\n']
    assert list(json_lines(lines)) == [{"a": 1}, {"b": 2}]
