"""The ``dask`` executor against a real ``dask scheduler`` and two ``dask worker`` processes
started here on 127.0.0.1: loops run on both workers, each in its own clone, every branch
arrives in the source repository, and a worker killed mid-loop loses nothing finished."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.testing import Ralph
from tests.fleet.kata import agent, git, make_monorepo, priced_agent
from tests.fleet.probe import EXPECTED, fired, probe_env

DASK = str(Path(sys.executable).with_name("dask"))


@dataclass
class Cluster:
    address: str
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    #: Worker name (w1, w2) -> its address, as the scheduler knows it.
    addresses: dict[str, str] = field(default_factory=dict)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _scheduler_address(scheduler_file: Path, log: Path) -> str:
    """The address in the scheduler file, once it is there whole: Dask writes it in place, so
    a reader can find it empty or half-written."""
    deadline = time.monotonic() + 60
    while True:
        with contextlib.suppress(OSError, ValueError, KeyError):
            return str(json.loads(scheduler_file.read_text())["address"])
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)


@contextlib.contextmanager
def _cluster(tmp_path: Path, extra_env: dict[str, str]) -> Iterator[Cluster]:
    """A scheduler and two single-thread workers (no nanny: kill -9 kills the worker itself).

    The agent's environment (where it marks its start, how long it sleeps) is set here: the
    workers pass their environment on to the loops."""
    if not Path(DASK).is_file():
        pytest.fail(f"{DASK} not found: install ralph-verify[dask] (scripts/test.py does)",
                    pytrace=False)
    marks = tmp_path / "marks"
    marks.mkdir()
    # No sandbox: the tests find the worker of an agent by the pid the agent writes, which a
    # sandboxed agent would give from its own PID namespace.
    env = {**os.environ, "FLEET_AGENT_MARKS": str(marks), "FLEET_AGENT_SLEEP": "3",
           "RALPH_VERIFY_SANDBOX": "off", **extra_env}
    scheduler_file = tmp_path / "scheduler.json"
    logs = tmp_path / "dask-logs"
    logs.mkdir()
    procs: list[subprocess.Popen[bytes]] = []

    def start(name: str, *args: str) -> subprocess.Popen[bytes]:
        log = (logs / f"{name}.log").open("wb")
        proc = subprocess.Popen([DASK, *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=tmp_path)
        procs.append(proc)
        return proc

    try:
        start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", "0",
              "--no-dashboard", "--scheduler-file", str(scheduler_file))
        address = _scheduler_address(scheduler_file, logs / "scheduler.log")
        found = Cluster(address)
        for name in ("w1", "w2"):
            found.workers[name] = start(name, "worker", address, "--host", "127.0.0.1",
                                        "--no-dashboard", "--nthreads", "1", "--no-nanny",
                                        "--name", name)
        import importlib

        distributed: Any = importlib.import_module("distributed")  # untyped: used as Any
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            info = client.scheduler_info()["workers"]
        found.addresses = {w["name"]: a for a, w in info.items()}
        yield found
    finally:
        for proc in reversed(procs):
            _stop(proc)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    with _cluster(tmp_path, {}) as found:
        yield found


def _fleet(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / "fleet" / "fleet.json").read_text())
    return data


def _setup(ralph: Ralph, tmp_path: Path, names: list[str]) -> list[str]:
    make_monorepo(ralph.path, names)
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    return ["--matrix", "packages/*", "--agent", agent(tmp_path), "--until", "tests",
            "-p", str(prompt), "--executor", "dask"]


def test_loops_run_on_both_workers_and_every_branch_comes_home(
        ralph: Ralph, tmp_path: Path, cluster: Cluster) -> None:
    args = _setup(ralph, tmp_path, ["a", "b", "c", "d"])
    head = git(ralph.path, "rev-parse", "HEAD")
    result = ralph.run("fleet", *args, "--address", cluster.address, "-j", "4", "--id", "d1")
    assert result.ret == 0, result
    loops = _fleet(ralph.path)["loops"]
    assert [loop["verdict"] for loop in loops] == ["complete"] * 4
    workers = {loop["where"] for loop in loops}
    assert workers == set(cluster.addresses.values())
    clones = [loop["workdir"] for loop in loops]
    assert len(set(clones)) == 4  # each loop in its own clone, gone afterwards
    assert not any(Path(clone).exists() for clone in clones)
    assert all(not clone.startswith(str(ralph.path)) for clone in clones)
    for loop in loops:
        assert loop["commits"] == 1
        fixed = git(ralph.path, "show", f"{loop['branch']}:{loop['folder']}/calc.py")
        assert "a + b" in fixed  # the branch arrived in the source repository
        assert (ralph.path / "fleet" / loop["report"]).is_file()
    assert git(ralph.path, "rev-parse", "HEAD") == head
    assert git(ralph.path, "branch", "--show-current").strip() == "main"


def _worker_of(pid: int, workers: dict[str, subprocess.Popen[bytes]]) -> str | None:
    """The name of the worker whose process ``pid`` descends from."""
    by_pid = {proc.pid: name for name, proc in workers.items()}
    while pid > 1:
        if pid in by_pid:
            return by_pid[pid]
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            return None
    return None


def _kill_a_worker_mid_loop(ralph: Ralph, marks: Path, cluster: Cluster,
                            proc: subprocess.Popen[bytes], after_one: bool) -> str:
    """Wait until a loop is in its agent (and, with ``after_one``, another finished), then
    kill -9 the worker it runs on; returns that worker's name."""
    deadline = time.monotonic() + 240
    while True:
        assert time.monotonic() < deadline and proc.poll() is None, proc.stdout
        done = not after_one or ((ralph.path / "fleet/fleet.json").is_file() and any(
            loop.get("verdict") == "complete" for loop in _fleet(ralph.path)["loops"]))
        for mark in marks.glob("started-*"):
            name = _worker_of(int(mark.read_text().split()[0]), cluster.workers)
            if done and name is not None:
                os.kill(cluster.workers[name].pid, signal.SIGKILL)
                cluster.workers[name].wait()
                return name
        time.sleep(0.1)


