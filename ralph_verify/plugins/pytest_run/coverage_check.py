"""``coverage`` (alias ``cov``): total coverage of the shared pytest run, and where it is low,
read with ``coverage json`` and the project's own coverage config."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ralph_verify.checks.api import Check, CheckResult, Failure, Status

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext
    from ralph_verify.plugins.pytest_run.shared import PytestRun
    from ralph_verify.proc.process import ToolRun


class CoverageCheck(Check):
    """``coverage>=N``: total coverage of the shared run, as ``coverage report`` prints it."""

    cost = 100
    uses_python = True
    needs_coverage = True
    cacheable = True

    def run(self, ctx: VerifyContext) -> CheckResult:
        import json

        from ralph_verify.plugins.pytest_run.shared import EXIT_NO_TESTS, shared_pytest_run

        run = shared_pytest_run(ctx)
        if run.partial:
            return self.result(Status.SKIPPED, "not judged: only the affected tests ran, and "
                               "one failed (coverage is judged on full runs)",
                               counts={"partial": 1})
        if run.coverage_data is None:  # only if a plugin replaced the shared run
            return self.error("the shared pytest run was not under coverage")
        out = run.coverage_data.with_name("coverage.json")
        report = coverage_json(ctx, run, self.timeout)
        # coverage exits 2 when the project's own fail_under is not met; the file is written.
        if report.returncode not in (0, 2) or not out.exists():
            if "No data to report" in report.tail():
                why = ("pytest collected no tests" if run.tool_run.returncode == EXIT_NO_TESTS
                       else "the tests ran no measured code (check [run] source in the "
                            "coverage config)")
                return self.error(f"coverage has no data to report: {why}",
                                  output=run.tool_run.tail())
            return self.error(f"'coverage json' failed (exit {report.returncode})",
                              output=report.tail())
        try:
            data = json.loads(out.read_text(encoding="utf-8"))
            totals = data["totals"]
            display = str(totals.get("percent_covered_display")
                          or f"{float(totals['percent_covered']):.0f}")
            metric = float(display)
            files = data.get("files", {})
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            return self.error(f"'coverage json' wrote an unreadable report: {exc}")
        counts = {"statements": int(totals.get("num_statements", 0)),
                  "missing": int(totals.get("missing_lines", 0)), "files": len(files)}
        if self.spec.op is not None and self.spec.threshold is not None:
            passed = self.spec.compare(metric)
            summary = f"{display}%{self.spec.relation(passed)}"
        else:
            passed = report.returncode != 2
            summary = (f"{display}% covered" if passed
                       else f"{display}% is below the project's fail_under")
        failures = [] if passed else least_covered(files)
        return self.result(Status.PASSED if passed else Status.FAILED, summary, metric=metric,
                           counts=counts, failures=failures)


def coverage_json(ctx: VerifyContext, run: PytestRun, timeout: float) -> ToolRun:
    """``coverage json`` of ``run``'s data into ``coverage.json`` beside it, once per
    verification (the coverage check and integrity both read it)."""
    from ralph_verify.plugins.pytest_run.shared import pytest_env

    assert run.coverage_data is not None
    out = run.coverage_data.with_name("coverage.json")
    # Under the frozen oracle the agent's new test modules ran apart: the judging tree has no
    # source for them, and they are no product code (-i: leave them out).
    frozen = ["-i"] if run.oracle is not None and run.oracle.frozen else []
    argv = [run.python, "-m", "coverage", "json", f"--data-file={run.coverage_data}", "-o",
            str(out), *frozen]
    return ctx.shared(f"coverage json {out}", lambda: ctx.run(
        argv, timeout=timeout, env=pytest_env(ctx), cwd=run.cwd))


def least_covered(files: dict[str, Any], limit: int = 10) -> list[Failure]:
    """Failures for the ``limit`` least-covered files, with their missing line ranges."""
    def percent(path: str) -> float:
        return float(files[path].get("summary", {}).get("percent_covered", 100.0))

    low = sorted((path for path in files if percent(path) < 100.0),
                 key=lambda path: (percent(path), -len(files[path].get("missing_lines", [])), path))
    failures = []
    for path in low[:limit]:
        info = files[path]
        display = info.get("summary", {}).get("percent_covered_display") or f"{percent(path):.0f}"
        missing = [int(n) for n in info.get("missing_lines", [])]
        if missing:
            statements = sorted({*missing, *(int(n) for n in info.get("executed_lines", []))})
            what = f"missing {line_ranges(statements, missing)}"
        else:
            branches = sorted({int(pair[0]) for pair in info.get("missing_branches", [])})
            what = f"partial branches at {line_ranges(branches, branches)}"
        failures.append(Failure(message=f"{path}: {display}% — {what}", location=path,
                                path=path, line=missing[0] if missing else None,
                                code="coverage"))
    return failures


def line_ranges(statements: list[int], missing: list[int], max_chars: int = 200) -> str:
    """``12-15, 30`` as ``coverage report`` shows them: runs of missing statements."""
    wanted = set(missing)
    runs: list[tuple[int, int]] = []
    start: int | None = None
    end = 0
    for number in statements:
        if number in wanted:
            start = number if start is None else start
            end = number
        elif start is not None:
            runs.append((start, end))
            start = None
    if start is not None:
        runs.append((start, end))
    text = ""
    for index, (first, last) in enumerate(runs):
        part = str(first) if first == last else f"{first}-{last}"
        if len(text) + len(part) > max_chars:
            return f"{text}, ... ({len(runs) - index} more)"
        text = f"{text}, {part}" if text else part
    return text
