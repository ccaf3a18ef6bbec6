"""Checks: the objects that decide whether work is done, their results and their registry.

A plugin declares check *types* in ``ralph_register_checks``; the registry
turns each ``--until`` spec into a configured :class:`Check`, whose ``run``
returns a :class:`CheckResult`. One plugin may own several names and share
work between them (``tests`` and ``coverage`` share one pytest run).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from ralph_verify.checks.until import CheckSpec, SpecError

if TYPE_CHECKING:
    from ralph_verify.checks.options import CheckOptions as CheckOptions  # re-exported
    from ralph_verify.checks.verification import VerifyContext
    from ralph_verify.config import Config


class Status(str, enum.Enum):
    """The outcome of one check. ``error`` means the check could not decide."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Failure:
    """One problem found by a check.

    ``location`` is what a person would look up (``src/app.py:12:5`` or a test
    id); ``path`` and ``line`` are kept apart for annotations. ``code`` is the
    rule or error code (``E501``, ``arg-type``, ``AssertionError``) and takes
    part in the fingerprint; the location does not, so the same mistake made in
    ten places folds into one group.
    """

    message: str
    location: str | None = None
    detail: str = ""
    code: str | None = None
    path: str | None = None
    line: int | None = None
    fingerprint: str = ""
    #: Set by the loop when the same failure was already there at the baseline.
    pre_existing: bool = False
    #: The text of the source line at ``path:line`` when the loop found it (not saved): tells
    #: an old failure the agent's edits moved from a new one with the same message.
    source: str = field(default="", compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "fingerprint": self.fingerprint,
            "location": self.location,
            "message": self.message,
            "detail": self.detail,
            "code": self.code,
            "path": self.path,
            "line": self.line,
            "pre_existing": self.pre_existing,
        }


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
    #: Failures counted (in the summary and metric) but not kept in ``failures``: memory
    #: and files stay bounded; the feedback says how many it could not show.
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
        return {
            "name": self.name,
            "spec": self.spec,
            "status": self.status.value,
            "summary": self.summary,
            "metric": self.metric,
            "duration_s": round(self.duration_s, 3),
            "counts": self.counts,
            "flaky": self.flaky,
            "output": self.output,
            "failures": [f.to_json() for f in self.failures],
            "unkept": self.unkept,
            "cached": self.cached,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckResult:
        """The result :meth:`to_json` wrote (``verification.json``, the verification cache)."""
        failures = [Failure(message=f["message"], location=f.get("location"),
                            detail=f.get("detail", ""), code=f.get("code"), path=f.get("path"),
                            line=f.get("line"), fingerprint=f.get("fingerprint", ""),
                            pre_existing=bool(f.get("pre_existing")))
                    for f in data.get("failures", [])]
        return cls(name=data["name"], spec=data["spec"], status=Status(data["status"]),
                   summary=data.get("summary", ""), metric=data.get("metric"),
                   failures=failures, duration_s=float(data.get("duration_s", 0.0)),
                   output=data.get("output", ""), flaky=list(data.get("flaky", [])),
                   counts=dict(data.get("counts", {})), unkept=int(data.get("unkept") or 0),
                   cached=bool(data.get("cached")))


def __getattr__(name: str) -> Any:
    """``CheckOptions``, a pydantic model, imported on first use (PEP 562): see
    :mod:`ralph_verify.checks.options`."""
    if name == "CheckOptions":
        from ralph_verify.checks.options import CheckOptions

        return CheckOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The options class of a check type that declares none of its own.
BASE_OPTIONS = "ralph_verify.checks.options:CheckOptions"


class Check:
    """A configured verifier. Subclasses implement :meth:`run`.

    ``cost`` orders the start of concurrent checks: cheap ones first.
    ``needs_coverage`` asks the shared pytest run to go under coverage.
    """

    cost: int = 10
    #: True if the result depends only on what the verification cache keys on (the tree,
    #: configs, environment, interpreter, installed distributions, settings, specs): then
    #: an unchanged tree may reuse it. Off by default: a command, a session's baseline or a
    #: file outside the tree may decide a check's result.
    cacheable: bool = False
    #: True if the pytest run must go under coverage for this check (``coverage``, ``diffcover``).
    needs_coverage: bool = False
    #: True if the check applies ``!name`` itself; otherwise the core inverts its result.
    handles_negation: bool = False
    #: False for a check that judges only the iteration at hand (``promise``): its failures
    #: are never marked as there already at the session's start.
    has_baseline: bool = True
    #: True for a check that must run by itself, after every other check of the verification
    #: has finished (``tests:hidden`` copies held-out tests into the tree while it runs).
    alone: bool = False

    def __init__(self, spec: CheckSpec, options: CheckOptions | None, config: Config,
                 check_type: CheckType) -> None:
        self.spec = spec
        #: The options from ``[tool.ralph-verify.checks.NAME]``; None when it has no table
        #: (then :attr:`options` builds the defaults on first read: pydantic only then).
        self.given_options = options
        self.config = config
        self.type = check_type

    @property
    def options(self) -> CheckOptions:
        """This check's options: the file's table, else the options class's defaults."""
        if self.given_options is None:
            self.given_options = self.type.options_class()
        return self.given_options

    @options.setter
    def options(self, value: CheckOptions) -> None:
        self.given_options = value

    @property
    def name(self) -> str:
        return self.type.name

    @property
    def timeout(self) -> float:
        # Without a table, options named lazily are not built for this (nor pydantic
        # imported): their timeout is the global one (see CheckType.options).
        lazy = self.given_options is None and isinstance(self.type.options, str)
        own = None if lazy else self.options.timeout
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

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec.text!r}>"


CheckFactory = Callable[[CheckSpec, "CheckOptions | None", "Config", "CheckType"], Check]


