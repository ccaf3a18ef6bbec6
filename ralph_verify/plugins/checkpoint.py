"""Git checkpoints: a session branch, one commit per iteration, and ``rollback``.

The user's uncommitted changes are never discarded or committed silently (docs/safety.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.verification import Verification
from ralph_verify.config.parser import Parser
from ralph_verify.errors import UsageError
from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.markers import hookimpl
from ralph_verify.project import git
from ralph_verify.records.plugin_state import BrokenCheckpoint, CheckpointState, of_json
from ralph_verify.tasks.keys import TASK_BRANCH_KEY, TASK_COMMIT_KEY

if TYPE_CHECKING:
    from ralph_verify.loop.recovery import Point
    from ralph_verify.loop.session import Iteration, Session

NAME = "checkpoint"
DEFAULT_PREFIX = "ralph/"
#: The session branch and its commits are the Stop hook's loop's too ('start').
_SCOPES = ("loop", "start")


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--no-branch", scope=_SCOPES, setting="no-branch", action="store_true",
                     default=False, help="work on the current branch instead of a new "
                                         "session branch")
    parser.addoption("--branch-prefix", scope=_SCOPES, setting="branch-prefix",
                     default=DEFAULT_PREFIX, metavar="PREFIX",
                     help=f"the session branch is PREFIX<session-id> (default {DEFAULT_PREFIX})")
    parser.addoption("--allow-dirty", scope="loop", setting="allow-dirty", action="store_true",
                     default=False,
                     help="start although the tree has uncommitted changes: they are committed "
                          "first, as their own commit on the session branch (with --no-commit "
                          "they stay uncommitted)")
    parser.addoption("--no-commit", scope=_SCOPES, setting="no-commit", action="store_true",
                     default=False, help="do not commit the agent's changes after each "
                                         "iteration (rollback then has nothing to restore)")


def _state(session: Session) -> CheckpointState:
    """The plugin's state, held live in ``session.plugin_state``."""
    state = session.plugin_state[NAME] = CheckpointState.of(session.plugin_state)
    return state


def _say(session: Session, text: str) -> None:
    session.config.hook.ralph_report_line(config=session.config, line=text)


#: Names of files that hold secrets, and the templates of them meant to be committed.
SECRET_NAMES = (".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "id_rsa*", "id_dsa*",
                "id_ecdsa*", "id_ed25519*", ".netrc", ".pypirc", ".npmrc", "credentials*",
                "*.keystore", "*.jks")
TEMPLATES = ("*.example", "*.sample", "*.template", "*.dist", "*.pub")


def looks_secret(path: str) -> bool:
    """``.env``, ``deploy/id_rsa``, ``certs/server.key`` (not ``.env.example``, ``id_rsa.pub``)."""
    from fnmatch import fnmatch

    name = path.rsplit("/", 1)[-1]
    return (any(fnmatch(name, pattern) for pattern in SECRET_NAMES)
            and not any(fnmatch(name, pattern) for pattern in TEMPLATES))


def _commit_command(paths: list[str]) -> str:
    """The exact command that commits ``paths`` (all of them: ``git add -A`` past a few)."""
    import shlex

    added = " ".join(shlex.quote(p) for p in paths) if len(paths) <= 5 else "-A"
    return f"git add {added} && git commit -m 'before ralph-verify run'"


def _listing(paths: list[str]) -> str:
    return ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def _branch_name(session: Session) -> str:
    return f"{session.config.get('branch_prefix')}{session.id}"


def _check_branch_name(session: Session) -> None:
    """The session branch's name, as ``--branch-prefix`` makes it, is one git accepts."""
    config = session.config
    if session.resumed or config.get("no_branch") or not git.is_repo(session.root):
        return
    branch = _branch_name(session)
    if not git.git(session.root, "check-ref-format", "--branch", branch, check=False).strip():
        raise UsageError(f"--branch-prefix {config.get('branch_prefix')!r} (from "
                         f"{config.source_of('branch-prefix')}) makes the session branch "
                         f"{branch!r}, which git refuses as a branch name (see 'git help "
                         "check-ref-format'); pick another, e.g. 'ralph/'")


