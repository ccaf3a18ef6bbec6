"""The benchmarks' real projects: each PyPI sdist unpacked once, with a virtualenv that sees
the benchmark interpreter's tools (``bench_check.py`` and ``bench_affected.py`` share them)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path

#: Outside any repository: ruff and mypy look for their configuration in parent folders,
#: so a project unpacked inside this checkout would be checked with our settings.
WORK = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ralph-verify-bench"


def fetch(requirement: str) -> Path:
    """Download and unpack the sdist of ``requirement``; return the project folder."""
    name = requirement.split("==")[0]
    WORK.mkdir(parents=True, exist_ok=True)
    version = requirement.split("==")[1] if "==" in requirement else ""
    prefixes = (f"{name}-", f"{name.replace('-', '_')}-")  # more-itertools: more_itertools-11.2.1
    existing = sorted(p for p in WORK.iterdir() if p.is_dir() and p.name.startswith(prefixes)
                      and (not version or p.name.endswith(f"-{version}")))
    if existing:
        return existing[-1]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                        ":all:", "-q", "-d", tmp, requirement], check=True)
        (archive,) = Path(tmp).glob("*.tar.gz")
        with tarfile.open(archive) as tar:
            tar.extractall(WORK, filter="data")
        folder = WORK / archive.name.removesuffix(".tar.gz")
    return folder


#: Test dependencies a project's suite needs beyond the tools (installed into its own
#: virtualenv, not the tools'): name prefix of the folder -> requirements.
EXTRAS = {"attrs-": ("hypothesis",), "packaging-": ("hypothesis", "pretend", "tomli-w"),
          "idna-": ("hypothesis",), "tabulate-": ("wcwidth",),
          "python_slugify-": ("text-unidecode",),
          # its pytest configuration adds --cov (pytest-cov brings its own pytest 9.2.0)
          "semver-": ("pytest-cov",)}


def prepare(project: Path) -> str:
    """A virtualenv for ``project`` that sees our tools; its python. A ``src/`` layout is
    found through ``PYTHONPATH=src``, set here for every command run after: relative, so
    that the copies the changed-module iteration makes import their own code."""
    venv = WORK / "envs" / project.name
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    paths = [sysconfig.get_path("purelib")]
    # Every tool runs in the project's folder (by hand and under ralph-verify): a src/
    # layout's package is then importable, the same way on both sides, before any copy of it
    # that the tools' site-packages may hold (click: a dependency of some tools).
    if "src" not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(["src", *filter(None, [
            os.environ.get("PYTHONPATH")])])
    for prefix, extras in EXTRAS.items():
        marker = site / "bench-extras.txt"
        if project.name.startswith(prefix) and not marker.exists():
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", str(site),
                            *extras], check=True)
            marker.write_text("\n".join(extras) + "\n")
    pth = site / "bench.pth"
    if not pth.exists() or pth.read_text() != "\n".join(paths) + "\n":
        pth.write_text("\n".join(paths) + "\n")
    return str(python)
