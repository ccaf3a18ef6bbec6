"""``ralph-verify fleet``: many loops at once, each in its own worktree or clone and branch.
The command and its options; the work is in :mod:`ralph_verify.fleet` and the executors."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser, positive_duration, positive_float, positive_int
from ralph_verify.errors import UsageError
from ralph_verify.fleet import COST_SHARE_ENV
from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.markers import hookimpl
from ralph_verify.records.codec import encode
from ralph_verify.records.plugin_state import FleetState

if TYPE_CHECKING:
    from ralph_verify.checks.verification import Verification
    from ralph_verify.loop.session import Iteration, Session

EPILOG = """subcommands:
  ralph-verify fleet FILE [options]          run the tasks of a fleet file
  ralph-verify fleet --matrix GLOB [options] one task per matching folder
  ralph-verify fleet merge DIR... --out DIR  one fleet.json and report from sharded runs
  ralph-verify fleet status [--watch]        a table of every loop (--out DIR of the fleet)
  ralph-verify fleet cancel                  stop every loop cleanly (--resume goes on)

files (in --out, default fleet/): fleet.json, fleet-junit.xml, report.html,
loops/NAME/{report.html,state.json,run.log}

exit codes:
  0   every loop completed
  1   some loop did not complete (its verdict says why), or failed alone (verdict error)
  2   usage error: bad option or fleet file; nothing ran
  130 cancelled (Ctrl-C, SIGTERM, 'fleet cancel'); --resume runs what did not finish"""


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "fleet", fleet, scopes=("fleet",), epilog=EPILOG,
        help="run many loops at once, each in its own git worktree and branch",
        description="Run one loop per task (a fleet file, or one per folder with --matrix), "
                    "each as 'ralph-verify run' in its own git worktree (or clone, on a remote "
                    "worker) on the branch ralph/fleet-ID/TASK; your checkout is never touched."
                    "\n\nexamples:\n"
                    "  ralph-verify fleet fleet.toml -j 4\n"
                    "  ralph-verify fleet --matrix 'packages/*' --agent claude "
                    "--until 'tests,coverage>=80' -P PROMPT.md\n"
                    "  ralph-verify fleet fleet.toml --executor dask --address "
                    "tcp://scheduler:8786\n"
                    "  ralph-verify fleet fleet.toml --shard 2/8 --out fleet-2/ --id $RUN_ID\n"
                    "  ralph-verify fleet merge fleet-*/ --out fleet/")
    add = parser.addoption
    add("fleet_args", scope="fleet", nargs="*", metavar="FILE | merge DIR... | status | cancel",
        help="a fleet file (TOML), or a subcommand")
    add("--matrix", scope="fleet", metavar="GLOB",
        help="one task per folder of the repository matching GLOB, e.g. 'packages/*'")
    add("--agent", scope="fleet", dest="fleet_agent", metavar="NAME[:ARG]",
        help="every task's agent unless the fleet file sets one")
    add("--until", scope="fleet", dest="fleet_until", metavar="SPECS",
        help="every task's checks unless the fleet file sets them")
    add("-P", "--prompt", scope="fleet", dest="fleet_prompt", metavar="FILE",
        help="the task of every loop that sets none")
    add("--max-iterations", scope="fleet", dest="fleet_max_iterations", type=positive_int,
        metavar="N", help="every loop's iteration limit unless the fleet file sets one")
    add("-j", "--jobs", scope="fleet", dest="fleet_jobs", type=positive_int, metavar="N",
        help="loops at once (default: [fleet] jobs, else the number of cores)")
    add("--executor", scope="fleet", metavar="NAME",
        help="what runs the loops: local (default) or one a plugin adds, e.g. dask")
    add("--address", scope="fleet", metavar="URL",
        help="the scheduler of a distributed executor (dask: tcp://host:8786; default: a "
             "local cluster)")
    add("--retries", scope="fleet", type=int, metavar="N",
        help="runs of a loop whose worker died before it is marked lost (default 2)")
    add("--total-cost", scope="fleet", type=positive_float, metavar="USD",
        help="stop every loop once the fleet's loops together cost this much")
    add("--total-time", scope="fleet", metavar="DURATION",
        help="stop every loop after this wall time for the whole fleet, e.g. 2h")
    add("--shard", scope="fleet", metavar="I/N",
        help="run only shard I of N of the tasks (CI matrices); merge with 'fleet merge'")
    add("--id", scope="fleet", dest="fleet_id", metavar="ID",
        help="the fleet's id in branch names (default: the start time); give every shard "
             "the same one")
    add("--out", scope="fleet", dest="fleet_out", metavar="DIR",
        help="where fleet.json, fleet-junit.xml and report.html go (default fleet/)")
    add("--resume", scope="fleet", dest="fleet_resume", action="store_true", default=False,
        help="run again only the loops of --out's fleet.json that did not finish")
    add("--watch", scope="fleet", dest="fleet_watch", action="store_true", default=False,
        help="with status: a live table on a terminal, plain lines elsewhere")
    add("--wait", scope="fleet", dest="fleet_wait", type=positive_duration, default=60.0,
        metavar="DURATION", help="with cancel: how long to wait for the fleet to stop")
    add("--github", scope="fleet", dest="fleet_github", action="store_true", default=False,
        help="append a Markdown job summary to $GITHUB_STEP_SUMMARY")
    add("--junitxml", scope="fleet", dest="fleet_junitxml", metavar="FILE",
        help="write the merged JUnit file here too (default: OUT/fleet-junit.xml)")
    add("-q", "--quiet", scope="fleet", dest="fleet_quiet", action="store_true", default=False,
        help="print nothing but errors")


def fleet(config: Config) -> int:
    args = list(config.get("fleet_args") or [])
    out = Path(config.get("fleet_out") or "fleet")
    out = out if out.is_absolute() else config.invocation_dir / out
    if args[:1] == ["merge"]:
        return merge(config, args[1:], out)
    if args[:1] == ["status"]:
        from ralph_verify.fleet.status import status

        return status(out, bool(config.get("fleet_watch")), 1.0)
    if args[:1] == ["cancel"]:
        from ralph_verify.fleet.status import cancel

        return cancel(out, float(config.get("fleet_wait")))
    if len(args) > 1:
        raise UsageError(f"fleet takes one fleet file, got {len(args)}: {' '.join(args)}")
    from ralph_verify.fleet.command import run_fleet

    return run_fleet(config, args[0] if args else None)


def merge(config: Config, folders: list[str], out: Path) -> int:
    from ralph_verify.fleet import outputs
    from ralph_verify.records.fleet import Totals

    if not folders:
        raise UsageError("fleet merge needs the --out folders of the shards: "
                         "ralph-verify fleet merge fleet-*/ --out fleet/")
    paths = [config.invocation_dir / folder for folder in folders]
    document = outputs.merge(paths, out)
    outputs.write_outputs(out, document, github=bool(config.get("fleet_github")))
    total = Totals.of(document.loops)
    print(f"fleet {document.fleet}: merged {len(paths)} folder(s), {total.loops} loops "
          f"into {out}")
    return 0 if total.complete == total.loops else 1


# --- Inside a fleet's loop: its share of the fleet's --total-cost ----------------------------


def _share() -> float | None:
    try:
        return float(os.environ[COST_SHARE_ENV])
    except (KeyError, ValueError):
        return None


def _spent(session: Session) -> float:
    return FleetState.of(session.plugin_state).cost_usd


@hookimpl(trylast=True)
def ralph_iteration_start(session: Session, iteration: Iteration) -> None:
    """The agent gets no more than what is left of the loop's share (its CLI's own budget
    flag, e.g. Claude Code's --max-budget-usd), nor more than its own --max-cost leaves."""
    share = _share()
    if share is None:
        return
    left = round(max(share - _spent(session), 0.0), 4)
    if iteration.budget_usd is None or left < iteration.budget_usd:
        iteration.budget_usd = left


@hookimpl
def ralph_iteration_end(session: Session, iteration: Iteration,
                        verification: Verification) -> None:
    if _share() is not None and iteration.agent is not None and iteration.agent.cost_usd:
        session.plugin_state[FleetState.NAME] = encode(
            FleetState(_spent(session) + iteration.agent.cost_usd))


@hookimpl
def ralph_iteration_verdict(session: Session, iteration: Iteration) -> VerdictProposal | None:
    """The loop stops itself once it spent its share: on an executor whose loops the fleet
    cannot watch while they run (Dask), this is what holds the fleet's total."""
    share = _share()
    if share is None or _spent(session) < share:
        return None
    return VerdictProposal(Verdict.BUDGET, f"the agent reported "
                                           f"${_spent(session):.2f}, this loop's "
                                           f"share of the fleet's --total-cost was ${share:.2f}")
