"""The map's recorder before Python 3.12: marks compiled into the project's code
(:mod:`ralph_verify.recorder.affected_marks`), in a real pytest run with ralph-verify's
plugins as the project's interpreter loads them, and the map made of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ralph_verify.recorder import affected
from ralph_verify.recorder.sources import AFFECTED_PLUGIN_NAME, PLUGIN_NAME, write_sources

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="3.12 and later record with sys.monitoring, not marks")

LIB = '''\
"""The library's docstring."""
from __future__ import annotations

import threading


def build() -> dict[str, int]:
    """Run once, when the module is imported (at collection)."""
    return {"a": 1}


TABLE = build()
KEY = lambda x: -x  # noqa: E731


def threaded(out: list[int]) -> None:
    out.append(1)


def in_thread() -> list[int]:
    out: list[int] = []
    worker = threading.Thread(target=threaded, args=(out,))
    worker.start()
    worker.join()
    return out


def callback(x: int) -> int:
    return x + 1


def steps():
    yield 1
    after_resume = 2
    yield after_resume


def guarded():
    try:
        yield 1
    finally:
        print("closed")


def evens(n: int):
    return (i for i in range(n) if i % 2 == 0)


async def later() -> int:
    return 3


def fails() -> None:
    raise ValueError("line 54")
'''

TESTS = '''\
import asyncio
import traceback

import lib

STEPS = lib.steps()
GUARDED = lib.guarded()
HELD = []


def test_thread():
    assert lib.in_thread() == [1]


def test_callback_from_c():
    assert list(map(lib.callback, [1, 2])) == [2, 3]
    assert sorted([1, 2], key=lib.KEY) == [2, 1]


def test_generator_started():
    assert next(STEPS) == 1


def test_generator_resumed():
    assert next(STEPS) == 2


def test_generator_opened():
    assert next(GUARDED) == 1


def test_generator_closed_in_a_later_test():
    GUARDED.close()


def test_generator_expression_made():
    HELD.append(lib.evens(6))


def test_generator_expression_consumed():
    assert list(HELD[0]) == [0, 2, 4]


def test_coroutine():
    assert asyncio.run(lib.later()) == 3


def test_the_code_is_the_users():
    assert lib.__doc__ == "The library's docstring."
    assert lib.build.__doc__.startswith("Run once")
    assert lib.callback.__annotations__ == {"x": "int", "return": "int"}
    assert not [name for name in dir(lib) if "ralph" in name]
    try:
        lib.fails()
    except ValueError as error:
        assert traceback.extract_tb(error.__traceback__)[-1].lineno == 54


def test_nothing():
    pass
'''

#: Checks pytest's assertion rewriting still applies to the test files it rewrites.
REWRITTEN = '''\
def test_rewritten():
    left = [1, 2]
    assert left == [1, 3]
