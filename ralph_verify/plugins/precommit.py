"""``precommit``: the project's own pre-commit (or prek) hooks, each failing hook a failure.

pre-commit has no machine-readable output: each ``NAME....Failed`` block of its report is read
as one failure. Fixer hooks change files, and fail, as they do in pre-commit."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, Status, VerifyContext
from ralph_verify.checks.registry import CheckRegistry
from ralph_verify.config.parser import CommonOptions, NotEmpty
from ralph_verify.markers import hookimpl
from ralph_verify.proc.process import ToolMissing, head_of_file

#: ``ruff....Failed``, ``nothing to check....(no files to check)Skipped``.
_STATUS = r"^(?P<name>.+?)\.{2,}(?:\([^)]*\))?(?P<status>Passed|Failed|Skipped)$"
_DETAIL_LINES = 60


@dataclass(frozen=True)
class PrecommitOptions(CommonOptions):
    """``[tool.ralph-verify.checks.precommit]``."""

    args: list[str] = field(default_factory=list, metadata={
        "help": "Extra arguments for 'pre-commit run' after '--all-files', e.g. a hook id or "
                "'--hook-stage pre-push'."})
    command: Annotated[list[str], NotEmpty()] | None = field(default=None, metadata={
        "help": "The pre-commit command, e.g. [\"prek\"] (default: pre-commit next to the "
                "project's Python, next to ralph-verify's or on PATH, else prek)."})


#: pre-commit's report is read up to here: a runaway hook cannot flood us.
_MAX_REPORT = 4 * 1024 * 1024


@dataclass
class HookReport:
    """One hook's lines in pre-commit's report: why it failed (exit code, modified files)."""

    name: str
    status: str
    hook_id: str = ""
    reasons: list[str] = field(default_factory=list)
    output: list[str] = field(default_factory=list)

    def why(self) -> str:
        first = next((line.strip() for line in self.output if line.strip()), "")
        text = ", ".join(self.reasons) or "failed"
        return f"{text}: {first[:200]}" if first else text


def parse_report(text: str) -> list[HookReport]:
    """Every hook pre-commit reported on, in order, with the output of the failing ones."""
    hooks: list[HookReport] = []
    for line in text.splitlines():
        match = re.match(_STATUS, line.rstrip())
        if match:
            hooks.append(HookReport(match.group("name").strip(), match.group("status")))
        elif hooks and line.startswith("- hook id: "):
            hooks[-1].hook_id = line[len("- hook id: "):].strip()
        elif hooks and (re.match(r"- exit code: -?\d+\s*$", line)
                        or line.strip() == "- files were modified by this hook"):
            hooks[-1].reasons.append(line.strip()[2:].replace("code:", "code"))
        elif hooks:
            hooks[-1].output.append(line)
    return hooks


class PrecommitCheck(Check):
    cost = 20

    @property
    def precommit_options(self) -> PrecommitOptions:
        assert isinstance(self.options, PrecommitOptions)
        return self.options

    def command(self, ctx: VerifyContext) -> list[str]:
        if self.precommit_options.command:
            return list(self.precommit_options.command)
        try:
            return [ctx.find_tool("pre-commit", package="pre-commit")]
        except ToolMissing:
            import shutil

            prek = shutil.which("prek")
            if prek:
                return [prek]
            raise

    def run(self, ctx: VerifyContext) -> CheckResult:
        if not any((ctx.root / name).is_file()
                   for name in (".pre-commit-config.yaml", ".pre-commit-config.yml")):
            return self.error("no .pre-commit-config.yaml in the project root: nothing to run "
                              "(write one, or drop 'precommit' from --until)")
        argv = [*self.command(ctx), "run", "--all-files", "--color", "never",
                *self.precommit_options.args]
        run = ctx.run(argv, timeout=self.timeout,
                      missing_hint="install it with 'pip install pre-commit' (or prek), or set "
                                   "'command' in [tool.ralph-verify.checks.precommit]")
        hooks = parse_report(head_of_file(run.stdout_path, _MAX_REPORT))
        failed = [hook for hook in hooks if hook.status == "Failed"]
        if run.returncode != 0 and not failed:
            return self.error(f"pre-commit exited {run.returncode} without a failing hook",
                              run.tail(40))
        if not failed:
            ran = sum(hook.status == "Passed" for hook in hooks)
            return self.result(Status.PASSED, f"{ran} hook{'s' if ran != 1 else ''} passed",
                               metric=0)
        failures = [
            Failure(message=f"pre-commit hook {hook.hook_id or hook.name} failed: {hook.why()}",
                    location=hook.hook_id or hook.name,
                    detail="\n".join(hook.output[:_DETAIL_LINES]).strip(),
                    code=hook.hook_id or hook.name)
            for hook in failed
        ]
        names = ", ".join(hook.hook_id or hook.name for hook in failed)
        return self.result(Status.FAILED,
                           f"{len(failed)} of {len(hooks)} hooks failed: {names}",
                           metric=len(failed), failures=failures)


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="precommit", factory=PrecommitCheck, options=PrecommitOptions,
        help="the project's pre-commit (or prek) hooks pass: 'pre-commit run --all-files', "
             "each failing hook a failure with its output (fixer hooks change files, as in "
             "pre-commit)",
    ))
