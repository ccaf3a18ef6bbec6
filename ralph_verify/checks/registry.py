"""The check registry: the check types plugins declare and the checks a run builds from
``--until``, on ``config.stash`` (:data:`CHECK_REGISTRY`): the configuration knows no check."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.api import Check, CheckType, Options
from ralph_verify.config.parser import option_help
from ralph_verify.config.pyproject import TABLE, describe_validation_error
from ralph_verify.config.stash import StashKey
from ralph_verify.config.until import CheckSpec, SpecError, redirect_trap
from ralph_verify.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from ralph_verify.config import Config

#: The choice of ``arg_choices`` that takes pytest's test paths and node ids (``tests:PATH``).
PATH_CHOICE = "PATH"


def looks_like_test_path(arg: str) -> bool:
    """Whether ``arg`` names tests (a ``.py`` file, a folder, a node), not a word or ``x=``."""
    return "=" not in arg.split("::")[0] and (
        "/" in arg or "::" in arg or arg.endswith(".py"))


def accepts_arg(choices: Sequence[str], arg: str) -> bool:
    """Whether ``arg`` is one of ``choices``; a choice ending in ``=`` takes any value;
    :data:`PATH_CHOICE` takes a test path."""
    return any(arg == choice or (choice.endswith("=") and arg.startswith(choice)
                                 and len(arg) > len(choice))
               or (choice == PATH_CHOICE and looks_like_test_path(arg)) for choice in choices)


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
        return ", ".join(kind.name + (f" ({', '.join(kind.aliases)})" if kind.aliases else "")
                         for kind in self.types())

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
        if spec.op == "<" and spec.threshold == 0:
            raise fail(f"'{spec.text}' can never pass: no count or percentage is below 0",
                       spec.op_offset, hint=f"{check_type.name}: {check_type.threshold}")
        if spec.percent and check_type.threshold_max != 100:
            raise fail(f"'%' makes no sense for {check_type.name!r}: its threshold is not a "
                       "percentage", spec.op_offset, hint=f"{check_type.name}: "
                       f"{check_type.threshold}")
        if check_type.threshold_max is not None and spec.threshold is not None \
                and spec.threshold > check_type.threshold_max:
            raise fail(f"threshold {spec.threshold:g} of {check_type.name!r} can never be "
                       f"reached: it is at most {check_type.threshold_max:g}", spec.op_offset,
                       hint=f"{check_type.name}: {check_type.threshold}")
        return check_type

    def build(self, specs: Sequence[CheckSpec], config: Config,
              options: Mapping[str, Options] | None = None) -> list[Check]:
        """Configured checks for ``specs``; ``options`` maps check names to their options."""
        checks = []
        for spec in specs:
            check_type = self.resolve(spec)
            check_options = (options or {}).get(check_type.name)
            checks.append(check_type.factory(spec, check_options, config, check_type))
        return checks


#: The run's check registry, filled by ``ralph_register_checks`` at start.
CHECK_REGISTRY: StashKey[CheckRegistry] = StashKey("check_registry")


def registry_of(config: Config) -> CheckRegistry:
    """The check types of this run."""
    return config.stash[CHECK_REGISTRY]


def until_specs(config: Config) -> list[CheckSpec]:
    """The checks asked for (``--until``, else ``until`` in the file), each resolved."""
    specs, from_cli = config.requested_specs()
    registry = registry_of(config)
    for spec in specs:
        registry.resolve(spec)
    if from_cli:
        def takes_threshold(name: str) -> bool:
            check_type = registry.get(name)
            return check_type is not None and check_type.threshold is not None

        trap = redirect_trap(specs, takes_threshold)
        if trap is not None:
            raise UsageError(trap)
    return specs


def build_checks(config: Config, specs: Sequence[CheckSpec] | None = None) -> list[Check]:
    """The configured checks for ``specs`` (default: :func:`until_specs`)."""
    return registry_of(config).build(until_specs(config) if specs is None else specs, config,
                                     config.check_options)


def validate_checks(tables: Mapping[str, Any], registry: CheckRegistry,
                    path: Path) -> dict[str, Options]:
    """Each ``[tool.ralph-verify.checks.NAME]`` table, validated against its check's
    ``CheckType.options``, by canonical name."""
    if not tables:
        return {}  # no table: pydantic is not even imported
    from pydantic import TypeAdapter, ValidationError

    options: dict[str, Options] = {}
    for name, table in tables.items():
        where = f"{TABLE[:-1]}.checks.{name}]"
        check_type = registry.get(name)
        if check_type is None:
            import difflib

            close = difflib.get_close_matches(name, [t.name for t in registry.types()], n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{path}: {where}: unknown check {name!r}{hint}; known checks: "
                              f"{registry.known_names()}")
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {where} must be a table")
        try:
            options[check_type.name] = TypeAdapter(check_type.options).validate_python(table)
        except ValidationError as exc:
            known = sorted(option_help(check_type.options))
            raise ConfigError(describe_validation_error(exc, path, where, known)) from None
    return options
