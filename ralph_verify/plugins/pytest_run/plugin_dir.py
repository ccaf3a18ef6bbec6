"""Our plugins inside the project's pytest (the recorder, its sibling for affected tests,
coverage for xdist workers), compiled into a folder imported with ``-p``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ralph_verify.checks.api import VerifyContext
from ralph_verify.proc.process import ToolError
from ralph_verify.recorder.sources import MODULES, plugin_source

XDIST_COVERAGE_PLUGIN = "ralph_verify_xdist_coverage"
#: The file name our compiled plugins' code carries: in angle brackets, which coverage
#: never measures and no traceback looks up.
COMPILED_NAME = "<ralph-verify pytest plugin>"
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
    coverage never measures them and pytest's assertion rewriter leaves them alone."""
    plugin_dir = folder / "plugin"
    plugin_dir.mkdir(exist_ok=True)
    sources = {**{name: plugin_source(module) for name, module in MODULES.items()},
               XDIST_COVERAGE_PLUGIN: XDIST_COVERAGE_SOURCE}
    pairs: list[str] = []  # source, .pyc, source, .pyc...
    for name, text in sources.items():
        source = folder / f"{name}_source.py"
        source.write_text(text, encoding="utf-8")
        pairs += [str(source), str(plugin_dir / f"{name}.pyc")]
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
    return plugin_dir

