"""A hostile environment: config files that cannot be read, the user's PYTHONPATH carrying
a package of ours, a full TMPDIR, a secret in a test id. Each gives a clear answer and loses
or leaks nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph

TOKEN = "ghp_Zq8rT2mVx9LpK4sWn7Yb3Hc6Jd1Fg5Ra0Ue"


def _replace_pyproject(ralph: Ralph, make: str) -> Path:
    path = ralph.path / "pyproject.toml"
    path.unlink()
    if make == "folder":
        path.mkdir()
    elif make == "fifo":
        os.mkfifo(path)
    elif make == "broken link":
        path.symlink_to(ralph.path / "nowhere.toml")
    elif make == "looping link":
        path.symlink_to(path)
    return path


@pytest.mark.parametrize(("make", "said"), [
    ("folder", "a folder, not a file"),
    ("fifo", "not a regular file (a FIFO, socket or device)"),
    ("broken link", "a broken symbolic link"),
    ("looping link", "a symbolic link that loops"),
])
def test_a_config_file_that_cannot_be_read_is_named(ralph: Ralph, make: str,
                                                    said: str) -> None:
    path = _replace_pyproject(ralph, make)
    # A .git further up (the Codex CLI's sandbox leaves one in /tmp while it runs) does not
    # make that folder the root: the pyproject.toml that is there marks it, unreadable.
    (ralph.path.parent / ".git").mkdir()
    for args in (("check", "--until", "cmd:true"), ("check",)):
        result = ralph.run(*args)
        assert result.ret == 2, (args, result)
        assert f"{path}: cannot be read: {said}" in result.err, result.err
    # status reads .ralph/ only: it still answers, and names the file it could not read
    result = ralph.run("status")
    assert result.ret == 2 and "ERROR: no session in" in result.err, result
    assert f"{path}: cannot be read: {said}" in result.err, result.err


def test_no_pyproject_at_all_is_still_fine(ralph: Ralph) -> None:
    (ralph.path / "pyproject.toml").unlink()
    assert ralph.run("check", "--until", "cmd:true").ret == 0


def _vendored_pluggy(tmp_path: Path) -> Path:
    folder = tmp_path / "vendor"
    (folder / "pluggy").mkdir(parents=True)
    (folder / "pluggy" / "__init__.py").write_text(
        'raise ImportError("the project\'s own pluggy, not ralph-verify\'s")\n')
    return folder


def test_our_process_does_not_take_the_users_pythonpath(ralph: Ralph, tmp_path: Path) -> None:
    ralph.env["PYTHONPATH"] = str(_vendored_pluggy(tmp_path))
    result = ralph.run_subprocess("check", "--until", "cmd:true", timeout=120)
    assert result.ret == 0, result
    assert "INTERNAL ERROR" not in result.out + result.err


def test_the_projects_tools_still_get_the_pythonpath(ralph: Ralph, tmp_path: Path) -> None:
    ralph.env["PYTHONPATH"] = str(_vendored_pluggy(tmp_path))
    spec = f'cmd:"{sys.executable} -c \'import pluggy\'"'
    result = ralph.run_subprocess("check", "--until", spec, timeout=120)
    assert result.ret == 1, result
    assert "the project's own pluggy" in result.out


def test_the_console_script_drops_the_pythonpath_too(ralph: Ralph, tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("ralph-verify")
    assert script.exists(), f"{script} is missing: install the package (pip install -e .)"
    env = {**os.environ, **ralph.env, "PYTHONPATH": str(_vendored_pluggy(tmp_path))}
    proc = subprocess.run([str(script), "check", "--until", "cmd:true"], cwd=ralph.path,
                          capture_output=True, text=True, env=env, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_check_under_a_full_tmpdir_says_the_disk_is_full(ralph: Ralph,
                                                           tmp_path: Path) -> None:
    # A real full file system: a 256 KiB tmpfs mounted in a mount namespace of our own
    # (root only, as CI runs), filled but for a few blocks so that small files still fit.
    unshare = shutil.which("unshare")
    assert unshare is not None and os.geteuid() == 0, \
        "this test needs root and unshare (util-linux) to mount a small tmpfs"
    ralph.makepyfile(test_a="def test_a():\n    assert True\n")
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    command = (f"mount -t tmpfs -o size=256k tmpfs {tiny} && "
               f"dd if=/dev/zero of={tiny}/fill bs=4k count=60 2>/dev/null; "
               f"TMPDIR={tiny} exec {sys.executable} -m ralph_verify check --until tests "
               "--no-cache --json -")
    proc = subprocess.run([unshare, "-m", "sh", "-c", command], cwd=ralph.path,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **ralph.env}, stdin=subprocess.DEVNULL)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    (check,) = json.loads(proc.stdout)["checks"]
    assert check["status"] == "error"
    assert check["summary"].startswith("the disk is full"), check["summary"]
    assert "bug in plugin" not in proc.stdout


SECRET_IDS = '''\
import os
import pytest


@pytest.mark.parametrize("token", [os.environ["DEPLOY_TOKEN"]])
def test_with_token(token):
    assert token


def test_plain():
    assert True
'''


def test_a_secret_in_a_test_id_is_written_nowhere(ralph: Ralph, tmp_path: Path) -> None:
    ralph.env["DEPLOY_TOKEN"] = TOKEN
    ralph.makepyfile(test_ids=SECRET_IDS)
    result = ralph.run("run", "--agent", "cmd:true", "--until", "tests,cmd:false",
                       "--max-iterations", "1", "-p", "no:breaker", "task")
    assert result.ret == 10, result
    roots = [ralph.path / ".ralph", tmp_path / "cache"]
    files = [path for root in roots for path in root.rglob("*") if path.is_file()]
    baseline = ralph.path / ".ralph" / "integrity-baseline.json"
    assert baseline in files  # it holds no test ids: the frozen oracle runs the start's tests
    for path in files:
        assert TOKEN[:12].encode() not in path.read_bytes(), f"the token leaked into {path}"
    # The test whose id holds the token is no finding.
    state = json.loads((ralph.path / ".ralph" / "state.json").read_text(encoding="utf-8"))
    integrity = next(c for c in state["checks"] if c["name"] == "integrity")
    assert integrity["status"] == "passed", integrity


@pytest.mark.parametrize("where", ["rootlink", "tests/deep/escape"])
def test_a_link_out_of_the_project_is_not_walked(ralph: Ralph, where: str) -> None:
    # Followed, 'ln -s / rootlink' made pytest and mypy walk the whole file system (40+ s
    # an iteration, or a timeout); the check's own timeout is the bound here.
    ralph.makepyfile(**{"tests/test_a": "def test_a():\n    assert True\n"})
    link = ralph.path / where
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to("/")
    result = ralph.run("check", "--until", "tests,types", "--no-cache", "--timeout", "60",
                       "--json", "-")
    assert result.ret == 0, result
    tests = result.json()["checks"][0]
    assert tests["counts"]["passed"] == 1, tests


def test_a_link_inside_the_project_is_still_collected(ralph: Ralph) -> None:
    ralph.makepyfile(**{"real/test_b": "def test_b():\n    assert True\n"})
    (ralph.path / "alias").symlink_to(ralph.path / "real")
    result = ralph.run("check", "--until", "tests", "--no-cache", "--json", "-")
    assert result.ret == 0, result
    assert result.json()["checks"][0]["counts"]["passed"] == 2  # through both names


def test_started_from_another_repositorys_hook_it_works_on_its_own_project(
        ralph: Ralph, tmp_path: Path) -> None:
    """A git hook exports GIT_DIR and GIT_INDEX_FILE: followed, they would make every git
    command of the session (and the agent's) read, commit to and back up the hook's repository.
    The project is the folder ralph-verify runs in; the other repository is left as it was."""
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    subprocess.run(["git", "-C", str(other), "-c", "user.name=u", "-c", "user.email=u@u",
                    "commit", "-q", "--allow-empty", "-m", "theirs"], check=True)
    before = {name: (other / ".git" / name).read_bytes() for name in ("config", "HEAD", "index")}
    refs = subprocess.run(["git", "-C", str(other), "for-each-ref"], capture_output=True,
                          text=True, check=True).stdout
    ralph.makefile("agent.sh", "echo done > done.txt\n"
                               "git add done.txt && git commit -q -m 'the agent commits'\n")
    ralph.git_init()
    ralph.env |= {"GIT_DIR": str(other / ".git"), "GIT_INDEX_FILE": str(other / ".git/index"),
                  "GIT_WORK_TREE": str(other)}
    result = ralph.run_subprocess("run", "--agent", "cmd:sh agent.sh", "--until",
                                  "files:done.txt", "--allow-dirty", "do it")
    assert result.ret == 0, result
    log = subprocess.run(["git", "-C", str(ralph.path), "log", "--format=%s", "--all"],
                         capture_output=True, text=True, check=True,
                         env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")})
    assert "the agent commits" in log.stdout
    assert {name: (other / ".git" / name).read_bytes() for name in before} == before
    assert subprocess.run(["git", "-C", str(other), "for-each-ref"], capture_output=True,
                          text=True, check=True).stdout == refs
