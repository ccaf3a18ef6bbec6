"""``fleet cancel`` signals only a proven ``ralph-verify fleet`` process, and stops a real one
cleanly. These run inside a fresh PID namespace (``unshare --fork --pid --mount-proc``): a
forged ``fleet.pid`` of -1 or 0 must never reach a real process of this machine."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ralph_verify.testing import Ralph
from tests.fleet.kata import agent, make_monorepo

_SCRIPT = """\
import json, os, pathlib, socket, subprocess, sys, time
root, marks, fix, prompt = sys.argv[1:5]
out = pathlib.Path(root, "fleet")
out.mkdir()
cli = [sys.executable, "-m", "ralph_verify", "fleet"]
results = {}
sleeper = subprocess.Popen(["sleep", "60"])
for case, pid in (("-1", -1), ("0", 0), ("1", 1), ("sleep", sleeper.pid)):
    (out / "fleet.pid").write_text(json.dumps({"pid": pid, "host": socket.gethostname()}))
    proc = subprocess.run([*cli, "cancel", "--wait", "1"], cwd=root, capture_output=True,
                          text=True)
    results[case] = {"ret": proc.returncode, "err": proc.stderr,
                     "sleep_alive": sleeper.poll() is None}
sleeper.kill()
sleeper.wait()
(out / "fleet.pid").unlink()
env = {**os.environ, "FLEET_AGENT_MARKS": marks, "FLEET_AGENT_SLEEP": "600"}
fleet = subprocess.Popen([*cli, "--matrix", "packages/*", "--agent", fix, "--until", "tests",
                          "-p", prompt, "-j", "1", "--id", "x1"], cwd=root, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
deadline = time.monotonic() + 120
while not list(pathlib.Path(marks).glob("started-*")) and time.monotonic() < deadline:
    time.sleep(0.2)
cancel = subprocess.run([*cli, "cancel"], cwd=root, capture_output=True, text=True)
out_text, _ = fleet.communicate(timeout=120)
results["real"] = {"cancel_ret": cancel.returncode, "cancel_out": cancel.stdout,
                   "fleet_ret": fleet.returncode, "fleet_out": out_text}
print(json.dumps(results))
"""


def test_fleet_cancel_signals_only_a_fleet_and_stops_it_cleanly(ralph: Ralph,
                                                                tmp_path: Path) -> None:
    make_monorepo(ralph.path, ["a", "b"])
    marks = tmp_path / "marks"
    marks.mkdir()
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    script = tmp_path / "cancel.py"
    script.write_text(_SCRIPT)
    unshare = shutil.which("unshare")
    assert unshare is not None, "this test needs unshare (util-linux): apt-get install util-linux"
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    done = subprocess.run([unshare, *user, "--fork", "--pid", "--mount-proc", sys.executable,
                           str(script), str(ralph.path), str(marks), agent(tmp_path),
                           str(prompt)], cwd=ralph.path, capture_output=True, text=True,
                          timeout=400, start_new_session=True,
                          env={**os.environ, **ralph.env})
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    for case in ("-1", "0", "1", "sleep"):
        seen = results[case]
        assert seen["sleep_alive"], (case, seen)
        assert seen["ret"] == 2 and seen["err"].startswith(
            "ERROR: no fleet is running from"), (case, seen)
    real = results["real"]
    assert real["cancel_ret"] == 0, real
    assert real["fleet_ret"] == 130, real
    loops = {loop["name"]: loop for loop in
             json.loads((ralph.path / "fleet" / "fleet.json").read_text())["loops"]}
    assert loops["packages-a"]["verdict"] == "cancelled"
    assert loops["packages-b"]["verdict"] == "not-run"
    assert not (ralph.path / "fleet" / "fleet.pid").exists()
