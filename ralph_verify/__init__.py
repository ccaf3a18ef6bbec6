"""ralph-verify: run AI coding agents in a loop until the work is verifiably done.

The public face: every name in ``__all__`` is supported, and everything a hook receives or
returns is among them. Names load on first use (PEP 562), so importing the package is cheap."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from typing import Any

    from ralph_verify.agents import (
        Agent,
        AgentOptions,
        AgentRegistry,
        AgentRequest,
        AgentResult,
        AgentType,
    )
    from ralph_verify.agents.limits import Unavailable
    from ralph_verify.api import Loop, LoopResult
    from ralph_verify.checks.api import (
        Check,
        CheckOptions,
        CheckResult,
        CheckType,
        Failure,
        Status,
        VerifyContext,
    )
    from ralph_verify.checks.registry import CheckRegistry
    from ralph_verify.checks.verification import Verification
    from ralph_verify.cli import main
    from ralph_verify.config import Config
    from ralph_verify.config.parser import Command, CommonOptions, Option, Parser, Setting
    from ralph_verify.config.scaffold import FileChange, InitRegistry, InitTarget, apply_changes
    from ralph_verify.config.stash import Stash, StashKey
    from ralph_verify.config.until import CheckSpec
    from ralph_verify.exitcode import ExitCode
    from ralph_verify.fleet.executor import (
        Executor,
        ExecutorRegistry,
        ExecutorType,
        FleetContext,
    )
    from ralph_verify.fleet.job import JobResult, LoopJob, run_job
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.loop.settings import SessionSettings
    from ralph_verify.loop.verdict import Verdict, VerdictProposal
    from ralph_verify.markers import VERSION as __version__
    from ralph_verify.markers import hookimpl
    from ralph_verify.plugins.pytest_run import PytestRun, shared_pytest_run
    from ralph_verify.proc.process import ToolError, ToolRun
    from ralph_verify.tasks.state import TaskRecord, TasksState

#: Public name -> the module that defines it, imported when the name is first used.
_LAZY = {
    **dict.fromkeys(("Agent", "AgentOptions", "AgentRegistry", "AgentRequest", "AgentResult",
                     "AgentType"), "ralph_verify.agents"),
    "Unavailable": "ralph_verify.agents.limits",
    "CheckOptions": "ralph_verify.config.check_options",
    **dict.fromkeys(("Check", "CheckResult", "CheckType", "Failure", "Status", "VerifyContext"),
                    "ralph_verify.checks.api"),
    "CheckRegistry": "ralph_verify.checks.registry",
    "Config": "ralph_verify.config",
    **dict.fromkeys(("Command", "CommonOptions", "Option", "Parser", "Setting"),
                    "ralph_verify.config.parser"),
    **dict.fromkeys(("Executor", "ExecutorRegistry", "ExecutorType", "FleetContext"),
                    "ralph_verify.fleet.executor"),
    **dict.fromkeys(("JobResult", "LoopJob", "run_job"), "ralph_verify.fleet.job"),
    **dict.fromkeys(("Iteration", "Session"), "ralph_verify.loop.session"),
    "SessionSettings": "ralph_verify.loop.settings",
    **dict.fromkeys(("Loop", "LoopResult"), "ralph_verify.api"),
    # The one shared pytest run of a verification, for checks that read its coverage
    # (as pytest's face exports MonkeyPatch from its built-in plugin).
    **dict.fromkeys(("PytestRun", "shared_pytest_run"), "ralph_verify.plugins.pytest_run"),
    **dict.fromkeys(("ToolError", "ToolRun"), "ralph_verify.proc.process"),
    **dict.fromkeys(("FileChange", "InitRegistry", "InitTarget", "apply_changes"),
                    "ralph_verify.config.scaffold"),
    "ExitCode": "ralph_verify.exitcode",
    # markers imports pluggy: the console entry puts the user's PYTHONPATH after our own
    # packages before anything imports it (ralph_verify.cli.console_main).
    "hookimpl": "ralph_verify.markers",
    "main": "ralph_verify.cli",
    **dict.fromkeys(("Stash", "StashKey"), "ralph_verify.config.stash"),
    "CheckSpec": "ralph_verify.config.until",
    **dict.fromkeys(("Verdict", "VerdictProposal"), "ralph_verify.loop.verdict"),
    "Verification": "ralph_verify.checks.verification",
    **dict.fromkeys(("TaskRecord", "TasksState"), "ralph_verify.tasks.state"),
}

__all__ = [
    "Agent",
    "AgentOptions",
    "AgentRegistry",
    "AgentRequest",
    "AgentResult",
    "AgentType",
    "Check",
    "CheckOptions",
    "CheckRegistry",
    "CheckResult",
    "CheckSpec",
    "CheckType",
    "Command",
    "CommonOptions",
    "Config",
    "ConfigError",
    "Executor",
    "ExecutorRegistry",
    "ExecutorType",
    "ExitCode",
    "Failure",
    "FileChange",
    "FleetContext",
    "InitRegistry",
    "InitTarget",
    "Iteration",
    "JobResult",
    "Loop",
    "LoopJob",
    "LoopResult",
    "Option",
    "Parser",
    "PytestRun",
    "Session",
    "SessionSettings",
    "Setting",
    "Stash",
    "StashKey",
    "Status",
    "TaskRecord",
    "TasksState",
    "ToolError",
    "ToolRun",
    "Unavailable",
    "UsageError",
    "Verdict",
    "VerdictProposal",
    "Verification",
    "VerifyContext",
    "__version__",
    "apply_changes",
    "hookimpl",
    "main",
    "run_job",
    "shared_pytest_run",
]


if not TYPE_CHECKING:  # hidden from type checkers, so a misspelt import is an error there

    def __getattr__(name: str) -> Any:
        """Import a public name on first use, so ``--version`` and ``--help`` stay fast."""
        if name == "__version__":
            from ralph_verify.markers import VERSION

            return VERSION
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'ralph_verify' has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # the next lookup is a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
