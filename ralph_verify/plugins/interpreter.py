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
        text = f"{text}, nor in the others found ({listed})"
    top = module.partition(".")[0]
    own = [path for folder in (ctx.root, ctx.root / "src")
           for path in (folder / f"{top}.py", folder / top) if path.exists()]
    if own:
        return (f"{text}; the project has {shown_path(str(own[0]), ctx.root)}: install the "
                "project in that interpreter (pip install -e .) or put its folder on the path")
    # Most often a module the tests import and nobody has written yet: never 'pip install' it.
    return (f"{text}, and the project has no {top}.py: if it is the project's own code, it "
            "is not written yet; if it is a dependency, declare it and install it in the "
            "project's environment (or choose another interpreter with --python)")
