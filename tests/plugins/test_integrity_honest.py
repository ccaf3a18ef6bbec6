"""Honest work against the integrity judge, spelling by spelling: a real tree is pictured,
changed, and judged by the code the check runs (``ralph_verify.integrity.judge``); the
loops themselves are in ``tests/e2e/test_honest_work.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_verify.integrity.judge import Judgement, judge
from ralph_verify.integrity.picture import take
from ralph_verify.records.integrity import Gate

SOURCE = """\
import os


def area(width, height):
    return width * height


def slow(x):
    return getattr(x, "__code__")
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _judge(tmp_path: Path, start: dict[str, str], change: dict[str, str | None],
           gate: list[str] | None = None, failing: list[list[str]] | None = None,
           allow: list[str] | None = None) -> Judgement:
    _write(tmp_path, start)
    before = take(tmp_path, protected=[], keep=["tests/**"], allow=allow or [])
    before.gate = Gate(gate or ["tests"], failing or [])
    for rel, text in change.items():
        if text is None:
            (tmp_path / rel).unlink()
        else:
            _write(tmp_path, {rel: text})
    return judge(tmp_path, before)


def _codes(judgement: Judgement) -> list[str | None]:
    return [f.code for f in judgement.failures]


@pytest.mark.parametrize("comment", ["# noqa: E501", "# type: ignore[attr-defined]",
                                     "# noqa", "# type: ignore", "# pragma: no cover"])
def test_a_suppression_outside_the_gate_hides_nothing(tmp_path: Path, comment: str) -> None:
    judgement = _judge(tmp_path, {"src/geo.py": SOURCE}, {"src/geo.py": SOURCE.replace(
        'return getattr(x, "__code__")', f'return getattr(x, "__code__")  {comment}')})
    assert judgement.failures == [] and judgement.notes == []


@pytest.mark.parametrize("comment, gate", [("# noqa: E501", "lint"), ("# noqa:E501,W291", "lint"),
                                           ("# ruff: noqa: E501", "lint"),
                                           ("# type: ignore[attr-defined]", "types")])
def test_a_narrow_suppression_in_the_gate_is_listed(tmp_path: Path, comment: str,
                                                    gate: str) -> None:
    judgement = _judge(tmp_path, {"src/geo.py": SOURCE}, {"src/geo.py": SOURCE.replace(
        'return getattr(x, "__code__")', f'return getattr(x, "__code__")  {comment}')},
        gate=["tests", gate])
    assert judgement.failures == []
    assert any("a narrow suppression" in note for note in judgement.notes), judgement.notes


@pytest.mark.parametrize("comment, gate, code", [
    ("# noqa", "lint", "new-noqa"), ("# flake8: noqa", "lint", "new-noqa"),
    ("# type: ignore", "types", "new-type-ignore"),
    ("# pyright: ignore", "types", "new-type-ignore"),
    ("# pragma: no cover", "coverage", "new-no-cover")])
def test_a_blanket_suppression_in_the_gate_fails(tmp_path: Path, comment: str, gate: str,
                                                 code: str) -> None:
    judgement = _judge(tmp_path, {"src/geo.py": SOURCE}, {"src/geo.py": SOURCE.replace(
        "return width * height", f"return width * height  {comment}")}, gate=["tests", gate])
    assert _codes(judgement) == [code]
    message = judgement.failures[0].message
    assert "src/geo.py:5 (a blanket one)" in message and f"({code};" in message


def test_bulk_narrow_suppressions_fail(tmp_path: Path) -> None:
    lines = "".join(f"x{n} = 1  # noqa: E70{n}\n" for n in range(4))
    judgement = _judge(tmp_path, {"src/geo.py": SOURCE}, {"src/geo.py": SOURCE + lines},
                       gate=["tests", "lint"])
    assert _codes(judgement) == ["new-noqa"] * 4
    assert "4 new suppressions in one iteration, more than 3" in judgement.failures[0].message


def test_silencing_a_code_the_gate_reported_at_the_start_fails(tmp_path: Path) -> None:
    judgement = _judge(tmp_path, {"src/geo.py": SOURCE}, {"src/geo.py": SOURCE.replace(
        "import os", "import os  # noqa: F401")}, gate=["tests", "lint"],
        failing=[["lint", "src/geo.py", "F401"]])
    assert _codes(judgement) == ["new-noqa"]
    assert "silences a failing check" in judgement.failures[0].message


