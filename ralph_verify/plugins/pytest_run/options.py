"""The options of the ``tests`` check, read by the plugin and its shared run (:mod:`.shared`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from ralph_verify.config.parser import Bound, CommonOptions


@dataclass(frozen=True)
class TestsOptions(CommonOptions):
    """``[tool.ralph-verify.checks.tests]``; ``args`` also apply when only ``coverage`` runs."""

    __test__ = False  # not a pytest test class, despite the name

    args: list[str] = field(default_factory=list, metadata={
        "help": 'Extra pytest arguments, e.g. ["-q", "tests/unit"] or ["-n", "auto"]'})
    rerun: Annotated[int, Bound(ge=0)] = field(default=5, metadata={
        "help": "Re-run the failed tests once when 1 to N failed; one that passes then is "
                "reported as flaky, not failed (0: never re-run)"})
    select: Literal["auto", "affected", "all"] = field(default="auto", metadata={
        "help": 'In a loop (run, the Stop hook): "affected" runs first only the tests that ran '
                "what changed since the last full run (the functions whose body changed, or "
                "any code of a file changed otherwise), plus those that failed last time and "
                "those of a changed test file; if one fails, that is the verdict, else the "
                "full suite runs and decides (a loop never ends complete on a partial run); "
                '"all": always the full suite; "auto": "affected" when the project\'s Python '
                "is 3.12 or later (sys.monitoring records what each test ran), else \"all\" "
                "(before 3.12 only cProfile can record it, which slows the full runs several "
                'times; "affected" uses it there)'})
    allow: list[str] = field(default_factory=list, metadata={
        "help": 'In a session, globs of test files and settings whose edits count, e.g. '
                '["tests/test_api.py", "tests/data/**"]; the others are judged as they were '
                "at the session's start (docs/integrity.md, the frozen oracle)"})
    flaky: Literal["block", "allow"] = field(default="block", metadata={
        "help": '"block": a test that failed and then passed on the re-run still fails the '
                'check (it failed in this verification); "allow": it counts as passing'})