def test_a_worker_killed_mid_loop_loses_nothing_finished(
        ralph: Ralph, tmp_path: Path, cluster: Cluster) -> None:
    args = _setup(ralph, tmp_path, ["a", "b", "c", "d"])
    marks = tmp_path / "marks"
    proc = subprocess.Popen([sys.executable, "-m", "ralph_verify", "fleet", *args,
                             "--address", cluster.address, "-j", "4", "--id", "k1"],
                            cwd=ralph.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        # Wait until some loop finished and another is in its agent: kill that one's worker.
        deadline = time.monotonic() + 240
        victim = None
        while victim is None:
            assert time.monotonic() < deadline and proc.poll() is None, proc.stdout
            done = (ralph.path / "fleet/fleet.json").is_file() and any(
                loop.get("verdict") == "complete" for loop in _fleet(ralph.path)["loops"])
            for mark in marks.glob("started-*"):
                pid = int(mark.read_text().split()[0])
                name = _worker_of(pid, cluster.workers)
                if done and name is not None:
                    victim = name
            time.sleep(0.1)
        finished_before = [loop["name"] for loop in _fleet(ralph.path)["loops"]
                           if loop.get("verdict") == "complete"]
        os.kill(cluster.workers[victim].pid, signal.SIGKILL)
        cluster.workers[victim].wait()
        out, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out.decode()
    loops = {loop["name"]: loop for loop in _fleet(ralph.path)["loops"]}
    assert {loop["verdict"] for loop in loops.values()} == {"complete"}
    for name in finished_before:  # finished before the kill: kept, not run again
        assert loops[name]["attempts"] == 1
    survivor = cluster.addresses["w2" if victim == "w1" else "w1"]
    rerun = [loop for loop in loops.values() if loop["attempts"] > 1]
    assert rerun, loops  # the killed loop was run again...
    assert all(loop["where"] == survivor for loop in rerun)  # ...on the other worker
    for loop in loops.values():
        assert "a + b" in git(ralph.path, "show", f"{loop['branch']}:{loop['folder']}/calc.py")


def test_the_core_never_imports_dask(ralph: Ralph) -> None:
    """The dask executor is a plugin its entry point loads; nothing imports Dask until a fleet
    runs with --executor dask."""
    code = ("import sys\nfrom ralph_verify.cli import main\n"
            "assert main(['plugins']) == 0\nassert main(['fleet', '--help']) == 0\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ralph.path, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "dask  [ralph-verify" in proc.stdout  # registered through its entry point
    assert proc.stdout.rstrip().endswith("[]")


def test_a_loop_whose_worker_dies_past_the_limits_is_lost_and_the_fleet_finishes(
        ralph: Ralph, tmp_path: Path) -> None:
    """The scheduler gives up at the first death (allowed-failures 0) and --retries 0: the loop
    is recorded as lost, with the reason; the other loop still runs on the other worker."""
    args = _setup(ralph, tmp_path, ["a", "b"])
    with _cluster(tmp_path, {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}) as found:
        proc = subprocess.Popen([sys.executable, "-m", "ralph_verify", "fleet", *args,
                                 "--address", found.address, "-j", "1", "--retries", "0",
                                 "--id", "l1"],
                                cwd=ralph.path, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        try:
            victim = _kill_a_worker_mid_loop(ralph, tmp_path / "marks", found, proc,
                                             after_one=False)
            out, _ = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        survivor = found.addresses["w2" if victim == "w1" else "w1"]
    assert proc.returncode == 1, out.decode()
    loops = {loop["name"]: loop for loop in _fleet(ralph.path)["loops"]}
    lost = [loop for loop in loops.values() if loop["verdict"] == "lost"]
    assert len(lost) == 1, loops
    assert lost[0]["reason"].startswith("its worker died while it ran, every time it was tried")
    (other,) = [loop for loop in loops.values() if loop["verdict"] != "lost"]
    assert other["verdict"] == "complete" and other["where"] == survivor
    assert '<error message="lost: its worker died' in (ralph.path
                                                       / "fleet/fleet-junit.xml").read_text()


def test_a_plugins_loop_hooks_fire_in_loops_on_dask_workers(ralph: Ralph,
                                                             tmp_path: Path) -> None:
    """The workers have the plugin (here through their environment): its hooks fire in each
    loop they run, as in a local fleet (tests/fleet/test_hooks.py)."""
    args = _setup(ralph, tmp_path, ["a", "b"])
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    with _cluster(tmp_path, probe_env(plugins)) as found:
        result = ralph.run("fleet", *args, "--address", found.address, "-j", "2", "--id", "h2")
    assert result.ret == 0, result
    assert fired(plugins) == {"packages-a": EXPECTED, "packages-b": EXPECTED}


def test_ctrl_c_stops_every_loop_of_a_local_cluster_cleanly_and_resume_goes_on(
        ralph: Ralph, tmp_path: Path) -> None:
    """No --address: the fleet starts a LocalCluster. Ctrl-C (SIGINT to the whole foreground
    process group, Dask's worker processes included) stops both running loops cleanly: each
    is cancelled and its work so far comes back as its branch; the third never starts.
    --resume then builds on those branches."""
    make_monorepo(ralph.path, ["a", "b", "c"])
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    marks = tmp_path / "marks"
    marks.mkdir()
    env = {**os.environ, **ralph.env, "FLEET_AGENT_MARKS": str(marks), "FLEET_AGENT_SLEEP": "600",
           "FLEET_AGENT_COST": "0.01"}
    proc = subprocess.Popen([sys.executable, "-m", "ralph_verify", "fleet", "--matrix",
                             "packages/*", "--agent", priced_agent(tmp_path), "--until",
                             "tests", "-p", str(prompt), "--executor", "dask", "-j", "2",
                             "--id", "i1"], cwd=ralph.path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while len(list(marks.glob("started-*"))) < 2:  # both loops in their second run
            assert time.monotonic() < deadline and proc.poll() is None, proc.stdout
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C at a terminal does
        out, _ = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, out.decode()
    loops = {loop["name"]: loop for loop in _fleet(ralph.path)["loops"]}
    assert loops["packages-c"]["verdict"] == "not-run", loops
    tips = {}
    for name in ("packages-a", "packages-b"):
        loop = loops[name]
        assert loop["verdict"] == "cancelled" and loop["iterations"] == 2, loop
        assert loop["where"].startswith("tcp://127.0.0.1:"), loop
        assert "it subtracts" in git(ralph.path, "show",
                                     f"{loop['branch']}:{loop['folder']}/NOTES.md")
        tips[name] = git(ralph.path, "rev-parse", loop["branch"]).strip()
    # --resume goes on from the work that came back: each branch grows, none is replaced.
    resumed = subprocess.run([sys.executable, "-m", "ralph_verify", "fleet", "--matrix",
                              "packages/*", "--agent", priced_agent(tmp_path), "--until",
                              "tests", "-p", str(prompt), "--executor", "dask", "-j", "2",
                              "--resume"], cwd=ralph.path, env={**env, "FLEET_AGENT_SLEEP": "0"},
                             capture_output=True, text=True, timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    loops = {loop["name"]: loop for loop in _fleet(ralph.path)["loops"]}
    assert {loop["verdict"] for loop in loops.values()} == {"complete"}
    for name, tip in tips.items():
        branch = loops[name]["branch"]
        assert subprocess.run(["git", "merge-base", "--is-ancestor", tip, branch],
                              cwd=ralph.path, check=False).returncode == 0, name
        assert "a + b" in git(ralph.path, "show", f"{branch}:{loops[name]['folder']}/calc.py")


def test_total_cost_counts_the_loops_running_on_the_workers(ralph: Ralph,
                                                             tmp_path: Path) -> None:
    """As on the local executor (tests/fleet/test_limits.py): each loop's first agent run is
    reported as $1 while it still runs on its worker; at $2 of the fleet's $1.50 both are
    stopped in their second run (4 minutes long otherwise) and their work comes home."""
    make_monorepo(ralph.path, ["a", "b", "c", "d"])
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    # The loops get the workers' environment: the agent's cost and its second run's length.
    with _cluster(tmp_path, {"FLEET_AGENT_COST": "1", "FLEET_AGENT_SLEEP": "240"}) as found:
        started = time.monotonic()
        result = ralph.run("fleet", "--matrix", "packages/*", "--agent",
                           priced_agent(tmp_path), "--until", "tests", "-p", str(prompt),
                           "--executor", "dask", "--address", found.address, "-j", "2",
                           "--id", "dc", "--total-cost", "1.5")
        assert time.monotonic() - started < 200, "the fleet waited for the agents to finish"
    assert result.ret == 1, result
    document = _fleet(ralph.path)
    assert document["cancelled"] == "the fleet's total cost reached 1.5 USD"
    loops = {loop["name"]: loop for loop in document["loops"]}
    assert loops["packages-c"]["verdict"] == loops["packages-d"]["verdict"] == "not-run"
    for name in ("packages-a", "packages-b"):
        loop = loops[name]
        assert loop["verdict"] == "cancelled" and loop["cost_usd"] == 1.0, loop
        assert "it subtracts" in git(ralph.path, "show",
                                     f"{loop['branch']}:{loop['folder']}/NOTES.md")


def test_an_address_where_no_scheduler_listens_is_a_usage_error_at_once(
        ralph: Ralph, tmp_path: Path) -> None:
    # Dask's client alone would retry the refused connection for a minute.
    import socket

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    args = _setup(ralph, tmp_path, ["a"])
    started = time.monotonic()
    result = ralph.run("fleet", *args, "--address", f"tcp://127.0.0.1:{port}", "--id", "nx")
    assert result.ret == 2, result
    assert f"--address tcp://127.0.0.1:{port}: no Dask scheduler answered" in result.err
    assert "dask scheduler" in result.err and "Traceback" not in result.err
    assert time.monotonic() - started < 30, "it waited for Dask's connect timeout"
