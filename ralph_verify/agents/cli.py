"""What every agent-CLI adapter shares: find the program, run it, read what it reports. An
adapter says its command line, environment and how to read its output (pure methods)."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ralph_verify.agents import AgentOptions, AgentRequest, AgentResult
from ralph_verify.agents.cmd import agent_env
from ralph_verify.agents.limits import OUTAGE, RATE_LIMIT, Unavailable, classify
from ralph_verify.agents.runner import OutputSink, run_agent_process
from ralph_verify.agents.vetting import (
    Refusal,
    Refused,
    find_refusal,
    json_lines,
    read_refusal,
    refusal_reader,
    refusal_text,
    version_warning,
)

#: A prompt passed as one argument must stay under the OS limit for one argument
#: (128 KiB on Linux, a 32 K command line on Windows).
MAX_ARGV_PROMPT = 30_000 if os.name == "nt" else 120_000


@dataclass
class Parsed:
    """What a CLI's output told about its run (None: not reported)."""

    text: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    turns: int | None = None
    session_id: str | None = None
    #: The CLI said the run failed (API error, bad arguments...): its message.
    error: str | None = None
    #: The HTTP status of the model API's error, when the CLI reports it.
    status: int | None = None
    #: The output was the CLI's machine format (False: plain text, the text is the output).
    structured: bool = False


def tail_text(lines: Iterable[str], limit: int = 4_000_000) -> str:
    """The last ``limit`` characters of the output (where a final JSON document stands)."""
    kept: deque[str] = deque()
    size = 0
    for line in lines:
        kept.append(line)
        size += len(line)
        while size > limit and len(kept) > 1:
            size -= len(kept.popleft())
    return "".join(kept)


