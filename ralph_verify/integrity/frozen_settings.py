"""ruff and mypy judge with the settings the session started with: when a file a tool reads
its settings from changed, the tool runs in a judging tree where those files are as at the
start. The integrity rules still name the edit; this makes it not count."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ralph_verify.project import git
from ralph_verify.project.judging_tree import changed_since, judging_tree

#: The files each tool reads its settings from, in any folder (ruff reads sub-folder
#: configurations and the ignore files; mypy the first of its files it finds).
SETTINGS = {"ruff": frozenset({"ruff.toml", ".ruff.toml", "pyproject.toml", ".gitignore",
                               ".ignore"}),
            "mypy": frozenset({"mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"})}


def frozen_path(root: Path, tool: str, rel: str) -> bool:
    """Whether ``rel`` is served from the start when ``tool`` runs: a settings file, or (for
    mypy) a stub beside a module, which mypy reads instead of the module."""
    if rel.rsplit("/", 1)[-1] in SETTINGS[tool]:
        return True
    return tool == "mypy" and rel.endswith(".pyi") and (root / rel[:-1]).is_file()


@contextmanager
def judged_in(root: Path, tool: str, base: str | None) -> Iterator[Path]:
    """Where ``tool`` runs: ``root`` itself when nothing it reads its settings from differs
    from ``base`` (or there is no base), else a judging tree with them as at ``base``."""
    frozen = False
    if base is not None:
        try:
            frozen = any(frozen_path(root, tool, rel) for rel in changed_since(root, base))
        except (git.GitError, OSError):
            frozen = False  # no repository or no base: the tool judges the tree as it is
    if base is None or not frozen:
        yield root
        return
    with judging_tree(root, base, keep_now=lambda rel: not frozen_path(root, tool, rel)) \
            as tree:
        yield tree
