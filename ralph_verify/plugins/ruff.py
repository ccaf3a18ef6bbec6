"""``lint`` (``ruff check``) and ``format`` (``ruff format --check``), read from ruff's JSON.

Both run in the project root, so ruff finds the project's own configuration as by hand;
``lint`` never writes to the tree, whatever ``fix`` the settings or ``args`` say."""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, VerifyContext
from ralph_verify.checks.registry import CheckRegistry
from ralph_verify.checks.tool_output import (
    clip_tail,
    count_summary_of,
    head,
    load_json,
    relative_path,
)
from ralph_verify.config.parser import CommonOptions, NotEmpty
from ralph_verify.markers import hookimpl
from ralph_verify.proc.process import ToolError, ToolRun, head_of_file
from ralph_verify.redact import cut

#: Violations kept as failures (with location and message); the counts cover all of them.
MAX_KEPT = 5000
#: Files whose ``ruff format --diff`` excerpt goes into the feedback; more would be cut anyway.
DIFF_FILES = 10
DIFF_LINES = 14


@dataclass(frozen=True)
class RuffOptions(CommonOptions):
    """``[tool.ralph-verify.checks.lint]`` and ``[tool.ralph-verify.checks.format]``."""

    args: list[str] = field(default_factory=list, metadata={
        "help": "Extra arguments for ruff after ralph-verify's own, e.g. paths to check or "
                "--select/--exclude options."})
    command: Annotated[list[str], NotEmpty()] | None = field(default=None, metadata={
        "help": "The ruff command, e.g. [\"uvx\", \"ruff\"] (default: ruff next to the "
                "project's Python, next to ralph-verify's, or on PATH)."})


_WOULD_REFORMAT = r"^Would reformat: (?P<path>.+)$"
_PARSE_ERROR = (r"^error: Failed to parse (?P<path>.+?):(?P<line>\d+):(?P<col>\d+): "
                r"(?P<message>.*)$")


def _entry_failure(entry: dict[str, Any], root: Path, what: str, *,
                   message: str | None = None) -> Failure:
    filename, text = entry.get("filename"), entry.get("message")
    location = entry.get("location") or {}
    if not isinstance(filename, str) or not isinstance(text, str) or not isinstance(location,
                                                                                    dict):
        raise ToolError(f"{what} output has a violation without filename, message or "
                        f"location: {json.dumps(entry)[:300]}")
    # Syntax errors have code null in ruff 0.5-0.12 and "invalid-syntax" since.
    code = str(entry.get("code") or entry.get("name") or "invalid-syntax")
    path = relative_path(filename, root)
    row, column = location.get("row"), location.get("column")
    where = path
    if entry.get("cell") is not None:
        where += f":cell {entry['cell']}"
    if isinstance(row, int):
        where += f":{row}" + (f":{column}" if isinstance(column, int) else "")
    # ruff's fix suggestion, if it has one (the rule's URL is left out: it costs budget).
    fix = entry.get("fix")
    detail = (f"fix ({fix.get('applicability') or 'available'}): "
              f"{fix.get('message') or 'ruff can fix this'}" if isinstance(fix, dict) else "")
    return Failure(message=message or f"{code} {text}", location=where, code=code, path=path,
                   line=row if isinstance(row, int) else None, detail=detail)


@dataclass
class Findings:
    """Every violation counted; the first :data:`MAX_KEPT` kept as failures."""

    failures: list[Failure] = field(default_factory=list)
    codes: Counter[str] = field(default_factory=Counter)
    files: set[str | None] = field(default_factory=set)


def read_check_output(run: ToolRun, root: Path, output: Path | None = None) -> Findings:
    """``ruff check --output-format json-lines`` read line by line (from ``output``, the file
    given to ``--output-file``, or else the run's stdout): memory bounded by :data:`MAX_KEPT`,
    however many violations; the parsing counts against the timeout."""
    found = Findings()
    output = output or run.stdout_path
    with output.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            run.check_deadline()
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):
                entry = None
            if not isinstance(entry, dict):
                raise ToolError(f"ruff check output line {number} is not one of ruff's "
                                "json-lines violations: truncated, or another format",
                                output=head(head_of_file(output, 2000)))
            failure = _entry_failure(entry, root, "ruff check")
            found.codes[failure.code or "?"] += 1
            found.files.add(failure.path)
            if len(found.failures) < MAX_KEPT:
                found.failures.append(failure)
    return found


def parse_format_json(text: str, root: Path) -> tuple[list[Failure], list[str]]:
    """``ruff format --check --output-format json``: files to reformat and files that do not
    parse, and the messages of anything else (I/O errors), which make the check undecidable."""
    try:
        entries = load_json(text, "ruff format", "ruff's JSON format")
    except ValueError as exc:
        raise ToolError(str(exc), output=head(text, 2000)) from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ToolError("ruff format output is JSON but not ruff's list of violations",
                        output=clip_tail(text))
    failures, problems = [], []
    for entry in entries:
        code = entry.get("code")
        if code == "unformatted":
            failures.append(_entry_failure(entry, root, "ruff format",
                                           message="file would be reformatted by ruff format"))
        elif code in ("invalid-syntax", None):  # the project's problem, not ruff's
            failures.append(_entry_failure(entry, root, "ruff format"))
        else:
            problems.append(f"{code}: {entry.get('message')}")
    return failures, problems


