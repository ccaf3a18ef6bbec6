"""``status --watch``: the option; the view itself is :mod:`ralph_verify.reports.watch`."""

from __future__ import annotations

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser, positive_duration
from ralph_verify.markers import hookimpl


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--watch", scope="status", action="store_true", default=False,
                     help="follow the session live until it ends (from another terminal, over "
                          "ssh; plain lines when not a terminal); exits with the run's code")
    parser.addoption("--interval", scope="status", type=positive_duration, default=2.0,
                     metavar="DURATION",
                     help="seconds between two looks with --watch (default 2)")


def watch_status(config: Config) -> int:
    """Called by ``status`` when ``--watch`` is given."""
    from ralph_verify.loop.records import describe_plugin_state
    from ralph_verify.reports.watch import watch

    interval = max(0.05, float(config.get("interval")))
    return watch(config.root, interval=interval,
                 describe=lambda name, value: describe_plugin_state(config, name, value))
