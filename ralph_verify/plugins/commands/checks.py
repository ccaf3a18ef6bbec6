"""``ralph-verify checks``: every known check, its aliases, plugin, argument and options."""

from __future__ import annotations

from ralph_verify.checks.registry import registry_of
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser, option_help
from ralph_verify.markers import hookimpl


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command("checks", list_checks, scopes=("list",),
                       help="list every known check: name, aliases, plugin, arguments, options")


def list_checks(config: Config) -> int:
    if config.get("json") is not None:
        from ralph_verify.plugins.json_report import write_json

        write_json(config, [{
            "name": t.name, "aliases": list(t.aliases), "plugin": t.plugin, "help": t.help,
            "usage": t.usage(), "arg": t.arg, "arg_help": t.arg_help,
            "threshold": t.threshold,
            "options": option_help(t.options),
        } for t in registry_of(config).types()])
        return 0
    from ralph_verify.plugins.commands.plugins import print_agents, wrapped

    for check_type in registry_of(config).types():
        aliases = f" (alias {', '.join(check_type.aliases)})" if check_type.aliases else ""
        print(wrapped(f"{check_type.usage()}{aliases}  [plugin {check_type.plugin}]", "",
                      "    "))
        lines = [check_type.help]
        if check_type.arg != "none" and check_type.arg_help:
            lines.append(f"argument: {check_type.arg_help}")
        if check_type.threshold:
            lines.append(f"threshold: {check_type.threshold}")
        lines += [f"[tool.ralph-verify.checks.{check_type.name}] {key}: {text}"
                  for key, text in option_help(check_type.options).items()]
        for line in lines:
            print(wrapped(line, "    ", "      "))
    print_agents(config)  # the agents a check-driven loop can run, tested offline or not
    return 0

