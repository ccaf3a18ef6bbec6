"""``promise:TEXT``: the agent must print ``<promise>TEXT</promise>`` in that iteration;
judged only in a loop, ``check`` skips it."""

from __future__ import annotations

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, Status, VerifyContext
from ralph_verify.checks.registry import CheckRegistry
from ralph_verify.config.stash import PROMISES_KEY
from ralph_verify.markers import hookimpl

DEFAULT_PROMISE = "COMPLETE"


class PromiseCheck(Check):
    cost = 0
    has_baseline = False  # a promise is made (or not) in each iteration anew

    @property
    def text(self) -> str:
        return self.spec.arg or DEFAULT_PROMISE

    def run(self, ctx: VerifyContext) -> CheckResult:
        # The loop puts the promises the agent printed in this iteration here
        # (ralph_verify.config.stash.PROMISES_KEY); outside a loop there are none to judge.
        promised = ctx.config.stash.get(PROMISES_KEY)
        tag = f"<promise>{self.text}</promise>"
        if promised is None:
            return self.result(Status.SKIPPED,
                               f"{tag} is judged only in a loop (ralph-verify run); skipped here")
        if self.text in promised:
            return self.result(Status.PASSED, f"the agent printed {tag}")
        return self.result(Status.FAILED, f"the agent did not print {tag} in this iteration",
                           failures=[Failure(message=f"print {tag} (on a line of its own) once "
                                                     "the work is done and every check passes",
                                             code="promise")])


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="promise", factory=PromiseCheck, arg="optional",
        arg_help=f"the promise text (default {DEFAULT_PROMISE})",
        help="in a loop, the agent must also print <promise>TEXT</promise> in that iteration; "
             "skipped by 'check'",
    ))
