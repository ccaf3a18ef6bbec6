"""``fleet FILE`` with ``depends-on`` on a real Dask scheduler and two workers (started here,
on 127.0.0.1, and stopped): the ready tasks are futures on the workers, side by side; the
graph and the merge queue stay in the coordinator, and the task that needs both starts, on
a worker, from a clone of the integration branch's tip holding both."""

from __future__ import annotations

from pathlib import Path

from ralph_verify.testing import Ralph
from tests.fleet.graph_kata import DIAMOND
from tests.fleet.test_dask import _cluster
from tests.fleet.test_graph import assert_diamond, setup_graph


def test_the_ready_tasks_run_on_two_workers_at_once_and_the_third_on_both_merges(
        ralph: Ralph, tmp_path: Path) -> None:
    marks, agent = setup_graph(ralph, tmp_path, "side-by-side")
    ralph.makefile("tasks.toml", DIAMOND.format(agent=agent))
    env = {"GRAPH_MARKS": str(marks), "GRAPH_MODE": "side-by-side", "FLEET_AGENT_SLEEP": "0"}
    with _cluster(tmp_path, env) as cluster:
        result = ralph.run("fleet", "tasks.toml", "-j", "2", "--id", "d1", "--executor",
                           "dask", "--address", cluster.address)
        assert result.ret == 0, result
        document = assert_diamond(ralph, marks, "d1")
    loops = {loop["name"]: loop for loop in document["loops"]}
    workers = set(cluster.addresses.values())
    assert {loops["T1"]["where"], loops["T2"]["where"]} == workers  # one each, at once
    assert loops["T3"]["where"] in workers
    # Each ran in a clone on its worker, gone afterwards; the branches came home.
    for name in ("T1", "T2", "T3"):
        assert not Path(loops[name]["workdir"]).exists()
        assert not loops[name]["workdir"].startswith(str(ralph.path))
        assert ralph.git("rev-parse", "--verify", "-q", f"ralph/fleet-d1/{name}").strip()
