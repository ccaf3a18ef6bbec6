"""What one loop session runs with, decided once before it opens: :class:`SessionSettings`.

Each driver builds one and hands it to :func:`ralph_verify.loop.opening.new_session`; the
parsed command line is never written: the session's ``config`` answers the settings'
``options`` first (:meth:`ralph_verify.config.Config.with_values`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.registry import registry_of, until_specs
from ralph_verify.config.until import CheckSpec, parse_spec
from ralph_verify.errors import UsageError

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.config.check_options import CheckOptions
    from ralph_verify.config.parser import CommonOptions
    from ralph_verify.records.session import SessionState


def _frozen(values: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType({key.replace("-", "_"): value for key, value in
                             (values or {}).items()})


@dataclass(frozen=True)
class SessionSettings:
    """One session's settings, fixed before it opens and never changed while it runs."""

    #: The checks asked for, resolved against the registry (``ralph_session_checks`` may add
    #: more: ``integrity``).
    until: tuple[CheckSpec, ...]
    #: The task's text.
    task: str
    #: The limit ``--max-iterations`` sets; the ``max_iterations`` plugin holds the session
    #: to it (``-p no:max_iterations``: no limit of its own).
    max_iterations: int
    #: The session continues the interrupted one of ``.ralph/state.json``.
    resume: bool = False
    #: Option values, by dest, the session fixes over the command line and the file: those
    #: a resumed session ran with, a task's limits, the settings hook mode froze at ``start``.
    options: Mapping[str, Any] = field(default_factory=lambda: _frozen(None))
    #: Hook mode: ``[tool.ralph-verify]``'s settings and check tables as frozen at ``start``
    #: (``None``: the file's), whatever the agent edited since.
    file_settings: Mapping[str, Any] | None = None
    check_options: Mapping[str, CommonOptions | CheckOptions] | None = None

    def config_for(self, config: Config) -> Config:
        """The session's configuration: ``config`` with these options above its command
        line (a copy; ``config`` itself is not written)."""
        return config.with_values(
            self.options,
            file_settings=dict(self.file_settings) if self.file_settings is not None else None,
            check_options=dict(self.check_options) if self.check_options is not None
            else None)


def settings_for(config: Config, *, options: Mapping[str, Any] | None = None,
                 until: Iterable[CheckSpec] | None = None, task: str | None = None,
                 resume: bool | None = None, file_settings: Mapping[str, Any] | None = None,
                 check_options: Mapping[str, CommonOptions | CheckOptions] | None = None,
                 ) -> SessionSettings:
    """A session's settings: what is given here, else what the command line and the file say
    (``until``, the task of ``-P``/TASK/PROMPT.md, ``--max-iterations``, ``--resume``), read
    through ``options`` (a task's ``max-iterations`` is the session's limit)."""
    frozen = SessionSettings((), "", 1, options=_frozen(options), file_settings=file_settings,
                             check_options=check_options)
    view = frozen.config_for(config)
    specs = until_specs(view) if until is None else resolved(view, until)
    limit = int(view.get("max_iterations"))
    if limit < 1:
        raise UsageError("--max-iterations must be at least 1")
    return SessionSettings(
        until=tuple(specs), task=read_task(view) if task is None else task,
        max_iterations=limit, resume=bool(view.get("resume")) if resume is None else resume,
        options=frozen.options, file_settings=file_settings, check_options=check_options)


def resolved(config: Config, specs: Iterable[CheckSpec]) -> list[CheckSpec]:
    """``specs``, each checked against the registry (an unknown check is a usage error)."""
    registry = registry_of(config)
    found = list(specs)
    for spec in found:
        registry.resolve(spec)
    return found


def stored_specs(config: Config, texts: Iterable[str], *, source: str) -> list[CheckSpec]:
    """The specs a session recorded as text (``state.json``'s ``until``, a frozen copy)."""
    return resolved(config, [parse_spec(str(text), source=source) for text in texts])


def resumed(config: Config, previous: SessionState,
            given: SessionSettings | None = None) -> SessionSettings:
    """The settings of the interrupted session of ``previous`` (``state.json``): those it
    ran with, but what today's command line says; over ``given`` (a task's)."""
    options = dict(given.options) if given is not None else {}
    for dest, value in previous.settings.items():
        if config.source_of(dest) != "command line":
            options[dest] = value
    until: list[CheckSpec] | None = list(given.until) if given is not None else None
    if config.source_of("until") != "command line" and previous.until:
        until = stored_specs(config, previous.until, source="state.json until")
    return settings_for(config, options=options, until=until, task=previous.task or "",
                        resume=True)


def read_task(config: Config) -> str:
    """The task: ``-p FILE``, else the text argument, else ``PROMPT.md`` in the root."""
    prompt = config.get("prompt")
    if prompt:
        path = Path(str(prompt)).expanduser()
        path = path if path.is_absolute() else config.invocation_dir / path
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--prompt {prompt}: cannot read it ({exc.strerror})") from None
        except UnicodeDecodeError:
            raise UsageError(f"--prompt {prompt}: not a UTF-8 text file (the task must be "
                             "text, e.g. a PROMPT.md)") from None
    task = config.get("task")
    if task:
        return str(task)
    default = config.root / "PROMPT.md"
    if default.is_file():
        try:
            return default.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{default}: not a UTF-8 text file (the task must be text)") \
                from None
    raise UsageError("no task: pass -P PROMPT.md, or the task as text "
                     "(ralph-verify run --agent ... --until ... 'make the tests pass'), "
                     "or put it in PROMPT.md in the project root")