@hookimpl
def ralph_session_prepare(session: Session) -> None:
    """Refuse a dirty tree before anything is spent; on resume, get back on the branch.
    Hook mode has no switch (``_start_beside``), but a bad branch name is said there too."""
    _check_branch_name(session)
    if session.mode != "run":
        return
    state = _state(session)
    if not git.is_repo(session.root):
        state.git = False
        _say(session, "warning: not a git repository: no session branch, no checkpoint "
                      "commits, no 'ralph-verify rollback' (the agent's changes stay in the "
                      "tree as they are); 'git init && git add -A && git commit -m start' first "
                      "to have them")
        return
    state.git = True
    root, config = session.root, session.config
    git.exclude_ralph_dir(root)
    dirty = git.dirty_paths(root)
    if session.resumed:
        branch = state.branch
        if branch and git.current_branch(root) != branch:
            if dirty:
                raise UsageError(f"to resume, ralph-verify switches back to {branch}, but the "
                                 f"tree has uncommitted changes ({_listing(dirty)}): commit "
                                 "or stash them first")
            git.switch(root, branch)
            _say(session, f"switched back to the session branch {branch}")
        return
    if dirty and not config.get("allow_dirty"):
        raise UsageError(
            f"the tree has uncommitted changes ({_listing(dirty)}); ralph-verify will not mix "
            "them with the agent's work. Commit or stash them, or pass --allow-dirty (they are "
            "then committed first, as their own commit on the session branch); to commit "
            f"them: {_commit_command(dirty)}")
    secret = [path for path in dirty if looks_secret(path)]
    if secret and not config.get("no_commit"):
        raise UsageError(
            f"--allow-dirty would commit what looks like secrets ({_listing(secret)}) to the "
            "session branch, where a push or a merge takes them further. Ignore them (add "
            "them to .gitignore, or to .git/info/exclude for this clone only), or commit them "
            "yourself if they are meant to be in git; --no-commit leaves every uncommitted "
            "file uncommitted")
    state.dirty_at_start = dirty


@hookimpl
def ralph_session_start(session: Session) -> None:
    from ralph_verify.loop import recovery
    state = _state(session)
    if state.git is None and git.is_repo(session.root) and not session.resumed:
        # The Stop-hook mode (prepare does nothing there): a recovery point, and the
        # checkpoints on a session branch beside the user's, which HEAD never leaves
        # ('start --resume' keeps the session's: its start is the frozen tests' too).
        point = recovery.create(session.root, session.id)
        state.recovery = str(point.dir)
        _start_beside(session, state, point)
        _backup(session, state)
    if not state.git:
        return
    root, config = session.root, session.config
    commit = not config.get("no_commit")
    if session.resumed:
        left = git.dirty_paths(root)
        if left and commit:
            sha = git.commit_paths(root, left, "ralph: changes left by the interrupted "
                                               "session, found on resume")
            _say(session, f"committed changes left by the interrupted iteration "
                          f"({_listing(left)}) as {sha[:10] if sha else '?'}")
            if sha:  # the loop's own commit: the git guard measures the branch from it
                state.last_commit = sha
        return
    state.from_branch = git.current_branch(root)
    state.from_tip = git.head(root)
    point = recovery.create(root, session.id)
    state.recovery = str(point.dir)
    kept = len(point.dirty)
    files = f" and {kept} uncommitted file{'s' if kept != 1 else ''}" if kept else ""
    _say(session, f"recovery point: your branch {point.branch or '(detached HEAD)'}{files} "
                  f"{'are' if kept else 'is'} kept in {point.dir}; 'ralph-verify recover' "
                  f"restores {'them' if kept else 'it'}")
    if not config.get("no_branch"):
        branch = _branch_name(session)
        git.switch_new_branch(root, branch)
        state.branch = branch
        _say(session, f"working on the new branch {branch} (from {state.from_branch})")
    dirty, state.dirty_at_start = state.dirty_at_start, []
    if dirty:
        where = state.branch or f"your branch {state.from_branch}"
        if commit:
            sha = git.commit_paths(root, dirty, "ralph: uncommitted changes at the session "
                                                "start (--allow-dirty)")
            _say(session, f"--allow-dirty: your uncommitted changes ({_listing(dirty)}) were "
                          f"committed on {where} as {sha[:10] if sha else '?'}, apart from the "
                          "agent's work")
        else:
            _say(session, f"--allow-dirty --no-commit: your uncommitted changes "
                          f"({_listing(dirty)}) stay in the tree, uncommitted; the agent "
                          "works on top of them")
    state.commits["0"] = git.head(root)
    _backup(session, state)  # the session's branch and its first commit


