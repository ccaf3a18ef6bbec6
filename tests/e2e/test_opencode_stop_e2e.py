"""OpenCode 1.18.33 has no Stop hook: a plugin cannot block or continue ``opencode run``'s stop.

OpenCode's plugins (``.opencode/plugin/*.js``) get hooks that transform a call
(``chat.params``, ``tool.execute.before`` ...) and an ``event`` handler for bus events such
as ``session.idle``. None is asked before the agent stops: the ``event`` handler is called
and not awaited (its answer is dropped), and ``opencode run`` exits once the session is
idle. The strongest try, a plugin that sends a follow-up prompt through its SDK client the
moment ``session.idle`` arrives (what a "continue" would need), is proved here to reach
nothing: the plugin loads and sees ``session.idle``, yet its prompt never gets to the model
and the run ends after the first answer. If a later OpenCode lets it through, this test
fails and hook mode can be built on it (docs/agents/opencode.md).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ralph_verify.agents.opencode import QUIET_ENV
from ralph_verify.testing.server import ModelServer, text
from tests.agents_setup import MODEL, SPECS, AgentCLI
from tests.offline_net import OfflineNet

pytestmark = pytest.mark.agents_e2e

MARK = "RALPH-FOLLOW-UP-PROMPT"
PLUGIN = """
import { appendFileSync } from "node:fs";
const log = (line) => appendFileSync(process.env.RALPH_PLUGIN_LOG, line + "\\n");
export const RalphStop = async ({ client }) => {
  let sent = false;
  log("loaded");
  return {
    event: async ({ event }) => {
      if (event.type !== "session.idle" || sent) return;
      sent = true;
      log("idle " + event.properties.sessionID);
      try {
        await client.session.prompt({ path: { id: event.properties.sessionID },
          body: { parts: [{ type: "text", text: "@MARK@" }] } });
        log("prompt answered");
      } catch (error) { log("prompt failed " + error); }
    },
  };
};
""".replace("@MARK@", MARK)


def test_a_plugin_cannot_continue_opencode_run_at_session_idle(
        tmp_path: Path, opencode_cli: AgentCLI, agent_home: Path, offline_net: OfflineNet,
        offline_server: ModelServer) -> None:
    project = tmp_path / "project"
    (project / ".opencode" / "plugin").mkdir(parents=True)
    (project / ".opencode" / "plugin" / "ralph-stop.js").write_text(PLUGIN, encoding="utf-8")
    # A project's .opencode is a config folder too: OpenCode installs @opencode-ai/plugin
    # into it from npm unless its lock file lists it (as after one run online).
    wanted = {"@opencode-ai/plugin": SPECS["opencode"].version}
    for name, data in (("package.json", {"dependencies": wanted}), ("package-lock.json", {
            "lockfileVersion": 3, "packages": {"": {"dependencies": wanted}}})):
        (project / ".opencode" / name).write_text(json.dumps(data), encoding="utf-8")
    (project / ".opencode" / "node_modules").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    log = tmp_path / "plugin.log"
    # The second step would serve the plugin's follow-up prompt.
    offline_server.script(text("The first answer."), text("Went on."))
    env = opencode_cli.env(agent_home, offline_server.url,
                           {**QUIET_ENV, "RALPH_PLUGIN_LOG": str(log)})
    proc = subprocess.run(
        [*offline_net.prefix(), str(opencode_cli.executable), "run", "--format", "json",
         "--title", "t", "--model", f"ralph/{MODEL}", "Say hello."],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL, pass_fds=(offline_net.fd,))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "loaded" and any(line.startswith("idle ") for line in lines), lines
    requests = offline_server.model_requests("chat")
    assert all(MARK not in request.text for request in requests), [r.text[-300:] for r in requests]
    assert len(requests) == 1 and offline_server.steps_left == 1, lines
    assert "The first answer." in proc.stdout and "Went on." not in proc.stdout
    assert not offline_server.errors, [r.error for r in offline_server.errors]
    assert offline_net.outbound_attempts() == 0, offline_net.counters()
