"""A fleet's loops are ordinary ``ralph-verify run`` sessions: a plugin's loop hooks fire in
every one of them, on the local executor as on Dask workers (tests/fleet/test_dask.py)."""

from __future__ import annotations

from pathlib import Path

from ralph_verify.testing import Ralph
from tests.fleet.kata import agent, make_monorepo
from tests.fleet.probe import EXPECTED, fired, probe_env


def test_a_plugins_loop_hooks_fire_in_every_loop_of_a_local_fleet(ralph: Ralph,
                                                                  tmp_path: Path) -> None:
    make_monorepo(ralph.path, ["a", "b"])
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    ralph.env = probe_env(plugins)
    result = ralph.run_subprocess("fleet", "--matrix", "packages/*", "--agent",
                                  agent(tmp_path), "--until", "tests", "-p", str(prompt),
                                  "-j", "2", "--id", "h1")
    assert result.ret == 0, result
    assert fired(plugins) == {"packages-a": EXPECTED, "packages-b": EXPECTED}
