"""Start-up: the plugin manager (the built-ins, then entry points and
``RALPH_VERIFY_PLUGINS``, registered alike; ``-p no:NAME``) and :func:`get_config`."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

import ralph_verify.hookspec as hookspec
from ralph_verify.config import Config, find_root
from ralph_verify.config.implementers import implementer_on_stack, implementers, plugin_name_of
from ralph_verify.config.parser import Command, Parser, split_plugin_args
from ralph_verify.errors import ConfigError, UsageError
from ralph_verify.markers import print_version

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from ralph_verify.checks.registry import CheckRegistry

ENTRY_POINT_GROUP = "ralph_verify"
DISABLE_AUTOLOAD_ENV = "RALPH_VERIFY_DISABLE_PLUGIN_AUTOLOAD"
#: Comma-separated modules to load as plugins, like ``PYTEST_PLUGINS``.
PLUGINS_ENV = "RALPH_VERIFY_PLUGINS"

#: Built-in plugins, registered in this order under their short names.
BUILTIN_PLUGINS: tuple[str, ...] = (
    "core", "cache", "feedback", "terminal", "json_report", "junitxml", "github", "init",
    "commands.init", "report", "commands.report", "notify", "otel", "watch", "files", "cmd",
    "promise", "pytest_run", "interpreter", "junit", "ruff", "precommit", "mypy", "mutation",
    "commands.check", "commands.checks", "commands.plugins", "loop", "commands.run",
    "commands.tasks", "commands.tasks_evidence", "commands.tasks_manage", "commands.status",
    "commands.cancel", "commands.rollback", "agents", "agent_clis", "completion",
    "max_iterations", "budget", "agent_error", "cancel", "sandbox", "checkpoint",
    "commands.recover", "breaker", "integrity", "agenthook", "commands.start",
    "commands.agent_hook", "commands.slash", "fleet", "fleet_local",
)

#: Built-ins ``check`` does not import (9% of its process): each acts only in a loop, a fleet
#: or a command of its own (``tests/plugins/test_check_plugins.py``). A table key only they
#: declare brings them in (:func:`get_config`); other commands have all.
NOT_FOR_CHECK = frozenset({
    "init", "commands.init", "report", "commands.report", "notify", "watch",
    "commands.checks", "commands.plugins", "loop", "commands.run", "commands.tasks",
    "commands.tasks_manage", "commands.status", "commands.cancel", "commands.rollback",
    "agents", "agent_clis", "completion", "max_iterations", "budget", "agent_error", "cancel",
    "sandbox", "checkpoint", "commands.recover", "breaker", "agenthook", "commands.start",
    "commands.agent_hook", "commands.slash", "fleet", "fleet_local",
})

#: Built-ins the others stand on, with why: ``-p no:NAME`` of one of these is refused
#: (exit 2) instead of leaving a run in which every check errors or ``check`` is missing.
ESSENTIAL_PLUGINS: dict[str, str] = {
    "core": "it runs every check and declares the options all commands share (--timeout, "
            "--feedback-budget, --python, --jobs); without it every check would error",
    "commands.check": "it provides the check command and the --until option every command "
                      "that verifies shares",
}


def register_plugin(pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    """Register one plugin, built-in or third-party, with a clear error if it is malformed."""
    try:
        pm.register(plugin, name=name)
    except pluggy.PluginValidationError as exc:
        raise UsageError(f"plugin {name!r} is invalid: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"plugin {name!r} could not be registered: {exc}") from None


def _entry_points() -> list[EntryPoint]:
    """The ``ralph_verify`` entry points of the installed distributions."""
    from importlib.metadata import entry_points

    return list(entry_points(group=ENTRY_POINT_GROUP))


def builtin_plugin_manager(disabled: Sequence[str] = (), plugins: Sequence[object] = (),
                           command: str | None = None) -> pluggy.PluginManager:
    """The built-ins (less those ``-p no:`` disables, never the essential ones) and the
    caller's ``plugins``, as ``pytest.main(plugins=...)``: enough for ``ralph_cmdline_main``,
    before any third-party code is imported."""
    pm = pluggy.PluginManager("ralph_verify")  # the project of ralph_verify.markers
    pm.add_hookspecs(hookspec)
    blocked = set(disabled) - set(ESSENTIAL_PLUGINS)
    for name in blocked:
        pm.set_blocked(name)
    register_builtins(pm, NOT_FOR_CHECK if command == "check" else frozenset())
    for plugin in plugins:
        name = getattr(plugin, "__name__", None) or type(plugin).__name__
        suffix = 1
        while (candidate := name if suffix == 1 else f"{name}-{suffix}") in BUILTIN_PLUGINS \
                or pm.has_plugin(candidate):
            suffix += 1
        register_plugin(pm, plugin, candidate)
    return pm


def register_builtins(pm: pluggy.PluginManager, leave_out: frozenset[str] = frozenset()
                      ) -> bool:
    """Register the built-ins not blocked, registered or left out; whether there was any."""
    added = False
    for name in BUILTIN_PLUGINS:
        if name in leave_out or pm.is_blocked(name) or pm.has_plugin(name):
            continue
        module = importlib.import_module(f"ralph_verify.plugins.{name}")
        register_plugin(pm, module, name)
        added = True
    return added


def get_plugin_manager(disabled: Sequence[str] = (), plugins: Sequence[object] = (),
                       builtins: pluggy.PluginManager | None = None) -> pluggy.PluginManager:
    """The built-ins (or ``builtins`` made already), then entry-point plugins, then the
    modules named in ``RALPH_VERIFY_PLUGINS`` (as ``PYTEST_PLUGINS``)."""
    for name in disabled:
        if name in ESSENTIAL_PLUGINS:
            raise UsageError(f"-p no:{name}: plugin {name!r} cannot be disabled: "
                             f"{ESSENTIAL_PLUGINS[name]}")
    pm = builtins if builtins is not None else builtin_plugin_manager(disabled, plugins)
    blocked = set(disabled)
    if not os.environ.get(DISABLE_AUTOLOAD_ENV):
        for entry_point in _entry_points():
            if entry_point.name in blocked or entry_point.name in BUILTIN_PLUGINS \
                    or pm.has_plugin(entry_point.name):
                continue  # a built-in's name is the built-in's, registered or not
            _load_entry_point(pm, entry_point)
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


def _load_entry_point(pm: pluggy.PluginManager, entry_point: EntryPoint) -> None:
    """Import one third-party plugin, then register it through pluggy's loader (which records
    its distribution for ``ralph-verify plugins``); a failure names it and how to go on."""
    name = entry_point.name
    try:
        entry_point.load()
    except Exception as exc:
        raise UsageError(
            f"plugin {name!r}{_origin(entry_point)} failed to import: {type(exc).__name__}: "
            f"{exc}; fix or uninstall it, or run with -p no:{name} (or {DISABLE_AUTOLOAD_ENV}=1 "
            "to load no third-party plugin)") from None
    try:  # imported already: this only registers it
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP, name=name)
    except pluggy.PluginValidationError as exc:
        raise UsageError(f"plugin {name!r}{_origin(entry_point)} is invalid: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"plugin {name!r}{_origin(entry_point)} could not be registered: "
                         f"{exc}") from None


def _origin(entry_point: EntryPoint) -> str:
    """`` (from DIST VERSION)``, for an error only: the name and version are read from the
    distribution's metadata file, which is parsed as an email message."""
    dist = entry_point.dist
    return f" (from {dist.name} {dist.version})" if dist is not None else ""


