"""A full disk stops the run with a clear error, and ``state.json`` does not stay ``running``.

The project lives on a 1 MB tmpfs mounted in a mount namespace of its own
(``unshare --mount``: nothing outside sees it, and it goes with the namespace);
the agent fills it, so the next record ralph-verify writes fails with ENOSPC.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys

from ralph_verify.testing import Ralph

FILL = """\
with open("filler", "wb") as handle:
    try:
        while True:
            handle.write(b"x" * 4096)
            handle.flush()
    except OSError:
        pass
"""


def test_a_full_disk_is_a_clear_error_and_the_session_is_not_left_running(ralph: Ralph) -> None:
    unshare = shutil.which("unshare")
    assert unshare is not None, "this test needs unshare (util-linux): apt-get install util-linux"
    (ralph.path.parent / "fill.py").write_text(FILL)
    small = ralph.path.parent / "small"
    small.mkdir()
    out = ralph.path.parent / "out"
    out.mkdir()
    python = shlex.quote(sys.executable)
    script = (
        f"mount -t tmpfs -o size=1m tmpfs {small} && cp -r {ralph.path} {small}/project && "
        f"cd {small}/project && "
        f"{python} -m ralph_verify run --agent 'cmd:{python} {ralph.path.parent}/fill.py' "
        f"--until files:done.txt --max-iterations 3 -p no:breaker task "
        f">{out}/stdout 2>{out}/stderr; echo $? >{out}/rc; "
        f"{python} -m ralph_verify status >{out}/status 2>&1; "
        f"cp .ralph/state.json {out}/state.json")
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    done = subprocess.run([unshare, *user, "--mount", "--propagation", "private", "sh", "-c",
                           script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **ralph.env})
    assert done.returncode == 0, done.stderr
    stderr = (out / "stderr").read_text()
    assert (out / "rc").read_text().strip() == "2", stderr
    assert "Traceback" not in stderr and "INTERNAL ERROR" not in stderr, stderr
    assert stderr.startswith("ERROR: the disk is full (No space left on device): could not "
                             "write "), stderr
    assert f"{small}/project/.ralph" in stderr.splitlines()[0], stderr
    assert stderr.rstrip().endswith(
        "the session stopped (state.json says the session stopped). Free some space, then "
        "'ralph-verify run --resume' goes on"), stderr
    state = json.loads((out / "state.json").read_text())
    assert state["status"] == "finished" and state["phase"] == "finished"
    assert state["error"].startswith("the disk is full")
    status = (out / "status").read_text()
    assert "stopped: the disk is full (No space left on device)" in status, status
