"""The project's pytest itself: where it would make a verification slow, and where its plugins
live. Called from the recorder's hooks; standard library and pytest only."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

#: As in :mod:`ralph_verify.recorder.sources` (this module cannot import it): the variable
#: naming the JUnit file read only when the recorder did not report, and the file written into
#: the record folder when the session finished.
JUNIT_VAR = "RALPH_VERIFY_JUNIT"
FINISHED = "finished"


def skip_fallback_junit(config: pytest.Config) -> None:
    """Our JUnit file is read only when the recorder did not report, so pytest does not write
    it (a trivial test's time per test); another ``--junitxml`` is left alone."""
    wanted = os.environ.get(JUNIT_VAR)
    if wanted and getattr(config.option, "xmlpath", None) == wanted:
        config.option.xmlpath = None


def mark_finished(folder: str) -> None:
    """The session finished (the JUnit file is written then): the run's results are whole."""
    with open(os.path.join(folder, FINISHED), "w", encoding="utf-8"):
        pass


def leaves_the_project(path: Any, config: pytest.Config) -> bool | None:
    """A symbolic link out of the project (``ln -s / rootlink``) is not walked: pytest would
    collect the whole file system, for minutes, at every verification."""
    if not os.path.islink(str(path)):
        return None
    try:
        target = os.path.realpath(str(path), strict=True) if sys.version_info >= (3, 10) \
            else os.path.realpath(str(path))
    except OSError:  # broken or looping: nothing to collect there
        return True
    root = os.path.realpath(str(config.rootpath))
    inside = target == root or target.startswith(root.rstrip(os.sep) + os.sep)
    return None if inside else True


def plugin_file(plugin: object) -> str:
    """The file a plugin (a module, or an object of a module's class) comes from."""
    path = getattr(plugin, "__file__", None)
    if path is None:
        module = sys.modules.get(type(plugin).__module__)
        path = getattr(module, "__file__", None)
    return str(path or "?")
