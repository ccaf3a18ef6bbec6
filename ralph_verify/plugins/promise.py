"""``promise:TEXT``: the agent must print ``<promise>TEXT</promise>``; judged only in a loop."""

from __future__ import annotations

from ralph_verify import hookimpl
from ralph_verify.checks import Check, CheckRegistry, CheckResult, CheckType, Status
from ralph_verify.verification import VerifyContext

DEFAULT_PROMISE = "COMPLETE"


class PromiseCheck(Check):
    cost = 0

    @property
    def text(self) -> str:
        return self.spec.arg or DEFAULT_PROMISE

    def run(self, ctx: VerifyContext) -> CheckResult:
        return self.result(
            Status.SKIPPED,
            f"<promise>{self.text}</promise> is judged only in a loop (ralph-verify run); "
            "skipped here",
        )


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="promise", factory=PromiseCheck, arg="optional",
        arg_help=f"the promise text (default {DEFAULT_PROMISE})",
        help="in a loop, the agent must also print <promise>TEXT</promise> in that iteration; "
             "skipped by 'check'",
    ))
