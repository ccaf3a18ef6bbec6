"""The content digests the bytecode prefix and mypy's cache keep between runs: an unchanged,
settled file is not read again; any rewrite is, even one that restores its size and mtime."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from ralph_verify.project.caches import SETTLED_NS, vouched_digest


def sha1(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def test_a_settled_unchanged_file_keeps_its_digest_without_being_read(tmp_path: Path) -> None:
    path = tmp_path / "calc.py"
    path.write_text("a - b\n")
    first = vouched_digest(path, path.stat(), None, 0)
    assert first[-1] == sha1("a - b\n")
    # A digest the file does not have: only kept because nothing says the file changed.
    kept = [*first[:4], "kept"]
    later = time.time_ns() + SETTLED_NS + 1
    assert vouched_digest(path, path.stat(), kept, later) == kept


def test_a_same_size_rewrite_with_its_mtime_restored_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "calc.py"
    path.write_text("a - b\n")
    before = path.stat()
    first = vouched_digest(path, before, None, 0)
    time.sleep(0.01)
    path.write_text("a + b\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    now = path.stat()
    assert (now.st_size, now.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    again = vouched_digest(path, now, first, time.time_ns() + SETTLED_NS + 1)
    assert again[-1] == sha1("a + b\n")


def test_a_file_changed_just_before_the_digests_were_taken_is_read_again(tmp_path: Path) -> None:
    """File times tick coarsely: a digest taken within the tick of a write vouches for
    nothing (a second write in the same tick could keep every stat field)."""
    path = tmp_path / "calc.py"
    path.write_text("a - b\n")
    stat = path.stat()
    kept = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, "kept"]
    assert vouched_digest(path, stat, kept, stat.st_ctime_ns + 1)[-1] == sha1("a - b\n")
