"""The --until grammar, exactly as DESIGN.md writes it."""

from __future__ import annotations

import pytest

from ralph_verify.config.until import CheckSpec, SpecError, parse_spec, parse_until


def test_names_and_aliases_split_on_commas() -> None:
    specs = parse_until("tests,lint, types ,coverage>=80")
    assert [s.name for s in specs] == ["tests", "lint", "types", "coverage"]
    assert specs[3].op == ">=" and specs[3].threshold == 80 and not specs[3].percent


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("coverage>=80%", CheckSpec("coverage", op=">=", threshold=80, percent=True)),
        ("tests>120", CheckSpec("tests", op=">", threshold=120)),
        ("lint<=3", CheckSpec("lint", op="<=", threshold=3)),
        ("types<1", CheckSpec("types", op="<", threshold=1)),
        ("cov==72.5", CheckSpec("cov", op="==", threshold=72.5)),
        ("files:src/app.py", CheckSpec("files", arg="src/app.py")),
        ("!files:jest.config.js", CheckSpec("files", arg="jest.config.js", negated=True)),
        ("files:src/**/*.py>=3", CheckSpec("files", arg="src/**/*.py", op=">=", threshold=3)),
        ('cmd:"make docs"', CheckSpec("cmd", arg="make docs")),
        ('cmd:"a, b >= c"', CheckSpec("cmd", arg="a, b >= c")),
        (r'cmd:"echo \"hi\""', CheckSpec("cmd", arg='echo "hi"')),
        ("cmd:make X=1", CheckSpec("cmd", arg="make X=1")),
        ("coverage >= 80", CheckSpec("coverage", op=">=", threshold=80)),
        ("tests:new", CheckSpec("tests", arg="new")),
        ("coverage.min=80", CheckSpec("coverage", op=">=", threshold=80)),
        ("coverage.min=80%", CheckSpec("coverage", op=">=", threshold=80, percent=True)),
        ("lint.max=3", CheckSpec("lint", op="<=", threshold=3)),
        ("tests.min=120", CheckSpec("tests", op=">=", threshold=120)),
        ("files:src/*.py.min=3", CheckSpec("files", arg="src/*.py", op=">=", threshold=3)),
        ("files:src/app.py", CheckSpec("files", arg="src/app.py")),
        ('cmd:"x.min=3"', CheckSpec("cmd", arg="x.min=3")),
    ],
)
def test_spec_forms(text: str, expected: CheckSpec) -> None:
    (spec,) = parse_until(text)
    assert (spec.name, spec.arg, spec.op, spec.threshold, spec.percent, spec.negated) == (
        expected.name, expected.arg, expected.op, expected.threshold, expected.percent,
        expected.negated)
    assert spec.text == text.strip()


def test_quoted_argument_keeps_commas_and_the_next_spec_follows() -> None:
    specs = parse_until('tests>=120,files:src/app.py,!files:jest.config.js,cmd:"make docs"')
    assert [s.text for s in specs] == [
        "tests>=120", "files:src/app.py", "!files:jest.config.js", 'cmd:"make docs"']


@pytest.mark.parametrize(
    ("text", "caret", "problem"),
    [
        ("tests,,lint", 6, "empty check spec"),
        ("tests,", 6, "empty check spec"),
        ("tests,9lint", 6, "expected a check name"),
        ("coverage=>80", 8, "expected ',', .min=N, .max=N or an operator"),
        ("coverage>=", 10, "expected a number after '>='"),
        ("coverage>=8o", 11, "unexpected text after the threshold"),
        ('cmd:"make docs', 4, "unterminated quote"),
        ("files:", 6, "empty argument"),
        ("", 0, "empty check spec"),
        ("coverage.min=", 13, "expected a number after '.min='"),
        ("coverage.mn=80", 8, "expected ',', .min=N, .max=N or an operator"),
    ],
)
def test_bad_specs_point_at_the_bad_character(text: str, caret: int, problem: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_until(text)
    assert problem in info.value.problem
    assert info.value.position == caret
    lines = str(info.value).splitlines()
    assert lines[1] == f"  {text}"
    assert lines[2] == "  " + " " * caret + "^"


def test_config_list_items_are_one_spec_each() -> None:
    assert parse_spec('cmd:"a, b"').arg == "a, b"
    with pytest.raises(SpecError, match="exactly one check"):
        parse_spec("tests,lint")


@pytest.mark.parametrize(
    ("text", "value", "ok"),
    [("x>=80", 80, True), ("x>=80", 79.9, False), ("x>1", 1, False), ("x<=0", 0, True),
     ("x<3", 2, True), ("x==5", 5, True), ("x", 0, True)],
)
def test_compare(text: str, value: float, ok: bool) -> None:
    assert parse_spec(text).compare(value) is ok
