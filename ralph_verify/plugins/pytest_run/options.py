"""The options of the ``tests`` and ``coverage`` checks (pytest, coverage.py).

Apart from the plugin so that registering its checks imports no pydantic: the check type names
this module lazily (``options="ralph_verify.plugins.pytest_run.options:TestsOptions"``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ralph_verify.config.check_options import CheckOptions

__all__ = ["CoverageOptions", "TestsOptions"]


class TestsOptions(CheckOptions):
    """``[tool.ralph-verify.checks.tests]``; ``args`` also apply when only ``coverage`` runs."""

    __test__ = False  # not a pytest test class, despite the name

    args: list[str] = Field(
        default_factory=list,
        description='Extra pytest arguments, e.g. ["-q", "tests/unit"] or ["-n", "auto"]',
    )
    rerun: int = Field(
        default=5, ge=0,  # pytest_shared.DEFAULT_RERUN, read there without a table
        description="Re-run the failed tests once when 1 to N failed; one that passes then "
                    "is reported as flaky, not failed (0: never re-run)",
    )
    select: Literal["auto", "affected", "all"] = Field(
        default="auto",
        description='In a loop (run, the Stop hook): "affected" runs first only the tests that '
                    "ran what changed since the last full run (the functions whose body "
                    "changed, or any code of a file changed otherwise), plus those that failed "
                    "last time and those of a changed test file; if one fails, that is the "
                    "verdict, else the full suite runs and decides (a loop never ends complete "
                    'on a partial run); "all": always the full suite; "auto": "affected" when '
                    "the project's Python is 3.8 or later (the full runs record what each "
                    "test ran at a few percent of their time: sys.monitoring on 3.12 and "
                    "later, marks compiled into the project's code before), else \"all\"",
    )
    flaky: Literal["block", "allow"] = Field(
        default="block",  # pytest_shared.DEFAULT_FLAKY
        description='"block": a test that failed and then passed on the re-run still fails '
                    'the check (it failed in this verification); "allow": it counts as passing',
    )


class CoverageOptions(CheckOptions):
    """``[tool.ralph-verify.checks.coverage]``: the common options only."""
