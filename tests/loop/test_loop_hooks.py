"""The loop's hooks, each implemented by an inline plugin in a real ``run`` (``cmd:`` agents,
real checks): what each receives, when, and what its answer changes."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

from ralph_verify import (
    AgentRequest,
    AgentResult,
    Iteration,
    Session,
    UsageError,
    Verdict,
    VerdictProposal,
    Verification,
    hookimpl,
)
from ralph_verify.testing import Ralph, RunResult
from tests.loop_helpers import agent, history, prompt, state

#: Writes done.txt on the second turn, and says which turn it is.
DONE_ON_TURN_TWO = """\
if N == 2:
    pathlib.Path("done.txt").write_text("done")
print(f"turn {N}")
"""


def _run(ralph: Ralph, body: str, *plugins: object, until: str = "files:done.txt",
         extra: tuple[str, ...] = ()) -> RunResult:
    return ralph.run("run", "--agent", agent(ralph, body), "--until", until,
                     "--max-iterations", "4", "-p", "no:breaker", *extra, "write done.txt",
                     plugins=plugins)


def test_session_prepare_refuses_before_the_baseline_and_the_agent(ralph: Ralph) -> None:
    seen: list[object] = []

    class Gate:
        @hookimpl
        def ralph_session_prepare(self, session: Session) -> None:
            seen.append(session.baseline)
            raise UsageError("no approval for this project: set APPROVED=1")

    ran = ralph.path.parent / "agent-ran"
    result = ralph.run("run", "--agent", agent(ralph, f"pathlib.Path({str(ran)!r}).touch()\n"),
                       "--until", "files:done.txt", "write done.txt", plugins=[Gate()])
    assert result.ret == 2, result
    assert "ERROR: no approval for this project: set APPROVED=1" in result.err
    assert "Traceback" not in result.err
    assert seen == [None]  # asked before the baseline verification
    assert not ran.exists()
    assert "baseline:" not in result.out


def test_the_session_and_iteration_hooks_see_each_turn_in_order(ralph: Ralph) -> None:
    events: list[str] = []

    class Recorder:
        @hookimpl
        def ralph_session_start(self, session: Session) -> None:
            assert session.baseline is not None
            events.append(f"session_start baseline-failed={len(session.baseline.failed)}")

        @hookimpl
        def ralph_iteration_start(self, session: Session, iteration: Iteration) -> None:
            events.append(f"iteration_start {iteration.number} prompt={iteration.prompt!r}")

        @hookimpl
        def ralph_iteration_end(self, session: Session, iteration: Iteration,
                                verification: Verification) -> None:
            assert iteration.agent is not None
            events.append(f"iteration_end {iteration.number} exit={iteration.agent.exit_code} "
                          f"failed={len(verification.failed)} "
                          f"changed={iteration.files_changed}")

        @hookimpl
        def ralph_session_finish(self, session: Session, verdict: VerdictProposal) -> None:
            events.append(f"session_finish {verdict.verdict.value} "
                          f"iterations={len(session.iterations)}")

    result = _run(ralph, DONE_ON_TURN_TWO, Recorder())
    assert result.ret == 0, result
    assert events == [
        "session_start baseline-failed=1",
        "iteration_start 1 prompt=''",
        "iteration_end 1 exit=0 failed=1 changed=[]",
        "iteration_start 2 prompt=''",
        "iteration_end 2 exit=0 failed=0 changed=['done.txt']",
        "session_finish complete iterations=2",
    ]


def test_prompt_notes_reach_the_prompt_of_every_turn(ralph: Ralph) -> None:
    class Notes:
        @hookimpl
        def ralph_prompt_notes(self, session: Session, iteration: Iteration) -> str | None:
            if iteration.number == 1:
                return None
            return f"Turn {iteration.number} of session {session.id}: write done.txt at last."

    result = _run(ralph, DONE_ON_TURN_TWO, Notes())
    assert result.ret == 0, result
    assert "write done.txt at last" not in prompt(ralph, 1)
    session_id = state(ralph)["session"]
    assert f"Turn 2 of session {session_id}: write done.txt at last." in prompt(ralph, 2)


def test_a_policy_vote_ends_the_loop_with_its_verdict_and_exit_code(ralph: Ralph) -> None:
    class Quota:
        @hookimpl
        def ralph_iteration_verdict(self, session: Session, iteration: Iteration,
                                    verification: Verification) -> VerdictProposal | None:
            if verification.failed and iteration.number >= 1:
                return VerdictProposal(Verdict.BUDGET, "the team's daily quota is used up")
            return None

    result = _run(ralph, DONE_ON_TURN_TWO, Quota())
    assert result.ret == 13, result  # the budget verdict's code
    assert "verdict: budget — the team's daily quota is used up" in result.out
    assert [line["iteration"] for line in history(ralph)] == [1]
    assert state(ralph)["verdict"] == {"verdict": "budget", "source": "Quota",
                                       "reason": "the team's daily quota is used up"}


def test_a_completion_outranks_a_policy_vote_whatever_the_plugin_order(ralph: Ralph) -> None:
    class Nag:
        @hookimpl(tryfirst=True)
        def ralph_iteration_verdict(self) -> VerdictProposal:
            return VerdictProposal(Verdict.STALLED, "always stalled")

    result = _run(ralph, 'pathlib.Path("done.txt").write_text("x")\n', Nag())
    assert result.ret == 0, result
    assert state(ralph)["verdict"]["verdict"] == "complete"


def test_a_run_agent_wrapper_passes_environment_to_the_agent(ralph: Ralph) -> None:
    seen: list[str] = []

    class Tracer:
        @hookimpl(wrapper=True)
        def ralph_run_agent(self, iteration: Iteration, request: AgentRequest
                            ) -> Generator[None, AgentResult, AgentResult]:
            request.env = {**request.env, "MY_TRACE": f"trace-{iteration.number}"}
            result = yield
            seen.append(f"{iteration.number}: exit {result.exit_code}")
            return result

    body = ('pathlib.Path("trace.txt").write_text(os.environ.get("MY_TRACE", "none"))\n'
            "pathlib.Path('done.txt').write_text('x')\n")
    result = _run(ralph, body, Tracer())
    assert result.ret == 0, result
    assert (ralph.path / "trace.txt").read_text() == "trace-1"
    assert seen == ["1: exit 0"]


def test_a_plugin_can_be_the_agent(ralph: Ralph) -> None:
    ran = ralph.path.parent / "cli-ran"

    class InProcessAgent:
        @hookimpl
        def ralph_run_agent(self, session: Session, request: AgentRequest) -> AgentResult:
            Path(request.root, "done.txt").write_text(request.prompt[:20])
            return AgentResult(exit_code=0, duration_s=0.0, text="wrote done.txt")

    result = ralph.run("run", "--agent", agent(ralph, f"pathlib.Path({str(ran)!r}).touch()\n"),
                       "--until", "files:done.txt", "write done.txt",
                       plugins=[InProcessAgent()])
    assert result.ret == 0, result
    assert not ran.exists()  # the configured CLI never ran
    assert history(ralph)[0]["files_changed"] == ["done.txt"]
