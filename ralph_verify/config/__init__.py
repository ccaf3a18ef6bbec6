"""The run's configuration: plugin manager, command line, ``pyproject.toml``, check registry.

:func:`get_config` builds a fresh plugin manager for every run (never a global
one), registers the built-in plugins from a tuple through the same function as
third-party plugins from the ``ralph_verify`` entry-point group, lets plugins
declare options and checks, parses the command line and validates the config.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import CodeType, FrameType
from typing import TYPE_CHECKING, Any

import pluggy

from ralph_verify import hookspec
from ralph_verify.config.parser import Command, Parser, Setting
from ralph_verify.errors import ConfigError, UsageError
from ralph_verify.stash import Stash

if TYPE_CHECKING:
    import argparse

    from ralph_verify.checks import Check, CheckOptions, CheckRegistry
    from ralph_verify.config.entry_points import EntryPoint
    from ralph_verify.until import CheckSpec

__all__ = ["Config", "ConfigError", "UsageError", "get_config", "get_plugin_manager"]

ENTRY_POINT_GROUP = "ralph_verify"
DISABLE_AUTOLOAD_ENV = "RALPH_VERIFY_DISABLE_PLUGIN_AUTOLOAD"
#: Comma-separated modules to load as plugins, like ``PYTEST_PLUGINS``.
PLUGINS_ENV = "RALPH_VERIFY_PLUGINS"

#: Built-in plugins, registered in this order under their short names.
BUILTIN_PLUGINS: tuple[str, ...] = (
    "core",
    "feedback",
    "terminal",
    "json_report",
    "junitxml",
    "github",
    "init",
    "commands.init",
    "report",
    "commands.report",
    "notify",
    "otel",
    "watch",
    "files",
    "cmd",
    "promise",
    "pytest_run",
    "interpreter",
    "junit",
    "ruff",
    "precommit",
    "mypy",
    "commands.check",
    "commands.checks",
    "commands.plugins",
    "loop",
    "commands.run",
    "commands.status",
    "commands.cancel",
    "commands.rollback",
    "agents",
    "agent_clis",
    "completion",
    "max_iterations",
    "budget",
    "agent_error",
    "cancel",
    "sandbox",
    "checkpoint",
    "commands.recover",
    "breaker",
    "integrity",
    "agenthook",
    "commands.start",
    "commands.agent_hook",
    "commands.slash",
    "fleet",
    "fleet_local",
)

#: Built-ins the others stand on, with why: ``-p no:NAME`` of one of these is refused
#: (exit 2) instead of leaving a run in which every check errors or ``check`` is missing.
ESSENTIAL_PLUGINS: dict[str, str] = {
    "core": "it runs every check and declares the options all commands share (--timeout, "
            "--feedback-budget, --python, --jobs); without it every check would error",
    "commands.check": "it provides the check command and the --until option every command "
                      "that verifies shares",
}


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
        from ralph_verify.until import parse_spec, parse_until

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
            from ralph_verify.until import redirect_trap

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


def plugin_name_of(pm: pluggy.PluginManager, module: str) -> str:
    """The registered plugin name whose module is ``module`` (or a parent of it)."""
    for name, plugin in pm.list_name_plugin():
        plugin_module = getattr(plugin, "__name__", None) or type(plugin).__module__
        if module == plugin_module or module.startswith(f"{plugin_module}."):
            return name or ""
    return module


def implementers(pm: pluggy.PluginManager, hook_name: str) -> dict[CodeType, str]:
    """The code of each implementation of ``hook_name``, with its plugin's name: pluggy calls
    every implementation itself and does not say which one is running, so the code on the
    call stack tells who declared an option or made a verdict proposal."""
    codes: dict[CodeType, str] = {}
    for impl in getattr(pm.hook, hook_name).get_hookimpls():
        code = getattr(getattr(impl.function, "__func__", impl.function), "__code__", None)
        if code is not None:
            codes.setdefault(code, impl.plugin_name)
    return codes


def implementer_on_stack(codes: dict[CodeType, str]) -> str:
    """The plugin of the innermost implementation in ``codes`` running now, else ``""``."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code in codes:
            return codes[frame.f_code]
        frame = frame.f_back
    return ""


