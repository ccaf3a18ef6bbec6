"""``replay:DIR``: a scripted agent for tests, demos and offline use.
Its page: scripts/agent_docs/replay.rst (docs/agents/replay.md)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ralph_verify.agents import AgentOptions, AgentRequest, AgentResult
from ralph_verify.agents.cmd import agent_env
from ralph_verify.agents.runner import OutputSink, run_agent_process
from ralph_verify.errors import UsageError


class ReplayAgent:
    """Replays the scripted steps of a folder, one set per iteration."""

    name = "replay"

    def __init__(self, folder: str, options: AgentOptions) -> None:
        path = Path(folder).expanduser().resolve()
        if not path.is_dir():
            raise UsageError(f"--agent replay:{folder}: no such folder (it holds 001.patch, "
                             "001.py, 001.txt, 002... one set per iteration)")
        self.folder = path

    def run(self, request: AgentRequest) -> AgentResult:
        started = time.monotonic()
        stem = self.folder / f"{request.iteration:03d}"
        sink = OutputSink(request.log_path)
        exit_code: int | None = 0
        timed_out = cancelled = False
        steps: list[list[str]] = []
        if stem.with_suffix(".patch").is_file():
            steps.append(["git", "apply", "--whitespace=nowarn",
                          str(stem.with_suffix(".patch"))])
        if stem.with_suffix(".py").is_file():
            steps.append([sys.executable, str(stem.with_suffix(".py"))])
        try:
            for argv in steps:
                remaining = request.timeout - (time.monotonic() - started)
                try:
                    outcome = run_agent_process(argv, cwd=request.root, env=agent_env(request),
                                                sink=sink, timeout=max(remaining, 0.0),
                                                cancel=request.cancel, wrap=request.sandbox,
                                                wrap_fds=request.sandbox_fds)
                except FileNotFoundError:
                    return AgentResult(exit_code=None, duration_s=time.monotonic() - started,
                                       error=f"replay: {argv[0]} not found")
                exit_code, timed_out, cancelled = (outcome.exit_code, outcome.timed_out,
                                                   outcome.cancelled)
                if exit_code != 0:
                    break
            else:
                reply = stem.with_suffix(".txt")
                if reply.is_file():
                    sink.write_text(reply.read_text(encoding="utf-8"))
        finally:
            sink.close()
        return AgentResult(exit_code=exit_code, duration_s=time.monotonic() - started,
                           text=sink.tail(), timed_out=timed_out, cancelled=cancelled)
