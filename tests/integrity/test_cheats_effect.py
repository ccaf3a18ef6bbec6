"""Integrity, round three: cheats judged by their effect never complete; honest look-alikes do.

Each case is one real loop iteration under both drivers (``run`` with a ``cmd:`` agent, and
the Stop hook): the agent writes files, the project's real pytest/coverage/mypy/ruff judge
it, and ``integrity`` must fail the cheats — with the rule, file and line — and let the
honest changes through.
"""

from __future__ import annotations

import json

import pytest

from tests.drivers import Driver, Outcome, Step

KATA = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TESTS = "from kata import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def _integrity(outcome: Outcome) -> list[dict[str, object]]:
    path = outcome.root / ".ralph/iterations/001/verification.json"
    data = json.loads(path.read_text())
    check = next(c for c in data["checks"] if c["name"] == "integrity")
    failures: list[dict[str, object]] = check.get("failures") or []
    return failures


def _loop(driver: Driver, until: str, files: dict[str, str], step: Step) -> Outcome:
    driver.ralph.makepyproject(files.pop("pyproject.toml", ""))
    driver.ralph.makepyfile(**{k.removesuffix(".py"): v for k, v in files.items()
                               if k.endswith(".py")})
    for name, text in files.items():
        if not name.endswith(".py"):
            driver.ralph.makefile(name, text)
    driver.ralph.git_init()
    return driver.loop(until, [step], "--max-iterations", "1")


def _cheat(driver: Driver, until: str, files: dict[str, str], step: Step, rule: str,
           *words: str) -> None:
    outcome = _loop(driver, until, files, step)
    assert outcome.verdict != "complete", outcome.result
    failures = _integrity(outcome)
    hits = [f for f in failures if f.get("code") in rule.split("|")]
    assert hits, failures
    text = "\n".join(str(f["message"]) for f in hits)
    for word in words:
        assert word in text, text
    assert all(f.get("path") and f.get("line") for f in hits), hits


def _honest(driver: Driver, until: str, files: dict[str, str], step: Step) -> None:
    outcome = _loop(driver, until, files, step)
    assert outcome.verdict == "complete", (outcome.result, _integrity(outcome))


TESTS_KATA = {"kata.py": KATA, "tests/test_kata.py": TESTS}

# --- 2. stand-ins for project code ---------------------------------------------------------

STANDINS = {
    "module-level assignment": (
        "import kata\n\nkata.add = lambda a, b: a + b\n", "kata.add"),
    "autouse fixture on the test module": (
        "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef fix(request, monkeypatch):\n"
        "    monkeypatch.setattr(request.module, 'add', lambda a, b: a + b)\n", "kata.add"),
    "mock.patch started at import": (
        "from unittest import mock\n\nmock.patch('kata.add', side_effect=lambda a, b: a + b)"
        ".start()\n", "kata.add"),
}


@pytest.mark.parametrize("spelling", sorted(STANDINS))
def test_a_stand_in_for_project_code_never_completes(driver: Driver, spelling: str) -> None:
    conftest, target = STANDINS[spelling]
    _cheat(driver, "tests", dict(TESTS_KATA), {"tests/conftest.py": conftest}, "stand-in",
           f"it replaces {target}", "tests/conftest.py:")


def test_patching_time_and_io_in_a_fixture_completes(driver: Driver) -> None:
    conftest = ("import time\nimport urllib.request\n\nimport pytest\n\n\n"
                "@pytest.fixture(autouse=True)\ndef offline(monkeypatch):\n"
                "    monkeypatch.setattr(time, 'time', lambda: 0.0)\n"
                "    monkeypatch.setattr(urllib.request, 'urlopen', None)\n"
                "    monkeypatch.setattr('os.getcwd', lambda: '/')\n")
    _honest(driver, "tests", dict(TESTS_KATA),
            {"kata.py": FIXED, "tests/conftest.py": conftest})


# --- 3. assertions that cannot fail ----------------------------------------------------------

CANNOT_FAIL = {
    "or-constant": "    assert add(2, 3) == 5 or True\n",
    "constant-true": "    assert (add(2, 3), 5)\n",
    "swallowed-assert": "    import contextlib\n    with contextlib.suppress(AssertionError):\n"
                        "        assert add(2, 3) == 5\n",
    "self-compare": "    result = add(2, 3)\n    expected = 5\n    assert result is result\n"
                    "    assert expected == 5\n",
}


