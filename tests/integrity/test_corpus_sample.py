"""A sample of the integrity corpus (tests/integrity/corpus.py), each case one real ``run``
iteration: the cheats game the checks with integrity off and the frozen oracle's files
released, and never complete with both on; the honest changes complete.
``benchmarks/bench_integrity_corpus.py`` runs the whole corpus."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ralph_verify.integrity.rules.weakened import summarise
from ralph_verify.integrity.sources import orders_or_marks
from tests.integrity.corpus import CASES, play

SAMPLE = ("test deleted", "under if False", "calls every branch, asserts nothing",
          "the tests' inputs special-cased", "the test split in two",
          "a conftest hook that sorts")
BY_NAME = {case.name: case for case in CASES}


@pytest.mark.parametrize("name", SAMPLE)
def test_a_sample_of_the_corpus(tmp_path: Path, name: str) -> None:
    case = BY_NAME[name]
    on = play(case, tmp_path, integrity=True)
    if case.kind == "honest":
        assert on.verdict == "complete", on
        return
    assert on.verdict != "complete", on
    off = play(case, tmp_path, integrity=False)
    assert off.verdict == "complete", off  # the cheat really games the other checks


ORDERING = [
    "items.sort(key=lambda item: item.name)",
    "items[:] = sorted(items, key=lambda item: item.nodeid)",
    "items.reverse()",
    "for item in items:\n        item.add_marker(pytest.mark.slow)",
]
HEADERS = ["return 'shop kata'", "return ['shop', f'{config.rootpath}']"]
NOT_HEADERS = ["import os\n    os._exit(0)", "config.option.keyword = 'x'\n    return 'x'",
               "return str(config.pluginmanager.unregister(name='x'))"]
DROPPING = [
    "items[:] = [item for item in items if 'discount' not in item.name]",
    "items[:] = sorted(item for item in items if item.name != 'x')",
    "items.remove(items[0])",
    "del items[0]",
    "for item in items:\n        item.add_marker(pytest.mark.skip)",
    "for item in items:\n        item.add_marker('xfail')",
    "config.hook.pytest_deselected(items=items[:1])",
    "items.pop()",
    "import os\n    os._exit(0)",
    "for item in items:\n        item.obj = lambda: None",
]


@pytest.mark.parametrize("body", ORDERING)
def test_a_hook_that_only_orders_or_marks_is_not_weakening(body: str) -> None:
    tree = ast.parse(f"def pytest_collection_modifyitems(config, items):\n    {body}\n")
    assert orders_or_marks(tree.body[0])


@pytest.mark.parametrize("body", DROPPING)
def test_a_hook_that_drops_skips_or_rewrites_is_not_ordering(body: str) -> None:
    tree = ast.parse(f"def pytest_collection_modifyitems(config, items):\n    {body}\n")
    assert not orders_or_marks(tree.body[0])


@pytest.mark.parametrize(("body", "harmless"), [(b, True) for b in HEADERS]
                         + [(b, False) for b in NOT_HEADERS])
def test_a_report_header_that_only_returns_text_is_harmless(body: str, harmless: bool) -> None:
    tree = ast.parse(f"def pytest_report_header(config):\n    {body}\n")
    assert orders_or_marks(tree.body[0]) is harmless


def test_a_parametrized_test_counts_a_check_per_case() -> None:
    summary = summarise("import pytest\n\n\n@pytest.mark.parametrize('x', [1, 2, 3])\n"
                        "def test_x(x):\n    assert x\n")
    assert summary["test_x"].checks == 3
