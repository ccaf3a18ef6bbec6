"""What the ``types`` check gives mypy to check: the targets of the project's mypy config,
else its packages, else ``.`` minus virtualenvs, build output and links out of the project.

Apart from :mod:`ralph_verify.plugins.mypy`, which runs mypy and reads what it prints.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

__all__ = ["SKIP_DIRS", "config_names_targets", "default_targets", "describe_targets"]

#: Top-level folders of build output and environments that mypy does not skip by itself.
SKIP_DIRS = ("venv", "build", "dist", "_build", "buck-out", "__pypackages__")
_CONFIG_NAMES = ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg")
_TARGET_KEYS = ("files", "modules", "packages")


def config_names_targets(root: Path, args: Sequence[str] = ()) -> bool:
    """Whether the mypy config that mypy will use from ``root`` sets files/modules/packages.

    Mirrors mypy's search: ``--config-file``, else mypy.ini, .mypy.ini,
    pyproject.toml ([tool.mypy]), setup.cfg ([mypy]) in the root and its parents
    up to the repository root, else the user's config.
    """
    args = list(args)
    if "--config-file" in args[:-1]:
        return bool(_section_has_targets(root / args[args.index("--config-file") + 1]))
    folder = root.resolve()
    while True:
        for name in _CONFIG_NAMES:
            found = _section_has_targets(folder / name,
                                         required=name.startswith(("mypy", ".mypy")))
            if found is not None:
                return found
        if (folder / ".git").exists() or (folder / ".hg").exists() or folder.parent == folder:
            break
        folder = folder.parent
    home = os.environ.get("XDG_CONFIG_HOME")
    user = ([Path(home) / "mypy" / "config"] if home else []) + [
        Path("~/.config/mypy/config").expanduser(), Path("~/.mypy.ini").expanduser()]
    return any(_section_has_targets(path, required=True) for path in user)


def _section_has_targets(path: Path, required: bool = True) -> bool | None:
    """True/False if ``path`` is a mypy config (with/without targets); None if mypy skips it."""
    if not path.is_file():
        return None
    try:
        data = path.read_bytes()
    except OSError:  # mypy skips it (configparser's read() of an ini: a file without sections)
        return False if required and path.suffix != ".toml" else None
    if not required and b"mypy" not in data:
        # pyproject.toml and setup.cfg count only with a mypy section, whose name is in the
        # text: most have none, and are then not parsed (nor configparser and tomllib imported).
        return None
    if path.suffix == ".toml":
        from ralph_verify.compat import tomllib

        try:
            tool = tomllib.loads(data.decode()).get("tool", {})
        except (ValueError, RecursionError):
            return None  # mypy ignores a config it cannot read, and says so
        section = tool.get("mypy") if isinstance(tool, dict) else None
        if not isinstance(section, dict):
            return None
        return any(section.get(key) for key in _TARGET_KEYS)
    import configparser

    try:
        parser = configparser.RawConfigParser()
        parser.read_string(data.decode("utf-8"), source=str(path))
    except (ValueError, configparser.Error):
        return None  # mypy ignores a config it cannot read, and says so
    if not parser.has_section("mypy"):
        return False if required else None
    return any(parser.get("mypy", key, fallback="").strip() for key in _TARGET_KEYS)


def default_targets(root: Path) -> list[str]:
    """The project's package(s) (:func:`ralph_verify.project.layout.project_packages`), else ``.``
    minus top-level virtualenvs and build output (mypy skips dot-folders itself)."""
    from ralph_verify.project.layout import project_packages

    packages = project_packages(root)
    if packages:
        return packages
    skip = [name for name in SKIP_DIRS if (root / name).is_dir()]
    skip += sorted(entry.name for entry in root.iterdir() if entry.is_dir()
                   and entry.name not in skip and not entry.name.startswith(".")
                   and (entry / "pyvenv.cfg").is_file())
    skip += _links_out(root, skip)
    excludes = ["--exclude", f"^({'|'.join(re.escape(name) for name in skip)})/"] if skip else []
    return [*excludes, "."]


def _links_out(root: Path, skip: list[str]) -> list[str]:
    """Folders (relative, ``/``-separated) that are symbolic links out of the project, at
    any depth: mypy follows them. The walk itself follows none."""
    found = []
    for folder, dirs, _ in os.walk(root):
        base = Path(folder)
        for name in list(dirs):
            relative = (base / name).relative_to(root).as_posix()
            if name.startswith(".") or name in ("node_modules", "__pycache__") \
                    or relative in skip:
                dirs.remove(name)
            elif _leaves(base / name, root):
                found.append(relative)
    return sorted(found)


def _leaves(entry: Path, root: Path) -> bool:
    """A symbolic link out of the project (``ln -s / rootlink``): mypy would walk into it."""
    if not entry.is_symlink():
        return False
    try:
        target = entry.resolve(strict=True)
    except (OSError, RuntimeError):
        return False  # broken or looping: mypy finds nothing there
    base = root.resolve()
    return target.is_dir() and target != base and base not in target.parents


def describe_targets(targets: Sequence[str]) -> str:
    """What mypy was given, for the summary: ``src/pkg``, ``. except venv/``, ``files of the
    mypy config``."""
    if not targets:
        return "the files of the mypy config"
    names: list[str] = []
    excluded = ""
    words = iter(targets)
    for word in words:
        if word == "--exclude":
            excluded = next(words, "").strip("^()/").replace("|", "/, ").replace("\\", "")
        elif word in ("-p", "--package", "-m", "--module"):
            names.append(f"{word} {next(words, '')}")
        else:
            names.append("the whole project" if word == "." else word)
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return shown + (f" except {excluded}/" if excluded else "")
