"""The terminal summary of a verification: one line per check, the feedback, a verdict line."""

from __future__ import annotations

import os
from typing import TextIO

from ralph_verify import hookimpl
from ralph_verify.checks import CheckResult, Status
from ralph_verify.config import Config
from ralph_verify.display import output_stream
from ralph_verify.verification import Verification

_COLOURS = {Status.PASSED: "32", Status.FAILED: "31", Status.ERROR: "35", Status.SKIPPED: "33"}


def _paint(text: str, status: Status, stream: TextIO) -> str:
    if os.environ.get("NO_COLOR") or not (hasattr(stream, "isatty") and stream.isatty()):
        return text
    return f"\x1b[{_COLOURS[status]}m{text}\x1b[0m"


def result_line(result: CheckResult, stream: TextIO, width: int = 10) -> str:
    label = _paint(f"{result.status.value.upper():<7}", result.status, stream)
    metric = ""
    summary = " ".join(result.summary.split())
    return f"{label} {result.spec:<{width}} {summary}{metric}  ({result.duration_s:.2f}s)"


def summary_line(verification: Verification) -> str:
    counts: dict[str, int] = {}
    for result in verification.results:
        counts[result.status.value] = counts.get(result.status.value, 0) + 1
    order = ("failed", "error", "passed", "skipped")
    parts = [f"{counts[key]} {key if key != 'error' else 'errored'}" for key in order
             if key in counts]
    verdict = "PASSED" if verification.passed else "FAILED"
    return f"{verdict}: {', '.join(parts)} in {verification.duration_s:.2f}s"


def python_line(config: Config) -> str:
    """``python: .venv/bin/python (3.11.7, project .venv)``: which Python runs the tests."""
    from ralph_verify.interpreter import choose

    return f"python: {choose(config.root, config.get('python')).describe(config.root)}"


@hookimpl
def ralph_verification_finish(config: Config, verification: Verification) -> None:
    if config.get("quiet"):
        return
    stream = output_stream(config)
    width = max((len(r.spec) for r in verification.results), default=8)
    count = len(verification.results)
    print(f"ralph-verify check · {verification.root} · {count} check{'s' if count != 1 else ''}",
          file=stream)
    print(python_line(config), file=stream)
    for result in verification.results:
        print(result_line(result, stream, width), file=stream)
        for name in result.flaky:
            print(f"        flaky (failed, then passed on re-run): {name}", file=stream)
    if not verification.passed:
        print("\nFeedback\n--------", file=stream)
        print(verification.feedback, file=stream)
    print(f"\n{summary_line(verification)}", file=stream)