@dataclass(frozen=True)
class CheckType:
    """A check name a plugin provides, with what its spec may contain.

    ``threshold`` describes what a number after an operator means (``None``:
    no threshold allowed); ``negatable`` allows ``!name``.
    """

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
    #: The options class, a :class:`CheckOptions` subclass, or a lazy ``"module:Name"``
    #: reference to one, imported only when a table is validated or the check reads its
    #: options (a lazy class keeps ``timeout``'s default, None: the global timeout).
    options: type[CheckOptions] | str = BASE_OPTIONS
    plugin: str = ""

    @property
    def options_class(self) -> type[CheckOptions]:
        from ralph_verify.config.parser import resolve_ref

        model: type[CheckOptions] = resolve_ref(self.options)
        return model

    def usage(self) -> str:
        text = ("!" if self.negatable else "") + self.name
        if self.arg == "required":
            text += ":ARG"
        elif self.arg == "optional":
            text += "[:ARG]"
        if self.threshold:
            text += "[<op>N]"
        return text


def accepts_arg(choices: Sequence[str], arg: str) -> bool:
    """Whether ``arg`` is one of ``choices``; a choice ending in ``=`` takes any value."""
    return any(arg == choice or (choice.endswith("=") and arg.startswith(choice)
                                 and len(arg) > len(choice)) for choice in choices)


class CheckRegistry:
    """Check types by name and alias; builds checks from specs."""

    def __init__(self, plugin_of_module: Callable[[str], str] | None = None) -> None:
        self._types: dict[str, CheckType] = {}
        self._aliases: dict[str, str] = {}
        self._plugin_of_module = plugin_of_module

    def add(self, check_type: CheckType) -> None:
        """Declare a check type; a name or alias may be taken only once."""
        if not check_type.plugin and self._plugin_of_module is not None:
            module = getattr(check_type.factory, "__module__", "")
            check_type = replace(check_type, plugin=self._plugin_of_module(module))
        for key in (check_type.name, *check_type.aliases):
            owner = self._aliases.get(key)
            if owner is not None:
                from ralph_verify.errors import UsageError

                raise UsageError(
                    f"check name {key!r} of plugin {check_type.plugin or '?'} is already "
                    f"taken by plugin {self._types[owner].plugin or '?'}; disable one of "
                    f"them with -p no:NAME"
                )
            self._aliases[key] = check_type.name
        self._types[check_type.name] = check_type

    def get(self, name: str) -> CheckType | None:
        canonical = self._aliases.get(name)
        return self._types[canonical] if canonical is not None else None

    def types(self) -> list[CheckType]:
        return sorted(self._types.values(), key=lambda t: t.name)

    def known_names(self) -> str:
        """``tests (pytest), lint (ruff), ...`` for error messages."""
        parts = []
        for check_type in self.types():
            aliases = f" ({', '.join(check_type.aliases)})" if check_type.aliases else ""
            parts.append(check_type.name + aliases)
        return ", ".join(parts)

    def resolve(self, spec: CheckSpec) -> CheckType:
        """The check type for ``spec``, or a :class:`SpecError` pointing at what is wrong."""
        check_type = self.get(spec.name)
        text, start = spec.source_text or spec.text, spec.offset if spec.source_text else 0

        def fail(problem: str, position: int, hint: str = "") -> SpecError:
            return SpecError(problem, text, position, source=spec.source, hint=hint)

        if check_type is None:
            # Match names and aliases, suggest the canonical name ('tests', not 'pytest').
            import difflib

            close = difflib.get_close_matches(spec.name, list(self._aliases), n=1)
            did_you_mean = f"did you mean {self._aliases[close[0]]!r}? " if close else ""
            raise fail(f"unknown check {spec.name!r}", spec.name_offset,
                       hint=f"{did_you_mean}known checks: {self.known_names()}")
        if spec.negated and not check_type.negatable:
            raise fail(f"check {check_type.name!r} cannot be negated with '!'", start)
        if spec.arg is None and check_type.arg == "required":
            raise fail(f"check {check_type.name!r} needs an argument: {check_type.usage()}"
                       + (f" ({check_type.arg_help})" if check_type.arg_help else ""),
                       spec.name_offset + len(spec.name))
        if spec.arg is not None and check_type.arg == "none":
            raise fail(f"check {check_type.name!r} takes no ':' argument",
                       spec.name_offset + len(spec.name))
        if spec.op is not None and check_type.threshold is None:
            raise fail(f"check {check_type.name!r} takes no threshold", spec.op_offset)
        if spec.arg is not None and check_type.arg_choices \
                and not accepts_arg(check_type.arg_choices, spec.arg):
            choices = (a + "VALUE" if a.endswith("=") else a for a in check_type.arg_choices)
            raise fail(f"check {check_type.name!r} accepts only "
                       f"{', '.join(check_type.name + ':' + a for a in choices)}",
                       spec.name_offset + len(spec.name) + 1)
        if check_type.threshold_max is not None and spec.threshold is not None \
                and spec.threshold > check_type.threshold_max:
            raise fail(f"threshold {spec.threshold:g} of {check_type.name!r} can never be "
                       f"reached: it is at most {check_type.threshold_max:g}", spec.op_offset,
                       hint=f"{check_type.name}: {check_type.threshold}")
        return check_type

    def build(self, specs: Sequence[CheckSpec], config: Config,
              options: Mapping[str, CheckOptions] | None = None) -> list[Check]:
        """Configured checks for ``specs``; ``options`` maps check names to their options."""
        checks = []
        for spec in specs:
            check_type = self.resolve(spec)
            check_options = (options or {}).get(check_type.name)
            checks.append(check_type.factory(spec, check_options, config, check_type))
        return checks
