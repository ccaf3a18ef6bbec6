"""``cmd:COMMAND``: any command as the agent; its page: scripts/agent_docs/cmd.rst."""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path

from ralph_verify.agents import AgentOptions, AgentRequest, AgentResult
from ralph_verify.agents.limits import from_command
from ralph_verify.agents.runner import OutputSink, run_agent_process

#: The exit status of a shell that could not find the command.
_SHELL_NOT_FOUND = 127
#: The characters of shell operators: a command with one is not a simple command.
_OPERATORS = "();<>|&"


def agent_env(request: AgentRequest) -> dict[str, str]:
    """The environment every agent process gets: ours plus the loop's variables."""
    return {
        **os.environ,
        "RALPH_PROMPT_FILE": str(request.prompt_file),
        "RALPH_ITERATION": str(request.iteration),
        "RALPH_SESSION_DIR": str(request.session_dir),
        **request.env,
    }


def missing_program(command: str, root: Path) -> str | None:
    """The program of a simple command if it is plainly not there, else ``None``: anything
    with shell operators (``a;b``, ``(cd x && y)``, ``a|b``) is left to the shell."""
    try:
        lexer = shlex.shlex(command, posix=os.name != "nt", punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return None
    if not words or "=" in words[0] or any(set(word) <= set(_OPERATORS) for word in words):
        return None
    program = words[0]
    if any(sep in program for sep in ("/", os.sep)):
        found = root / program  # an absolute program stays itself
        runnable = found.is_dir() or os.access(found, os.X_OK)
        return None if found.exists() and runnable else program
    if shutil.which(program) is not None:
        return None
    # Builtins and shell keywords are not on PATH; let the shell decide for those.
    builtins = {"cd", "echo", "exit", "true", "false", "test", "[", "exec", "set", "export",
                "if", "for", "while", "case", "{", "source", ".", "printf", "read"}
    return None if program in builtins else program


def not_found(program: str, command: str, root: Path) -> str:
    """Why a ``cmd:`` agent's program cannot run: not on PATH, or (a path) no such file,
    looked for from the project root, where the agent runs."""
    if "/" in program or os.sep in program:
        if (root / program).exists():
            return (f"agent command {program!r} is not executable: chmod +x {program} "
                    f"(from --agent cmd:{command})")
        return (f"agent command not found: {program!r}: no such file in the project root "
                f"(from --agent cmd:{command}; a relative path is taken from the root)")
    return f"agent command not found: {program!r} is not on PATH (from --agent cmd:{command})"


@functools.lru_cache(maxsize=16)
def syntax_error(command: str) -> str | None:
    """The shell's own complaint if ``command`` is not valid shell (``sh -n``), else
    ``None``; the shell is the parser, not a home-made one."""
    if os.name == "nt":  # pragma: no cover - cmd.exe has no syntax-only mode
        return None
    try:
        checked = subprocess.run(["/bin/sh", "-n", "-c", command], capture_output=True,
                                 text=True, timeout=30, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if checked.returncode == 0:
        return None
    return " ".join(checked.stderr.split()) or f"sh -n exited {checked.returncode}"


class CommandAgent:
    """Runs ``COMMAND`` once per iteration."""

    name = "cmd"

    def __init__(self, command: str, options: AgentOptions) -> None:
        command = command.strip()
        if len(command) >= 2 and command[0] == command[-1] and command[0] in "\"'" \
                and command[0] not in command[1:-1]:  # one quoted word: 'a b', not 'a' 'b'
            command = command[1:-1]
        extra = " ".join(shlex.quote(arg) for arg in options.extra_args)
        self.command = f"{command} {extra}".strip()
        self.root = options.root

    def preflight(self, root: Path | None = None) -> str | None:
        """A broken shell line or a program plainly not there, said before the baseline: as
        the README promises, such a run stops before anything is spent or written."""
        invalid = syntax_error(self.command)
        if invalid is not None:
            return (f"the agent command is not valid shell: {invalid} "
                    f"(from --agent cmd:{self.command})")
        root = root or self.root or Path.cwd()
        missing = missing_program(self.command, root)
        return None if missing is None else not_found(missing, self.command, root)

    def run(self, request: AgentRequest) -> AgentResult:
        started = time.monotonic()
        problem = self.preflight(request.root)
        if problem is not None:
            return AgentResult(exit_code=None, duration_s=0.0, error=problem)
        sink = OutputSink(request.log_path)
        try:
            outcome = run_agent_process(self.command, cwd=request.root, env=agent_env(request),
                                        sink=sink, timeout=request.timeout,
                                        cancel=request.cancel, stdin_path=request.prompt_file,
                                        shell=True, idle_timeout=request.idle_timeout,
                                        wrap=request.sandbox,
                                        wrap_fds=request.sandbox_fds)
        finally:
            sink.close()
        error = None
        if outcome.exit_code == _SHELL_NOT_FOUND and sink.total_bytes < 4096 \
                and "not found" in sink.tail():
            error = f"agent command not found: {self.command!r} ({sink.tail().strip()})"
        idle = outcome.idle
        return AgentResult(exit_code=outcome.exit_code,
                           duration_s=time.monotonic() - started, text=sink.tail(),
                           timed_out=outcome.timed_out, cancelled=outcome.cancelled,
                           error=error, idle_s=request.idle_timeout if idle else None,
                           survivors=outcome.survivors,
                           unavailable=None if idle or outcome.timed_out else
                           from_command(outcome.exit_code, sink.tail()))
