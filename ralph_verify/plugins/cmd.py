"""``cmd:"COMMAND"``: any command; exit code 0 passes (``!cmd:`` passes when it fails)."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, Status, VerifyContext
from ralph_verify.checks.registry import CheckRegistry
from ralph_verify.markers import hookimpl
from ralph_verify.redact import cut


def missing_program(command: str, root: Path) -> str | None:
    """The command's program when it is nowhere to be found (not on ``PATH``, no such file):
    the shell's exit 127 then means the spec is wrong, not the project."""
    try:
        program = shlex.split(command)[0]
    except (ValueError, IndexError):
        return None
    if "=" in program:  # VAR=value cmd: the shell's own words, not a program
        return None
    if "/" in program or os.sep in program:
        return None if (root / program).exists() else program
    return None if shutil.which(program) else program


class CommandCheck(Check):
    cost = 5
    handles_negation = True

    def run(self, ctx: VerifyContext) -> CheckResult:
        command = self.spec.arg or ""
        env = {**os.environ, "RALPH_VERIFY_ROOT": str(ctx.root)}
        run = ctx.run([command], timeout=self.timeout, env=env, shell=True)
        output = run.tail(40)
        missing = missing_program(command, ctx.root) if run.returncode == 127 else None
        if missing is not None:
            return self.error(f"program {missing!r} of {self.spec.text!r} not found (exit "
                              "127): misspelt in the spec, or not installed", output=output)
        code, lines = run.returncode, [line.strip() for line in output.splitlines()]
        last = cut(next((line for line in reversed(lines) if line), ""), 200)
        if self.spec.negated and code != 0:
            return self.result(Status.PASSED, f"exited {code}, as required", metric=code)
        if code == 0 and not self.spec.negated:
            return self.result(Status.PASSED, "exit 0", metric=0)
        summary, what = (("succeeded (exit 0) but must fail", "must fail but succeeded")
                         if self.spec.negated else (f"exit {code}: {last}", f"exited {code}"))
        return self.result(Status.FAILED, summary, metric=code, failures=[Failure(
            message=f"`{command}` {what}: {last}", detail=output, location=command, code="cmd")])


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="cmd", factory=CommandCheck, arg="required", negatable=True,
        arg_help='a shell command, quoted if it has commas: cmd:"make docs"',
        help="a command must exit 0 (!cmd: must exit non-zero); runs in the project root "
             "through the shell, output quoted in the feedback",
    ))
