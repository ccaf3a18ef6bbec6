"""The ``diffcover`` check: the percent of lines changed since a git ref that tests cover.

``diffcover>=90`` passes when at least 90% of the changed lines that coverage
measures were run by a test; ``diffcover`` alone wants all of them. The lines
come from the verification's one shared pytest run (the check sets
``needs_coverage``, so the run goes under coverage; the suite never runs
twice), turned into Cobertura XML by the project's own coverage and compared
with ``git diff REF...`` plus the working tree by diff-cover, whose JSON report
is what this check reads.

The ref is ``diffcover:REF``, else ``compare-branch`` in
``[tool.ralph-verify.checks.diffcover]``, else ``compare_branch`` in the
project's ``[tool.diff_cover]``, else the first of ``origin/main``,
``origin/master``, ``main``, ``master`` that exists, so a fresh local
repository needs no setting.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

import ralph_verify
from ralph_verify import (
    Check,
    CheckOptions,
    CheckRegistry,
    CheckResult,
    CheckType,
    Failure,
    Status,
    ToolRun,
    hookimpl,
)
from ralph_verify_diffcover.report import (
    DiffCoverReport,
    FileStats,
    ReportError,
    line_ranges,
    parse_report,
)

#: The oldest ralph-verify this plugin works with: checked here, at load, instead of a
#: package dependency (ralph-verify is not on an index yet; docs/writing-plugins.md).
REQUIRES = (0, 1)


def _host_version(text: str) -> tuple[int, ...]:
    import re

    return tuple(int(part) for part in re.findall(r"\d+", text)[:2])


if _host_version(ralph_verify.__version__) < REQUIRES:
    raise ImportError(f"ralph-verify-diffcover needs ralph-verify "
                      f"{'.'.join(map(str, REQUIRES))} or later, not {ralph_verify.__version__}")

if TYPE_CHECKING:
    from ralph_verify import VerifyContext

DEFAULT_REFS = ("origin/main", "origin/master", "main", "master")
REF_HINT = ("set the ref to compare with as diffcover:REF in --until or "
            'compare-branch = "REF" in [tool.ralph-verify.checks.diffcover]')
#: Uncovered source lines quoted in a failure's detail.
DETAIL_LINES = 12


class DiffCoverOptions(CheckOptions):
    """``[tool.ralph-verify.checks.diffcover]``."""

    compare_branch: str | None = Field(
        default=None, alias="compare-branch",
        description="git ref whose changes are measured (default: compare_branch of "
                    "[tool.diff_cover], else the first of origin/main, origin/master, main, "
                    "master that exists)",
    )
    include_untracked: bool = Field(
        default=True, alias="include-untracked",
        description="count files git does not track yet (default true: agents often "
                    "create files without 'git add')",
    )
    exclude: list[str] = Field(
        default_factory=list,
        description="glob patterns of changed files to leave out (diff-cover --exclude)",
    )


def _diff_cover_table(root: Path) -> dict[str, Any] | None:
    """The project's ``[tool.diff_cover]`` table, if it has one."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    table = data.get("tool", {}).get("diff_cover")
    return table if isinstance(table, dict) else None


def _quote_lines(path: Path, lines: tuple[int, ...]) -> str:
    """The uncovered lines as ``  12 | source``, so the agent sees them without opening the file."""
    try:
        source = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    shown = [f"{n:>5} | {source[n - 1]}" for n in lines[:DETAIL_LINES] if 0 < n <= len(source)]
    if len(lines) > DETAIL_LINES:
        shown.append(f"      ... and {len(lines) - DETAIL_LINES} more uncovered lines")
    return "\n".join(shown)