@pytest.mark.parametrize("old, new", [
    ("# type: ignore[attr-defined]", "# type: ignore[union-attr]"),
    ("# noqa: E501", "# noqa: E501, B950"), ("# type: ignore", "# type: ignore[misc]")])
def test_a_renamed_code_is_not_a_new_suppression(tmp_path: Path, old: str, new: str) -> None:
    line = 'return getattr(x, "__code__")'
    judgement = _judge(tmp_path, {"src/geo.py": SOURCE.replace(line, f"{line}  {old}")},
                       {"src/geo.py": SOURCE.replace(line, f"{line}    {new}")},
                       gate=["tests", "lint", "types"])
    assert judgement.failures == [] and judgement.notes == []


def test_a_suppression_moved_to_another_file_is_not_new(tmp_path: Path) -> None:
    moved = SOURCE.replace("return width * height", "return width * height  # noqa")
    judgement = _judge(tmp_path, {"src/geo.py": moved}, {"src/geo.py": None,
                                                        "src/shapes.py": moved},
                       gate=["tests", "lint"])
    assert judgement.failures == []


def test_allow_lets_a_rule_pass_on_purpose(tmp_path: Path) -> None:
    judgement = _judge(tmp_path, {"src/geo.py": SOURCE}, {"src/geo.py": SOURCE.replace(
        "import os", "import os  # type: ignore")}, gate=["tests", "types"],
        allow=["new-type-ignore"])
    assert judgement.failures == []
    assert judgement.notes[0].startswith("allowed (new-type-ignore): new type: ignore")


TESTS = """\
import sys

import pytest

from geo import area


def test_area():
    assert area(2, 3) == 6


class TestArea:
    def test_square(self):
        assert area(2, 2) == 4
"""


@pytest.mark.parametrize("marker", [
    '@pytest.mark.skipif(sys.platform == "plan9", reason="x")',
    '@pytest.mark.skipif(sys.version_info < (3, 0), reason="py2")',
    '@pytest.mark.skipif(sys.version_info[:2] < (3, 0) and sys.platform != "x", reason="x")',
    '@pytest.mark.xfail(sys.implementation.name == "nope", reason="x")',
    '@pytest.mark.skipif(condition=os.name == "plan9", reason="x")'])
def test_a_skip_whose_condition_is_false_here_is_not_a_skip(tmp_path: Path,
                                                            marker: str) -> None:
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS}, {"tests/test_geo.py": TESTS
                       .replace("import sys", "import os\nimport sys")
                       .replace("def test_area", f"{marker}\ndef test_area")})
    assert judgement.failures == [] and judgement.notes == []


@pytest.mark.parametrize("marker", [
    '@pytest.mark.skipif(sys.platform != "plan9", reason="x")',
    "@pytest.mark.skip", '@pytest.mark.xfail(reason="later")',
    '@pytest.mark.skipif(not os.environ.get("NEVER_SET_HERE"), reason="opt-in")',
    '@pytest.mark.skipif(some_helper(), reason="unknown")'])
def test_a_skip_of_a_baseline_test_that_holds_here_fails(tmp_path: Path, marker: str) -> None:
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS}, {"tests/test_geo.py": TESTS
                       .replace("import sys", "import os\nimport sys")
                       .replace("def test_area", f"{marker}\ndef test_area")})
    assert _codes(judgement) in (["new-skip"], ["new-xfail"])


def test_a_skip_of_new_tests_only_is_listed(tmp_path: Path) -> None:
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS}, {"tests/test_slow.py": (
        "import os\nimport pytest\n\npytestmark = pytest.mark.skipif(not os.environ.get("
        "'SLOW'), reason='opt-in')\n\n\ndef test_big():\n    assert big() == 1\n")})
    assert judgement.failures == []
    assert judgement.notes == ["tests/test_slow.py:4: `pytest.mark.skipif` applies only to "
                               "new tests"]


def test_a_renamed_class_renames_every_test(tmp_path: Path) -> None:
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS}, {
        "tests/test_geo.py": TESTS.replace("class TestArea", "class TestSquares")})
    assert judgement.failures == []


