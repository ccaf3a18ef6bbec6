"""The ``ralph-verify`` command keeps the compiled methods of dataclasses between runs
(``ralph_verify.project.dataclass_code``): classes come out exactly as ``dataclasses`` builds
them, a broken cache file is only a miss, a loop's commands never use it, and a program that
imports ralph-verify as a library keeps the standard ``dataclasses``."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from types import CodeType

import pytest

from ralph_verify.testing import Ralph

#: Builds a dataclass with every feature that writes code, and prints what it does.
PROBE = r'''
import dataclasses, json, sys
from typing import ClassVar
if sys.argv[1] == "cached":
    from ralph_verify.project import dataclass_code
    dataclass_code.keep_dataclass_code([])

@dataclasses.dataclass(frozen=True, order=True)
class Point:
    x: int
    y: int = 2
    tags: list[str] = dataclasses.field(default_factory=list, compare=False)
    unit: ClassVar[str] = "m"

@dataclasses.dataclass(kw_only=True, slots=True)
class Box:
    low: Point
    high: Point
    label: str = dataclasses.field(default="box", repr=False)
    area: float = dataclasses.field(init=False, default=0.0)
    scale: dataclasses.InitVar[int] = 1

    def __post_init__(self, scale: int) -> None:
        self.area = float((self.high.x - self.low.x) * (self.high.y - self.low.y) * scale)

a, b = Point(1), Point(3, 5, ["t"])
box = Box(low=a, high=b, scale=2)
try:
    a.x = 9
    frozen = "assigned"
except dataclasses.FrozenInstanceError:
    frozen = "refused"
out = {"repr": [repr(a), repr(b), repr(box)], "eq": [a == Point(1, 2, ["other"]), a == b],
       "order": [a < b, sorted([b, a]) == [a, b]], "hash": hash(a) == hash(Point(1)),
       "frozen": frozen, "area": box.area, "slots": hasattr(box, "__dict__"),
       "fields": [f.name for f in dataclasses.fields(Box)],
       "replace": repr(dataclasses.replace(a, y=7)), "asdict": dataclasses.asdict(b),
       "init": str(__import__("inspect").signature(Box))}
if sys.argv[1] == "cached":
    out["compiled"] = dataclass_code.compiled_this_run()
print(json.dumps(out))
'''


def _probe(mode: str, cache: Path) -> dict[str, object]:
    env = {**os.environ, "RALPH_VERIFY_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", PROBE, mode], env=env, capture_output=True,
                          text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_classes_from_kept_code_are_the_classes_dataclasses_builds(tmp_path: Path) -> None:
    stock = _probe("stock", tmp_path / "cache")
    first = _probe("cached", tmp_path / "cache")
    second = _probe("cached", tmp_path / "cache")

    assert first.pop("compiled") > 0  # type: ignore[operator]
    assert second.pop("compiled") == 0, "the second process compiled what the first kept"
    assert first == stock
    assert second == stock
    assert stock["frozen"] == "refused" and stock["area"] == 12.0


def test_the_command_keeps_the_code_and_writes_only_when_something_is_new(
        ralph: Ralph) -> None:
    cache = Path(ralph.env["RALPH_VERIFY_CACHE_DIR"])

    assert ralph.run_subprocess("checks").ret == 0
    kept = list((cache / "dataclass-code").iterdir())
    assert len(kept) == 1 and kept[0].stat().st_size > 1000
    written = kept[0].stat().st_mtime_ns

    assert ralph.run_subprocess("checks").ret == 0
    assert kept[0].stat().st_mtime_ns == written, "an unchanged run rewrote the file"


@pytest.mark.parametrize("content", [b"", b"\x00garbage", b"\xe3\x00\x00\x00\x00"])
def test_a_broken_cache_file_is_a_miss_and_is_written_again(ralph: Ralph,
                                                            content: bytes) -> None:
    assert ralph.run_subprocess("checks").ret == 0
    (kept,) = (Path(ralph.env["RALPH_VERIFY_CACHE_DIR"]) / "dataclass-code").iterdir()
    kept.write_bytes(content)

    result = ralph.run_subprocess("check", "--until", "files:*.py")

    assert result.ret in (0, 1), result
    assert "Traceback" not in result.err
    rewritten = marshal.loads(kept.read_bytes())
    assert isinstance(rewritten, dict) and rewritten
    assert all(type(code) is CodeType for code in rewritten.values())


@pytest.mark.parametrize("args", [("run", "--help"), ("start", "--help"), ("fleet", "--help"),
                                  ("-p", "no:cache", "checks")])
def test_a_loops_commands_compile_their_own(ralph: Ralph, args: tuple[str, ...]) -> None:
    # As for the kept [tool.ralph-verify] table: what decides a loop (run, start, the hooks,
    # the guard) never takes code from the user cache, which an agent without the sandbox
    # could write. A word we cannot place (-p's value) compiles too: slower, never less safe.
    result = ralph.run_subprocess(*args)

    assert result.ret == 0, result
    assert not (Path(ralph.env["RALPH_VERIFY_CACHE_DIR"]) / "dataclass-code").exists()
    assert ralph.run_subprocess("--help").ret == 0  # no command decides nothing: kept
    assert (Path(ralph.env["RALPH_VERIFY_CACHE_DIR"]) / "dataclass-code").exists()


def test_a_program_importing_ralph_verify_keeps_the_standard_dataclasses() -> None:
    code = ("import dataclasses, ralph_verify.cli, ralph_verify.startup\n"
            "print('exec' in vars(dataclasses))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def test_the_commands_that_may_use_kept_code_are_those_that_may_use_a_kept_table() -> None:
    # Two lists, since the face cannot import config before the classes it builds: one rule.
    from ralph_verify.config.pyproject import KEPT_TABLE_COMMANDS
    from ralph_verify.project.dataclass_code import KEPT_CODE_COMMANDS

    assert set(KEPT_CODE_COMMANDS) == set(KEPT_TABLE_COMMANDS)