def number(value: Any) -> float | None:
    """``value`` if it is a JSON number (not a boolean), else None: output is never trusted."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def add(total: int | None, value: Any) -> int | None:
    """``total + value`` when ``value`` is a number (None + 3 is 3)."""
    found = number(value)
    return total if found is None else (total or 0) + int(found)


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


class CLIAgent:
    """Base of the adapters for agent CLIs; subclasses set the class attributes."""

    name: ClassVar[str]
    #: The program's usual name on PATH, and how to install it (said when it is missing).
    program: ClassVar[str]
    install: ClassVar[str]
    #: How the prompt reaches the CLI: ``stdin``, ``argv`` (:meth:`command` puts it on the
    #: command line) or ``file`` (:meth:`command` names ``request.prompt_file``).
    prompt_via: ClassVar[str] = "argv"
    #: The versions the adapter was tested with, ``[lowest, below)``; outside: one warning.
    tested_versions: ClassVar[tuple[str, str] | None] = None
    #: Known refusals of this CLI (untrusted folder, not logged in...): read in its output.
    refusals: ClassVar[tuple[Refusal, ...]] = ()
    #: How to let the CLI write when its own sandbox or permission mode refused a write.
    write_fix: ClassVar[str] = ""
    #: The CLI's own switches for telemetry, update checks and model-list fetches: off, so an
    #: iteration calls nothing but the model (the user's environment wins).
    quiet_env: ClassVar[Mapping[str, str]] = {}
    #: Where the CLI keeps its own record of a session: the variables that name its folder (the
    #: first one set), else that folder in the home directory, and the glob of a session's
    #: file in it (``{id}``: the session id).
    transcripts: ClassVar[tuple[tuple[str, ...], str, str] | None] = None
    #: Where the CLI says what its permission mode refused: its ``transcript``, or its own
    #: ``output`` (then read whole by ``NAME_refusal``).
    refusals_in: ClassVar[str] = "transcript"

    def __init__(self, arg: str | None, options: AgentOptions) -> None:
        self.options = options
        self.program_path = arg or self.program
        #: The CLI's session id from the last run (for ``--continue-session``).
        self.session_id: str | None = None
        self.check_options()

    def check_options(self) -> None:
        """Raise :class:`~ralph_verify.UsageError` for options this CLI cannot honour."""

    def command(self, request: AgentRequest) -> list[str]:
        """The arguments after the program (pure: no I/O)."""
        raise NotImplementedError

    def environment(self, request: AgentRequest) -> dict[str, str]:
        """Environment variables the CLI needs on top of the loop's."""
        return {}

    def quiet_environment(self, request: AgentRequest) -> dict[str, str]:
        """:attr:`quiet_env`, and what else the CLI needs for it (a settings file)."""
        return dict(self.quiet_env)

    def parse(self, lines: Iterable[str]) -> Parsed:
        """Read the run's output (stdout and stderr, line by line: a 50 MB log costs no
        memory)."""
        return Parsed()

    def unavailable(self, parsed: Parsed, exit_code: int | None) -> Unavailable | None:
        """Was the run turned away by the model service (rate limit, outage)?"""
        found = classify(parsed.error)
        if parsed.status == 429 or (parsed.status is not None and parsed.status >= 500):
            kind = RATE_LIMIT if parsed.status == 429 else OUTAGE
            message = parsed.error or f"HTTP {parsed.status}"
            return Unavailable(kind, found.message if found else message,
                               found.retry_after_s if found else None)
        return found

    def notes(self, request: AgentRequest) -> list[str]:
        """Lines written at the top of ``agent.log`` (what the adapter did on the user's behalf)."""
        return []

    def continuing(self, request: AgentRequest) -> bool:
        """Continue the CLI's own session this iteration?"""
        return self.options.continue_session and (request.iteration > 1 or bool(self.session_id))

    def missing_message(self) -> str:
        return (f"{self.name}: the program {self.program_path!r} is not on PATH; install it with "
                f"`{self.install}` (or name it: --agent {self.name}:/path/to/{self.program})")

    def preflight(self) -> str | None:
        """Before the session spends anything: the problem that would stop every run, if any;
        a warning for a version outside :attr:`tested_versions` (not for ``NAME:PROGRAM``:
        it may be a wrapper that does not know ``--version``)."""
        executable = shutil.which(self.program_path)
        if executable is None:
            return self.missing_message()
        if self.tested_versions is not None and self.program_path == self.program:
            warning = version_warning(self.name, executable, self.tested_versions)
            if warning:
                print(f"WARNING: {warning}", file=sys.stderr)
        return None

    def tool_output(self, env: Mapping[str, str], parsed: Parsed) -> str:
        """What the agent's tools printed that its own output leaves out (Codex records
        it in its session file only), where refusals are looked for too."""
        return ""

    def transcript(self, env: Mapping[str, str], parsed: Parsed) -> Path | None:
        """The CLI's own record of this run's session (its tool calls and their results)."""
        if self.transcripts is None or not parsed.session_id:
            return None
        names, folder, pattern = self.transcripts
        home = next((Path(env[name]) for name in names if env.get(name)),
                    Path(env.get("HOME") or Path.home()) / folder)
        return max(home.glob(pattern.format(id=parsed.session_id)), default=None)

    def refused_write(self, lines: Iterable[str], env: Mapping[str, str], parsed: Parsed,
                      start: float) -> Refused | None:
        """What the CLI's own sandbox or permission mode refused in this run, or None."""
        if self.refusals_in == "output":
            return refusal_reader(self.name)(json_lines(lines))
        path = self.transcript(env, parsed)
        return read_refusal(self.name, path, start) if path else None

    def run(self, request: AgentRequest) -> AgentResult:
        started = time.monotonic()
        wall_start = time.time()
        env = {**self.quiet_environment(request), **agent_env(request),
               **self.environment(request)}
        executable = shutil.which(self.program_path, path=env.get("PATH"))
        if executable is None:
            return AgentResult(exit_code=None, duration_s=0.0, error=self.missing_message())
        argv = [executable, *self.command(request)]
        if self.prompt_via == "argv" and len(request.prompt.encode("utf-8")) > MAX_ARGV_PROMPT:
            return AgentResult(exit_code=None, duration_s=0.0, error=(
                f"{self.name}: the prompt ({len(request.prompt)} characters) is too long for "
                "a command-line argument; shorten the task or the feedback budget"))
        sink = OutputSink(request.log_path)
        for note in self.notes(request):
            sink.write_text(f"ralph-verify: {note}\n")
        try:
            outcome = run_agent_process(
                argv, cwd=request.root, env=env, sink=sink, timeout=request.timeout,
                cancel=request.cancel, idle_timeout=request.idle_timeout,
                stdin_path=request.prompt_file if self.prompt_via == "stdin" else None,
                wrap=request.sandbox, wrap_fds=request.sandbox_fds)
        finally:
            sink.close()
        with request.log_path.open(encoding="utf-8", errors="replace") as log:
            parsed = self.parse(log)
            log.seek(0)
            write_refused = self.refused_write(log, env, parsed, wall_start - 1)
        if parsed.session_id:
            self.session_id = parsed.session_id
        text = parsed.text if parsed.structured else (parsed.text or sink.tail())
        if parsed.error and parsed.error not in text:
            text = f"{text}\n{self.name} reported an error: {parsed.error}".strip()
        refused = None if outcome.timed_out or outcome.cancelled or outcome.idle else \
            find_refusal(self.name, self.refusals,
                         sink.tail() + self.tool_output(env, parsed), parsed.error)
        return AgentResult(exit_code=outcome.exit_code, duration_s=time.monotonic() - started,
                           text=text, timed_out=outcome.timed_out, cancelled=outcome.cancelled,
                           input_tokens=parsed.input_tokens, output_tokens=parsed.output_tokens,
                           cost_usd=parsed.cost_usd, turns=parsed.turns,
                           session_id=parsed.session_id, error=refused,
                           refused=None if write_refused is None else
                           refusal_text(self.name, write_refused, self.write_fix),
                           idle_s=request.idle_timeout if outcome.idle else None,
                           survivors=outcome.survivors,
                           unavailable=None if outcome.idle or outcome.timed_out
                           else self.unavailable(parsed, outcome.exit_code))


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def session_file(request: AgentRequest, name: str) -> Path:
    """A file of this adapter's own under the session folder (``.ralph/agent/NAME``)."""
    folder = request.session_dir / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def settings_file(request: AgentRequest, name: str, settings: dict[str, Any]) -> str:
    """``settings`` written as JSON to ``.ralph/agent/NAME``; its path."""
    path = session_file(request, name)
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return str(path)
