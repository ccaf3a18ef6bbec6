"""The Check API: a plugin declares check types (``ralph_register_checks``); each ``--until``
spec becomes a :class:`Check` whose ``run`` returns a :class:`CheckResult`."""

from __future__ import annotations

import contextlib
import enum
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

from ralph_verify.config.parser import CommonOptions
from ralph_verify.config.until import CheckSpec
from ralph_verify.proc.process import ProcessGroup, ToolMissing, ToolRun, run_tool
from ralph_verify.project.interpreter import choose
from ralph_verify.records.codec import NOT_SAVED, decode, encode

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.config.check_options import CheckOptions


class Status(str, enum.Enum):
    """The outcome of one check. ``error`` means the check could not decide."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Failure:
    """One problem found by a check. ``code`` (``E501``) is part of the fingerprint, the
    ``location`` (``src/app.py:12:5``, a test id) is not: one mistake in ten places folds."""

    message: str
    location: str | None = None
    detail: str = ""
    code: str | None = None
    path: str | None = None
    line: int | None = None
    fingerprint: str = ""
    #: Set by the loop when the same failure was already there at the baseline.
    pre_existing: bool = False
    #: The source line at ``path:line`` (not saved): tells a moved old failure from a new one.
    source: str = field(default="", compare=False, repr=False, metadata=NOT_SAVED)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self)
        return data


@dataclass
class CheckResult:
    """What one check found. Fingerprints are filled in from the check name."""

    name: str
    spec: str
    status: Status
    summary: str
    metric: float | None = None
    failures: list[Failure] = field(default_factory=list)
    duration_s: float = 0.0
    #: The tool's last output, for errors (missing tool, crash, timeout).
    output: str = ""
    #: Tests that failed and then passed when re-run.
    flaky: list[str] = field(default_factory=list)
    #: Counts a plugin wants to keep (tests passed/failed, lint errors, ...).
    counts: dict[str, int] = field(default_factory=dict)
    #: Failures counted but not kept in ``failures`` (memory and files stay bounded).
    unkept: int = 0
    #: True when the result was read from the verification cache instead of a run.
    cached: bool = False

    def __post_init__(self) -> None:
        if all(f.fingerprint for f in self.failures):
            self.failures = list(self.failures)
            return
        from ralph_verify.checks.fingerprint import fingerprint  # its patterns: only for failures

        self.failures = [
            f if f.fingerprint
            else replace(f, fingerprint=fingerprint(self.name, f.message, f.code))
            for f in self.failures
        ]

    @property
    def passed(self) -> bool:
        return self.status in (Status.PASSED, Status.SKIPPED)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self)
        return data

    @classmethod
    def from_json(cls, data: object) -> CheckResult:
        """The result :meth:`to_json` wrote, checked against the type."""
        return decode(cls, data)


#: A check's options: a :class:`CommonOptions` dataclass (the built-ins') or a pydantic
#: :class:`CheckOptions` model (a third-party plugin's), as its check type declares.
Options: TypeAlias = "CommonOptions | CheckOptions"


class Check:
    """A configured verifier; subclasses implement :meth:`run`."""

    #: Orders the start of concurrent checks: the costliest first.
    cost: int = 10
    #: True if the result depends only on what the verification cache keys on (tree, configs,
    #: environment, interpreter, distributions, settings, specs). Off by default: a command, a
    #: session's baseline or a file outside the tree may decide a check's result.
    cacheable: bool = False
    #: True if the pytest run must go under coverage for this check (``coverage``, ``diffcover``).
    needs_coverage: bool = False
    #: True if the check runs the project's interpreter: the report's header then names it.
    uses_python: bool = False
    #: True if the check applies ``!name`` itself; otherwise the core inverts its result.
    handles_negation: bool = False
    #: False for a check that judges only the iteration at hand (``promise``): its failures
    #: are never marked as there already at the session's start.
    has_baseline: bool = True
    #: True for a check that must run by itself, after every other check of the verification
    #: has finished (``tests:hidden`` copies held-out tests into the tree while it runs).
    alone: bool = False

    def __init__(self, spec: CheckSpec, options: Options | None, config: Config,
                 check_type: CheckType) -> None:
        self.spec = spec
        #: The options from ``[tool.ralph-verify.checks.NAME]``; None without a table.
        self.given_options = options
        self.config = config
        self.type = check_type

    @property
    def options(self) -> Options:
        """This check's options: the file's table, else the options type's defaults."""
        if self.given_options is None:
            self.given_options = self.type.options()
        return self.given_options

    @options.setter
    def options(self, value: Options) -> None:
        self.given_options = value

    @property
    def name(self) -> str:
        return self.type.name

    @property
    def timeout(self) -> float:
        own = self.options.timeout
        if own is not None:
            return own
        value = self.config.get("timeout")
        return float(value) if value is not None else 900.0

    def run(self, ctx: VerifyContext) -> CheckResult:
        raise NotImplementedError(f"check {self.name!r} does not implement run()")

    def result(self, status: Status, summary: str, **kwargs: Any) -> CheckResult:
        """Build a result of this check; negation (``!name``) is applied by the core."""
        return CheckResult(name=self.name, spec=self.spec.text, status=status, summary=summary,
                           **kwargs)

    def error(self, summary: str, output: str = "") -> CheckResult:
        return self.result(Status.ERROR, summary, output=output)

    def count_result(self, count: int, summary: str, failures: list[Failure],
                     **kwargs: Any) -> CheckResult:
        """Pass when ``count`` meets the ``--until`` threshold (none given: when it is 0);
        the summary says the threshold it is within or wanted."""
        wanted = self.spec.threshold_text()
        if self.spec.meets(count, count == 0):
            within = f", within {wanted}" if wanted and count else ""
            return self.result(Status.PASSED, summary + within, metric=count, **kwargs)
        return self.result(Status.FAILED, summary + (f", wanted {wanted}" if wanted else ""),
                           metric=count, failures=failures,
                           unkept=max(0, count - len(failures)), **kwargs)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec.text!r}>"


