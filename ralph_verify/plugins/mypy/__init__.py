"""``types`` (alias ``mypy``): mypy's JSON output (``--output json``), read line by line.

mypy reads the project's own configuration; where it names no ``files``, the project's
packages are checked (:mod:`ralph_verify.plugins.mypy.targets`). The project's interpreter
runs mypy when it has it, else ours with ``--python-executable``."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, Status, VerifyContext
from ralph_verify.checks.registry import CheckRegistry
from ralph_verify.checks.tool_output import (
    clip_tail,
    count_summary,
    head,
    load_json,
    relative_path,
)
from ralph_verify.config.parser import CommonOptions, NotEmpty
from ralph_verify.markers import hookimpl
from ralph_verify.plugins.mypy.targets import (
    config_names_targets,
    default_targets,
    describe_targets,
)
from ralph_verify.proc.process import ToolError, ToolRun
from ralph_verify.project.caches import mypy_cache_dir, mypy_cache_is_warm
from ralph_verify.project.interpreter import find_module_code, known_module, remember_module

#: Flags for mypy < 1.11, which has no JSON output: one message per line, with columns.
PLAIN_FLAGS = ("--show-column-numbers", "--show-error-codes", "--no-pretty",
               "--no-color-output", "--no-error-summary")
#: The starts of the text lines mypy prints beside its messages.
_MYPY_OWN = ("Success: ", "Found ", "mypy: ", "Warning: ", "Error: ", "Note: ")
#: mypy's text line (mypy < 1.11), read as its JSON object is: ``file:line:col: severity:
#: message  [code]``.
_PLAIN = re.compile(
    r"^(?P<file>.+?):(?:(?P<line>-?\d+):(?:(?P<column>-?\d+):)?(?:-?\d+:-?\d+:)?)? "
    r"(?P<severity>error|warning|note): (?P<message>.*?)(?:  \[(?P<code>[\w-]+)\])?$")


@dataclass(frozen=True)
class MypyOptions(CommonOptions):
    """``[tool.ralph-verify.checks.types]``."""

    args: list[str] = field(default_factory=list, metadata={
        "help": "Extra arguments for mypy after ralph-verify's own, e.g. --strict."})
    targets: list[str] | None = field(default=None, metadata={
        "help": "Files, folders or -p/-m options to check (default: the 'files' of the "
                "project's mypy config, else the project's package(s): src/<pkg> or the "
                "top-level packages, not the tests; else the root without virtualenvs and "
                "build output)."})
    command: Annotated[list[str], NotEmpty()] | None = field(default=None, metadata={
        "help": "The mypy command, e.g. [\"/opt/mypy/bin/mypy\"] (default: the project's "
                "Python -m mypy if it has mypy, else ralph-verify's mypy with "
                "--python-executable)."})


@dataclass
class Message:
    """One message of mypy's output; ``column`` is 1-based like mypy's text output."""

    file: str
    line: int | None
    column: int | None
    severity: str
    message: str
    code: str | None = None
    hint: str = ""
    notes: list[str] = field(default_factory=list)


def _message(record: Any, lineno: int, text: str) -> Message:
    """One message, from its JSON object (or a text line read as one); 0-based columns."""
    def bad(problem: str) -> ToolError:
        return ToolError(f"mypy's JSON output is unreadable at line {lineno}: {problem}",
                         output=clip_tail(text))

    if not isinstance(record, dict):
        raise bad("not a JSON object")
    file, message, severity = record.get("file"), record.get("message"), record.get("severity")
    line, column = record.get("line"), record.get("column")
    if not (isinstance(file, str) and isinstance(message, str) and isinstance(severity, str)):
        raise bad("no file, message or severity")
    if not isinstance(line, int) or not isinstance(column, int):
        raise bad(f"line and column must be numbers, got {line!r} and {column!r}")
    code, hint = record.get("code"), record.get("hint")
    return Message(file=file, line=line if line > 0 else None,
                   column=column + 1 if column >= 0 else None,  # JSON columns are 0-based
                   severity=severity, message=message, code=code if isinstance(code, str) else None,
                   hint=hint if isinstance(hint, str) else "")


def parse_json_lines(text: str) -> tuple[list[Message], list[str]]:
    """Messages of ``mypy --output json`` (one object per line, or mypy < 1.11's text lines)
    and the other lines. mypy prints some notes as text even in JSON mode; a line that starts
    like JSON but does not parse (truncated output) raises :class:`ToolError`."""
    messages, other = [], []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                record = load_json(line, "mypy's JSON", "mypy's JSON format")
            except ValueError as exc:
                problem = str(exc).split("(", 1)[-1].split("): truncated", 1)[0]
                raise ToolError(f"mypy's JSON output is unreadable at line {lineno} "
                                f"({problem}): truncated, or not mypy's JSON format; it "
                                f"starts {head(line, 120)!r}", output=head(text, 2000)) from None
            messages.append(_message(record, lineno, text))
        elif (match := _PLAIN.match(line)) is not None:  # its columns are 1-based
            record = {**match.groupdict(), "line": int(match["line"] or 0),
                      "column": int(match["column"] or 0) - 1}
            messages.append(_message(record, lineno, text))
        else:
            other.append(line)
    return messages, other


def to_failures(messages: Sequence[Message], root: Path) -> tuple[list[Failure], list[str]]:
    """Errors as failures, each with the notes that follow it; and the notes that follow none.

    A note belongs to the error before it, except a ``reveal_type`` note on
    another line, which stands alone.
    """
    errors: list[Message] = []
    orphans: list[str] = []
    for message in messages:
        if message.severity == "error":
            errors.append(message)
            continue
        owner = errors[-1] if errors else None
        standalone = message.message.startswith("Revealed ") and (
            owner is None or (owner.file, owner.line) != (message.file, message.line))
        if owner is None or standalone:
            orphans.append(f"{message.file}:{message.line or ''}: note: {message.message}")
        else:
            owner.notes.append(message.message)
    failures = []
    for error in errors:
        path = relative_path(error.file, root)
        location = path
        if error.line is not None:
            location += f":{error.line}" + (f":{error.column}" if error.column else "")
        detail = "\n".join(f"note: {note}" for note in [*error.hint.splitlines(), *error.notes])
        text = f"{error.message}  [{error.code}]" if error.code else error.message
        failures.append(Failure(message=text, location=location, detail=detail,
                                code=error.code, path=path, line=error.line))
    return failures, orphans


def json_unsupported(run: ToolRun) -> bool:
    """Whether mypy refused ``--output`` (mypy < 1.11: "unrecognized arguments: --output")."""
    stderr = run.stderr
    return run.returncode == 2 and "unrecognized arguments" in stderr and "--output" in stderr


class TypesCheck(Check):
    _cost: int | None = None
    uses_python = True  # the project's mypy, or ours reading its interpreter's packages

    @property
    def cost(self) -> int:  # type: ignore[override]  # a class attribute on other checks
        """After the tests once mypy's cache is warm; first while it is cold, when mypy
        checks every module from scratch and is often the longest tool (boltons, first run:
        mypy 3.5 s, pytest 2.1 s). Decided once: the run itself warms the cache."""
        if self._cost is None:
            table = self.mypy_table  # with a cache (or none) of the project's own: no telling
            own = table is not None and (table.command or not _gets_our_cache(table.args))
            self._cost = 20 if own or mypy_cache_is_warm(self.config.root) else 150
        return self._cost

    @property
    def mypy_table(self) -> MypyOptions | None:
        """The check's table; None without one (the defaults: no extra arguments, targets
        found, mypy found)."""
        return self.given_options if isinstance(self.given_options, MypyOptions) else None

    @property
    def cacheable(self) -> bool:  # type: ignore[override]  # a command of one's own may read
        return self.mypy_table is None or not self.mypy_table.command  # anything: never cached

    def run(self, ctx: VerifyContext) -> CheckResult:
        (run, failures, notes, other, _), targets = self.shared_run(ctx)
        result = self.judge(run, failures, notes, other)
        if result.status is not Status.ERROR:
            result.summary += f"; checked {describe_targets(targets)}"
        return result

    def precision(self, ctx: VerifyContext, *, always: bool = False
                  ) -> dict[str, list[int]] | None:
        """Module -> ``[lines mypy does not check precisely, lines of code]`` (``integrity``'s
        evidence of a type escape), from a mypy run of its own: mypy reads no cache for a run
        that writes a report, so it is a cold run, taken only when ``always`` (the session's
        start) or when this verification's types pass. ``None``: not taken, or mypy failed."""
        if not self.cacheable:
            return None  # a command of one's own: no report added to it
        try:
            if not always and self.run(ctx).status is not Status.PASSED:
                return None
            return self.shared_run(ctx, report=True)[0][4]
        except ToolError:
            return None

    def shared_run(self, ctx: VerifyContext, *, report: bool = False
                   ) -> tuple[_Shared, list[str]]:
        """This verification's one mypy run (``report``: its run that writes the line
        precision), and its targets."""
        from ralph_verify.integrity.frozen_settings import judged_in
        from ralph_verify.plugins.ruff import session_start

        table = self.mypy_table
        args = list(table.args) if table is not None else []
        mypy = self.command(ctx)
        # In a session, mypy judges with the settings (and stubs) of the session's start.
        with judged_in(ctx.root, "mypy", session_start(ctx)) as root:
            if table is not None and table.targets is not None:
                targets = list(table.targets)
            elif config_names_targets(root, args):
                targets = []
            else:
                targets = default_targets(root)
            rest = [*args, *targets]
            # types and types<=N in one verification share one mypy run.
            return ctx.shared(f"mypy {report} {json.dumps([*mypy, *rest])}",
                              lambda: self.run_mypy(ctx, mypy, rest, root, report)), targets

    def run_mypy(self, ctx: VerifyContext, mypy: list[str], rest: list[str],
                 root: Path, report_precision: bool = False) -> _Shared:
        """mypy's run in ``root`` (the project, or its judging tree), its errors, the notes
        that belong to no error, its other lines and, with ``report_precision``, its line
        precision (see :meth:`precision`)."""
        if report_precision:
            # mypy reads no cache for a report; none is written either, so the ordinary
            # run's cache stays as that run left it.
            mypy = [*mypy, "--cache-dir", os.devnull]
        elif _gets_our_cache(rest):
            # A cache of our own, dropped when mypy's mtime check could be fooled
            # (see ralph_verify.project.caches); the project's .mypy_cache is left alone.
            mypy = [*mypy, "--cache-dir", str(mypy_cache_dir(ctx.root))]
        # mypy's JUnit report is written on every run, a pass too, where its JSON output is
        # empty: a program that exits 0 and writes none did not check anything.
        report = Path(tempfile.mkdtemp(prefix="mypy-", dir=ctx.workdir)) / "report.xml"
        own = any(arg.startswith("--junit-xml") for arg in rest)
        if not own:
            mypy = [*mypy, "--junit-xml", str(report)]
        if report_precision:
            mypy = [*mypy, "--lineprecision-report", str(report.parent)]
        run = self.mypy(ctx, [*mypy, "--output", "json", *rest], root)
        if json_unsupported(run):
            run = self.mypy(ctx, [*mypy, *PLAIN_FLAGS, *rest], root)
        messages, other = parse_json_lines(run.stdout)
        strange = any(not line.startswith(_MYPY_OWN) for line in other)  # judge() shows it
        if run.returncode == 0 and not own and not strange and not report.is_file():
            raise ToolError(f"{_program(run)} exited 0 but wrote no mypy report (--junit-xml), "
                            "which mypy writes on every run: it did not run mypy",
                            output=run.tail())
        failures, orphans = to_failures(messages, root)
        precision = _line_precision(report.parent) if report_precision else None
        return run, failures, orphans, other, precision

    def judge(self, run: ToolRun, failures: list[Failure], notes: list[str],
              other: list[str]) -> CheckResult:
        code = run.returncode
        if code == 2 and any(f.code == "syntax" for f in failures):
            pass  # a syntax error stops mypy (exit 2), but it is the project's to fix
        elif code not in (0, 1):
            return self.error(f"mypy failed (exit {code}): "
                              f"{_what_failed(run, failures, [*notes, *other])}",
                              output=run.tail())
        elif code == 1 and not failures and not notes:
            raise ToolError("mypy exited 1 but its output names no error: unreadable output",
                            output=run.tail())
        strange = [line for line in other if not line.startswith(_MYPY_OWN)]
        if strange:
            # Exit 0 with what is not mypy's output is no proof of anything (a wrapper, a
            # shim, a broken install): an error showing the first bytes, never a pass.
            raise ToolError(f"mypy exited {code} but printed what is not mypy's output: "
                            f"{head(strange[0], 120)!r}", output=head("\n".join(strange), 2000))
        # With --output json, mypy exits 1 when it prints only notes (annotation-unchecked),
        # where its text mode says "Success" and exits 0: notes are not errors.
        count = len(failures)
        summary = count_summary(failures, "error")
        if notes:
            summary += f", {len(notes)} note{'' if len(notes) == 1 else 's'}"
        output = "\n".join([*other, run.stderr.strip()]).strip()
        return self.count_result(count, summary, failures, counts={"errors": count},
                                 output=clip_tail(output))

    def mypy(self, ctx: VerifyContext, argv: list[str], root: Path | None = None) -> ToolRun:
        hint = ("install it with 'pip install mypy', or fix 'command' in "
                "[tool.ralph-verify.checks.types]")
        return ctx.run(argv, timeout=self.timeout, missing_hint=hint, cwd=root)

    def command(self, ctx: VerifyContext) -> list[str]:
        """The project's ``python -m mypy`` if it has mypy, else ours aimed at the project."""
        table = self.mypy_table
        if table is not None and table.command:
            return list(table.command)
        python = ctx.python()
        if not _same_file(python, sys.executable):
            found = known_module(python, "mypy")  # a probe costs a Python start per run
            if found is None:
                probe = ctx.run([python, "-c", find_module_code("mypy")],
                                timeout=min(self.timeout, 60),
                                missing_hint="set the project's interpreter with --python or "
                                             "[tool.ralph-verify] python")
                found = probe.returncode == 0
                if probe.returncode in (0, 1):
                    remember_module(python, "mypy", found)
            if found:
                return [python, "-m", "mypy"]
        ours = ([sys.executable, "-m", "mypy"] if importlib.util.find_spec("mypy") is not None
                else [ctx.find_tool("mypy", package="mypy")])
        if _same_file(python, sys.executable):
            return ours
        return [*ours, "--python-executable", python]


