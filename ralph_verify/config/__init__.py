"""The run's configuration (:class:`Config`), built per run by
:func:`ralph_verify.startup.get_config`, never global; it knows no check type."""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pluggy

from ralph_verify.config.parser import Command, Parser
from ralph_verify.config.stash import Stash
from ralph_verify.errors import ConfigError, UsageError

if TYPE_CHECKING:
    import argparse

    from ralph_verify.config.check_options import CheckOptions
    from ralph_verify.config.parser import CommonOptions
    from ralph_verify.config.until import CheckSpec

__all__ = ["Config", "ConfigError", "UsageError", "find_root"]


class Config:
    """Access to settings, the plugin manager and the hooks for one run."""

    def __init__(self, pluginmanager: pluggy.PluginManager, parser: Parser,
                 namespace: argparse.Namespace, command: Command, root: Path,
                 pyproject: Path, file_settings: dict[str, Any],
                 check_options: dict[str, CommonOptions | CheckOptions],
                 args: Sequence[str]) -> None:
        self.pluginmanager = pluginmanager
        self.hook = pluginmanager.hook
        self.parser = parser
        self.option = namespace
        self.command = command
        self.root = root
        self.pyproject = pyproject
        self.file_settings = file_settings
        self.check_options = check_options
        self.args = tuple(args)
        self.invocation_dir = Path.cwd()
        #: Per-run objects plugins share, under typed keys (``config.stash[SESSION_KEY]``).
        self.stash = Stash()
        #: What a loop session fixes over the command line (see :meth:`with_values`).
        self._session_values: Mapping[str, Any] = {}

    def get(self, key: str) -> Any:
        """An option or setting: what a session fixed (:meth:`with_values`), else the command
        line, else ``[tool.ralph-verify]``, else its declared default (never ``x or DEFAULT``,
        which turns a ``0`` off-switch into the default); ``None`` if nobody declared it."""
        dest = key.replace("-", "_")
        source = self.source_of(dest)
        if source == "session":
            return self._session_values[dest]
        if source == "command line":
            return getattr(self.option, dest)
        if dest in self.file_settings:
            return self.file_settings[dest]
        return next((s.default for s in self.parser.settings.values() if s.dest == dest), None)

    def with_values(self, values: Mapping[str, Any], *,
                    file_settings: dict[str, Any] | None = None,
                    check_options: Mapping[str, CommonOptions | CheckOptions] | None = None,
                    ) -> Config:
        """A copy of this configuration for one loop session, answering ``values`` (by dest) above
        the command line (:class:`ralph_verify.loop.settings.SessionSettings`); ``file_settings``
        and ``check_options`` replace the file's. It shares the plugin manager and the stash; this
        configuration is never written."""
        session = copy.copy(self)
        session._session_values = MappingProxyType({
            key.replace("-", "_"): value for key, value in values.items()})
        if file_settings is not None:
            session.file_settings = file_settings
        if check_options is not None:
            session.check_options = dict(check_options)
        return session

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

    def requested_specs(self) -> tuple[list[CheckSpec], bool]:
        """The checks asked for, as written: ``--until`` (then ``True``), else ``until`` in
        the config file (resolved by :func:`ralph_verify.checks.registry.until_specs`)."""
        from ralph_verify.config.until import parse_spec, parse_until

        cli = getattr(self.option, "until", None)
        if cli is not None:
            return parse_until(cli), True
        if "until" in self.file_settings:
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
            return specs, False
        raise UsageError(
            "no checks to run: pass --until (for example --until tests,lint,coverage.min=80) "
            f"or set until = [...] in {TABLE_HINT}")


TABLE_HINT = "[tool.ralph-verify] of pyproject.toml"


def find_root(start: Path) -> Path:
    """The nearest directory at or above ``start`` with a pyproject.toml or .git; an
    unreadable pyproject.toml (a folder, a broken link) marks it too, so reading it says what
    is wrong rather than a folder further up being checked instead."""
    for folder in (start, *start.parents):
        if os.path.lexists(folder / "pyproject.toml") or (folder / ".git").exists():
            return folder
    return start
