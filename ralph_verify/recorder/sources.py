"""The names and sources of the plugins ralph-verify writes into the project's pytest (apart
from :mod:`.read`: preparing a run imports no reader)."""

from __future__ import annotations

from pathlib import Path

PLUGIN_NAME = "ralph_verify_recorder"
#: Its sibling for affected-tests-first (:mod:`ralph_verify.recorder.affected_plugin`).
AFFECTED_PLUGIN_NAME = "ralph_verify_affected"
#: Names the plugin gets (:mod:`ralph_verify.recorder.plugin` has its own copy): the
#: variable naming the JUnit file read only when it did not report, and the file it writes into
#: its record folder when pytest's session finished.
JUNIT_VAR = "RALPH_VERIFY_JUNIT"
FINISHED = "finished"
#: Our modules the project's pytest imports, by the name it imports each as, and the module of
#: this package whose source each is.
MODULES = {PLUGIN_NAME: "plugin", AFFECTED_PLUGIN_NAME: "affected_plugin"}


def plugin_source(module: str = "plugin") -> str:
    """A plugin's source, to be written where the project's interpreter can import it."""
    return (Path(__file__).with_name(f"{module}.py")).read_text(encoding="utf-8")


def write_sources(folder: Path) -> None:
    """Our modules as sources in ``folder``, for a pytest started with ``folder`` on
    ``PYTHONPATH`` (a run compiles them instead: ``plugins/pytest_run/plugin_dir.py``)."""
    for name, module in MODULES.items():
        (folder / f"{name}.py").write_text(plugin_source(module), encoding="utf-8")


def record_files(folder: Path) -> list[Path]:
    """The record files the plugin's processes wrote into ``folder`` (``record-PID.jsonl``,
    one per process), in name order; none when the folder is missing."""
    return sorted(folder.glob("record-*.jsonl"))


def fresh_record_dir(path: Path) -> Path:
    """``path``, made if missing, without the records of an earlier run."""
    path.mkdir(exist_ok=True)
    for old in record_files(path):
        old.unlink()
    (path / FINISHED).unlink(missing_ok=True)
    return path
