"""Options, settings and subcommands, declared by plugins in ``ralph_addoption``. An option may
carry a setting key (``[tool.ralph-verify]``; the command line wins) and belongs to *scopes*
that commands accept, so ``check`` and ``run`` share ``--until`` declared once."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Annotated, Any, ClassVar, NoReturn, TypeVar

from ralph_verify.errors import UsageError
from ralph_verify.exitcode import check_help

#: A command: the run's :class:`~ralph_verify.config.Config` (``Any``: a floor up) -> exit code.
CommandHandler = Callable[[Any], int]

EXIT_CODES_HELP = check_help()
OptionsT = TypeVar("OptionsT")


@dataclass(frozen=True)
class Bound:
    """A number's type, declared once for the command line and the file: argparse calls it on
    an option's text, and pydantic reads it in ``Annotated[int, Bound(ge=1)]`` (the same check
    as ``Field(ge=1)``, declared without importing pydantic). The number is strict and finite:
    ``timeout = true`` is not 1 second, ``inf`` and ``1e400`` are no timeout. ``duration``:
    seconds, also as ``"90s"``, ``"10m"``, ``"2h"``, ``"1h30m"`` (:func:`parse_duration`);
    ``whole``: the command line's text is an int."""

    gt: float | None = None
    ge: float | None = None
    whole: bool = False
    duration: bool = False

    @property
    def setting_type(self) -> Any:
        """The type a setting of this option is validated against."""
        return Annotated[int if self.whole else float, self]

    def __call__(self, text: str) -> Any:
        try:
            value = float(int(text)) if self.whole else float(text)
        except ValueError:
            if not self.duration:
                expected = "a whole number" if self.whole else "a number"
                raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
            try:
                value = parse_duration(text, "")
            except UsageError:
                raise argparse.ArgumentTypeError(f"expected a duration such as 90m, 2h, 1h30m "
                                                 f"or seconds, got {text!r}") from None
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
        if self.gt is not None and value <= self.gt:
            raise argparse.ArgumentTypeError(f"must be greater than {self.gt:g}, got {text}")
        if self.ge is not None and value < self.ge:
            least = "0 (no limit) or more" if self.ge == 0 else f"at least {self.ge:g}"
            raise argparse.ArgumentTypeError(f"must be {least}, got {text}")
        return int(value) if self.whole else value

    def __get_pydantic_core_schema__(self, source: Any, handler: Callable[[Any], Any]) -> Any:
        schema = dict(handler(source))
        schema.update({key: value for key, value in (("gt", self.gt), ("ge", self.ge))
                       if value is not None})
        schema["strict"] = True  # TOML numbers are typed: a boolean or a string is a mistake
        if schema.get("type") == "float":
            schema["allow_inf_nan"] = False
        if not self.duration:
            return schema
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(_seconds_of_duration, schema)


def _seconds_of_duration(value: Any) -> Any:
    """A duration string as seconds; anything else as it is, for the number schema to judge."""
    if isinstance(value, str):
        try:
            seconds = parse_duration(value, "")
        except UsageError:
            raise ValueError("expected a duration such as 90m, 2h, 1h30m or a number of "
                             "seconds") from None
        return int(seconds) if seconds.is_integer() else seconds  # whole seconds fit an int
    return value


@dataclass(frozen=True)
class NotEmpty:
    """A list's type, ``Annotated[list[str], NotEmpty()]``: at least one item (a command)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Callable[[Any], Any]) -> Any:
        return {**handler(source), "min_length": 1}


@dataclass(frozen=True)
class CommonOptions:
    """The options every check accepts in ``[tool.ralph-verify.checks.NAME]``; a check's own
    subclass this dataclass, each field's help in ``metadata`` (as pytest's ``addini``).
    pydantic validates a table against it, imported only when there is one."""

    #: A misspelt key is an error, not ignored (pydantic reads this of a dataclass).
    __pydantic_config__: ClassVar[dict[str, str]] = {"extra": "forbid"}

    timeout: Annotated[float, Bound(gt=0, duration=True)] | None = field(default=None, metadata={
        "help": "Seconds before the check's tool is killed and the check errors, or a "
                "duration such as \"10m\" (default: the global timeout, 900)."})


def option_help(options_type: Any) -> dict[str, str]:
    """Each key of a check's options type (dataclass or pydantic model) with its help."""
    if hasattr(options_type, "model_fields"):
        return {info.alias or name: info.description or ""
                for name, info in options_type.model_fields.items()}
    return {item.name: item.metadata.get("help", "") for item in fields(options_type)}


