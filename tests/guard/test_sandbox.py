"""``run --sandbox`` with the real bubblewrap: a cmd: agent tries to destroy decoys outside the
project; every attempt fails, the decoys survive, and the work inside the project is done."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph


@pytest.fixture(scope="module")
def bwrap() -> str:
    """bubblewrap, installed with apt-get when missing and root; else a clear failure."""
    found = shutil.which("bwrap")
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "bubblewrap"], check=False,
                       capture_output=True, timeout=600)
        found = shutil.which("bwrap")
    if found is None:
        pytest.fail("these tests need bubblewrap: apt-get install bubblewrap")
    return found


@pytest.fixture
def decoys() -> Iterator[Path]:
    """A folder outside the project (and outside /tmp, which the sandbox makes private)."""
    folder = Path(tempfile.mkdtemp(prefix="ralph-decoy-", dir="/var/tmp"))
    try:
        (folder / "dir").mkdir()
        (folder / "dir" / "keep.txt").write_text("keep\n")
        (folder / "file.txt").write_text("safe\n")
        (folder / "bashrc").write_text("export SAFE=1\n")
        repo = folder / "repo"
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        (repo / "a.txt").write_text("a\n")
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
        subprocess.run([*git, "branch", "side"], check=True)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def attack(decoys: Path) -> str:
    """The agent: each destructive family against the decoys, then the real work."""
    d = decoys.as_posix()
    git = f"git -c user.name=x -c user.email=x@x -C {d}/repo"
    return f"""