def parse_format_text(stdout: str, stderr: str) -> tuple[list[Failure], list[str]]:
    """The plain output of ``ruff format --check`` from a ruff without JSON for ``format``
    (0.4 has none): ``Would reformat: PATH`` and ``error: Failed to parse PATH:L:C: ...``."""
    failures: list[Failure] = []
    problems: list[str] = []
    for line in stdout.splitlines():
        match = re.match(_WOULD_REFORMAT, line.strip())
        if match:
            path = Path(match["path"]).as_posix()
            failures.append(Failure(message="file would be reformatted by ruff format",
                                    location=path, path=path, code="unformatted"))
    for line in stderr.splitlines():
        match = re.match(_PARSE_ERROR, line.strip())
        if match:
            path = Path(match["path"]).as_posix()
            failures.append(Failure(message=f"invalid-syntax {match['message']}",
                                    location=f"{path}:{match['line']}:{match['col']}",
                                    path=path, line=int(match["line"]), code="invalid-syntax"))
        elif line.startswith("error:"):
            problems.append(line.strip())
    return failures, problems


def split_diff(text: str, root: Path) -> dict[str, str]:
    """``ruff format --diff`` output cut into a short excerpt per file."""
    chunks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("--- "):
            current = chunks.setdefault(relative_path(line[4:].strip(), root), [])
        elif current is not None and not line.startswith("+++ "):
            current.append(line)
    excerpts = {}
    for path, lines in chunks.items():
        while lines and not lines[-1].strip():
            lines.pop()
        cut = len(lines) - DIFF_LINES
        excerpts[path] = "\n".join(lines[:DIFF_LINES]) + (f"\n... ({cut} more diff lines)"
                                                          if cut > 0 else "")
    return excerpts


def _first_cause(run: ToolRun) -> str:
    """The line of ruff's stderr that says what went wrong (``Cause: ...``)."""
    lines = [line.strip() for line in head_of_file(run.stderr_path).splitlines() if line.strip()]
    causes = [line.removeprefix("Cause:").strip() for line in lines if line.startswith("Cause:")]
    return cut((causes or lines or ["no output"])[0], 200)


def session_start(ctx: VerifyContext) -> str | None:
    """The commit of the session's start (its recovery point), ``None`` outside a session."""
    from ralph_verify.loop.keys import SESSION_KEY, WORK_REF

    session = ctx.config.stash.get(SESSION_KEY)
    return None if session is None else WORK_REF.format(session=session.id)


#: Last of ruff check's options: the settings' ``fix = true`` and an argument's ``--fix`` or
#: ``--fix-only`` are overridden, since ruff takes the last of a pair.
READ_ONLY = ("--no-fix", "--no-fix-only")


def read_only(args: Sequence[str]) -> list[str]:
    """``args`` for ``ruff check`` that never write: :data:`READ_ONLY` before any ``--``."""
    at = list(args).index("--") if "--" in args else len(args)
    return [*args[:at], *READ_ONLY, *args[at:]]


class RuffCheck(Check):
    cost = 3

    @property
    def table(self) -> RuffOptions:
        """The check's table, else the defaults (without building the options: cache keys)."""
        given = self.given_options
        return given if isinstance(given, RuffOptions) else RuffOptions()

    @property
    def cacheable(self) -> bool:  # type: ignore[override]  # a command of one's own may read
        return not self.table.command  # anything: never cached

    def ruff_command(self, ctx: VerifyContext) -> list[str]:
        return list(self.table.command or [ctx.find_tool("ruff", package="ruff")])

    def ruff(self, ctx: VerifyContext, *args: str, cwd: Path | None = None) -> ToolRun:
        command = self.ruff_command(ctx)
        hint = (f"install it with 'pip install ruff', or fix 'command' in "
                f"[tool.ralph-verify.checks.{self.name}]")
        run = ctx.run([*command, *args], timeout=self.timeout, missing_hint=hint, cwd=cwd)
        if run.returncode == 2 and "cache" in run.stderr.lower() and "--no-cache" not in args:
            # ruff stops (exit 2) when it cannot write its cache (a read-only tree or cache
            # folder): the cache only saves time, so judge again without it.
            run = ctx.run([*command, args[0], "--no-cache", *args[1:]], timeout=self.timeout,
                          missing_hint=hint, cwd=cwd)
        return run


