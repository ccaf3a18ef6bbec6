"""One loop of a fleet as a ``ralph-verify run`` child process, on its own branch in a git
worktree (same machine) or a fresh clone (a remote worker). :func:`run_job` takes and returns
picklable data (from a clone, its commits as a git bundle), so any executor can run it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ralph_verify.errors import UsageError
from ralph_verify.proc.process import own_process_group
from ralph_verify.project.git import NOISE_PARTS, branch_tip, git
from ralph_verify.records.files import load
from ralph_verify.records.fleet import LoopRecord
from ralph_verify.records.plugin_state import BudgetState
from ralph_verify.records.session import SessionState
from ralph_verify.state_files import now_iso

#: Verdicts of loops that did not finish their work; ``fleet --resume`` runs them again.
UNFINISHED = frozenset({"cancelled", "error", "lost", "not-run"})
#: Exit statuses of a ``run`` killed by the signals that cancel it (before it could catch them).
_STOPPED = frozenset({-signal.SIGTERM, -signal.SIGINT})


@dataclass
class LoopJob:
    """Everything a worker needs to run one loop (picklable)."""

    fleet_id: str
    name: str
    folder: str
    branch: str
    prompt: str
    run_args: list[str]
    #: The repository to work from: a path (worktree, or clone on a worker) or a git URL.
    source: str
    #: The commit the branch starts from.
    base: str
    #: ``worktree`` (a linked worktree of ``source``) or ``clone``.
    mode: str = "worktree"
    #: Where the worktree goes (``worktree`` mode); clones go to a temporary folder.
    workdir: str = ""
    resume: bool = False
    attempt: int = 1
    #: More environment for the loop's process (the fleet's share of its limits).
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class JobResult:
    """What came back from one loop: its record and its files."""

    record: LoopRecord
    report_html: str | None = None
    state_json: str | None = None
    log_tail: str = ""
    #: The branch's new commits (``clone`` mode), to fetch into the source repository.
    bundle: bytes | None = None


_WORKTREE_LOCK = threading.Lock()


@contextlib.contextmanager
def worktree_admin(workdir: Path) -> Iterator[None]:
    """One ``git worktree`` change at a time in a repository: ``worktree prune`` during a
    half-done ``worktree add`` deletes its admin folder ("failed to read .../commondir")."""
    workdir.mkdir(parents=True, exist_ok=True)
    with _WORKTREE_LOCK, (workdir / ".worktree.lock").open("a") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: threads of one fleet process still take turns
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _prepare_worktree(job: LoopJob) -> Path:
    tree = Path(job.workdir) / job.name
    if job.resume and (tree / ".git").exists():
        return tree
    with worktree_admin(Path(job.workdir)):
        if tree.exists():
            git(Path(job.source), "worktree", "remove", "--force", str(tree), check=False)
            shutil.rmtree(tree, ignore_errors=True)
        add_worktree(Path(job.source), tree, job.branch, job.base)
    return tree


def add_worktree(repo: Path, tree: Path, branch: str, base: str) -> None:
    """``tree`` on ``branch``, made at ``base`` when the repository has no such branch yet."""
    git(repo, "worktree", "prune", check=False)
    tree.parent.mkdir(parents=True, exist_ok=True)
    if branch_tip(repo, branch):
        git(repo, "worktree", "add", "-q", str(tree), branch)
    else:
        git(repo, "worktree", "add", "-q", "-b", branch, str(tree), base)


def _prepare_clone(job: LoopJob, scratch: Path) -> tuple[Path, str]:
    """A fresh clone on the branch; a task's own repository starts from its HEAD. A resumed
    loop goes on from its branch where the source has it (the work of its earlier run came
    back there), so that its new commits build on that work instead of replacing it."""
    tree = scratch / job.name
    git(scratch, "clone", "-q", "--no-checkout", job.source, str(tree))
    base = job.base or git(tree, "rev-parse", "HEAD").strip()
    start = base
    if job.resume and git(tree, "rev-parse", "--verify", "-q",
                           f"refs/remotes/origin/{job.branch}", check=False).strip():
        start = f"refs/remotes/origin/{job.branch}"
    git(tree, "checkout", "-q", "-b", job.branch, start)
    return tree, base


def _error_line(log: str) -> str:
    lines = [line for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("ERROR:", "INTERNAL ERROR"))]
    return (errors or lines or ["no output"])[-1]


def _commit_leftovers(tree: Path, job: LoopJob, verdict: str) -> None:
    """Commit what the loop left uncommitted (a loop in a sub-folder does not commit), so the
    branch carries all of its work; the loop's own ``.ralph/`` stays out."""
    noise = [f":(exclude,glob)**/{part}/**" for part in sorted({".ralph", *NOISE_PARTS})]
    git(tree, "add", "-A", "--", ".", *noise, ":(exclude,glob)**/.coverage*", check=False,
        magic=True)
    if git(tree, "diff", "--cached", "--name-only", check=False).strip():
        git(tree, "commit", "-q", "--no-verify", "-m",
            f"ralph fleet {job.fleet_id}: {job.name} ({verdict})", identity=True)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def state_cost(state: Path) -> float:
    """The cost a loop's ``state.json`` says its agent reported so far (0 when unreadable)."""
    data = loop_state(state)
    return BudgetState.of(data.plugin_state).cost_usd if data is not None else 0.0


