"""``ralph-verify plugins``: the loaded plugins, where each comes from, the hooks it implements."""

from __future__ import annotations

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.markers import hookimpl
from ralph_verify.startup import BUILTIN_PLUGINS


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command("plugins", list_plugins, scopes=("list",),
                       help="list loaded plugins, where they come from and their versions")


def list_plugins(config: Config) -> int:
    dists = {id(plugin): dist for plugin, dist in config.pluginmanager.list_plugin_distinfo()}
    rows: list[dict[str, object]] = []
    for name, plugin in config.pluginmanager.list_name_plugin():
        if plugin is None:
            rows.append({"name": name, "disabled": True})
            if config.get("json") is None:
                print(f"{name}  (disabled with -p no:{name})")
            continue
        dist = dists.get(id(plugin))
        if name in BUILTIN_PLUGINS:
            origin = "built-in"
        elif dist is not None:
            origin = f"{dist.project_name} {dist.version}"
        else:
            origin = "registered at run time"
        hooks = sorted({caller.name for caller in
                        config.pluginmanager.get_hookcallers(plugin) or []})
        rows.append({"name": name, "disabled": False, "origin": origin, "hooks": hooks})
        if config.get("json") is None:
            print(wrapped(f"{name}  [{origin}]  {', '.join(hooks)}", "", "    "))
    if config.get("json") is not None:
        from ralph_verify.plugins.json_report import write_json

        write_json(config, rows)
    else:
        print_agents(config)
    return 0


def print_agents(config: Config) -> None:
    """The agent adapters, each with its plugin and its help: says which CLIs are tested
    offline and which are not (Amp, which talks only to its own service)."""
    from ralph_verify.agents import AgentRegistry

    registry = AgentRegistry()
    config.hook.ralph_register_agents(registry=registry)
    print("agents (--agent NAME):")
    for agent_type in registry.types():
        print(wrapped(f"{agent_type.name}  [plugin {agent_type.plugin or '?'}]  "
                      f"{agent_type.help}", "  ", "      "))


def wrapped(text: str, first: str, rest: str) -> str:
    """``text`` folded to the terminal's width (``COLUMNS``; 80 off a terminal), as pytest's
    and argparse's help are, ``first`` before its first line and ``rest`` before the others."""
    import shutil
    import textwrap

    return textwrap.fill(text, width=max(shutil.get_terminal_size().columns, 40),
                         initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False)