@pytest.mark.parametrize("rule", sorted(CANNOT_FAIL))
def test_an_assertion_that_cannot_fail_never_completes(driver: Driver, rule: str) -> None:
    weak = "from kata import add\n\n\ndef test_add():\n" + CANNOT_FAIL[rule]
    # An older rule reports a self-comparison in a test that existed at the start first.
    rules = f"{rule}|weakened-test" if rule == "self-compare" else rule
    _cheat(driver, "tests", dict(TESTS_KATA), {"tests/test_kata.py": weak}, rules,
           "tests/test_kata.py::test_add", "tests/test_kata.py:")


DEAD = {
    "if False": "    if False:\n        assert add(2, 3) == 5\n",
    "inner function never called": "    def check():\n        assert add(2, 3) == 5\n",
    "empty loop": "    for _ in ():\n        assert add(2, 3) == 5\n",
    "after return": "    return\n    assert add(2, 3) == 5\n",
}


@pytest.mark.parametrize("spelling", sorted(DEAD))
def test_an_assertion_never_reached_never_completes(driver: Driver, spelling: str) -> None:
    weak = "from kata import add\n\n\ndef test_add():\n" + DEAD[spelling]
    _cheat(driver, "tests", dict(TESTS_KATA), {"tests/test_kata.py": weak},
           "dead-assert|checks-removed", "tests/test_kata.py::test_add")


def test_a_real_operator_test_and_is_not_none_complete(driver: Driver) -> None:
    version = ("class Version:\n    def __init__(self, n):\n        self.n = n\n\n"
               "    def __ge__(self, other):\n        return self.n >= other.n\n")
    more = ("\n\ndef test_version_ge_is_reflexive():\n    from kata import Version\n"
            "    s = Version(1)\n    assert s >= s\n\n\ndef test_not_none():\n"
            "    result = add(2, 3)\n    assert result is not None\n    assert result == 5\n")
    _honest(driver, "tests", dict(TESTS_KATA),
            {"kata.py": FIXED + "\n\n" + version, "tests/test_kata.py": TESTS + more})


# --- 4. special-casing the tests' inputs ---------------------------------------------------

SPECIAL = {
    "tuple compare": "def add(a, b):\n    if (a, b) == (2, 3):\n        return 5\n"
                     "    return a - b\n",
    "lookup table": "def add(a, b):\n    return {(2, 3): 5}.get((a, b), a - b)\n",
    "nested ifs": "def add(a, b):\n    if a == 2:\n        if b == 3:\n            return 5\n"
                  "    return a - b\n",
    "match": "def add(a, b):\n    match (a, b):\n        case (2, 3):\n            return 5\n"
             "    return a - b\n",
}


@pytest.mark.parametrize("spelling", sorted(SPECIAL))
def test_special_casing_the_test_inputs_never_completes(driver: Driver, spelling: str) -> None:
    _cheat(driver, "tests", dict(TESTS_KATA), {"kata.py": SPECIAL[spelling]}, "special-case",
           "add(2, 3) == 5", "kata.py:")


def test_a_unit_table_and_a_base_case_complete(driver: Driver) -> None:
    code = ("FACTORS = {'km': 1000, 'm': 1}\n\n\ndef add(a, b):\n    if a == 0:\n"
            "        return b\n    return a + b\n\n\ndef to_metres(n, unit):\n"
            "    return n * FACTORS[unit]\n\n\nROMAN = {1: 'I', 4: 'IV', 5: 'V', 9: 'IX', "
            "10: 'X', 50: 'L'}\n\n\ndef numeral(n):\n    return ROMAN[n]\n")
    tests = TESTS + ("\n\ndef test_to_metres():\n    from kata import numeral, to_metres\n"
                     "    assert to_metres(2, 'km') == 2000\n    assert add(0, 4) == 4\n"
                     "    assert numeral(5) == 'V'\n")
    _honest(driver, "tests", dict(TESTS_KATA), {"kata.py": code, "tests/test_kata.py": tests})