class LintCheck(RuffCheck):
    def run(self, ctx: VerifyContext) -> CheckResult:
        args = ("check", "--output-format", "json-lines", *read_only(self.table.args))
        from ralph_verify.integrity.frozen_settings import judged_in

        # In a session, ruff judges with the settings of the session's start.
        with judged_in(ctx.root, "ruff", session_start(ctx)) as root:
            # lint and lint<=N in one verification share one ruff run.
            run, found = ctx.shared(f"ruff {json.dumps([*self.ruff_command(ctx), *args])}",
                                    lambda: self.lint(ctx, args, root))
        if found is None:
            return self.error(f"ruff check failed (exit {run.returncode}): {_first_cause(run)}",
                              output=run.tail())
        total = sum(found.codes.values())  # every violation, kept in failures or not
        return self.count_result(total, count_summary_of(found.codes, "error"),
                                 found.failures, counts={"errors": total,
                                                         "files": len(found.files)})

    def lint(self, ctx: VerifyContext, args: Sequence[str],
             root: Path) -> tuple[ToolRun, Findings | None]:
        # ruff prints nothing on a clean project; the file given to --output-file is written
        # on every run: a program that exits 0 and writes none did not check anything.
        own = any(arg in ("-o", "--output-file") or arg.startswith("--output-file=")
                  for arg in args)
        report = Path(tempfile.mkdtemp(prefix="ruff-", dir=ctx.workdir)) / "report.jsonl"
        run = self.ruff(ctx, *args, *(() if own else ("--output-file", str(report))), cwd=root)
        if run.returncode not in (0, 1):
            return run, None
        if own or report.is_file():
            return run, read_check_output(run, root, None if own else report)
        if not run.stdout.strip():
            program = " ".join(run.argv[:run.argv.index("check")] if "check" in run.argv
                               else run.argv[:1])
            raise ToolError(f"{program} exited {run.returncode} but wrote no "
                            "ruff report (--output-file), which ruff writes on every run: it "
                            "did not run ruff", output=run.tail())
        return run, read_check_output(run, root)


class FormatCheck(RuffCheck):
    def run(self, ctx: VerifyContext) -> CheckResult:
        args = self.table.args
        run = self.ruff(ctx, "format", "--check", "--output-format", "json", *args)
        stderr = run.stderr
        if run.returncode == 2 and "--output-format" in stderr and "unexpected argument" in stderr:
            # An older ruff (0.4) has no JSON for format: read its "Would reformat:" lines.
            run = self.ruff(ctx, "format", "--check", *args)
            failures, problems = parse_format_text(run.stdout, run.stderr)
        elif run.returncode not in (0, 1) and not run.stdout.strip():
            return self.error(f"ruff format failed (exit {run.returncode}): "
                              f"{_first_cause(run)}", output=run.tail())
        else:
            failures, problems = parse_format_json(run.stdout, ctx.root)
        if problems or run.returncode not in (0, 1, 2) or (run.returncode == 2 and not failures):
            first = problems[0] if problems else _first_cause(run)
            return self.error(f"ruff format failed (exit {run.returncode}): {first}",
                              output="\n".join(problems) or run.tail())
        if failures:
            failures = self.with_diffs(ctx, failures)
        return self.count_result(len(failures), self.summarise(failures), failures,
                                 counts={"files": len(failures)})

    def summarise(self, failures: list[Failure]) -> str:
        if not failures:
            return "all files formatted"
        paths = [f.path or "?" for f in failures if f.code == "unformatted"]
        listing = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
        parts = [f"{len(paths)} file{'' if len(paths) == 1 else 's'} would be reformatted"
                 + (f": {listing}" if listing else "")] if paths else []
        broken = len(failures) - len(paths)
        if broken:
            parts.append(f"{broken} cannot be parsed")
        return "; ".join(parts)

    def with_diffs(self, ctx: VerifyContext, failures: list[Failure]) -> list[Failure]:
        """Add a ``ruff format --diff`` excerpt to the first files; a nicety, never an error."""
        paths = [f.path for f in failures if f.code == "unformatted" and f.path][:DIFF_FILES]
        if not paths:
            return failures
        run = self.ruff(ctx, "format", "--diff", "--", *paths)
        if run.returncode not in (0, 1):
            return failures
        excerpts = split_diff(run.stdout, ctx.root)
        return [replace(f, detail=excerpts[f.path]) if f.path in excerpts
                and f.code == "unformatted" else f for f in failures]


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="lint", aliases=("ruff",), factory=LintCheck, options=RuffOptions,
        threshold="number of ruff violations allowed (default: none)",
        help="ruff check (JSON output, no fixing) reports no violations; uses the project's "
             "ruff config; lint<=N allows N",
    ))
    registry.add(CheckType(
        name="format", factory=FormatCheck, options=RuffOptions,
        threshold="number of files allowed to need formatting (default: none)",
        help="ruff format --check: every file is formatted as the project's ruff config "
             "says; each file that would change is a failure with a diff excerpt",
    ))
