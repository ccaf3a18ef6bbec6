"""What the start-up leaves out is only left out: the shortcuts taken on every start answer
exactly what the long way does."""

from __future__ import annotations

import difflib
import random
import string

from ralph_verify.config.pyproject import _close

TABLES = ["ruff", "mypy", "pytest", "coverage", "setuptools", "setuptools_scm", "black",
          "isort", "poetry", "hatch", "pyright", "codespell", "towncrier", "cibuildwheel",
          "ralph_verify", "ralphverify", "ralph-verfy", "ralph.verify", "Ralph-Verify",
          "ralph", "verify", "ralph-verify-x", "rlph-verify", "ralph-verifyy", "ralfverify",
          "pylint", "bandit", "commitizen", "uv", "pdm", "flit", "scikit-build", "ralph-ver",
          "alph-verify", "ralp-verif", "verify-ralph", "", "r", "ralph-verify-plugin"]


def by_difflib(name: str) -> bool:
    return bool(difflib.get_close_matches(name, ["ralph-verify"], n=1, cutoff=0.8))


def test_near_miss_filter_answers_as_difflib() -> None:
    rng = random.Random(24)
    letters = "ralph-verify" + string.ascii_lowercase
    names = [name.lower().replace("_", "-").replace(".", "-") for name in TABLES]
    for _ in range(3000):  # random names around the lengths that can be close (8 to 18)
        names.append("".join(rng.choice(letters) for _ in range(rng.randint(1, 22))))
    for _ in range(2000):  # one or two edits of the name itself
        name = list("ralph-verify")
        for _ in range(rng.randint(1, 2)):
            where = rng.randrange(len(name))
            change = rng.choice(("drop", "swap", "add"))
            if change == "drop" and len(name) > 1:
                del name[where]
            elif change == "swap":
                name[where] = rng.choice(letters)
            else:
                name.insert(where, rng.choice(letters))
        names.append("".join(name))
    mismatched = [name for name in names if _close(name) != by_difflib(name)]
    assert mismatched == []
    assert sum(map(by_difflib, names)) > 100  # both answers were really exercised
    assert sum(not by_difflib(name) for name in names) > 100