'''


def _record(root: Path, files: dict[str, str], *, record: str = "record", plain: bool = False,
            cache: bool = False, coverage: list[str] | None = None,
            ) -> tuple[subprocess.CompletedProcess[str], Path]:
    """A real pytest run recording the map (or a ``plain`` one), with the plugins as
    ralph-verify writes them; with ``cache`` Python writes bytecode (the machine's
    ``PYTHONDONTWRITEBYTECODE`` unset)."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    plugins = root.parent / "plugins"
    plugins.mkdir(exist_ok=True)
    write_sources(plugins)
    folder = root.parent / record
    folder.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugins), str(root)]),
           "RALPH_VERIFY_RECORD_DIR": str(folder), "RALPH_VERIFY_DEPS": "1"}
    for name in ("PYTEST_ADDOPTS", *(["PYTHONDONTWRITEBYTECODE"] if cache else [])):
        env.pop(name, None)
    ours = [] if plain else ["-p", PLUGIN_NAME, "-p", AFFECTED_PLUGIN_NAME]
    run = subprocess.run([sys.executable, "-m", *(coverage or []), "pytest", *ours, "-p",
                          "no:cacheprovider", "-q", "tests"], cwd=root, env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    return run, folder


def _units(root: Path, record: Path) -> dict[str, set[str]] | None:
    session = root.parent / f"session-{record.name}"
    if not affected.save(root, session, record, set()):
        return None
    data = json.loads(affected.map_path(session).read_text(encoding="utf-8"))
    names = data["units"]
    return {test_id.split("::")[-1]: {names[n] for n in units}
            for test_id, units in data["units_of"].items()}


def test_the_map_holds_what_ran_in_threads_callbacks_resumed_generators_and_at_import(
        tmp_path: Path) -> None:
    root = tmp_path / "project"
    run, record = _record(root, {"lib.py": LIB, "tests/test_lib.py": TESTS,
                                 "tests/test_rewritten.py": REWRITTEN})
    assert "1 failed, 11 passed" in run.stdout, run.stdout + run.stderr
    assert "assert [1, 2] == [1, 3]" in run.stdout  # pytest still rewrites test files
    units = _units(root, record)
    assert units is not None
    lib = {name.removeprefix("lib.py::") for name in set().union(*units.values())
           if name.startswith("lib.py::")}
    assert "<module>" in lib and "build" in lib  # what ran at collection: every test's
    ran = {test: {u.removeprefix("lib.py::") for u in found
                  if u.startswith("lib.py::") and u not in ("lib.py::<module>",
                                                            "lib.py::build")}
           for test, found in units.items()}
    assert ran["test_thread"] == {"in_thread", "threaded"}  # threaded ran in another thread
    assert ran["test_callback_from_c"] == {"callback"}  # KEY: module level
    assert ran["test_generator_started"] == {"steps"}
    assert ran["test_generator_resumed"] == {"steps"}  # resumed after its yield
    assert ran["test_generator_closed_in_a_later_test"] == {"guarded"}  # its finally ran
    # evens() ran in one test, its generator expression's code in the next.
    assert ran["test_generator_expression_made"] == {"evens"}
    assert ran["test_generator_expression_consumed"] == {"evens"}
    assert ran["test_coroutine"] == {"later"}
    assert ran["test_nothing"] == set()
    assert "tests/test_lib.py::test_thread" in units["test_thread"]


def test_a_project_module_loaded_past_the_marks_leaves_no_map(tmp_path: Path) -> None:
    # A conftest loads helper.py by its path and puts it in sys.modules, past the import
    # system's finders: its code runs without marks, so the run cannot vouch for a map.
    root = tmp_path / "project"
    run, record = _record(root, {
        "helper.py": "def help():\n    return 1\n",
        "tests/conftest.py": """\
            import importlib.util, pathlib, sys
            path = pathlib.Path(__file__).parent.parent / "helper.py"
            spec = importlib.util.spec_from_file_location("helper", path)
            helper = sys.modules["helper"] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(helper)
            """,
        "tests/test_helper.py": "import helper\n\ndef test_help():\n    assert helper.help()\n"})
    assert "1 passed" in run.stdout, run.stdout + run.stderr
    assert _units(root, record) is None
    assert "helper.py" in (record / next(p.name for p in record.glob("deps-*"))).read_text()


def test_the_marked_bytecode_is_cached_apart_from_the_plain_one(tmp_path: Path) -> None:
    # Recorded twice (the second from the cache), then a plain run (marked bytecode would
    # fail it: the mark is only defined while recording), then recorded again.
    root = tmp_path / "project"
    files = {"lib.py": LIB, "tests/test_lib.py": TESTS}
    first, record = _record(root, files, cache=True)
    assert "11 passed" in first.stdout, first.stdout + first.stderr
    maps = [_units(root, record)]
    assert maps[0] is not None and maps[0]["test_callback_from_c"]
    cached = sorted(p.name for p in root.rglob("*.ralph-marks-3.pyc"))
    tag = sys.implementation.cache_tag
    assert cached == [f"lib.{tag}.ralph-marks-3.pyc",
                      f"test_lib.{tag}-pytest-{pytest.__version__}.ralph-marks-3.pyc"]
    second, record = _record(root, {}, record="record-2", cache=True)
    assert "11 passed" in second.stdout, second.stdout + second.stderr
    maps.append(_units(root, record))
    plain, _ = _record(root, {}, record="record-3", plain=True, cache=True)
    assert "11 passed" in plain.stdout, plain.stdout + plain.stderr
    third, record = _record(root, {}, record="record-4", cache=True)
    assert "11 passed" in third.stdout, third.stdout + third.stderr
    maps.append(_units(root, record))
    assert maps[0] == maps[1] == maps[2]


def test_a_project_imported_before_the_marks_is_recorded_by_the_call_profiler(
        tmp_path: Path) -> None:
    # The project's own plugin, named in addopts, loads before ralph-verify's and imports
    # lib: marks would come too late for lib, so the run records as before 3.12 did.
    root = tmp_path / "project"
    run, record = _record(root, {
        "pytest.ini": "[pytest]\naddopts = -p projplugin\n",
        "projplugin.py": "import lib\n",
        "lib.py": "def double(x):\n    return 2 * x\n\n\ndef half(x):\n    return x / 2\n",
        "tests/test_lib.py": "import lib\n\ndef test_double():\n    assert lib.double(2) == 4\n"})
    assert "1 passed" in run.stdout, run.stdout + run.stderr
    units = _units(root, record)
    assert units is not None
    assert "lib.py::double" in units["test_double"]
    assert "lib.py::half" not in units["test_double"]


COVERED = '''\
def evens(items):
    """Lines and branches as coverage sees them."""
    return list(
        item
        for item in items
        if item % 2 == 0
    )


def counter(limit):
    total = 0
    while total < limit:
        total += 1
        if total > 1:
            yield total
    if (yield):
        total = 0


ABS = lambda x: (  # noqa: E731
    -x if x < 0 else x)
'''


def test_coverage_sees_the_same_lines_and_branches_with_marks(tmp_path: Path) -> None:
    # The marks sit on lines that run anyway: a branch coverage run reports the same.
    reports = []
    for side in ("plain", "marked"):
        root = tmp_path / side / "project"
        data = root.parent / ".coverage"
        run, _ = _record(root, {"lib.py": COVERED, "tests/test_lib.py": """\
            import lib
            import pytest

            def test_all():
                assert lib.evens([1, 2, 4]) == [2, 4]
                steps = lib.counter(3)
                assert [next(steps), next(steps), next(steps)] == [2, 3, None]
                with pytest.raises(StopIteration):
                    steps.send(True)
                assert lib.ABS(-2) == 2
            """}, plain=side == "plain",
            coverage=["coverage", "run", "--branch", f"--data-file={data}", "--include=lib.py",
                      "-m"])
        assert "1 passed" in run.stdout, run.stdout + run.stderr
        out = root.parent / "coverage.json"
        subprocess.run([sys.executable, "-m", "coverage", "json", f"--data-file={data}",
                        "-o", str(out)], cwd=root, check=True, capture_output=True)
        summary = json.loads(out.read_text())["files"]["lib.py"]
        reports.append({key: summary[key] for key in (
            "executed_lines", "missing_lines", "executed_branches", "missing_branches")})
    assert reports[0] == reports[1]
    assert reports[0]["executed_branches"] and reports[0]["missing_branches"]
