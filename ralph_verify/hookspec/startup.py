"""Start-up: the command line, options and settings, configuration, ``init`` targets."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

from ralph_verify.markers import hookspec

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.config.parser import Parser
    from ralph_verify.config.scaffold import InitRegistry


@hookspec(firstresult=True)
def ralph_cmdline_main(args: list[str], plugins: list[object],
                       pluginmanager: pluggy.PluginManager) -> int | None:
    """Run one command line, from the configuration to the exit code.

    The first hook of every invocation, called on the built-in plugins and those given
    to ``ralph_verify.main(plugins=...)`` alone: no third-party plugin is imported yet;
    ``pluginmanager`` is then handed to the configuration, which loads them. The
    built-in ``core`` plugin answers last: it builds the configuration, runs the command
    and maps every outcome and exception to an exit code (:mod:`ralph_verify.cli`).
    Wrap it to change what a command's failure means, as the ``hook`` command does: an
    agent's hook answers 0 and lets the agent go on, whatever failed (a bad
    configuration, a broken plugin, a crash).

    :param args: the command line, without the program name (``-p no:NAME`` still in it).
    :param plugins: plugin objects given to ``ralph_verify.main(plugins=...)`` for this run
        (registered already).
    :param pluginmanager: the plugin manager, holding the built-ins and ``plugins`` so far
        (for ``check``, the built-ins a check uses: not those of a loop or another command).
    :returns: the exit code.

    ::

        @hookimpl(wrapper=True)
        def ralph_cmdline_main(args):
            started = time.monotonic()
            code = yield
            print(f"{args[:1]} took {time.monotonic() - started:.1f}s", file=sys.stderr)
            return code
    """


@hookspec
def ralph_addoption(parser: Parser) -> None:
    """Declare command-line options, config settings and subcommands.

    Called once per plugin, before the command line is parsed, in registration
    order (built-ins first); what a plugin declares is listed under its name in
    ``--help`` and in the configuration reference.

    :param parser: call ``parser.addoption("--flag", setting="key", ...)`` for an
        option that may also be set as ``key`` in ``[tool.ralph-verify]`` (the
        command line wins), ``parser.addsetting(...)`` for a config-only setting,
        and ``parser.add_command(name, handler, help=...)`` for a subcommand.

    A setting is then read with ``config.get("key")``::

        @hookimpl
        def ralph_addoption(parser):
            parser.addoption("--flavour", setting="flavour", default="vanilla",
                             help="the flavour of the day")
    """


@hookspec(historic=True)
def ralph_configure(config: Config) -> None:
    """Act on the parsed command line and configuration.

    A plugin may register further plugin objects here (as ``--junitxml`` does) and
    keep per-run state on itself, never in globals. Historic: a plugin registered
    during configure is configured too.

    :param config: the run's :class:`~ralph_verify.Config`; settings are read
        with ``config.get(key)``, the subcommand is ``config.command.name``.

    Register a reporter only when its option is given::

        @hookimpl
        def ralph_configure(config):
            if config.get("flavour") == "mint":
                config.pluginmanager.register(MintReporter(config), "mint-reporter")
    """


@hookspec
def ralph_unconfigure(config: Config) -> None:
    """Release what ``ralph_configure`` acquired.

    Called once before exit, even after errors and Ctrl-C, so files are closed and
    child processes stopped whatever happened.

    :param config: the run's :class:`~ralph_verify.Config`, as ``ralph_configure`` got it.

    ::

        @hookimpl
        def ralph_unconfigure(config):
            reporter = config.pluginmanager.unregister(name="mint-reporter")
            if reporter is not None:
                reporter.close()
    """


@hookspec
def ralph_register_init_targets(registry: InitRegistry) -> None:
    """Declare what ``ralph-verify init [TARGET]`` can set up.

    The bare ``init`` is the target ``project`` (``[tool.ralph-verify]``,
    ``PROMPT.md``, ``.gitignore``); ``init claude`` writes Claude Code's hooks.
    Options for ``init`` use scope ``"init"`` (``--force``, ``--dry-run``).

    :param registry: call ``registry.add(InitTarget(name, handler, help))``;
        ``handler(config)`` returns the exit code. A name declared twice is an error.

    :func:`~ralph_verify.apply_changes` writes :class:`~ralph_verify.FileChange`\\ s only
    where they do not clobber the user's own text: otherwise it shows the diff and
    refuses unless ``--force``::

        @hookimpl
        def ralph_register_init_targets(registry):
            registry.add(InitTarget("editorconfig", write_editorconfig, "write .editorconfig"))

        def write_editorconfig(config):
            path = config.root / ".editorconfig"
            old = path.read_text() if path.exists() else None
            apply_changes([FileChange(path, old, "root = true\\n", clobbers=old is not None)],
                          config.root, force=config.option.force,
                          dry_run=config.option.dry_run)
            return 0
    """