#: A mypy run: its process, errors, notes, other lines and line precision.
_Shared = tuple[ToolRun, list[Failure], list[str], list[str], dict[str, list[int]] | None]


def _line_precision(folder: Path) -> dict[str, list[int]] | None:
    """Module -> ``[imprecise, Any and unanalyzed lines, lines not empty]`` from mypy's
    ``lineprecision.txt`` (columns: name, lines, precise, imprecise, any, empty,
    unanalyzed); ``None`` without one."""
    try:
        rows = (folder / "lineprecision.txt").read_text(encoding="utf-8").splitlines()[2:]
    except OSError:
        return None
    found = {}
    for row in rows:
        name, *counts = row.split()
        if len(counts) == 6 and all(c.isdigit() for c in counts):
            lines, _, imprecise, anys, empty, unanalyzed = map(int, counts)
            found[name] = [imprecise + anys + unanalyzed, lines - empty]
    return found


def _program(run: ToolRun) -> str:
    """The program that ran, its words before the first option: ``/venv/bin/python -m
    mypy``, ``/usr/bin/mypy``, ``python shim.py``."""
    words = next((run.argv[:at] for at, arg in enumerate(run.argv) if arg.startswith("--")),
                 run.argv)
    return " ".join(words)


def _what_failed(run: ToolRun, failures: Sequence[Failure], other: Sequence[str]) -> str:
    """The line that says why mypy stopped: an error on stderr (bad config, unreadable file,
    crash), else its first error (duplicate module), else whatever it printed."""
    stderr = [line.strip() for line in run.stderr.splitlines() if line.strip()]
    errors = [line for line in stderr if "error" in line.lower()]
    lines = [*errors, *(f.message for f in failures), *other, *stderr[-1:], "no output"]
    return lines[0][:200]


def _gets_our_cache(args: Sequence[str]) -> bool:
    """Whether mypy runs with ralph-verify's cache: ``args`` choose no cache of their own."""
    return not any(arg.startswith("--cache-dir") or arg == "--no-incremental" for arg in args)


def _same_file(a: str, b: str) -> bool:
    """Same path, symlinks not followed: two venvs' pythons link to one base interpreter."""
    return Path(os.path.abspath(a)) == Path(os.path.abspath(b))


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="types", aliases=("mypy",), factory=TypesCheck, options=MypyOptions,
        threshold="number of mypy errors allowed (default: none)",
        help="mypy (JSON output) reports no errors (notes are not errors); uses the project's "
             "mypy config and interpreter, and checks the config's files, else the project's "
             "package(s), not its tests; types<=N allows N",
    ))