#: Commands that only read a session's records: a broken pyproject.toml does not stop them.
RECORD_READERS = ("status", "report")


def register_checks(pm: pluggy.PluginManager, registry: CheckRegistry) -> None:
    """Every plugin's ``ralph_register_checks``; a crash in one is an error naming it."""
    try:
        pm.hook.ralph_register_checks(registry=registry)
    except UsageError:
        raise
    except Exception as exc:
        from ralph_verify.config.implementers import implementer_in_traceback

        name = implementer_in_traceback(implementers(pm, "ralph_register_checks"),
                                        exc.__traceback__) or "(unknown)"
        raise UsageError(f"plugin {name!r} crashed in ralph_register_checks: "
                         f"{type(exc).__name__}: {exc}; fix or update it, or disable it with "
                         f"-p no:{name}") from None


def check_disabled(pm: pluggy.PluginManager, disabled: Sequence[str],
                    registry: CheckRegistry) -> None:
    """``-p no:NAME`` must name a plugin: ``-p no:lint`` silently disabling nothing would run
    the check the user meant to switch off."""
    if not disabled:
        return
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


def collect_options(pm: pluggy.PluginManager) -> Parser:
    """What every plugin declares in ``ralph_addoption``; each declaration names its plugin."""
    codes = implementers(pm, "ralph_addoption")
    parser = Parser(plugin_of_caller=lambda: implementer_on_stack(codes))
    pm.hook.ralph_addoption(parser=parser)  # through pluggy: wrappers and tracing see it
    return parser


def get_config(args: Sequence[str], plugins: Sequence[object] = (),
               builtins: pluggy.PluginManager | None = None) -> Config:
    """The run's configuration; :class:`UsageError` for anything the user got wrong.
    ``builtins``: the plugin manager ``ralph_cmdline_main`` was called on."""
    from ralph_verify.checks.registry import CHECK_REGISTRY, CheckRegistry, validate_checks
    from ralph_verify.config.pyproject import load_table, validate_settings

    args, disabled, note = split_plugin_args(args)
    if note is not None:
        print(note, file=sys.stderr)
    pm = get_plugin_manager(disabled, plugins, builtins)
    parser = collect_options(pm)
    namespace = parser.parse(args)
    if namespace.version:
        namespace.command = "version"
    if namespace.command is None:
        raise UsageError("missing command: try 'ralph-verify check --until tests' "
                         "(see 'ralph-verify --help')")
    if namespace.command == "version":
        command = Command("version", print_version, "")
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
    registry = CheckRegistry(plugin_of_module=lambda module: plugin_name_of(pm, module))
    register_checks(pm, registry)
    try:
        table = load_table(pyproject)
        if not _declared(table, parser) and register_builtins(pm):
            # A key of a built-in ``check`` left out (NOT_FOR_CHECK): judged as ever.
            parser = collect_options(pm)
            namespace = parser.parse(args)
        file_settings = validate_settings(table, parser.settings, pyproject)
        check_options = validate_checks(table.get("checks", {}), registry, pyproject)
    except ConfigError as exc:
        if command.name not in RECORD_READERS:
            raise
        # What already happened is shown whatever the configuration says now.
        print(f"warning: {exc} (ignored: '{command.name}' reads .ralph/ only)",
              file=sys.stderr)
        file_settings, check_options = {}, {}
    check_disabled(pm, disabled, registry)
    config = Config(pm, parser, namespace, command, root, pyproject, file_settings,
                    check_options, args)
    config.stash[CHECK_REGISTRY] = registry
    pm.hook.ralph_configure.call_historic(kwargs={"config": config})
    return config


def _declared(table: dict[str, Any], parser: Parser) -> bool:
    """Whether every key of the table is a setting some plugin declared (or ``checks``)."""
    known = {"checks"}
    for setting in parser.settings.values():
        known.update((setting.key, setting.dest))
    return known.issuperset(table)