def test_a_test_renamed_with_what_it_calls_is_a_rename(tmp_path: Path) -> None:
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS, "geo.py": SOURCE}, {
        "geo.py": SOURCE.replace("def area", "def surface"),
        "tests/test_geo.py": TESTS.replace("area", "surface")})
    assert judgement.failures == []
    assert "renamed tests/test_geo.py::test_area -> tests/test_geo.py::test_surface" \
        in judgement.notes


def test_a_removed_test_whose_code_stays_still_fails(tmp_path: Path) -> None:
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS, "geo.py": SOURCE}, {
        "tests/test_geo.py": TESTS.split("class TestArea")[0]})
    assert _codes(judgement) == ["fewer-tests", "removed-test"]
    assert "tests/test_geo.py::TestArea::test_square was removed" \
        in judgement.failures[1].message


def test_a_test_of_a_removed_deprecated_path_is_a_feature_deletion(tmp_path: Path) -> None:
    source = SOURCE + "\n\ndef old_area(w, h):\n    warnings.warn('x', DeprecationWarning)\n" \
                      "    return area(w, h)\n"
    tests = TESTS + "\n\ndef test_area_positional_deprecated():\n" \
                    "    with pytest.warns(DeprecationWarning):\n        area(1, 2)\n"
    judgement = _judge(tmp_path, {"tests/test_geo.py": tests, "geo.py": source},
                       {"tests/test_geo.py": TESTS, "geo.py": source.replace(
                           "    warnings.warn('x', DeprecationWarning)\n", "")})
    assert judgement.failures == []
    assert "(a deprecated code path gone from the project)" in judgement.notes[0]


def test_a_stricter_ruff_config_and_a_moved_setting_are_not_loosened(tmp_path: Path) -> None:
    judgement = _judge(tmp_path, {"pyproject.toml": '[tool.ruff]\nselect = ["E501", "F"]\n'
                                                    'ignore = ["E741"]\n',
                                  ".coveragerc": "[report]\nfail_under = 90\n"}, {
        "pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F", "D"]\nignore = ["E741", '
                          '"D203", "D213"]\n\n[tool.coverage.report]\nfail_under = 90\n',
        ".coveragerc": None})
    assert judgement.failures == []


def test_a_loosened_ruff_config_still_fails(tmp_path: Path) -> None:
    start = {"pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F"]\n', "x.py": "X = 1\n"}
    change: dict[str, str | None] = {"pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F", '
                                                       '"D"]\nignore = ["D203", "F401"]\n'}
    judgement = _judge(tmp_path, start, change, gate=["tests", "lint"])
    assert [f.message.split(": fix")[0] for f in judgement.failures] == [
        "pyproject.toml:2: ruff no longer enforces 1 rule(s) it enforced at the start (F401, of "
        "which 0 fire in the project)"]
    # Without lint in the gate, ruff's settings decide nothing this run checks.
    assert _judge(tmp_path / "no-lint", start, change).failures == []


@pytest.mark.parametrize("tool, setting, gate", [
    ("coverage.report", "omit = ['src/*']", "coverage"), ("mypy", "exclude = ['src']", "types"),
    ("ruff.lint", "ignore = ['F']", "lint")])
def test_a_setting_counts_only_when_its_check_decides(tmp_path: Path, tool: str, setting: str,
                                                      gate: str) -> None:
    change: dict[str, str | None] = {"pyproject.toml": f"[tool.{tool}]\n{setting}\n"}
    start = {"pyproject.toml": "", "src/x.py": "X = 1\n"}  # a file the setting takes out
    assert _judge(tmp_path / "a", start, change).failures == []
    assert _codes(_judge(tmp_path / "b", start, change,
                         gate=["tests", gate])) == ["narrowed-setting"]