try() {{
  if "$@" >/dev/null 2>&1; then echo "ESCAPED $*"; else echo "blocked $*"; fi >> attempts.txt
}}
try rm -rf {d}/dir
try sh -c 'echo pwned > {d}/file.txt'
try sed -i s/SAFE/PWNED/ {d}/bashrc
try python3 -c "import shutil; shutil.rmtree('{d}/dir')"
try {git} commit --allow-empty -q -m pwned
try {git} branch -D side
try {git} reflog expire --expire=now --all
try mv {d}/file.txt {d}/moved.txt
echo done > done.txt
"""


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_sandbox_stops_every_family_and_the_loop_completes(
        ralph: Ralph, bwrap: str, decoys: Path) -> None:
    ralph.makefile("agent.sh", attack(decoys))
    ralph.git_init()
    before = snapshot(decoys)
    result = ralph.run("run", "--sandbox", "--agent", "cmd:bash agent.sh",
                       "--until", "files:done.txt", "do it")
    assert result.ret == 0, result
    # /var/tmp is private in the sandbox: an attempt there finds nothing or fails.
    assert len((ralph.path / "attempts.txt").read_text().splitlines()) == 8
    assert snapshot(decoys) == before  # nothing changed, git objects and refs included
    assert (ralph.path / "done.txt").read_text() == "done\n"


def test_the_sandbox_is_on_by_default_where_bubblewrap_works(
        ralph: Ralph, bwrap: str, decoys: Path) -> None:
    """``sandbox = "auto"``: no flag, the guard switched off, and still every attempt fails."""
    del ralph.env["RALPH_VERIFY_SANDBOX"]  # the fixture's "off": back to the default
    ralph.makefile("agent.sh", attack(decoys))
    ralph.makepyproject("[tool.ralph-verify.guard]\nenabled = false\n")
    ralph.git_init()
    before = snapshot(decoys)
    result = ralph.run("run", "--agent", "cmd:bash agent.sh", "--until", "files:done.txt",
                       "do it")
    assert result.ret == 0, result
    assert len((ralph.path / "attempts.txt").read_text().splitlines()) == 8
    assert snapshot(decoys) == before
    assert "without a sandbox" not in result.err


def test_auto_without_bubblewrap_says_why_once_and_runs(ralph: Ralph, tmp_path: Path) -> None:
    del ralph.env["RALPH_VERIFY_SANDBOX"]
    ralph.makefile("agent.sh", "echo done > done.txt\n")
    ralph.git_init()
    empty = tmp_path / "no-bwrap"
    empty.mkdir()
    for tool in ("bash", "git", "sh"):
        (empty / tool).symlink_to(shutil.which(tool) or tool)
    ralph.env["PATH"] = str(empty)
    result = ralph.run("run", "--agent", "cmd:bash agent.sh", "--until", "files:done.txt",
                       "do it")
    assert result.ret == 0, result
    assert result.err.count("note: the agent runs without a sandbox: bubblewrap (bwrap) is "
                            "not installed") == 1, result.err
    # A usage error comes alone: the note is said once the session starts, not before it.
    ralph.makefile("done.txt", "")
    ralph.git("add", "done.txt")
    ralph.git("commit", "-qm", "done")
    for argv in (("--until", "files:done.txt,tset"), ("-P", "nothere.md")):
        refused = ralph.run("run", "--agent", "cmd:bash agent.sh", *argv, "do it")
        assert refused.ret == 2, refused
        assert refused.err.startswith("ERROR: ") and "sandbox" not in refused.err, refused
    quiet = ralph.run("run", "--no-sandbox", "--agent", "cmd:bash agent.sh", "--until",
                      "files:done.txt", "do it")
    assert quiet.ret == 0 and "sandbox" not in quiet.err, quiet


def test_a_bad_sandbox_setting_is_a_usage_error(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify]\nsandbox = "maybe"\n')
    ralph.git_init()
    result = ralph.run("run", "--agent", "cmd:true", "--until", "files:x", "go")
    assert result.ret == 2 and "sandbox = 'maybe'" in result.err and "auto, on, off" in \
        result.err, result


def test_without_the_sandbox_the_same_agent_escapes(ralph: Ralph, decoys: Path) -> None:
    """The control: the tests above can fail (the guard does not apply to a cmd: agent)."""
    ralph.makefile("agent.sh", attack(decoys))
    ralph.git_init()
    result = ralph.run("run", "--no-sandbox", "--agent", "cmd:bash agent.sh", "--until",
                       "files:done.txt", "do it")
    assert result.ret == 0, result
    assert "ESCAPED rm -rf" in (ralph.path / "attempts.txt").read_text()
    assert not (decoys / "dir").exists()


def test_network_none_unshares_the_network(ralph: Ralph, bwrap: str) -> None:
    ralph.makefile("agent.sh", "tail -n +3 /proc/net/dev | cut -d: -f1 > nets.txt\n"
                               "echo done > done.txt\n")
    ralph.git_init()
    result = ralph.run("run", "--sandbox", "--sandbox-network", "none", "--agent",
                       "cmd:bash agent.sh", "--until", "files:done.txt", "do it")
    assert result.ret == 0, result
    # Only loopback is left: no way to any host.
    assert (ralph.path / "nets.txt").read_text().split() == ["lo"]


def test_missing_bubblewrap_fails_before_the_baseline(ralph: Ralph, tmp_path: Path) -> None:
    ralph.git_init()
    empty = tmp_path / "no-bwrap"
    empty.mkdir()
    ralph.env["PATH"] = str(empty)
    result = ralph.run("run", "--sandbox", "--agent", "cmd:true", "--until", "files:x", "go")
    assert result.ret == 2, result
    assert "ERROR:" in result.err and "apt-get install bubblewrap" in result.err
    assert "Traceback" not in result.err
    assert not (ralph.path / ".ralph" / "state.json").exists()


@pytest.fixture
def home() -> Iterator[Path]:
    """A home folder outside /tmp (which the sandbox makes private: it would hide it all)."""
    folder = Path(tempfile.mkdtemp(prefix=".ralph-test-home-", dir=Path.home()))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_secrets_git_and_ralph_are_out_of_reach(ralph: Ralph, bwrap: str, home: Path) -> None:
    """Credentials, another project's .env, the cache (cancel key) and secret variables are
    not seen; .git's objects survive gc, .ralph/ and .git/config cannot be written; the
    agent's own commit lands."""
    for name, text in {".ssh/id_rsa": "SECRET-SSH", ".aws/credentials": "SECRET-AWS",
                       ".bash_history": "SECRET-HISTORY", "other/.env": "SECRET-ENV"}.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text + "\n")
    ralph.env.update(HOME=str(home), MY_API_TOKEN="SECRET-VARIABLE-1234",
                     KEPT_TOKEN="kept-on-purpose",
                     RALPH_VERIFY_CACHE_DIR=str(home / ".cache" / "ralph-verify"))
    git = "git -c user.name=a -c user.email=a@a"
    ralph.makefile("agent.sh", f"""
cat ~/.ssh/id_rsa ~/.aws/credentials ~/.bash_history ~/other/.env > leak.txt 2>&1
cat ~/.cache/ralph-verify/cancel/* >> leak.txt 2>&1
env >> leak.txt; tr '\\0' '\\n' < /proc/1/environ >> leak.txt
echo '{{}}' > .ralph/state.json 2>>leak.txt
echo '[core]' >> .git/config 2>>leak.txt
mv .git .git-old 2>>leak.txt; mv .ralph .ralph-old 2>>leak.txt
echo work > work.txt && {git} add work.txt && {git} commit -qm agent-work
{git} branch -D side >/dev/null; git reflog expire --expire=now --all
git gc -q --prune=now; rm -rf .git/objects/?? 2>/dev/null
echo done > done.txt
""")
    ralph.git_init()
    subprocess.run(f"{git} branch side", shell=True, cwd=ralph.path, check=True)
    side = subprocess.run(["git", "rev-parse", "side"], cwd=ralph.path, text=True,
                          capture_output=True, check=True).stdout.strip()
    config_before = (ralph.path / ".git" / "config").read_text()
    result = ralph.run("run", "--sandbox", "--sandbox-env", "KEPT_TOKEN", "--agent",
                       "cmd:bash agent.sh", "--until", "files:done.txt", "do it")
    assert result.ret == 0, result
    leak = (ralph.path / "leak.txt").read_text()
    assert "KEPT_TOKEN=kept-on-purpose" in leak  # --sandbox-env keeps it
    assert "SECRET" not in leak, [line for line in leak.splitlines() if "SECRET" in line]
    assert (ralph.path / ".git" / "config").read_text() == config_before
    assert '"verdict"' in (ralph.path / ".ralph" / "state.json").read_text()
    # The user's commit (the deleted branch's tip) and the agent's new one both exist.
    check = subprocess.run(["git", "cat-file", "-e", side], cwd=ralph.path)
    assert check.returncode == 0
    log = subprocess.run(["git", "log", "--all", "--format=%s"], cwd=ralph.path, text=True,
                         capture_output=True, check=True).stdout
    assert "agent-work" in log.splitlines(), log
    assert subprocess.run(["git", "fsck", "--no-dangling"], cwd=ralph.path,
                          capture_output=True).returncode == 0


