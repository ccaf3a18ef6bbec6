"""A missing module is often the wrong Python: say which one ran and which others there are
(and which of them have the module), in the detail of a ``No module named 'X'`` failure."""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import replace

from ralph_verify.checks.api import Check, CheckResult, Failure, VerifyContext
from ralph_verify.markers import hookimpl
from ralph_verify.project.interpreter import alternatives, choose, has_module, shown_path

_NO_MODULE = r"No module named '(?P<module>[\w.]+)'"
#: Hint at most this many distinct modules per check (each probe runs the interpreters).
_MAX_MODULES = 3


@hookimpl(wrapper=True, specname="ralph_verify_check")
def missing_module_hint(check: Check, ctx: VerifyContext) -> Generator[
        None, CheckResult | None, CheckResult | None]:
    result = yield
    if result is None or not result.failures:
        return result
    hints: dict[str, str] = {}
    failures: list[Failure] = []
    for failure in result.failures:
        match = re.compile(_NO_MODULE).search(failure.message)
        if match is None or failure.code not in ("ModuleNotFoundError", "ImportError"):
            failures.append(failure)
            continue
        module = match["module"]
        if module not in hints and len(hints) < _MAX_MODULES:
            hints[module] = module_hint(ctx, module)
        hint = hints.get(module)
        failures.append(replace(failure, detail=f"{hint}\n{failure.detail}".strip())
                        if hint else failure)
    result.failures = failures
    return result


def module_hint(ctx: VerifyContext, module: str) -> str:
    """``hint: 'hypothesis' is not installed in .venv/bin/python (3.11.7, project .venv);
    venv/bin/python (3.12.1, project venv) has it: --python venv/bin/python``."""
    chosen = choose(ctx.root, ctx.config.get("python"))
    text = f"hint: {module!r} is not installed in {chosen.describe(ctx.root)}"
    others = alternatives(ctx.root, chosen)
    having = [other for other in others if has_module(other.path, module)]
    if having:
        best = having[0]
        return (f"{text}; {best.describe(ctx.root)} has it: run with "
                f"--python {shown_path(best.path, ctx.root)} (or set python in "
                "[tool.ralph-verify]), or install it in the interpreter above")
    if others:
        listed = ", ".join(other.describe(ctx.root) for other in others)
        return (f"{text}, nor in the others found ({listed}): install it in the "
                "project's environment, or choose another with --python")
    return f"{text}: install it there, or choose another interpreter with --python"
