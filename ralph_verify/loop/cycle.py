"""One iteration of a loop session, the same code whichever driver runs it.

``run`` and the agent's Stop hook differ only in what their :class:`Driver` answers (the
prompt, the agent's turn, the checks' time); the hooks, their order and the records are
:func:`run_iteration` and :func:`runloop`, called by the built-in ``loop`` plugin."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ralph_verify.agents import (
    GUARD_COMMAND_KEY,
    AgentOptions,
    AgentRegistry,
    AgentRequest,
    AgentResult,
)
from ralph_verify.checks.registry import until_specs
from ralph_verify.checks.verification import verify
from ralph_verify.config.implementers import implementers
from ralph_verify.config.stash import PROMISES_KEY, StashKey
from ralph_verify.errors import UsageError
from ralph_verify.loop.pre_existing import add_sources, mark_pre_existing
from ralph_verify.loop.promises import find_promises
from ralph_verify.loop.records import iteration_record, progress_entry
from ralph_verify.loop.session import Iteration
from ralph_verify.loop.verdict import Verdict, VerdictProposal, credited, decide
from ralph_verify.project import snapshot
from ralph_verify.state_files import now_iso

if TYPE_CHECKING:
    from ralph_verify.agents import Agent, AgentResult
    from ralph_verify.checks.api import Check
    from ralph_verify.checks.verification import Verification
    from ralph_verify.config import Config
    from ralph_verify.config.until import CheckSpec
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.loop.state import StateDir
    from ralph_verify.loop.verdict import VerdictProposal
    from ralph_verify.project.snapshot import Entry

    Snapshot = dict[str, Entry] | None


class Driver:
    """What differs between the drivers of a loop session; the defaults are ``run``'s."""

    #: ``"run"`` or ``"hook"`` (``Session.mode`` says the same to plugins).
    mode = "run"
    #: How many iterations one call of ``ralph_runloop`` runs (``None``: until a verdict).
    iterations_per_call: int | None = None

    def __init__(self, state: StateDir, agent: Agent | None = None) -> None:
        self.state = state
        self.agent = agent
        #: Set from another thread (Ctrl-C, ``ralph-verify cancel``): the agent's run stops.
        self.cancel = threading.Event()
        self.session: Session | None = None

    def prompt(self, session: Session, iteration: Iteration) -> str:
        """The prompt of ``iteration`` (``run`` renders it; the Stop hook wrote it already)."""
        raise NotImplementedError

    def checks(self) -> Sequence[Check]:
        """The checks to verify with, bounded by the driver's time."""
        raise NotImplementedError

    def snapshot(self, previous: Snapshot) -> Snapshot:
        """The project tree now (``None``: unknown), to tell the files the agent changed."""
        raise NotImplementedError

    def check_cancel(self) -> None:
        """Raise when a cancel was asked for (``run``); the Stop hook looks before it starts."""

    def phase(self, text: str, iteration: Iteration) -> None:
        """The iteration reached a new phase (``run`` saves it in state.json)."""

    def after_agent(self, iteration: Iteration) -> str | None:
        """After the agent's turn: a damage report of ``.ralph/`` to end the session with."""
        return None

    def out_of_time(self, iteration: Iteration) -> bool:
        """Whether the verification ran out of the driver's time: no verdict is asked then
        (the session waits for the next call, whose ``ralph_runloop`` the ``max_iterations``
        plugin answers once the limit is behind)."""
        return False

    def record(self, iteration: Iteration) -> None:
        """Append the iteration to history.jsonl and progress.md."""
        assert self.session is not None
        session = self.session
        self.state.append_history(iteration_record(iteration, session))
        self.state.append_progress(progress_entry(iteration))


#: The driver of the running session (set by ``run`` and by the Stop hook).
DRIVER_KEY: StashKey[Driver] = StashKey("driver")


def start(session: Session, driver: Driver) -> None:
    """Make ``driver`` the driver of ``session`` for ``ralph_runloop``/``ralph_run_iteration``."""
    session.mode = driver.mode
    session.config.stash[DRIVER_KEY] = driver
    driver.session = session


def runloop(session: Session, first: int) -> VerdictProposal | None:
    """Iterations from number ``first`` until a verdict (``None``: the driver's call is over
    without one -- the Stop hook blocked the stop and waits for the next). No limit here:
    the policies end the session (the iteration limit is the ``max_iterations`` plugin's)."""
    config = session.config
    driver = config.stash[DRIVER_KEY]
    number = first
    while driver.iterations_per_call is None or number - first < driver.iterations_per_call:
        iteration = Iteration(number=number, started_at=now_iso())
        session.iterations.append(iteration)
        config.hook.ralph_run_iteration(session=session, iteration=iteration)
        if iteration.verdict is not None:
            return iteration.verdict
        number += 1
    return None