def register_plugin(pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    """Register one plugin, built-in or third-party, with a clear error if it is malformed."""
    try:
        pm.register(plugin, name=name)
    except pluggy.PluginValidationError as exc:
        raise UsageError(f"plugin {name!r} is invalid: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"plugin {name!r} could not be registered: {exc}") from None


def _entry_points() -> Iterator[EntryPoint]:
    from ralph_verify.config.entry_points import entry_points

    yield from entry_points(group=ENTRY_POINT_GROUP)


def builtin_plugin_manager(disabled: Sequence[str] = (),
                           plugins: Sequence[object] = ()) -> pluggy.PluginManager:
    """A plugin manager holding the built-ins (less those ``-p no:`` disables) and the
    ``plugins`` objects the caller gives (named after their class or module), as pytest
    registers ``pytest.main(plugins=...)``: enough for ``ralph_cmdline_main``, before any
    third-party code is imported. The essential built-ins are registered whatever
    ``disabled`` says: :func:`get_plugin_manager` refuses that, inside the command."""
    pm = pluggy.PluginManager("ralph_verify")
    pm.add_hookspecs(hookspec)
    blocked = set(disabled) - set(ESSENTIAL_PLUGINS)
    for name in blocked:
        pm.set_blocked(name)
    for name in BUILTIN_PLUGINS:
        if name in blocked:
            continue
        module = importlib.import_module(f"ralph_verify.plugins.{name}")
        register_plugin(pm, module, name)
    for plugin in plugins:
        name = getattr(plugin, "__name__", None) or type(plugin).__name__
        suffix = 1
        while pm.has_plugin(name if suffix == 1 else f"{name}-{suffix}"):
            suffix += 1
        name = name if suffix == 1 else f"{name}-{suffix}"
        register_plugin(pm, plugin, name)
    return pm


def get_plugin_manager(disabled: Sequence[str] = (), plugins: Sequence[object] = (),
                       builtins: pluggy.PluginManager | None = None) -> pluggy.PluginManager:
    """A plugin manager: the built-ins and ``plugins`` given by the caller
    (:func:`builtin_plugin_manager`, or ``builtins`` when the caller made it already), then
    entry-point plugins (unless disabled).

    Modules named in ``RALPH_VERIFY_PLUGINS`` (comma-separated, importable from
    ``sys.path``) are registered after the entry-point plugins under their module
    name, even with autoloading disabled: like ``PYTEST_PLUGINS``, a way to use a
    plugin without installing it.
    """
    for name in disabled:
        if name in ESSENTIAL_PLUGINS:
            raise UsageError(f"-p no:{name}: plugin {name!r} cannot be disabled: "
                             f"{ESSENTIAL_PLUGINS[name]}")
    pm = builtins if builtins is not None else builtin_plugin_manager(disabled, plugins)
    blocked = set(disabled)
    if not os.environ.get(DISABLE_AUTOLOAD_ENV):
        for entry_point in _entry_points():
            if entry_point.name in blocked or pm.get_plugin(entry_point.name) is not None:
                continue
            dist = entry_point.dist
            try:
                plugin = entry_point.load()
            except Exception as exc:
                origin = f" (from {dist.name} {dist.version})" if dist is not None else ""
                raise UsageError(
                    f"plugin {entry_point.name!r}{origin} failed to import: "
                    f"{type(exc).__name__}: {exc}; fix or uninstall it, or run with "
                    f"-p no:{entry_point.name} (or {DISABLE_AUTOLOAD_ENV}=1 to load no "
                    "third-party plugin)"
                ) from None
            register_plugin(pm, plugin, entry_point.name)
            # pluggy's own bookkeeping, as load_setuptools_entrypoints does; Dist stands in
            # for importlib's Distribution (name, version, metadata["name"]):
            pm._plugin_distinfo.append((plugin, dist))  # type: ignore[arg-type]
    for module_name in os.environ.get(PLUGINS_ENV, "").split(","):
        module_name = module_name.strip()
        if not module_name or module_name in blocked or pm.has_plugin(module_name):
            continue
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            raise UsageError(f"plugin {module_name!r} (from {PLUGINS_ENV}) failed to import: "
                             f"{type(exc).__name__}: {exc}; fix it or take it out of "
                             f"{PLUGINS_ENV}") from None
        register_plugin(pm, module, module_name)
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise UsageError(f"{exc} (is it misspelled? run 'ralph-verify plugins')") from None
    return pm


def split_disable_args(args: Sequence[str]) -> tuple[list[str], list[str]]:
    """Take ``-p no:NAME`` out of ``args``; other ``-p`` values stay (``run -p PROMPT.md``)."""
    rest: list[str] = []
    disabled: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "-p" and index + 1 < len(args) and args[index + 1].startswith("no:"):
            disabled.append(args[index + 1][3:])
            index += 2
            continue
        if arg.startswith("-pno:"):
            disabled.append(arg[5:])
        else:
            rest.append(arg)
        index += 1
    return rest, disabled


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
    from ralph_verify.checks import CheckRegistry
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
    _check_disabled(pm, disabled, registry)
    config = Config(pm, parser, namespace, command, root, pyproject, file_settings, registry,
                    check_options, args)
    pm.hook.ralph_configure.call_historic(kwargs={"config": config})
    return config


def _check_disabled(pm: pluggy.PluginManager, disabled: Sequence[str],
                    registry: CheckRegistry) -> None:
    """``-p no:NAME`` must name a plugin: ``-p no:lint`` silently disabling nothing would run
    the check the user meant to switch off."""
    known = set(BUILTIN_PLUGINS)
    with contextlib.suppress(Exception):
        known.update(entry_point.name for entry_point in _entry_points())
    known.update(name.strip() for name in os.environ.get(PLUGINS_ENV, "").split(",")
                 if name.strip())
    known.update(name for name, plugin in pm.list_name_plugin() if name and plugin is not None)
    for name in disabled:
        if name in known:
            continue
        check_type = registry.get(name)
        if check_type is not None:
            hint = (f"; the {name} check is in plugin {check_type.plugin!r} "
                    f"(-p no:{check_type.plugin} disables it), or leave {name!r} out of --until")
        else:
            import difflib

            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UsageError(f"-p no:{name}: no plugin {name!r}{hint} (see 'ralph-verify plugins')")


def version() -> str:
    from ralph_verify import __version__

    return f"ralph-verify {__version__} (Python {sys.version.split()[0]})"
