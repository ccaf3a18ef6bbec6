"""``check --baseline REF``: integrity against a git ref instead of a session's start.

The ref's tree is exported with ``git archive`` into a temporary folder (the repository is
not touched) and pictured as a session's start. pytest does not run on the ref, so the
comparison of collected test ids is left out."""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ralph_verify.config.stash import StashKey
from ralph_verify.errors import UsageError
from ralph_verify.records.integrity import Picture

#: The picture of ``--baseline REF``'s tree, when ``check`` was given one.
REF_PICTURE_KEY = StashKey[Picture]("integrity-ref-picture")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=False,
                          stdin=subprocess.DEVNULL)


def export(root: Path, ref: str, target: Path) -> str:
    """Write ``ref``'s tree (of the repository at ``root``) into ``target``; its commit."""
    found = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if found.returncode != 0:
        inside = _git(root, "rev-parse", "--show-toplevel")
        if inside.returncode != 0:
            raise UsageError(f"--baseline {ref}: {root} is not a git repository; run 'check "
                             "--baseline' in the repository whose ref you name")
        raise UsageError(f"--baseline {ref}: no such commit in this repository; fetch it "
                         f"first (e.g. 'git fetch origin main' for origin/main, with "
                         "'fetch-depth: 0' in actions/checkout)")
    commit = found.stdout.decode().strip()
    prefix = _git(root, "rev-parse", "--show-prefix").stdout.decode().strip()
    archive = _git(root, "archive", "--format=tar", commit, *([prefix] if prefix else []))
    if archive.returncode != 0:
        raise UsageError(f"--baseline {ref}: git archive failed: "
                         f"{archive.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(target, filter="data")
        else:  # pragma: no cover  # Pythons before the filters: git's own archive
            tar.extractall(target)
    if prefix:  # run in a subfolder of the repository: the project is that folder
        inner = target / prefix
        for child in list(inner.iterdir()):
            child.rename(target / child.name)
    return commit


def take_ref_picture(root: Path, ref: str, *, protected: Sequence[str] = (),
                     keep: Sequence[str] = (), allow: Sequence[str] = ()) -> Picture:
    """The integrity picture of ``ref``'s tree, with the project's integrity options."""
    from ralph_verify.integrity.picture import take

    with tempfile.TemporaryDirectory(prefix="ralph-verify-baseline-") as folder:
        tree = Path(folder)
        commit = export(root, ref, tree)
        picture = take(tree, protected=protected, keep=keep, allow=allow)
    picture.ref = f"{ref} ({commit[:12]})"
    return picture