def _backup(session: Session, state: CheckpointState) -> None:
    """Every ref and stash entry into the recovery point's mirror (a checkpoint)."""
    from ralph_verify.loop import recovery

    if state.recovery:
        try:
            recovery.backup_at(session.root, Path(state.recovery))
        except git.GitError as exc:
            _say(session, f"WARNING: the backup of git's refs failed: {exc}")


@hookimpl
def ralph_iteration_end(session: Session, iteration: Iteration,
                        verification: Verification) -> None:
    from ralph_verify.loop.records import check_brief

    state = _state(session)
    beside = bool(state.beside)
    if not (state.git or beside) or session.config.get("no_commit"):
        return
    message = (f"ralph: iteration {iteration.number} — "
               + ", ".join(check_brief(r) for r in verification.results))
    name_task = session.config.stash.get(TASK_COMMIT_KEY)
    if name_task is not None and verification.passed:  # run --tasks: this commit completes it
        message = name_task(message)
    own = state.branch or state.from_branch
    if beside:
        sha = _commit_on(session, str(state.branch), iteration.files_changed, message)
    elif trouble := git_trouble(session, state, own):
        # Stop at once (ralph_iteration_verdict): nothing the loop says may claim the work
        # is on a branch the agent deleted, rewound or left.
        state.broken = BrokenCheckpoint(iteration.number, trouble)
        return
    elif own and (where := git.current_branch(session.root)) != own:
        # The agent left the session's branch: its changes go onto it through a temporary
        # index, moving neither HEAD nor the branch the agent is on. What differs from that
        # branch is its work: the files the checkout itself changed (the user's) are not.
        state.left_branch = where or "a detached HEAD"
        sha = _commit_on(session, own, git.dirty_paths(session.root),
                         message + f" (the agent was on {state.left_branch})")
        if sha:
            _say(session, f"WARNING: the agent left the session's branch {own} for "
                          f"{state.left_branch}; its changes were committed on {own} as "
                          f"{sha[:10]}, {where or 'HEAD'} was not touched")
        if sha and state.branch == own:
            git.git(session.root, "switch", "-q", "-f", own)  # its changes are on own now
            state.broken = BrokenCheckpoint(iteration.number, (
                f"the agent switched to {state.left_branch}; its changes were committed "
                f"on the session's branch {own} as {sha[:10]} and HEAD is back on {own}"
                + _moved_from_branch(session, state)))
    else:
        sha = git.commit_paths(session.root, iteration.files_changed, message)
        sha = sha or git.head(session.root)
    if sha is None:
        return
    state.commits[str(iteration.number)] = iteration.commit = state.last_commit = sha
    _backup(session, state)


def git_trouble(session: Session, state: CheckpointState, own: str | None) -> str | None:
    """What the agent did to git that the loop cannot go on from, or None: the repository
    gone, the session's branch deleted, or moved off the loop's last commit."""
    from ralph_verify.loop.recovery import is_ancestor

    root = session.root
    point = _recovery_note(state)
    if not (root / ".git").exists() or not git.is_repo(root):
        return f"the agent deleted the git repository (.git){point}"
    commits = state.commits
    last = state.last_commit or (commits[max(commits, key=int)] if commits else None)
    if not own or not last:
        return None
    tip = git.branch_tip(root, own)
    if not tip:
        return (f"the agent deleted the session's branch {own}; its last checkpoint is "
                f"{last[:10]} ('git branch {own} {last}' brings it back){point}")
    start = commits.get("0")
    # The agent's own commits, amends and rebases on top of the session's start are its work
    # like any other: only a branch that no longer holds the start lost something.
    if tip != last and (start is None or not is_ancestor(root, start, tip)):
        return (f"the agent moved the session's branch {own} from the loop's last commit "
                f"{last[:10]} to {tip[:10]}, which does not hold the session's start "
                f"{(start or '?')[:10]}; 'git reset --hard {last}' on {own} brings the "
                f"checkpoint back{point}")
    return None


def _recovery_note(state: CheckpointState) -> str:
    return f"; recovery point {state.recovery} ('ralph-verify recover')" if state.recovery else ""


def _moved_from_branch(session: Session, state: CheckpointState) -> str:
    """``; it also moved your branch main ...`` when the user's branch is not where it was."""
    mine, was = state.from_branch, state.from_tip
    if not mine or not was:
        return ""
    now = git.branch_tip(session.root, mine)
    if now == was:
        return f"; your branch {mine} was not touched"
    return (f"; it also moved your branch {mine} from {was[:10]} to {now[:10] or '(deleted)'}: "
            f"'ralph-verify recover' puts it back (recovery point {state.recovery})")