def run_iteration(session: Session, iteration: Iteration) -> None:
    """prompt -> agent -> verify -> record -> decide, with every hook in the order
    ``ralph_verify.hookspec`` documents; the verdict (if any) is left in ``iteration.verdict``."""
    config = session.config
    driver = config.stash[DRIVER_KEY]
    assert driver.agent is not None
    state = driver.state
    started = time.monotonic()
    config.hook.ralph_iteration_start(session=session, iteration=iteration)
    driver.check_cancel()
    folder = state.iteration_dir(iteration.number)
    iteration.prompt_path = folder / "prompt.md"
    iteration.prompt = driver.prompt(session, iteration)
    log_path = folder / "agent.log"
    log_path.unlink(missing_ok=True)
    driver.phase("agent", iteration)
    config.hook.ralph_report_phase(session=session, phase=f"agent {driver.agent.name} running")
    before = driver.snapshot(None)
    request = AgentRequest(prompt=iteration.prompt, prompt_file=iteration.prompt_path,
                           iteration=iteration.number, root=session.root,
                           session_dir=state.path, log_path=log_path,
                           timeout=float(config.get("agent_timeout")),
                           cancel=driver.cancel, budget_usd=iteration.budget_usd)
    result: AgentResult | None = None
    try:
        result = config.hook.ralph_run_agent(session=session, iteration=iteration,
                                             agent=driver.agent, request=request)
    except FileNotFoundError as exc:
        result = AgentResult(exit_code=None, duration_s=0.0,
                             error=f"agent program not found: {exc.filename or exc}")
    finally:
        after = driver.snapshot(before)
        iteration.files_changed = (snapshot.changed(before, after)
                                   if before is not None and after is not None else [])
        if result is not None:
            iteration.agent = result
    damage = driver.after_agent(iteration)
    driver.check_cancel()
    iteration.promises = find_promises(result.text, iteration.prompt)
    config.stash[PROMISES_KEY] = list(iteration.promises)
    config.hook.ralph_report_agent(session=session, iteration=iteration)
    driver.phase("verifying", iteration)
    config.hook.ralph_report_phase(session=session, phase="verifying")
    verification = verify_in_session(config, driver.checks(), session.baseline)
    iteration.verification = verification
    iteration.duration_s = time.monotonic() - started
    state.write_verification(iteration.number, verification)
    if driver.out_of_time(iteration):
        driver.record(iteration)
        return
    config.hook.ralph_iteration_end(session=session, iteration=iteration,
                                    verification=verification)
    iteration.verdict = ask_policies(config, session, iteration, verification)
    if damage:
        iteration.verdict = VerdictProposal(
            Verdict.AGENT_ERROR, f"the agent damaged ralph-verify's records: {damage}; "
            "the session ended with what it knows", source="core")
    driver.record(iteration)
    config.hook.ralph_report_verification(config=config, session=session, iteration=iteration,
                                          verification=verification)


def verify_in_session(config: Config, checks: Sequence[Check],
                      baseline: Verification | None) -> Verification:
    """Verify; failures already there at the ``baseline`` are marked pre-existing, and the
    feedback (formatted before the marking) is formatted again to say so."""
    verification = verify(config, checks)
    add_sources(verification)
    fresh = {check.spec.name for check in checks if not check.has_baseline}
    if baseline is not None and mark_pre_existing(verification, baseline, fresh):
        budget = int(config.get("feedback_budget"))
        verification.feedback = config.hook.ralph_format_feedback(
            verification=verification, budget=budget) or ""
    return verification


def ask_policies(config: Config, session: Session, iteration: Iteration,
                 verification: Verification) -> VerdictProposal | None:
    """Ask every ``ralph_iteration_verdict`` policy; the precedence in :mod:`verdict`, not
    plugin order, picks the winner. Each proposal is credited to the plugin that made it."""
    # Through pluggy (wrappers and tracing see every policy), not impl by impl.
    proposals = config.hook.ralph_iteration_verdict(session=session, iteration=iteration,
                                                     verification=verification)
    return decide(credited(proposals,
                           implementers(config.pluginmanager, "ralph_iteration_verdict")))


def session_specs(config: Config, until: Sequence[CheckSpec] | None = None) -> list[CheckSpec]:
    """The checks of a loop session (``run`` or hook mode): ``until`` (default: what the
    command line and the file ask for), plus what plugins add through
    ``ralph_session_checks`` (``integrity``, unless switched off)."""
    specs = list(until_specs(config) if until is None else until)
    for extra in config.hook.ralph_session_checks(config=config, specs=list(specs)):
        texts = {spec.text for spec in specs}
        specs += [spec for spec in extra or () if spec.text not in texts]
    return specs


def make_agent(config: Config) -> Agent:
    """The adapter ``--agent NAME[:ARG]`` names, from the agents plugins registered."""
    spec = config.get("agent")
    if not spec:
        raise UsageError("no agent: pass --agent, for example --agent cmd:\"python fix.py\" or "
                         "--agent replay:DIR (or set agent = ... in [tool.ralph-verify])")
    name, _, arg = str(spec).partition(":")
    registry = AgentRegistry()
    config.hook.ralph_register_agents(registry=registry)
    agent_type = registry.get(name)
    if agent_type is None:
        import difflib

        names = [t.name for t in registry.types()]
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise UsageError(f"--agent {spec}: unknown agent {name!r}; {hint}known agents: "
                         f"{', '.join(names) or 'none'}")
    if agent_type.arg == "required" and not arg:
        raise UsageError(f"--agent {name} needs an argument: --agent {name}:ARG "
                         f"({agent_type.help})")
    if agent_type.arg == "none" and arg:
        raise UsageError(f"--agent {name} takes no ':' argument")
    options = AgentOptions(extra_args=tuple(config.get("agent_arg") or ()),
                           model=config.get("model"),
                           bypass_permissions=bool(config.get("yolo")),
                           continue_session=bool(config.get("continue_session")),
                           guard_command=config.stash.get(GUARD_COMMAND_KEY),
                           root=config.root)
    return agent_type.factory(arg or None, options)
