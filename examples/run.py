"""Run a bundled example end to end: ``python examples/run.py [EXAMPLE] [--dest DIR]``.

Copies ``examples/EXAMPLE`` (default: tdd-kata) into a new folder, makes it a
git repository and runs ``ralph-verify run --agent replay:replay`` in it: the
scripted agent works through the example offline, with no API key, and the
loop verifies every step. Your checkout is never touched. Extra arguments after
``--`` go to ``ralph-verify run``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = sorted(p.name for p in HERE.iterdir() if (p / "replay").is_dir())
GIT_IDENTITY = ["-c", "user.name=ralph-verify example", "-c", "user.email=example@invalid"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("example", nargs="?", default="tdd-kata", choices=EXAMPLES)
    parser.add_argument("--dest", type=Path,
                        help="where to put the copy (default: a new temporary folder)")
    parser.add_argument("run_args", nargs="*", help="extra arguments for ralph-verify run")
    args = parser.parse_args()

    dest = args.dest or Path(tempfile.mkdtemp(prefix=f"ralph-{args.example}-"))
    if dest.exists() and any(dest.iterdir()):
        parser.error(f"--dest {dest} is not empty: choose a new folder")
    shutil.copytree(HERE / args.example, dest, dirs_exist_ok=True)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    for command in (["init", "-q", "-b", "main"], ["add", "-A"],
                    [*GIT_IDENTITY, "commit", "-q", "-m", f"example {args.example}"]):
        subprocess.run(["git", *command], cwd=dest, check=True, env=env)
    print(f"example {args.example} copied to {dest}; running the loop there\n", flush=True)
    code = subprocess.call([sys.executable, "-m", "ralph_verify", "run", "--agent",
                            "replay:replay", *args.run_args], cwd=dest, env=env)
    print(f"\nthe example's folder: {dest} (see .ralph/ and `git log` there)")
    return code


if __name__ == "__main__":
    sys.exit(main())