@hookimpl
def ralph_iteration_verdict(session: Session, iteration: Iteration) -> VerdictProposal | None:
    """git guarded after every iteration: stop with agent-error, saying what happened."""
    broken = CheckpointState.of(session.plugin_state).broken
    if broken is not None and broken.iteration == iteration.number:
        return VerdictProposal(Verdict.AGENT_ERROR, f"git: {broken.what}")
    return None


def _start_beside(session: Session, state: CheckpointState, point: Point) -> None:
    """Hook mode: the session branch starts at the user's tip (plus their uncommitted work,
    as its own commit, the recovery point's); HEAD, the index and the user's branch stay."""
    config = session.config
    if point.tip is None or config.get("no_commit") or config.get("no_branch"):
        return
    branch = _branch_name(session)
    base = point.work if point.dirty else point.tip
    earlier = config.stash.get(TASK_BRANCH_KEY)  # start --tasks: the list's one branch
    tip = earlier and git.branch_tip(session.root, earlier)
    if earlier and tip:
        branch, base = earlier, tip
    else:
        git.git(session.root, "update-ref", f"refs/heads/{branch}", base, "")
    state.branch, state.beside = branch, True
    state.commits["0"] = base


def _commit_on(session: Session, branch: str, paths: list[str], message: str) -> str | None:
    """Commit ``paths`` as they are in the tree on top of ``branch``, through a temporary
    index (HEAD and the index stay); the branch's new tip, or None if the branch is gone."""
    from ralph_verify.loop import recovery

    root = session.root
    tip = git.branch_tip(root, branch)
    if not tip:
        _say(session, f"WARNING: the session's branch {branch} is gone; this iteration's "
                      "changes are not committed")
        return None
    paths = [p for p in paths if not git.is_noise(p)]
    if not paths:
        return tip
    sha = recovery.snapshot_commit(root, tip, paths, message)
    git.git(root, "update-ref", f"refs/heads/{branch}", sha, tip)
    return sha


@hookimpl
def ralph_prompt_notes(session: Session, iteration: Iteration) -> str | None:
    state = CheckpointState.of(session.plugin_state)
    own = state.own_branch
    if not state.git or not own or git.current_branch(session.root) == own:
        return None
    return (f"You are not on the session's branch {own}: switch back with 'git switch {own}' "
            "and do not change other branches.")


@hookimpl
def ralph_session_finish(session: Session, verdict: VerdictProposal) -> None:
    from ralph_verify.loop import recovery

    state = _state(session)
    if state.recovery:  # what the agent deleted or rewound comes back now
        try:
            for line in recovery.restore_at(session.root, Path(state.recovery),
                                            state.own_branch if state.git else None):
                _say(session, f"recover: {line}")
        except UsageError as exc:  # said; the session still ends
            _say(session, f"WARNING: git's refs could not be restored ({exc}); "
                          "'ralph-verify recover' tries again")
    branch, broken = state.branch, state.broken
    if broken is not None and "HEAD is back" not in broken.what:
        _say(session, f"git: {broken.what}; the work of the iteration "
                      f"{broken.iteration} is not committed anywhere")
        return
    if branch and state.from_branch:
        _say(session, f"branch: {branch} holds the work; 'git switch {state.from_branch}' "
                      f"to go back, 'git merge {branch}' to keep it")


def describe(data: object) -> str:
    """For ``status``."""
    state = of_json(CheckpointState, data)
    if state.git is False:
        return "not a git repository"
    recovery = _recovery_note(state)
    if state.git is None:  # ralph_session_prepare did nothing: the Stop-hook mode
        if not state.beside:
            return "no checkpoints: the session works on your own branch" + recovery
        return (f"the session works on your own branch; {len(state.commits)} checkpoint(s) "
                f"on branch {state.branch} beside it ('git switch {state.branch}', then "
                f"'ralph-verify rollback N' restores iteration N){recovery}")
    text = (f"branch {state.branch or '(current)'}, {len(state.commits)} checkpoint(s); "
            f"'ralph-verify rollback N' restores iteration N{recovery}")
    if state.left_branch:
        text += f"; the agent left the session's branch for {state.left_branch}"
    return text