def test_deselecting_a_marker_only_new_tests_carry_is_not_loosened(tmp_path: Path) -> None:
    new_tests = "import pytest\n\n\n@pytest.mark.stress\ndef test_many():\n    assert many() == 1\n"
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS, "pyproject.toml": ""}, {
        "tests/test_stress.py": new_tests,
        "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-m \'not stress\'"\n'})
    assert judgement.failures == []
    judgement = _judge(tmp_path / "old", {"tests/test_geo.py": TESTS.replace(
        "def test_area", "@pytest.mark.stress\ndef test_area"), "pyproject.toml": ""}, {
        "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-m \'not stress\'"\n'})
    assert _codes(judgement) == ["narrowed-setting"]


def test_pytest_9_strict_stands_for_the_strict_options(tmp_path: Path) -> None:
    judgement = _judge(tmp_path, {"pyproject.toml": '[tool.pytest.ini_options]\naddopts = '
                                  '["--strict-markers", "--strict-config"]\nxfail_strict = true\n'},
                       {"pyproject.toml": "[tool.pytest]\nstrict = true\n"})
    assert judgement.failures == []


@pytest.mark.parametrize("assertion, weak", [
    ("s = Area(1)\n    assert s >= s", False), ("s = Area(1)\n    assert s == s", False),
    ("assert s <= s", False), ("assert area(1, 2) == area(1, 2)", True),
    ("r = area(1, 2)\n    assert r == r", True), ("assert s is s", True)])
def test_a_self_comparison_through_an_operator(tmp_path: Path, assertion: str,
                                               weak: bool) -> None:
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS}, {
        "tests/test_geo.py": TESTS.replace("assert area(2, 3) == 6",
                                           f"assert area(2, 3) == 6\n    {assertion}")})
    assert _codes(judgement) == (["self-compare"] if weak else [])


def test_a_weak_spot_respelled_is_not_new(tmp_path: Path) -> None:
    swallow = "    try:\n        area(1, 2)\n    except {}:\n        pass\n"
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS + "\n\ndef test_close():\n"
                                  + swallow.format("socket.error")},
                       {"tests/test_geo.py": TESTS + "\n\ndef test_close():\n"
                        + swallow.format("OSError")})
    assert judgement.failures == []


@pytest.mark.parametrize("value, flagged", [("False", False), ("True", True)])
def test_a_falsy_sentinel_is_not_a_forced_bool(tmp_path: Path, value: str,
                                               flagged: bool) -> None:
    sentinel = f"\n\nclass Missing:\n    def __bool__(self):\n        return {value}\n"
    judgement = _judge(tmp_path, {"geo.py": SOURCE}, {"geo.py": SOURCE + sentinel})
    assert _codes(judgement) == (["gaming"] if flagged else [])


@pytest.mark.parametrize("conftest, flagged", [
    ("import typing\nif typing.TYPE_CHECKING:\n    from x import Y\n", False),
    ("import gc\n\n\ndef pytest_collection_finish():\n    gc.collect()\n    gc.freeze()\n",
     False),
    ("def pytest_collection():\n    return True\n", True),
    ("def pytest_configure():\n    import _pytest.runner\n    _pytest.runner.x = 1\n", True),
    ("def pytest_collection_modifyitems(items):\n    items.clear()\n", True)])
def test_a_conftest_that_cannot_reach_a_verdict_is_not_infrastructure(
        tmp_path: Path, conftest: str, flagged: bool) -> None:
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS},
                       {"tests/conftest.py": conftest})
    assert ("test-infra" in _codes(judgement)) is flagged


def test_a_conditional_collect_ignore_is_a_setting_not_infrastructure(tmp_path: Path) -> None:
    conftest = "import sys\n\ncollect_ignore = []\nif sys.version_info < (3, 0):\n" \
               "    collect_ignore.extend(['test_py2.py'])\n"
    judgement = _judge(tmp_path, {"tests/test_geo.py": TESTS, "tests/conftest.py": conftest},
                       {"tests/conftest.py": "collect_ignore = []\n"})
    assert judgement.failures == []


@pytest.mark.parametrize("docstring, flagged", [('"""make(\'TEST\') == make(\'TEST\')"""', False),
                                                ('"""Make one."""\n    x = "test"', True)])
def test_reading_the_caller_s_module_is_not_stack_sniffing(tmp_path: Path, docstring: str,
                                                           flagged: bool) -> None:
    sentinel = f"\n\nimport sys\n\n\ndef make(name):\n    {docstring}\n" \
               "    return sys._getframe(1).f_globals.get('__name__')\n"
    judgement = _judge(tmp_path, {"geo.py": SOURCE}, {"geo.py": SOURCE + sentinel})
    assert _codes(judgement) == (["gaming"] if flagged else [])
