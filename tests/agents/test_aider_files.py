"""aider's own files stay out of the project: a stand-in ``aider`` (``--agent aider:PATH``)
that writes its repo-map cache where the real one does, at the repository's root, in a real
``run`` with git checkpoints. The real CLI is run by tests/e2e/test_agents_e2e.py."""

from __future__ import annotations

import json
import shlex
import sys

from ralph_verify.testing import Ralph

#: Like aider 0.86: the tags cache at the top of the work tree; notes whether it found it warm.
FAKE_AIDER = """\
import os, pathlib, subprocess, sys
top = pathlib.Path(subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                                  text=True, check=True).stdout.strip())
cache = top / ".aider.tags.cache.v4"
with open(os.environ["SEEN"], "a") as seen:
    seen.write(f"{os.environ['RALPH_ITERATION']}: warm={(cache / 'cache.db').is_file()}\\n")
cache.mkdir(exist_ok=True)
(cache / "cache.db").write_text(f"tags {os.environ['RALPH_ITERATION']}")
if os.environ["RALPH_ITERATION"] == "2":
    pathlib.Path("done.txt").write_text("done")
print("Tokens: 870 sent, 21 received.")
"""


def test_aider_repo_map_cache_is_kept_under_ralph_not_committed_nor_counted(
        ralph: Ralph) -> None:
    script = ralph.path.parent / "aider"
    script.write_text(f"#!{sys.executable}\n{FAKE_AIDER}")
    script.chmod(0o755)
    seen = ralph.path.parent / "seen.txt"
    ralph.env["SEEN"] = str(seen)
    ralph.makefile("notes.txt", "start\n")
    ralph.git_init()
    result = ralph.run("run", "--agent", f"aider:{shlex.quote(str(script))}", "--until",
                       "files:done.txt", "--max-iterations", "3", "write done.txt")
    assert result.ret == 0, result
    assert seen.read_text() == "1: warm=False\n2: warm=True\n"  # kept warm between turns
    assert not (ralph.path / ".aider.tags.cache.v4").exists()
    kept = ralph.path / ".ralph" / "agent" / "aider.tags.cache.v4" / "cache.db"
    assert kept.read_text() == "tags 2"
    lines = [json.loads(line) for line in
             (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()]
    assert [line["files_changed"] for line in lines] == [[], ["done.txt"]]
    committed = ralph.git("log", "--name-only", "--format=").split()
    assert "done.txt" in committed and not [n for n in committed if ".aider" in n]

    # A cache a killed run left behind is not the project's either.
    (ralph.path / ".aider.tags.cache.v4").mkdir()
    (ralph.path / ".aider.tags.cache.v4" / "cache.db").write_text("left")
    assert ralph.git("status", "--porcelain", "--untracked-files=all") == ""
    assert ".gitignore" not in ralph.git("status", "--porcelain", "--ignored")

