"""git guarded after every iteration: an agent that deletes the repository, deletes or rewinds
the session's branch, or leaves it, stops the session at once (agent-error) with what it did
and the recovery point; HEAD goes back to the session's branch, and nothing claims the work
is where it is not."""

from __future__ import annotations

from ralph_verify.loop.verdict import EXIT_CODES, Verdict
from ralph_verify.testing import Ralph, RunResult
from tests.loop_helpers import agent, history, state

#: Each turn writes step.txt; turn 2 does the damage first.
DAMAGE = """\
if N == 2:
    subprocess.run({command!r}, shell=True, check=True)
pathlib.Path("step.txt").write_text(str(N))
"""


def _run(ralph: Ralph, command: str, *options: str) -> tuple[RunResult, str]:
    ralph.git_init()
    result = ralph.run("run", "--agent", agent(ralph, DAMAGE.format(command=command)),
                       "--until", "files:done.txt", "--max-iterations", "4", *options, "go")
    return result, f"ralph/{state(ralph)['session']}"


def test_a_deleted_repository_stops_the_session(ralph: Ralph) -> None:
    result, _ = _run(ralph, "rm -rf .git")
    assert result.ret == EXIT_CODES[Verdict.AGENT_ERROR], result
    out = result.out
    assert "git: the agent deleted the git repository (.git); recovery point " in out
    assert "holds the work" not in out
    assert [record["iteration"] for record in history(ralph)] == [1, 2]


def test_a_session_branch_rewritten_off_its_start_stops_the_session(ralph: Ralph) -> None:
    result, branch = _run(ralph, "git -c user.name=a -c user.email=a@a reset -q --hard "
                                 "$(git commit-tree 'HEAD^{tree}' -m rewritten)")
    assert result.ret == EXIT_CODES[Verdict.AGENT_ERROR], result
    out = result.out
    assert f"git: the agent moved the session's branch {branch} from the loop's last commit" \
        in out
    assert "'git reset --hard " in out and "holds the work" not in out
    assert len(history(ralph)) == 2


def test_the_agents_own_commits_amends_and_resets_on_the_branch_are_its_work(
        ralph: Ralph) -> None:
    ident = "git -c user.name=a -c user.email=a@a"
    result, branch = _run(ralph, f"echo 1 > a.txt && git add a.txt && {ident} commit -qm a && "
                                 f"echo 2 > a.txt && {ident} commit -qam again --amend && "
                                 "git reset -q --hard HEAD~1 && echo 3 > b.txt && "
                                 f"git add b.txt && {ident} commit -qm b")
    assert result.ret == EXIT_CODES[Verdict.MAX_ITERATIONS], result
    assert "git:" not in result.out
    assert ralph.git("show", f"{branch}:b.txt") == "3\n"
    assert ralph.git("show", f"{branch}:step.txt") == "4"


def test_a_deleted_session_branch_stops_the_session(ralph: Ralph) -> None:
    result, branch = _run(ralph, "git checkout -q --detach && git branch -q -D "
                                 "$(git for-each-ref --format='%(refname:short)' "
                                 "'refs/heads/ralph/*')")
    assert result.ret == EXIT_CODES[Verdict.AGENT_ERROR], result
    out = result.out
    assert f"git: the agent deleted the session's branch {branch}" in out
    assert f"'git branch {branch} " in out and "holds the work" not in out


def test_leaving_the_branch_puts_head_back_and_keeps_the_users_edit(ralph: Ralph) -> None:
    ralph.git_init()
    main = ralph.git("rev-parse", "main").strip()
    ralph.makefile("mine.txt", "my own uncommitted edit\n")
    command = "git checkout -q main && echo agent edit > agent.txt"
    result = ralph.run("run", "--agent", agent(ralph, DAMAGE.format(command=command)),
                       "--until", "files:done.txt", "--max-iterations", "4", "--allow-dirty",
                       "go")
    assert result.ret == EXIT_CODES[Verdict.AGENT_ERROR], result
    branch = f"ralph/{state(ralph)['session']}"
    assert ralph.git("branch", "--show-current").strip() == branch
    assert ralph.git("rev-parse", "main").strip() == main
    assert (ralph.path / "mine.txt").read_text() == "my own uncommitted edit\n"
    assert (ralph.path / "agent.txt").read_text() == "agent edit\n"
    assert ralph.git("show", f"{branch}:agent.txt") == "agent edit\n"
    assert ralph.git("status", "--porcelain").strip() == ""
    result.stdout.fnmatch_lines([f"*agent-error*HEAD is back on {branch}; your branch main "
                                 "was not touched*"])


def test_a_moved_user_branch_is_said(ralph: Ralph) -> None:
    result, branch = _run(ralph, "git checkout -q main && git commit -q --allow-empty -m x")
    assert result.ret == EXIT_CODES[Verdict.AGENT_ERROR], result
    assert "it also moved your branch main from " in result.out
    assert ralph.git("branch", "--show-current").strip() == branch


def test_an_untouched_repository_runs_on(ralph: Ralph) -> None:
    result, branch = _run(ralph, "git status -s > /dev/null")
    assert result.ret == EXIT_CODES[Verdict.MAX_ITERATIONS], result
    assert "holds the work" in result.out
    assert ralph.git("branch", "--show-current").strip() == branch
