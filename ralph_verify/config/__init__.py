"""The run's configuration: command line, ``pyproject.toml``, check registry, settings.

:func:`get_config` takes a fresh plugin manager for every run (never a global one;
:mod:`ralph_verify.config.plugins` builds it), lets plugins declare options and checks,
parses the command line and validates the config.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

from ralph_verify.config.parser import Command, Parser, Setting
from ralph_verify.config.stash import Stash
from ralph_verify.errors import ConfigError, UsageError

if TYPE_CHECKING:
    import argparse

    from ralph_verify.checks.api import Check, CheckOptions, CheckRegistry
    from ralph_verify.checks.until import CheckSpec

from ralph_verify.config.plugins import (
    BUILTIN_PLUGINS,
    DISABLE_AUTOLOAD_ENV,
    ENTRY_POINT_GROUP,
    ESSENTIAL_PLUGINS,
    PLUGINS_ENV,
    builtin_plugin_manager,
    check_disabled,
    get_plugin_manager,
    implementer_on_stack,
    implementers,
    plugin_name_of,
    register_plugin,
    split_disable_args,
)

__all__ = ["BUILTIN_PLUGINS", "DISABLE_AUTOLOAD_ENV", "ENTRY_POINT_GROUP", "ESSENTIAL_PLUGINS",
           "PLUGINS_ENV", "Config", "ConfigError", "UsageError", "builtin_plugin_manager",
           "get_config", "get_plugin_manager", "implementer_on_stack", "implementers",
           "plugin_name_of", "register_plugin", "split_disable_args"]

class Config:
    """Access to settings, the plugin manager and the hooks for one run."""

    def __init__(self, pluginmanager: pluggy.PluginManager, parser: Parser,
                 namespace: argparse.Namespace, command: Command, root: Path,
                 pyproject: Path, file_settings: dict[str, Any], registry: CheckRegistry,
                 check_options: dict[str, CheckOptions], args: Sequence[str]) -> None:
        self.pluginmanager = pluginmanager
        self.hook = pluginmanager.hook
        self.parser = parser
        self.option = namespace
        self.command = command
        self.root = root
        self.pyproject = pyproject
        self.file_settings = file_settings
        self.registry = registry
        self.check_options = check_options
        self.args = tuple(args)
        self.invocation_dir = Path.cwd()
        #: Per-run objects plugins share, under typed keys (``config.stash[SESSION_KEY]``).
        self.stash = Stash()
        #: What the session fixes for itself (see :meth:`set_session_value`).
        self._session_values: dict[str, Any] = {}

    def get(self, key: str) -> Any:
        """An option or setting, the one way to read either: what the session fixed, else
        the command line, else ``[tool.ralph-verify]``, else the default declared with it
        (so no reader repeats a default: ``config.get(x) or DEFAULT`` would turn a ``0``
        off-switch into the default). ``None`` for an option no plugin declared."""
        dest = key.replace("-", "_")
        if dest in self._session_values:
            return self._session_values[dest]
        value = getattr(self.option, dest, None)
        if value is not None:
            return value
        if dest in self.file_settings:
            return self.file_settings[dest]
        setting = self._setting(dest)
        return setting.default if setting is not None else None

    def set_session_value(self, key: str, value: Any) -> None:
        """Fix a setting for the rest of this run, above the command line: a resumed
        session's ``until``, hook mode's ``quiet`` and deadline-bound ``timeout``. The parsed
        command line itself is never written, so it always says what the user typed.
        ``None`` takes the fixed value back (the file, then the default, decide again)."""
        if value is None:
            self._session_values.pop(key.replace("-", "_"), None)
        else:
            self._session_values[key.replace("-", "_")] = value

    def source_of(self, key: str) -> str:
        """Where a setting's value came from: ``session``, ``command line``, the file, or
        ``default``."""
        dest = key.replace("-", "_")
        if dest in self._session_values:
            return "session"
        if getattr(self.option, dest, None) is not None:
            return "command line"
        if dest in self.file_settings:
            return str(self.pyproject)
        return "default"

    def _setting(self, dest: str) -> Setting | None:
        return next((s for s in self.parser.settings.values() if s.dest == dest), None)

    def until_specs(self) -> list[CheckSpec]:
        """The checks asked for: ``--until``, else ``until`` in the config file."""
        from ralph_verify.checks.until import parse_spec, parse_until

        cli = self._session_values.get("until", getattr(self.option, "until", None))
        if cli is not None:
            specs = parse_until(cli)
        elif "until" in self.file_settings:
            value = self.file_settings["until"]
            where = f"{self.pyproject.name} [tool.ralph-verify] until"
            if isinstance(value, str):
                specs = parse_until(value, source=where)
            else:
                specs = [parse_spec(item, source=f"{where}[{i}]") for i, item in enumerate(value)]
            if not specs:
                raise UsageError(
                    f"{where} is empty: with no checks nothing would be verified; list at least "
                    "one, e.g. until = [\"tests\", \"lint\", \"coverage.min=80\"]")
        else:
            raise UsageError(
                "no checks to run: pass --until (for example --until tests,lint,coverage.min=80) "
                f"or set until = [...] in {TABLE_HINT}")
        for spec in specs:
            self.registry.resolve(spec)
        if cli is not None:
            from ralph_verify.checks.until import redirect_trap

            trap = redirect_trap(specs, self._takes_threshold)
            if trap is not None:
                raise UsageError(trap)
        return specs

    def _takes_threshold(self, name: str) -> bool:
        check_type = self.registry.get(name)
        return check_type is not None and check_type.threshold is not None

    def build_checks(self, specs: Sequence[CheckSpec] | None = None) -> list[Check]:
        return self.registry.build(self.until_specs() if specs is None else specs, self,
                                   self.check_options)


TABLE_HINT = "[tool.ralph-verify] of pyproject.toml"


def find_root(start: Path) -> Path:
    """The nearest directory at or above ``start`` with a pyproject.toml or .git."""
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file() or (folder / ".git").exists():
            return folder
    return start


def collect_options(pm: pluggy.PluginManager) -> Parser:
    """What every plugin declares in ``ralph_addoption``; each declaration names its plugin."""
    codes = implementers(pm, "ralph_addoption")
    parser = Parser(plugin_of_caller=lambda: implementer_on_stack(codes))
    pm.hook.ralph_addoption(parser=parser)  # through pluggy: wrappers and tracing see it
    return parser


def get_config(args: Sequence[str], plugins: Sequence[object] = (),
               builtins: pluggy.PluginManager | None = None) -> Config:
    """Build the run's configuration; raises :class:`UsageError` for anything the user got wrong.

    ``builtins``: the plugin manager ``ralph_cmdline_main`` was called on (built-ins only).
    """
    from ralph_verify.checks.api import CheckRegistry
    from ralph_verify.config.pyproject import load_table, validate_checks, validate_settings

    args, disabled = split_disable_args(args)
    pm = get_plugin_manager(disabled, plugins, builtins)
    parser = collect_options(pm)
    namespace = parser.parse(args)
    if namespace.version:
        namespace.command = "version"
    if namespace.command is None:
        raise UsageError("missing command: try 'ralph-verify check --until tests' "
                         "(see 'ralph-verify --help')")
    if namespace.command == "version":
        command = Command("version", lambda config: 0, "")
    else:
        command = parser.commands[namespace.command]
    root_option = getattr(namespace, "root", None)
    if root_option is not None:
        root = Path(root_option).resolve()
        if not root.is_dir():
            raise UsageError(f"--root {root_option}: no such directory")
    else:
        root = find_root(Path.cwd().resolve())
    pyproject = root / "pyproject.toml"
    table = load_table(pyproject)
    file_settings = validate_settings(table, parser.settings, pyproject)
    registry = CheckRegistry(plugin_of_module=lambda module: plugin_name_of(pm, module))
    pm.hook.ralph_register_checks(registry=registry)
    check_options = validate_checks(table.get("checks", {}), registry, pyproject)
    check_disabled(pm, disabled, registry)
    config = Config(pm, parser, namespace, command, root, pyproject, file_settings, registry,
                    check_options, args)
    pm.hook.ralph_configure.call_historic(kwargs={"config": config})
    return config


def version() -> str:
    from ralph_verify import __version__

    return f"ralph-verify {__version__} (Python {sys.version.split()[0]})"
