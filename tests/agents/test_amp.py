"""Amp, the one CLI not tested offline, with the real program offline: a loopback-only
namespace, a dummy key. It cannot reach its service, so the run must end ``agent-error`` at
iteration 1 with Amp's own line and say at start that the adapter is not tested offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from tests.agents_setup import InstallError, base_env, install
from tests.e2e.test_agents_e2e import make_project, run_loop
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e


def test_amp_offline_ends_agent_error_at_iteration_1(ralph: Ralph, agent_home: Path,
                                                      offline_net: OfflineNet) -> None:
    try:
        amp = install("amp")
    except InstallError as exc:
        pytest.fail(f"cannot install Amp: {exc}", pytrace=False)
    make_project(ralph)
    env = {**base_env(agent_home, [amp.bin_dir]), "AMP_API_KEY": "ralph-test-dummy"}
    proc = run_loop(ralph, env, "--agent", "amp", net=offline_net)
    assert "NOTE: the amp adapter is not tested offline" in proc.stderr, proc.stderr[-2000:]
    result = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert result["verdict"] == "agent-error", result
    assert len(result["iterations"]) == 1, result
    reason = result["iterations"][-1]["verdict"]["reason"]
    assert "Couldn't connect to the Amp server at https://ampcode.com/" in reason, reason
    assert "its own service" in reason, reason