CheckFactory = Callable[[CheckSpec, "Options | None", "Config", "CheckType"], Check]


@dataclass(frozen=True)
class CheckType:
    """A check name a plugin provides, with what its spec may contain. ``threshold`` says
    what a number after an operator means (``None``: none allowed); ``negatable``: ``!name``."""

    name: str
    factory: CheckFactory
    help: str
    aliases: tuple[str, ...] = ()
    arg: Literal["none", "optional", "required"] = "none"
    arg_help: str = ""
    threshold: str | None = None
    #: The largest threshold that makes sense (100 for a percentage); above it: a usage error.
    threshold_max: float | None = None
    #: The only arguments accepted (empty: any); ``loop_args`` need a session (``run``).
    arg_choices: tuple[str, ...] = ()
    loop_args: tuple[str, ...] = ()
    negatable: bool = False
    #: The type ``[tool.ralph-verify.checks.NAME]`` is validated against: a
    #: :class:`CommonOptions` dataclass or a :class:`CheckOptions` model.
    options: type[CommonOptions] | type[CheckOptions] = CommonOptions
    plugin: str = ""

    def usage(self) -> str:
        arg = {"none": "", "optional": "[:ARG]", "required": ":ARG"}.get(self.arg, "")
        threshold = "[<op>N]" if self.threshold else ""
        return f"{'!' if self.negatable else ''}{self.name}{arg}{threshold}"


T = TypeVar("T")
_EXE = ".exe" if sys.platform == "win32" else ""


class VerifyContext:
    """What a check may use while it runs: the project, a scratch dir, shared work, tools."""

    def __init__(self, config: Config, checks: Sequence[Check], workdir: Path) -> None:
        self.config = config
        self.root: Path = config.root
        self.checks = tuple(checks)
        self.workdir = workdir
        self.processes = ProcessGroup()
        #: Closed when the verification ends: what must outlive one check (a judging tree
        #: the coverage report is read in) but not the verification.
        self.cleanup = contextlib.ExitStack()
        self._shared: dict[str, Any] = {}
        self._shared_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def shared(self, key: str, compute: Callable[[], T]) -> T:
        """Compute ``key`` once per verification (``tests`` and ``coverage`` share one pytest
        run); concurrent callers wait for the first, and see its exception too."""
        with self._lock:
            lock = self._shared_locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._shared:
                try:
                    self._shared[key] = (True, compute())
                except BaseException as exc:
                    self._shared[key] = (False, exc)
            ok, value = self._shared[key]
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]  # stored by the same key's compute()

    def python(self) -> str:
        """The project's interpreter (:func:`ralph_verify.project.interpreter.choose`)."""
        return choose(self.root, self.config.get("python")).path

    def find_tool(self, name: str, *, package: str | None = None) -> str:
        """Path of a console tool: next to the project's Python, next to ours, or on PATH."""
        for folder in self._tool_folders():
            candidate = folder / f"{name}{_EXE}"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
        import shutil

        found = shutil.which(name)
        if found:
            return found
        raise ToolMissing(
            f"{name} not found next to {self.python()} nor on PATH: "
            f"install it with 'pip install {package or name}'"
        )

    def _tool_folders(self) -> Iterator[Path]:
        yield Path(self.python()).parent
        if os.name == "posix" and sys.prefix != sys.base_prefix:
            # What sysconfig says of a virtual environment's scripts, without its import and
            # paths (3 ms of every check).
            yield Path(sys.prefix, "bin")
        else:
            import sysconfig

            yield Path(sysconfig.get_path("scripts"))
        yield Path(sys.executable).parent

    def run(self, argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
            missing_hint: str = "", shell: bool = False, cwd: Path | None = None) -> ToolRun:
        """Run a tool from the project root, in its own process group, with a timeout."""
        return run_tool(argv, cwd=cwd or self.root, timeout=timeout, workdir=self.workdir,
                        env=env, group=self.processes, missing_hint=missing_hint, shell=shell)