def options_data(options: Any) -> dict[str, Any]:
    """A check's options as plain data (JSON types), whichever kind its type is."""
    if hasattr(options, "model_dump"):
        data: dict[str, Any] = options.model_dump(mode="json")
        return data
    return asdict(options)


def replace_options(options: OptionsT, **changes: Any) -> OptionsT:
    """A copy of a check's options with ``changes``, whichever kind its type is."""
    if hasattr(options, "model_copy"):
        copy: OptionsT = options.model_copy(update=changes)
        return copy
    return replace(options, **changes)  # type: ignore[type-var]  # a CommonOptions dataclass


@dataclass(frozen=True)
class Setting:
    """A value that may come from ``[tool.ralph-verify]`` (kebab-case key), validated by its
    ``type`` (pydantic, imported only when the file sets a key)."""

    key: str
    type: Any
    default: Any
    help: str
    plugin: str = ""

    @property
    def dest(self) -> str:
        return self.key.replace("-", "_")


@dataclass(frozen=True)
class Option:
    """One option a plugin declared, for the commands of its scopes."""

    flags: tuple[str, ...]
    kwargs: dict[str, Any]
    #: The scopes (``verify``, ``loop`` ...) whose commands accept it.
    scopes: tuple[str, ...]
    setting: str | None
    plugin: str = ""


@dataclass(frozen=True)
class Command:
    """A subcommand a plugin declared, and the option scopes it accepts."""

    name: str
    handler: CommandHandler
    help: str
    description: str = ""
    scopes: tuple[str, ...] = ()
    plugin: str = ""
    #: Shown after the options in ``COMMAND --help`` (default: the exit codes of ``check``).
    epilog: str = ""