class DiffCoverCheck(Check):
    cost = 50
    needs_coverage = True

    @property
    def diffcover_options(self) -> DiffCoverOptions:
        options = self.options
        return options if isinstance(options, DiffCoverOptions) else DiffCoverOptions()

    def run(self, ctx: VerifyContext) -> CheckResult:
        # The git questions come first: a bad ref errors in milliseconds, not after the tests.
        inside = self._git(ctx, "rev-parse", "--is-inside-work-tree")
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            return self.error(
                f"{ctx.root} is not inside a git repository: diffcover measures the lines "
                "changed since a git ref (run 'git init' and commit a baseline, or drop "
                "diffcover from --until)", output=inside.tail())
        table = _diff_cover_table(ctx.root)
        ref, problem = self._compare_ref(ctx, table)
        if ref is None:
            return self.error(problem)

        from ralph_verify import shared_pytest_run  # the pytest plugin, loaded when used

        pytest_run = shared_pytest_run(ctx)
        data = pytest_run.coverage_data
        if data is None or not data.exists():
            return self.error("the pytest run wrote no coverage data, so no changed line can "
                              "be measured (see the pytest output below)",
                              output=pytest_run.tool_run.tail())
        scratch = Path(tempfile.mkdtemp(prefix="diffcover-", dir=ctx.workdir))
        xml = scratch / "coverage.xml"
        converted = ctx.run([pytest_run.python, "-m", "coverage", "xml", f"--data-file={data}",
                             "-o", str(xml), "-i", "--fail-under=0"], timeout=self.timeout)
        if not xml.is_file():
            return self.error(f"'coverage xml' wrote no report (exit {converted.returncode})",
                              output=converted.tail())
        report = self._diff_cover(ctx, xml, ref, scratch / "diff-cover.json",
                                  with_config=table is not None)
        return self._result(ctx, report, ref)

    def _git(self, ctx: VerifyContext, *args: str) -> ToolRun:
        return ctx.run(["git", *args], timeout=self.timeout,
                       missing_hint="diffcover needs git: install it and put it on PATH")

    def _ref_exists(self, ctx: VerifyContext, ref: str) -> bool:
        found = self._git(ctx, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        return found.returncode == 0

    def _compare_ref(self, ctx: VerifyContext,
                     table: dict[str, Any] | None) -> tuple[str | None, str]:
        """The ref to compare with, or ``None`` and why not."""
        configured = [
            (self.spec.arg, f"diffcover:{self.spec.arg} in --until"),
            (self.diffcover_options.compare_branch,
             "compare-branch in [tool.ralph-verify.checks.diffcover]"),
            ((table or {}).get("compare_branch"), "compare_branch in [tool.diff_cover]"),
        ]
        for ref, source in configured:
            if not ref:
                continue
            ref = str(ref)
            if ref.startswith("-") or not self._ref_exists(ctx, ref):
                return None, f"git ref {ref!r} ({source}) does not exist in {ctx.root}; {REF_HINT}"
            return ref, ""
        for ref in DEFAULT_REFS:
            if self._ref_exists(ctx, ref):
                return ref, ""
        return None, (f"no branch to compare with: none of {', '.join(DEFAULT_REFS)} exists in "
                      f"{ctx.root} (is there a commit yet?); {REF_HINT}")

    def _diff_cover(self, ctx: VerifyContext, xml: Path, ref: str, json_path: Path,
                    with_config: bool) -> DiffCoverReport:
        # diff-cover is installed with this plugin, next to ralph-verify, not in the project.
        argv = [sys.executable, "-m", "diff_cover.diff_cover_tool", str(xml),
                f"--compare-branch={ref}", f"--format=json:{json_path}", "--quiet"]
        options = self.diffcover_options
        if options.include_untracked:
            argv.append("--include-untracked")
        if options.exclude:
            argv += ["--exclude", *options.exclude]
        if with_config:
            argv += ["--config-file", str(ctx.root / "pyproject.toml")]
        run = ctx.run(argv, timeout=self.timeout)
        try:
            return parse_report(json_path)
        except ReportError as exc:
            raise ReportError(f"{exc} (diff-cover exited {run.returncode})",
                              output=run.tail()) from None

    def _result(self, ctx: VerifyContext, report: DiffCoverReport, ref: str) -> CheckResult:
        counts = {"changed_lines": report.measured_lines,
                  "uncovered_lines": report.uncovered_lines}
        if report.measured_lines == 0:
            what = ("no changed lines" if report.changed_lines == 0 else
                    f"{report.changed_lines} changed lines, none of them measured by coverage")
            return self.result(Status.PASSED if self.spec.compare(100.0) else Status.FAILED,
                               f"{what} since {ref}: nothing to cover", metric=100.0,
                               counts=counts)
        percent = report.percent
        ok = self.spec.compare(percent) if self.spec.op else report.uncovered_lines == 0
        bad_files = [f for f in report.files if f.uncovered]
        summary = f"{percent:g}% of {report.measured_lines} changed lines covered since {ref}"
        if bad_files:
            summary += (f" ({report.uncovered_lines} not covered in {len(bad_files)} "
                        f"file{'s' if len(bad_files) != 1 else ''})")
        if ok:
            return self.result(Status.PASSED, summary, metric=percent, counts=counts)
        wanted = self.spec.threshold_text() or "100% (every changed line)"
        bad_files.sort(key=lambda f: (-len(f.uncovered), f.path))
        return self.result(Status.FAILED, f"{summary}, wanted {wanted}", metric=percent,
                           counts=counts, failures=[self._failure(ctx, f) for f in bad_files])

    def _failure(self, ctx: VerifyContext, stats: FileStats) -> Failure:
        first = stats.uncovered[0]
        return Failure(
            message=f"changed lines not covered by any test: {line_ranges(stats.uncovered)}",
            location=f"{stats.path}:{first}", path=stats.path, line=first,
            detail=_quote_lines(ctx.root / stats.path, stats.uncovered),
        )


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="diffcover", factory=DiffCoverCheck, arg="optional", options=DiffCoverOptions,
        arg_help="the git ref to compare with (default: compare-branch, else the first of "
                 "origin/main, origin/master, main, master that exists)",
        threshold="percent of the changed lines covered by tests (default: all of them)",
        help="tests must cover the lines changed since a git ref (diff-cover on the coverage "
             "of the one shared pytest run)",
    ))
