"""Our plugins inside the project's pytest (the recorder, its sibling for affected tests,
coverage for xdist workers), compiled into a folder imported with ``-p``: once per interpreter
and version of the plugins, kept in the user's cache (compiling them is a Python start before
every pytest run when the project's interpreter is not ours)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ralph_verify.checks.api import VerifyContext
from ralph_verify.markers import VERSION
from ralph_verify.proc.process import ToolError
from ralph_verify.project.caches import user_cache_dir
from ralph_verify.recorder.sources import MODULES, plugin_source

XDIST_COVERAGE_PLUGIN = "ralph_verify_xdist_coverage"
#: The file name our compiled plugins' code carries: in angle brackets, which coverage
#: never measures and no traceback looks up.
COMPILED_NAME = "<ralph-verify pytest plugin>"
#: Written last into a kept folder: each ``.pyc``'s sha256, so a damaged folder is rebuilt.
DIGESTS = "digests.json"
#: Loaded with ``-p`` into the project's pytest: measures pytest-xdist workers, which
#: ``coverage run`` does not (it measures only the main process).
XDIST_COVERAGE_SOURCE = '''\
"""Written by ralph-verify: coverage for pytest-xdist workers (like pytest-cov does)."""
import os

_cov = None
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("RALPH_VERIFY_COVERAGE_FILE"):
    import coverage

    _cov = coverage.Coverage(data_file=os.environ["RALPH_VERIFY_COVERAGE_FILE"],
                             data_suffix=True)
    _cov.start()


def pytest_unconfigure(config):
    global _cov
    if _cov is not None:
        _cov.stop()
        _cov.save()
        _cov = None
'''


def plugin_dir(ctx: VerifyContext, python: str, folder: Path, *,
               env: dict[str, str]) -> Path:
    """The folder of our plugins: sourceless ``.pyc`` files whose code is named ``<...>``, so
    coverage never measures them and pytest's assertion rewriter leaves them alone. Kept in
    the user's cache (outside the project, shared by every check with this interpreter) under
    :func:`_key`; compiled into ``folder`` when it cannot be kept."""
    sources = {**{name: plugin_source(module) for name, module in MODULES.items()},
               XDIST_COVERAGE_PLUGIN: XDIST_COVERAGE_SOURCE}
    key = _key(python, sources)
    if key is not None:
        kept = user_cache_dir() / "pytest-plugins" / key
        if _intact(kept, sources):
            return kept
        with contextlib.suppress(OSError):  # an unwritable cache: compiled for this run
            kept.parent.mkdir(parents=True, exist_ok=True)
            # Built beside it, then renamed: a concurrent check sees all of it or none.
            building = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=kept.parent))
            try:
                _compile(ctx, python, folder, building, sources, env)
                _publish(building, kept, sources)
            finally:
                shutil.rmtree(building, ignore_errors=True)
            if _intact(kept, sources):
                return kept
    target = folder / "plugin"
    target.mkdir(exist_ok=True)
    _compile(ctx, python, folder, target, sources, env)
    return target


def _key(python: str, sources: dict[str, str]) -> str | None:
    """What decides the bytecode: the interpreter's binary (a virtualenv's python links to its
    base's: its real path and identity, which a new build or install changes), our version
    and the sources. None for a missing interpreter (its start then says so) and for a script
    (``#!``: a shim such as pyenv's may start another Python at each call)."""
    binary = os.path.realpath(python)
    try:
        with open(binary, "rb") as handle:
            if handle.read(2) == b"#!":
                return None
        stat = os.stat(binary)
    except OSError:
        return None
    identity = [binary, str(stat.st_dev), str(stat.st_ino), str(stat.st_size),
                str(stat.st_mtime_ns), VERSION, *(f"{n}\0{t}" for n, t in sorted(sources.items()))]
    return hashlib.sha256("\0".join(identity).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _compile(ctx: VerifyContext, python: str, folder: Path, target: Path,
             sources: dict[str, str], env: dict[str, str]) -> None:
    """Each source compiled into ``target/NAME.pyc`` by ``python``, then the digests file."""
    pairs: list[str] = []  # source, .pyc, source, .pyc...
    for name, text in sources.items():
        source = folder / f"{name}_source.py"
        source.write_text(text, encoding="utf-8")
        pairs += [str(source), str(target / f"{name}.pyc")]
    # The same binary as ours (a virtualenv's python links to its base's): compiled here.
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        import py_compile

        for i in range(0, len(pairs), 2):
            py_compile.compile(pairs[i], cfile=pairs[i + 1], dfile=COMPILED_NAME, doraise=True)
    else:
        code = ("import py_compile, sys; a = sys.argv[1:]; [py_compile.compile(a[i], "
                f"cfile=a[i + 1], dfile={COMPILED_NAME!r}, doraise=True) "
                "for i in range(0, len(a), 2)]")
        hint = (f"the project's Python {python} does not exist (set --python or the python "
                "setting)")
        run = ctx.run([python, "-c", code, *pairs], timeout=60, env=env, missing_hint=hint)
        if run.returncode != 0:
            raise ToolError(f"{python} could not compile a file (exit {run.returncode})",
                            output=run.tail())
    digests = {name: _sha256(target / f"{name}.pyc") for name in sources}
    (target / DIGESTS).write_text(json.dumps(digests), encoding="utf-8")


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _intact(kept: Path, sources: dict[str, str]) -> bool:
    """Whether ``kept`` holds every plugin's ``.pyc`` as it was compiled."""
    try:
        digests = json.loads((kept / DIGESTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(digests, dict) and all(
        (digest := digests.get(name)) is not None and digest == _sha256(kept / f"{name}.pyc")
        for name in sources)


def _publish(building: Path, kept: Path, sources: dict[str, str]) -> None:
    """Rename the complete ``building`` to ``kept``. A damaged ``kept`` is moved aside and
    removed first; one that another check has just published is kept."""
    for _ in range(3):
        try:
            os.rename(building, kept)
            return
        except OSError:
            if _intact(kept, sources):
                return
        aside = kept.with_name(f".{kept.name}.damaged.{os.getpid()}")
        with contextlib.suppress(OSError):  # else another check moved it first
            os.rename(kept, aside)
            shutil.rmtree(aside, ignore_errors=True)
