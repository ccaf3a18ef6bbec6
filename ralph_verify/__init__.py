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
    from ralph_verify.config.check_options import CheckOptions
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

#: Module -> the public names it defines, each imported when it is first used.
_DEFINED_IN = {
    "ralph_verify.agents": "Agent AgentOptions AgentRegistry AgentRequest AgentResult AgentType",
    "ralph_verify.agents.limits": "Unavailable",
    "ralph_verify.config.check_options": "CheckOptions",
    "ralph_verify.checks.api": "Check CheckResult CheckType Failure Status VerifyContext",
    "ralph_verify.checks.registry": "CheckRegistry",
    "ralph_verify.config": "Config",
    "ralph_verify.config.parser": "Command CommonOptions Option Parser Setting",
    "ralph_verify.fleet.executor": "Executor ExecutorRegistry ExecutorType FleetContext",
    "ralph_verify.fleet.job": "JobResult LoopJob run_job",
    "ralph_verify.loop.session": "Iteration Session",
    "ralph_verify.loop.settings": "SessionSettings",
    "ralph_verify.api": "Loop LoopResult",
    # The one shared pytest run of a verification, for checks that read its coverage
    # (as pytest's face exports MonkeyPatch from its built-in plugin).
    "ralph_verify.plugins.pytest_run": "PytestRun shared_pytest_run",
    "ralph_verify.proc.process": "ToolError ToolRun",
    "ralph_verify.config.scaffold": "FileChange InitRegistry InitTarget apply_changes",
    "ralph_verify.exitcode": "ExitCode",
    # markers imports pluggy: the console entry puts the user's PYTHONPATH after our own
    # packages before anything imports it (ralph_verify.cli.console_main).
    "ralph_verify.markers": "hookimpl",
    "ralph_verify.cli": "main",
    "ralph_verify.config.stash": "Stash StashKey",
    "ralph_verify.config.until": "CheckSpec",
    "ralph_verify.loop.verdict": "Verdict VerdictProposal",
    "ralph_verify.checks.verification": "Verification",
    "ralph_verify.tasks.state": "TaskRecord TasksState",
}
_LAZY = {name: module for module, names in _DEFINED_IN.items() for name in names.split()}

__all__ = [
    "Agent", "AgentOptions", "AgentRegistry", "AgentRequest", "AgentResult", "AgentType",
    "Check", "CheckOptions", "CheckRegistry", "CheckResult", "CheckSpec", "CheckType",
    "Command", "CommonOptions", "Config", "ConfigError", "Executor", "ExecutorRegistry",
    "ExecutorType", "ExitCode", "Failure", "FileChange", "FleetContext", "InitRegistry",
    "InitTarget", "Iteration", "JobResult", "Loop", "LoopJob", "LoopResult", "Option",
    "Parser", "PytestRun", "Session", "SessionSettings", "Setting", "Stash", "StashKey",
    "Status", "TaskRecord", "TasksState", "ToolError", "ToolRun", "Unavailable", "UsageError",
    "Verdict", "VerdictProposal", "Verification", "VerifyContext", "__version__",
    "apply_changes", "hookimpl", "main", "run_job", "shared_pytest_run",
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