def loop_state(path: Path) -> SessionState | None:
    """A loop's ``state.json``; ``None`` when absent, caught mid-write or not ours."""
    try:
        return load(SessionState, path)
    except UsageError:
        return None


def run_job(job: LoopJob, *, on_start: Callable[[subprocess.Popen[bytes]], None] | None = None,
            worker: str = "", on_state: Callable[[Path], None] | None = None) -> JobResult:
    """Run one loop to its end; its own failures (a missing folder, a crash) are its verdict
    ``error``, never raised. ``on_start`` gets its process, ``on_state`` its state's path."""
    started, clock = now_iso(), time.monotonic()
    record = LoopRecord(job.name, folder=job.folder, branch=job.branch, base=job.base,
                        host=socket.gethostname(), worker=worker, attempts=job.attempt,
                        started_at=started)
    scratch = Path(tempfile.mkdtemp(prefix=f"ralph-fleet-{job.name}-")) \
        if job.mode == "clone" else None
    result = JobResult(record)
    try:
        if scratch is None:
            tree, base = _prepare_worktree(job), job.base
        else:
            tree, base = _prepare_clone(job, scratch)
            record.base = base
        record.workdir = str(tree)
        folder = (tree / job.folder).resolve()
        if not folder.is_dir() or tree.resolve() not in (folder, *folder.parents):
            raise RuntimeError(f"folder {job.folder!r} does not exist in {job.source} at "
                               f"{job.base[:10] or 'HEAD'}; fix folder = ... of task "
                               f"{job.name!r}")
        prompt_file = tree.parent / f".{job.name}.prompt.md"
        prompt_file.write_text(job.prompt, encoding="utf-8")
        log_path = tree.parent / f".{job.name}.log"
        resume = job.resume and (folder / ".ralph" / "state.json").is_file()
        if on_state is not None:
            on_state(folder / ".ralph" / "state.json")
        argv = [sys.executable, "-m", "ralph_verify", "run", "--no-branch", "--root",
                str(folder), "-p", str(prompt_file), *(["--resume"] if resume else []),
                *job.run_args]
        env = {**os.environ, "RALPH_VERIFY_FLEET": job.fleet_id, "RALPH_TASK_ID": job.name,
               **job.env}
        with log_path.open("ab") as log:
            proc = subprocess.Popen(argv, cwd=folder, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, env=env, **own_process_group())  # type: ignore[call-overload]  # the keyword set depends on the platform
            if on_start is not None:
                on_start(proc)
            run_started = time.monotonic()
            code = proc.wait()
            record.run_s = round(time.monotonic() - run_started, 3)
        log_text = _read(log_path) or ""
        result.log_tail = log_text[-4000:]
        record.exit_code = code
        state = loop_state(folder / ".ralph" / "state.json")
        verdict = state.verdict if state is not None else None
        if verdict is not None and verdict.verdict and code not in (2, 3, 4):
            # (not a usage, check or internal error)
            record.verdict, record.reason = verdict.verdict, verdict.reason
        elif code in _STOPPED:
            # Stopped (a cancel, a fleet-wide limit) before it could record a verdict: nothing
            # of it was lost, and --resume runs it again.
            record.verdict = "cancelled"
            record.reason = (f"stopped by {signal.Signals(-code).name} before the loop "
                             "recorded a verdict")
        else:
            record.verdict, record.reason = "error", _error_line(log_text)
        if state is not None:
            record.iterations = state.iteration
            record.cost_usd = round(BudgetState.of(state.plugin_state).cost_usd, 4)
        result.state_json = _read(folder / ".ralph" / "state.json")
        result.report_html = _read(folder / ".ralph" / "report.html")
        _commit_leftovers(tree, job, record.verdict)
        record.commits = int(git(tree, "rev-list", "--count", f"{base}..HEAD").strip() or 0)
        if scratch is not None and record.commits:
            # Against the base the source repository has; a task's own repository gets the
            # whole branch, a bundle that stands alone.
            bundle = scratch / f"{job.name}.bundle"
            git(tree, "bundle", "create", "-q", str(bundle),
                 f"{base}..{job.branch}" if job.base else job.branch)
            result.bundle = bundle.read_bytes()
    except Exception as exc:
        record.verdict, record.reason = "error", str(exc)
    finally:
        record.finished_at = now_iso()
        record.duration_s = round(time.monotonic() - clock, 3)
        if scratch is not None:
            with contextlib.suppress(OSError):
                shutil.rmtree(scratch)
    return result