def fake_bwrap(folder: Path) -> None:
    """A bubblewrap that passes the start-up probe (``… -- true``) and fails on any other
    command, as a broken install or a seccomp profile can."""
    folder.mkdir()
    (folder / "bwrap").write_text(
        '#!/bin/sh\n[ "$(eval echo \\${$#})" = true ] && exit 0\n'
        'echo "bwrap: Creating new namespace failed: Operation not permitted" >&2\nexit 1\n')
    (folder / "bwrap").chmod(0o755)


def test_a_sandbox_that_fails_on_the_real_command_is_agent_error_at_once(
        ralph: Ralph, tmp_path: Path) -> None:
    fake_bwrap(tmp_path / "bin")
    ralph.env["PATH"] = f"{tmp_path / 'bin'}:{ralph.env.get('PATH', os.environ['PATH'])}"
    ralph.makefile("agent.sh", "echo done > done.txt\n")
    ralph.git_init()
    result = ralph.run("run", "--sandbox", "--agent", "cmd:bash agent.sh", "--until",
                       "files:done.txt", "--max-iterations", "5", "do it")
    assert result.ret != 0, result
    state = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    verdict = state["verdict"]
    assert verdict["verdict"] == "agent-error" and state["iteration"] == 1, state
    assert "the sandbox failed before the agent started: 'bwrap: Creating new namespace " \
        "failed: Operation not permitted'" in verdict["reason"], verdict
    assert "--no-sandbox" in verdict["reason"] and "Creating new namespace" in result.out


def test_what_the_agent_command_names_under_tmp_is_shown_read_only(
        ralph: Ralph, bwrap: str) -> None:
    """``cmd:/tmp/x/agent.sh`` runs although /tmp is private in the sandbox: the files the
    command line names are shown, read-only; their neighbours stay out of sight."""
    folder = Path(tempfile.mkdtemp(prefix="ralph-agent-", dir="/tmp"))
    try:
        (folder / "neighbour.txt").write_text("not for the agent\n")
        script = folder / "agent.sh"
        script.write_text("#!/bin/sh\n"
                          "echo changed >> \"$0\" 2>/dev/null && echo wrote-self >> seen.txt\n"
                          f"test -e {folder}/neighbour.txt && echo neighbour >> seen.txt\n"
                          "echo done > done.txt\n")
        script.chmod(0o755)
        before = script.read_text()
        ralph.git_init()
        result = ralph.run("run", "--sandbox", "--agent", f"cmd:{script}", "--until",
                           "files:done.txt", "do it")
        assert result.ret == 0, result
        assert script.read_text() == before
        assert not (ralph.path / "seen.txt").exists()
    finally:
        shutil.rmtree(folder)


def test_a_replay_folder_under_tmp_is_shown_to_the_sandboxed_agent(
        ralph: Ralph, bwrap: str, tmp_path: Path) -> None:
    """The README's quick start keeps its ``replay:`` folder beside the project, often in /tmp."""
    replay = tmp_path / "replay"
    replay.mkdir()
    (replay / "001.py").write_text("open('done.txt', 'w').write('done')\n")
    ralph.git_init()
    result = ralph.run("run", "--sandbox", "--agent", f"replay:{replay}", "--until",
                       "files:done.txt", "do it")
    assert result.ret == 0, result
