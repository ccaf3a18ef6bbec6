"""The subcommands of issue one: ``check``, ``checks`` and ``plugins``."""

from __future__ import annotations

from ralph_verify import hookimpl
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.stash import SESSION_KEY


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "check", run_check, scopes=("verify", "output"),
        help="verify the project once, without an agent (CI, hooks)",
        description="Run the checks of --until (or [tool.ralph-verify] until) once against the "
                    "working tree and print one line per check, then the feedback an agent "
                    "would get.\n\nexamples:\n"
                    "  ralph-verify check --until tests,lint,types,coverage.min=80\n"
                    "  ralph-verify check --until 'tests>=120,files:src/app.py,"
                    "!files:jest.config.js,cmd:\"make docs\"' --json",
    )
    parser.addoption("--until", setting="until", setting_type=list[str] | str, metavar="SPECS",
                     help="comma-separated checks that must pass, e.g. "
                          "tests,lint,types,coverage.min=80 (quote operators in a shell: "
                          "'coverage>=80'; see 'ralph-verify checks')")
    parser.addoption("-q", "--quiet", scope="output", action="store_true", default=False,
                     help="print nothing but errors (the exit code tells the verdict)")
    parser.add_command("checks", list_checks,
                       help="list every known check: name, aliases, plugin, arguments, options")
    parser.add_command("plugins", list_plugins,
                       help="list loaded plugins, where they come from and their versions")


def run_check(config: Config) -> int:
    from ralph_verify import signals
    from ralph_verify.session import verification_exit_code
    from ralph_verify.verification import verify

    specs = config.until_specs()
    for spec in specs:
        check_type = config.registry.resolve(spec)
        if spec.arg is not None and spec.arg in check_type.loop_args \
                and config.stash.get(SESSION_KEY) is None:
            from ralph_verify.errors import UsageError

            raise UsageError(
                f"{spec.text!r} judges against a session's baseline, so it works only in a loop "
                f"(ralph-verify run or start); for one verification use {check_type.name!r}")
    checks = config.build_checks(specs)
    # SIGTERM and SIGHUP (a closed terminal) stop like Ctrl-C: every tool killed, temp
    # folders removed, exit 130.
    with signals.cancel_on_signals(lambda name: True):
        verification = verify(config, checks)
    config.hook.ralph_report_verification(config=config, session=None, iteration=None,
                                          verification=verification)
    config.hook.ralph_verification_finish(config=config, verification=verification)
    return verification_exit_code(verification.passed, bool(verification.errored))


def list_checks(config: Config) -> int:
    for check_type in config.registry.types():
        aliases = f" (alias {', '.join(check_type.aliases)})" if check_type.aliases else ""
        print(f"{check_type.usage()}{aliases}  [plugin {check_type.plugin}]")
        print(f"    {check_type.help}")
        if check_type.arg != "none" and check_type.arg_help:
            print(f"    argument: {check_type.arg_help}")
        if check_type.threshold:
            print(f"    threshold: {check_type.threshold}")
        for name, field in check_type.options_class.model_fields.items():
            key = field.alias or name
            print(f"    [tool.ralph-verify.checks.{check_type.name}] {key}: "
                  f"{field.description or ''}")
    return 0


def list_plugins(config: Config) -> int:
    from ralph_verify.config import BUILTIN_PLUGINS

    dists = {id(plugin): dist for plugin, dist in config.pluginmanager.list_plugin_distinfo()}
    for name, plugin in config.pluginmanager.list_name_plugin():
        if plugin is None:
            print(f"{name}  (disabled with -p no:{name})")
            continue
        dist = dists.get(id(plugin))
        if name in BUILTIN_PLUGINS:
            origin = "built-in"
        elif dist is not None:
            origin = f"{dist.project_name} {dist.version}"
        else:
            origin = "registered at run time"
        hooks = sorted({impl for impl in _hooks_of(config, plugin)})
        print(f"{name}  [{origin}]  {', '.join(hooks)}")
    return 0


def _hooks_of(config: Config, plugin: object) -> list[str]:
    callers = config.pluginmanager.get_hookcallers(plugin) or []
    return [caller.name for caller in callers]
