"""``ralph-verify fleet FILE | --matrix GLOB``: build the jobs, run them with the chosen
executor, write the fleet's files, map the outcome to an exit code (see the command's help)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.config.parser import parse_duration
from ralph_verify.errors import UsageError
from ralph_verify.exitcode import ExitCode
from ralph_verify.fleet.executor import ExecutorRegistry
from ralph_verify.fleet.graph import GraphFleet
from ralph_verify.fleet.merge import Integration, integration_branch
from ralph_verify.fleet.outputs import write_outputs
from ralph_verify.fleet.run import Fleet, make_jobs, resumable
from ralph_verify.fleet.tasks import (
    FleetSpec,
    load_fleet_file,
    matrix_tasks,
    parse_shard,
    shard_of,
)
from ralph_verify.proc.signals import cancel_on_signals
from ralph_verify.project.git import branch_tip, git, head
from ralph_verify.records.fleet import Totals

if TYPE_CHECKING:
    from ralph_verify.config import Config

DEFAULT_OUT = "fleet"
DEFAULT_RETRIES = 2


def repository(start: Path) -> Path:
    top = git(start, "rev-parse", "--show-toplevel", check=False).strip()
    if not top:
        raise UsageError(f"{start} is not in a git repository: every loop of a fleet works on "
                         "its own branch; run 'git init' and commit first")
    return Path(top).resolve()


def _workdir(repo: Path, fleet_id: str) -> Path:
    """``../.REPO.ralph-fleet/ID``, beside the repository: not under ``.git/`` (agents refuse
    to edit there) nor in the home folder (the guard keeps it from agents)."""
    common = Path(git(repo, "rev-parse", "--git-common-dir", check=False).strip())
    common = (common if common.is_absolute() else repo / common).resolve()
    checkout = common.parent if common.name == ".git" else common  # a bare repository
    return checkout.parent / f".{checkout.name}.ralph-fleet" / fleet_id


def _defaults(config: Config) -> list[str]:
    """``--agent``, ``--until``, ``--max-iterations`` of the command line: every task's
    defaults, below what the fleet file says."""
    args: list[str] = []
    for flag, dest in (("--agent", "fleet_agent"), ("--until", "fleet_until"),
                       ("--max-iterations", "fleet_max_iterations")):
        value = config.get(dest)
        if value is not None:
            args += [flag, str(value)]
    return args


def _prompt(config: Config) -> str | None:
    path: str | None = config.get("fleet_prompt")
    if path is None:
        return None
    try:
        return (config.invocation_dir / path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"-P {path}: cannot be read ({exc.strerror})") from None


def load_spec(config: Config, repo: Path, file: str | None) -> FleetSpec:
    matrix = config.get("matrix")
    if (file is None) == (matrix is None):
        raise UsageError("give a fleet file or --matrix GLOB (not both), e.g. 'ralph-verify "
                         "fleet fleet.toml' or \"ralph-verify fleet --matrix 'packages/*' "
                         "--agent claude --until tests -P PROMPT.md\"")
    if matrix is not None:
        prompt = _prompt(config)
        if prompt is None:
            raise UsageError("--matrix needs the task: pass -P PROMPT.md")
        return matrix_tasks(matrix, repo, prompt)
    assert file is not None
    return load_fleet_file(config.invocation_dir / file, default_prompt=_prompt(config))


def run_fleet(config: Config, file: str | None) -> int:
    repo = repository(config.invocation_dir)
    out = (config.invocation_dir / (config.get("fleet_out") or DEFAULT_OUT)).resolve()
    previous = resumable(out) if config.get("fleet_resume") else None
    spec = load_spec(config, repo, file)
    settings = spec.settings
    tasks = spec.tasks
    shard_text = config.get("shard")
    if shard_text:
        tasks = shard_of(tasks, *parse_shard(shard_text))
    executor_name = config.get("executor") or settings.get("executor", "local")
    registry = ExecutorRegistry()
    config.hook.ralph_register_executors(registry=registry)
    executor = registry.get(executor_name).factory()
    jobs_limit = config.get("fleet_jobs") or settings.get("jobs") or os.cpu_count()
    total_time_text = config.get("total_time") or settings.get("total_time")
    total_time = parse_duration(total_time_text, "--total-time") if total_time_text else None
    if previous is not None:
        fleet_id, base = previous.fleet, previous.base
    else:
        fleet_id = config.get("fleet_id") or time.strftime("%Y%m%d-%H%M%S")
        base = head(repo) or ""
        if not base:
            raise UsageError(f"{repo} has no commit yet: commit first, the loops start from it")
    workdir = _workdir(repo, fleet_id)
    jobs = make_jobs(tasks, fleet_id=fleet_id, repo=repo, base=base, mode=executor.mode,
                     workdir=workdir, defaults=_defaults(config))
    quiet = bool(config.get("fleet_quiet"))
    retries = config.get("retries")  # 0 (never retry) must survive
    if retries is not None and retries < 0:
        raise UsageError(f"--retries {retries}: must be 0 or more")
    common_args: dict[str, Any] = dict(
        fleet_id=fleet_id, repo=repo, base=base, out=out, jobs=int(jobs_limit or 1),
        executor=executor_name, address=config.get("address") or settings.get("address"),
        retries=DEFAULT_RETRIES if retries is None else int(retries),
        total_cost=config.get("total_cost") or settings.get("total_cost"),
        total_time=total_time, shard=shard_text, say=(lambda text: None) if quiet else _say)
    fleet: Fleet
    if spec.graph is not None:
        refuse_in_graph(spec, shard=shard_text, resume=previous is not None)
        if branch_tip(repo, integration_branch(fleet_id)):
            raise UsageError(f"--id {fleet_id}: this fleet ran before (its branch "
                             f"{integration_branch(fleet_id)} exists); give a new --id, or "
                             "delete its branches first")
        fleet = GraphFleet(graph=spec.graph, tasks=tasks, until=config.get("fleet_until"),
                           integration=Integration(repo, workdir, integration_branch(fleet_id),
                                                   base), **common_args)
    else:
        fleet = Fleet(**common_args)
    if previous is not None:
        done = {loop.name: loop for loop in previous.loops}
        fleet.records.update(done)
        fleet.started_at = previous.started_at or fleet.started_at
        jobs = [job for job in jobs if job.name not in done]
        for job in jobs:
            job.resume = True
        _say(f"resuming fleet {fleet_id}: {len(done)} loop(s) kept, {len(jobs)} to run")
    elif not quiet:
        _say(f"fleet {fleet_id}: {len(jobs)} loop(s), {min(fleet.jobs, len(jobs))} at once, "
             f"executor {executor_name}; branches ralph/fleet-{fleet_id}/<task>")
    caught: list[str] = []

    def cancel(name: str) -> bool:
        """Ctrl-C and SIGTERM stop every loop cleanly instead of killing the fleet."""
        caught.append(name)
        fleet.cancel(f"{name} ('fleet cancel')" if name == "SIGTERM" else name)
        return False

    with cancel_on_signals(cancel):
        fleet.run(jobs, executor)
    document = fleet.document()
    junit = config.get("fleet_junitxml")
    write_outputs(out, document, github=bool(config.get("fleet_github")),
                  junit=Path(junit) if junit else None)
    total = Totals.of(document.loops)
    if not quiet:
        _say(f"fleet {fleet_id}: {total.complete}/{total.loops} loops complete; report: "
             f"{out / 'report.html'}")
    if caught:
        return ExitCode.INTERRUPTED
    if isinstance(fleet, GraphFleet):
        return 0 if fleet.complete() else 1
    return 0 if total.complete == total.loops else 1


def refuse_in_graph(spec: FleetSpec, *, shard: str | None, resume: bool) -> None:
    """What a fleet whose tasks depend on each other cannot do (yet): a usage error."""
    if shard:
        raise UsageError("--shard: a fleet whose tasks declare depends-on merges them on one "
                         "integration branch, so it cannot be split; run it whole")
    if resume:
        raise UsageError("--resume: a fleet whose tasks declare depends-on cannot be resumed "
                         "yet: merge its integration branch into yours, mark those tasks "
                         "status = \"done\" and run a new fleet")
    for task in spec.tasks:
        if task.repo:
            raise UsageError(f"task {task.name}: repo = ... cannot take part in depends-on "
                             "(its work does not merge into this repository); give it a "
                             "fleet file of its own")


def _say(text: str) -> None:
    print(f"fleet: {text}", flush=True)
