"""A session's rules, frozen where the agent's edits in the project cannot reach them: under
``.git/ralph-verify/<session>/`` or, outside git, the user's cache; the state records each
copy's sha256, so a missing or altered copy is reported, never silently replaced."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ralph_verify.project import git
from ralph_verify.project.caches import user_cache_dir
from ralph_verify.records.codec import ShapeError, decode
from ralph_verify.records.session import FrozenRef
from ralph_verify.state_files import write_text_atomic


class FrozenError(Exception):
    """A frozen file is missing or no longer matches its recorded sha256."""


def _git_dir(root: Path) -> Path | None:
    """The repository's (common) git directory of the work tree at ``root``."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    if not dot_git.is_file():  # a linked work tree's .git names its git directory
        return None
    try:
        found = git.git(root, "rev-parse", "--git-common-dir", check=False).strip()
    except OSError:  # no git program
        return None
    return (root / found).resolve() if found else None


def session_dir(root: Path, session_id: str) -> Path:
    """Where session ``session_id`` of the project at ``root`` keeps its frozen files."""
    git_dir = _git_dir(root)
    if git_dir is not None:
        return git_dir / "ralph-verify" / session_id
    project = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return user_cache_dir() / "sessions" / project / session_id


def freeze(root: Path, session_id: str, name: str, data: Any) -> FrozenRef:
    """Write ``data`` (JSON) as ``name`` of the session; the reference to keep in its state."""
    return _write(session_dir(root, session_id) / name, data)


def refreeze(ref: FrozenRef, data: Any) -> FrozenRef:
    """A new copy beside ``ref``'s (``start --resume``: the thawed copy with new budgets,
    never anything read from the project); ``ref`` stays valid until the state names the
    new reference."""
    path = Path(ref.path)
    return _write(path.with_name(f"{path.stem}-{os.urandom(3).hex()}{path.suffix}"), data)


def _write(path: Path, data: Any) -> FrozenRef:
    text = json.dumps(data, indent=1, sort_keys=True, default=str) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text)
    return FrozenRef(str(path), hashlib.sha256(text.encode()).hexdigest())


def thaw(ref: object) -> Any:
    """The data a :func:`freeze` reference names (the reference, or its JSON form as a
    plugin's saved state holds it); :class:`FrozenError` if gone or altered."""
    try:
        ref = ref if isinstance(ref, FrozenRef) else decode(FrozenRef, ref)
    except ShapeError:
        ref = None
    if ref is None or not ref.path or not ref.sha256:
        raise FrozenError("the session state has no valid reference to its frozen copy "
                          "(.ralph/state.json was edited?)")
    path = Path(ref.path)
    try:
        raw = path.read_bytes()
    except OSError:
        raise FrozenError(f"the session's frozen copy {path} is missing (deleted during the "
                          "session)") from None
    if hashlib.sha256(raw).hexdigest() != ref.sha256:
        raise FrozenError(f"the session's frozen copy {path} was altered during the session "
                          "(its sha256 no longer matches the one recorded at the start)")
    try:
        return json.loads(raw)
    except ValueError:
        raise FrozenError(f"the session's frozen copy {path} is not JSON") from None
