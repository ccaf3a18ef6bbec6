"""Which Python runs the project's tests and mypy, and why; the others the project has.

The precedence (``docs/check.md``): ``--python``, an activated ``$VIRTUAL_ENV`` (unless it is
ralph-verify's own and the project has one), the project's ``.venv/`` or ``venv/``, ours."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ralph_verify.project.caches import user_cache_dir

_BIN = "Scripts" if sys.platform == "win32" else "bin"
_EXE = ".exe" if sys.platform == "win32" else ""
PROJECT_VENVS = (".venv", "venv")


@dataclass(frozen=True)
class Interpreter:
    """The chosen Python: its path and where it came from (``project .venv``, ``--python``...)."""

    path: str
    source: str

    def describe(self, root: Path) -> str:
        """``.venv/bin/python (3.11.7, project .venv)``: for headers and hints."""
        return f"{shown_path(self.path, root)} ({python_version(self.path)}, {self.source})"


def venv_python(venv: Path) -> Path:
    return venv / _BIN / f"python{_EXE}"


def choose(root: Path, configured: object = None) -> Interpreter:
    """The project's interpreter, by the precedence in the module docstring."""
    if configured:
        path = Path(str(configured))
        return Interpreter(str(path if path.is_absolute() else root / path),
                           "--python / python setting")
    project = [(root / name, f"project {name}") for name in PROJECT_VENVS
               if venv_python(root / name).exists()]
    active = os.environ.get("VIRTUAL_ENV")
    own_activated = active and project and sys.prefix != sys.base_prefix \
        and os.path.realpath(active) == os.path.realpath(sys.prefix)
    if active and venv_python(Path(active)).exists() and not own_activated:
        return Interpreter(str(venv_python(Path(active))), "activated $VIRTUAL_ENV")
    if project:
        venv, source = project[0]
        return Interpreter(str(venv_python(venv)), source)
    return Interpreter(sys.executable, "ralph-verify's own")


def alternatives(root: Path, chosen: Interpreter) -> list[Interpreter]:
    """Other interpreters the user could mean: the project's virtualenvs (any top-level folder
    with a ``pyvenv.cfg``, and tox's and nox's), the activated one, ralph-verify's own."""
    found: list[Interpreter] = []
    folders = sorted(p.parent for pattern in ("*/pyvenv.cfg", ".tox/*/pyvenv.cfg",
                                              ".nox/*/pyvenv.cfg")
                     for p in root.glob(pattern)) if root.is_dir() else []
    for folder in folders:
        if venv_python(folder).exists():
            name = folder.relative_to(root).as_posix()
            found.append(Interpreter(str(venv_python(folder)), f"project {name}"))
    active = os.environ.get("VIRTUAL_ENV")
    if active and venv_python(Path(active)).exists():
        found.append(Interpreter(str(venv_python(Path(active))), "activated $VIRTUAL_ENV"))
    found.append(Interpreter(sys.executable, "ralph-verify's own"))
    unique: list[Interpreter] = []
    for candidate in found:
        # Paths compared without following symlinks: every venv's python links to its base.
        if not any(os.path.abspath(candidate.path) == os.path.abspath(other.path)
                   for other in [chosen, *unique]):
            unique.append(candidate)
    return unique


def shown_path(path: str, root: Path) -> str:
    """``path`` relative to ``root`` when inside it (without resolving venv symlinks)."""
    try:
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return path


def python_version(path: str) -> str:
    """``3.11.7``: from ``pyvenv.cfg`` when it says, else by asking the interpreter."""
    if os.path.abspath(path) == os.path.abspath(sys.executable):
        return ".".join(str(part) for part in sys.version_info[:3])
    config = Path(path).parent.parent / "pyvenv.cfg"
    try:
        for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() in ("version", "version_info") and value.strip():
                return value.strip()
    except OSError:
        pass
    try:
        done = subprocess.run([path, "-c", "import platform; print(platform.python_version())"],
                              capture_output=True, text=True, timeout=10,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return "version unknown"
    return done.stdout.strip() or "version unknown"


def find_module_code(module: str) -> str:
    """Code that exits 0 when top-level ``module`` can be imported, 1 when not."""
    return ("import importlib.util, sys; "
            f"sys.exit(importlib.util.find_spec({module.split('.')[0]!r}) is None)")


def has_module(path: str, module: str) -> bool:
    """Whether the interpreter at ``path`` can import top-level ``module`` (found, not run)."""
    known = known_module(path, module)
    if known is not None:
        return known
    try:
        code = subprocess.run([path, "-c", find_module_code(module)], capture_output=True,
                              timeout=20, stdin=subprocess.DEVNULL).returncode
    except (OSError, subprocess.SubprocessError):
        return False
    if code in (0, 1):
        remember_module(path, module, code == 0)
    return code == 0


#: What each virtual environment's interpreter was found to have, keyed by what decides it.
PROBES_FILE = "interpreter-probes.json"
_PROBES_KEPT = 64


def environment_key(path: str) -> str | None:
    """What decides which modules the interpreter at ``path`` finds: its virtual environment's
    site-packages folders (installing a package changes their modification time), its
    ``pyvenv.cfg`` and ``PYTHONPATH``. None, never cached, outside a virtual environment or
    for one that also sees the system's packages."""
    exe = Path(os.path.abspath(path))
    venv = exe.parent.parent
    try:
        settings = (venv / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
        if not exe.is_file():
            return None
        folders = _site_packages(venv)
        stamps = [f"{folder}:{folder.stat().st_mtime_ns}" for folder in folders]
    except OSError:
        return None
    if not folders or _sees_system_packages(settings):
        return None
    text = "\0".join([str(exe), settings, os.environ.get("PYTHONPATH", ""), *stamps])
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _site_packages(venv: Path) -> list[Path]:
    return sorted({*venv.glob("lib*/python*/site-packages"), *venv.glob("Lib/site-packages")})


def _sees_system_packages(settings: str) -> bool:
    """Whether ``pyvenv.cfg`` says ``include-system-site-packages = true`` (any case)."""
    return re.search(r"^\s*include-system-site-packages\s*=\s*true", settings,
                     re.IGNORECASE | re.MULTILINE) is not None


def _read_probes() -> dict[str, dict[str, bool]]:
    try:
        data = json.loads((user_cache_dir() / PROBES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def known_module(path: str, module: str) -> bool | None:
    """What a probe of the same, unchanged environment found, if one did; else None."""
    key = environment_key(path)
    found = _read_probes().get(key, {}).get(module) if key is not None else None
    return found if isinstance(found, bool) else None


def remember_module(path: str, module: str, found: bool) -> None:
    """Keep a probe's answer for :func:`known_module` (best effort: a cache, never an error)."""
    key = environment_key(path)
    if key is None:
        return
    probes = _read_probes()
    entry = probes.pop(key, {})
    entry = entry if isinstance(entry, dict) else {}
    entry[module] = found
    probes[key] = entry  # last: the oldest entries are the first dropped
    kept = dict(list(probes.items())[-_PROBES_KEPT:])
    target = user_cache_dir() / PROBES_FILE
    with contextlib.suppress(OSError):
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(kept), encoding="utf-8")
        os.replace(temporary, target)
