"""``ralph-verify run`` as a Python API: :class:`Loop` (usage in ``docs/run.md``)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ralph_verify.loop.result import LoopResult
from ralph_verify.loop.session import Iteration
from ralph_verify.loop.verdict import Verdict
from ralph_verify.markers import hookimpl
from ralph_verify.startup import get_config
from ralph_verify.state_files import write_text_atomic

if TYPE_CHECKING:
    from ralph_verify.agents import Agent
    from ralph_verify.config import Config
    from ralph_verify.loop.settings import SessionSettings


class Loop:
    """One ``ralph-verify run``; build it from keyword arguments or from a parsed config."""

    def __init__(self, agent: str | Agent | None = None,
                 until: Sequence[str] | str | None = None, max_iterations: int | None = None,
                 *, task: str | None = None, prompt_file: str | Path | None = None,
                 root: str | Path = ".",
                 on_iteration_end: Callable[[Iteration], object] | None = None,
                 args: Sequence[str] = (), plugins: Sequence[object] = (),
                 quiet: bool = False, stream: TextIO | None = None) -> None:
        argv = ["run", "--root", str(Path(root).resolve())]
        given = {"--agent": agent if isinstance(agent, str) else None,
                 "--until": until if until is None or isinstance(until, str) else ",".join(until),
                 "--max-iterations": max_iterations, "--prompt": prompt_file}
        argv += [word for flag, value in given.items() if value is not None
                 for word in (flag, str(value))]
        if quiet:
            argv.append("-qq")  # nothing but errors
        argv += list(args)
        if task is not None:
            argv += ["--", task]
        extra = list(plugins)
        if on_iteration_end is not None:
            extra.append(_Callback(on_iteration_end))
        self.config = get_config(argv, extra)
        self._owns_config = True
        self._agent = None if agent is None or isinstance(agent, str) else agent
        self._stream = stream
        self._settings: SessionSettings | None = None

    @classmethod
    def from_config(cls, config: Config, agent: Agent | None = None,
                    stream: TextIO | None = None,
                    settings: SessionSettings | None = None) -> Loop:
        """A loop of a parsed configuration; ``settings``: the session's, when the caller
        fixes them (``tasks plan``: its check and prompt), else the command line's."""
        loop = cls.__new__(cls)
        loop.config = config
        loop._owns_config = False
        loop._agent = agent
        loop._stream = stream
        loop._settings = settings
        return loop

    def run(self) -> LoopResult:
        """Run the session to its verdict; exceptions other than ``UsageError`` are bugs."""
        try:
            from ralph_verify.loop.run_driver import RunDriver

            return RunDriver(self.config, self._agent, self._stream, self._settings).run()
        finally:
            if self._owns_config:
                self.config.hook.ralph_unconfigure(config=self.config)


class _Callback:
    """Adapts ``Loop(on_iteration_end=...)`` to the hook."""

    def __init__(self, callback: Callable[[Iteration], object]) -> None:
        self.callback = callback

    @hookimpl
    def ralph_iteration_end(self, iteration: Iteration) -> None:
        self.callback(iteration)


def run_session(config: Config, settings: SessionSettings | None = None) -> int:
    """The ``run`` command; ``--json [FILE]`` writes the session's result as JSON."""
    result = Loop.from_config(config, settings=settings).run()
    target = config.get("json")
    if target is not None:
        from ralph_verify.records.files import dumps
        from ralph_verify.records.refusals import safety_stats

        # The guard's refusals during the session (.ralph/guard.jsonl), counted by rule.
        safety = safety_stats(config.root, result.session.started_at or None)
        text = dumps(result.record(safety)) + "\n"
        if target == "-":
            sys.stdout.write(text)
        else:
            write_text_atomic(Path(config.invocation_dir, target), text)
    return result.exit_code


__all__ = ["Loop", "LoopResult", "Verdict", "run_session"]