@dataclass
class Parser:
    """What plugins declare; :meth:`parse` builds the argparse parser from it."""

    options: list[Option] = field(default_factory=list)
    settings: dict[str, Setting] = field(default_factory=dict)
    commands: dict[str, Command] = field(default_factory=dict)
    #: Names the plugin declaring something (the config's: the plugin on the call stack).
    plugin_of_caller: Callable[[], str] = field(default=lambda: "")

    @property
    def current_plugin(self) -> str:
        """The plugin whose ``ralph_addoption`` is declaring (``""`` outside the config)."""
        return self.plugin_of_caller()

    def add_command(self, name: str, handler: CommandHandler, *, help: str,
                    description: str = "", scopes: Sequence[str] = (),
                    epilog: str = "") -> None:
        """Add a subcommand; ``scopes`` lists the option scopes it accepts."""
        if name in self.commands:
            raise UsageError(f"command {name!r} is declared by both "
                             f"{self.commands[name].plugin} and {self.current_plugin}")
        self.commands[name] = Command(name, handler, help, description or help,
                                      ("project", *scopes), self.current_plugin, epilog)

    def addsetting(self, key: str, *, type: Any, default: Any, help: str) -> None:
        """Declare a setting that has no command-line option."""
        if key in self.settings:
            raise UsageError(f"setting {key!r} is declared by both "
                             f"{self.settings[key].plugin} and {self.current_plugin}")
        self.settings[key] = Setting(key, type, default, help, self.current_plugin)

    def addoption(self, *flags: str, scope: str | Sequence[str] = "verify",
                  setting: str | None = None,
                  setting_type: Any = None, setting_help: str | None = None,
                  **kwargs: Any) -> None:
        """Declare an option (argparse arguments) for every command accepting ``scope``.

        With ``setting``, it also reads ``[tool.ralph-verify] <setting>``, validated by
        ``setting_type`` (default: what its ``type`` declares); ``default`` is the setting's,
        and the command line wins. ``setting_help``: where the flag's help reads wrong for the
        key (a ``--no-X`` flag for ``X = true``).
        """
        if setting is not None:
            default = kwargs.pop("default", None)
            if setting_type is None:
                action = kwargs.get("action")
                option_type = kwargs.get("type", str)
                setting_type = (bool if action in ("store_true", "store_false")
                                else getattr(option_type, "setting_type", option_type))
            self.addsetting(setting, type=setting_type, default=default,
                            help=setting_help or kwargs.get("help", ""))
            kwargs["default"] = None  # unset: the setting's value (or default) is used
            kwargs.setdefault("dest", setting.replace("-", "_"))
        scopes = (scope,) if isinstance(scope, str) else tuple(scope)
        self.options.append(Option(tuple(flags), kwargs, scopes, setting, self.current_plugin))

    def build(self, only: str | None = None, *, listed: bool = True) -> argparse.ArgumentParser:
        """The argparse parser; with ``only``, only that command's options are added (the others
        are listed for ``--help``, or with ``listed=False`` left out)."""
        parser = _ArgumentParser(
            prog="ralph-verify",
            description="Run AI coding agents in a loop until the work is verifiably done: "
                        "verifier plugins decide, not the agent.",
            epilog="-p no:NAME disables plugin NAME (see 'ralph-verify plugins').\n\n"
                   + EXIT_CODES_HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.add_argument("--version", action="store_true",
                            help="show the version and exit")
        sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
        for command in sorted(self.commands.values(), key=lambda c: c.name):
            if only is not None and command.name != only and not listed:
                continue
            command_parser = sub.add_parser(
                command.name, help=command.help, description=command.description,
                epilog=(_plugin_option_help(command) + (command.epilog or EXIT_CODES_HELP)),
                formatter_class=argparse.RawDescriptionHelpFormatter,
            )
            if only is not None and command.name != only:
                continue
            for option in self.options:
                if set(option.scopes) & set(command.scopes):
                    command_parser.add_argument(*option.flags, **option.kwargs)
        return parser

    def parse(self, args: Sequence[str]) -> argparse.Namespace:
        # The command is the first word that is not an option (the top level's options take
        # no value).
        word = next((arg for arg in args if not arg.startswith("-")), None)
        if args and word == args[0] and word not in self.commands:
            from difflib import get_close_matches  # only on an error

            close = [f"; did you mean {c!r}?" for c in get_close_matches(word, self.commands, 1)]
            raise UsageError(f"unknown command {word!r}{''.join(close)} (commands: "
                             f"{', '.join(sorted(self.commands))}; see 'ralph-verify --help')")
        only = word if word in self.commands else None
        # Anything before the command word (``-h``, ``--he``...) may print the top-level
        # help, which lists every command.
        listed = not args or args[0] != word
        namespace, extra = self.build(only, listed=listed).parse_known_args(list(args))
        if extra:
            self._unknown(only, extra)
        return namespace

    def _unknown(self, command: str | None, extra: list[str]) -> NoReturn:
        """argparse's "unrecognized arguments", with a did-you-mean for a misspelt option
        (3.14's ``suggest_on_error`` does it for choices only) and the command's ``--help``."""
        from difflib import get_close_matches  # only on an error

        scopes = set(self.commands[command].scopes) if command else set()
        flags = ["--help", *(flag for option in self.options if scopes & set(option.scopes)
                            for flag in option.flags)]
        hints = [(arg, close[0]) for arg in extra if arg.startswith("--")
                 for close in [get_close_matches(arg.partition("=")[0], flags, 1, 0.7)]
                 if close]
        meant = (hints[0][1] if len(hints) == 1
                 else ", ".join(f"{good} (for {bad})" for bad, good in hints))
        where = f"ralph-verify {command}" if command else "ralph-verify"
        raise UsageError(f"unrecognized arguments: {' '.join(extra)}"
                         + (f"; did you mean {meant}?" if hints else "")
                         + f" (see '{where} --help')")


#: argparse types whose settings are validated alike (:class:`Bound`).
positive_float = Bound(gt=0)
#: Seconds greater than zero, also as ``90s``, ``10m``, ``2h``, ``1h30m``.
positive_duration = Bound(gt=0, duration=True)
#: A limit where 0 means "no limit", as its help says.
non_negative_float = Bound(ge=0)
non_negative_int = Bound(ge=0, whole=True)
positive_int = Bound(ge=1, whole=True)


class Once(argparse.Action):
    """An option given once: a second ``--until`` would silently replace the first."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        seen = f"_{self.dest}_given"
        if getattr(namespace, seen, None) is not None:
            first = getattr(namespace, seen)
            raise UsageError(f"{option_string} given twice ({first!r} and {values!r}): the "
                             f"second would replace the first; give one, e.g. "
                             f"{option_string} '{first},{values}'")
        setattr(namespace, seen, values)
        setattr(namespace, self.dest, values)


def _plugin_option_help(command: Command) -> str:
    """What ``-p`` means for every command: ``-p no:NAME``, as in pytest."""
    text = "-p no:NAME disables plugin NAME (see 'ralph-verify plugins')"
    if command.name in ("run", "fleet"):
        text += "; the task file is -P/--prompt (-p FILE still works for one release, " \
                "deprecated)"
    return text + ".\n\n"


def split_plugin_args(args: Sequence[str]) -> tuple[list[str], list[str], str | None]:
    """``-p`` as pytest has it: ``-p no:NAME`` is taken out of ``args`` before the options
    are parsed. The old ``-p PROMPT.md`` of ``run`` and ``fleet`` becomes ``--prompt
    PROMPT.md``, with a note that it is deprecated; any other command's ``-p FILE`` is a
    usage error saying what ``-p`` takes. Returns the rest, the plugins disabled and the note."""
    rest: list[str] = []
    disabled: list[str] = []
    note = None
    index = 0
    while index < len(args):
        arg = args[index]
        value = args[index + 1] if arg == "-p" and index + 1 < len(args) else "-"
        if value.startswith("no:"):
            disabled.append(value[3:])
        elif not value.startswith("-"):
            if not any(word in ("run", "fleet") for word in args[:index]):
                raise UsageError(f"-p {value}: -p disables a plugin and takes no:NAME, e.g. "
                                 "-p no:cache (see 'ralph-verify plugins'); a prompt file is "
                                 "'run -P FILE'")
            rest += ["--prompt", value]
            note = note or (f"note: '-p {value}' for the task file is deprecated and goes in "
                            f"the next release: use -P {value} (or --prompt); -p is only "
                            "-p no:PLUGIN")
        else:
            if arg.startswith("-pno:"):
                disabled.append(arg[5:])
            else:
                rest.append(arg)
            index += 1
            continue
        index += 2
    return rest, disabled, note


class _ArgumentParser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


_DURATION_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str | float | int, what: str = "--max-time") -> float:
    """Seconds from ``90``, ``90s``, ``15m``, ``2h``, ``1h30m``; a usage error naming ``what``
    (one reader, so every duration option takes the same spellings)."""
    if isinstance(text, (int, float)):
        return float(text)
    value = str(text).strip().lower()
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*([smhd]?)", value)
    if not parts or re.sub(r"[\d.\s]|[smhd]", "", value):
        raise UsageError(f"{what} {text!r}: expected a duration such as 90m, 2h, 1h30m "
                         "or seconds")
    return sum(float(number) * _DURATION_UNITS[unit] for number, unit in parts)
