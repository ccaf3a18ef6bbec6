"""Every guard corpus call's decision and rule, to compare two versions of the guard call for
call: what a change newly refuses of honest work, and newly lets through of an adversary's.

    python benchmarks/guard_decisions.py OUT.tsv [--code DIR]   # DIR: a checkout to judge with
    python benchmarks/guard_decisions.py --compare BEFORE.tsv AFTER.tsv

The corpora are read from this checkout (tests/guard_corpus*.py, the fuzz test's mutations
with its fixed seed, the guard tests' own lists), so old and new code judge the same calls.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
Rows = dict[tuple[str, str, str], tuple[str, str]]


def corpora() -> dict[str, tuple[list[Any], list[Any]]]:
    """``name: (adversary calls, honest calls)``."""
    from tests import guard_corpus as ours
    from tests import guard_corpus_adversary as adversary
    from tests import guard_corpus_honest as honest
    from tests import guard_corpus_merges as merges
    from tests import guard_corpus_pipes as pipes
    from tests import guard_corpus_round7 as round7
    from tests import guard_corpus_round8 as round8
    from tests import guard_corpus_scratch as scratch
    from tests.guard import test_guard as unit
    from tests.guard import test_guard_fuzz as fuzz

    def fuzzed(bases: list[list[str]], count: int) -> list[Any]:
        rng = random.Random(fuzz.SEED)
        return [("Bash", {"command": fuzz.mutate(rng.choice(bases), rng)})
                for _ in range(count)]

    harmless = [["rm", "-rf", "build"], ["cat", "README.md"], ["git", "status"],
                ["curl", "-o", "f.tgz", "https://example.org/f.tgz"], ["ls", "-la", "src"]]
    return {
        "ours": ([c for _, c in ours.DESTRUCTIVE], ours.ORDINARY),
        "adversary": ([c for _, c in adversary.ADVERSARY], adversary.ADVERSARY_ORDINARY),
        "honest": ([], honest.HONEST_ORDINARY),
        "round7": ([c for _, c in round7.ROUND7],
                   [*round7.ROUND7_ORDINARY, *round7.ROUND7_NEAR]),
        "round8": ([c for _, c in round8.ROUND8], round8.ROUND8_ORDINARY),
        "merges": ([c for _, c in merges.MERGES], merges.MERGES_ORDINARY),
        "scratch": ([c for _, c in scratch.SCRATCH], scratch.SCRATCH_ORDINARY),
        "pipes": ([c for _, c in pipes.PIPES], pipes.PIPES_ORDINARY),
        "fuzz": (fuzzed(fuzz.BASES, fuzz.CASES), fuzzed(harmless, 300)),
        "unit": ([(t, i) for t, i, _ in unit.REFUSED], list(unit.ALLOWED)),
    }


def dump(out: Path) -> None:
    from ralph_verify.guard.decide import evaluate
    from tests.guard_corpus import make_project

    with tempfile.TemporaryDirectory() as scratch, out.open("w") as stream:
        policy = make_project(Path(scratch))
        for name, (bad, good) in corpora().items():
            for kind, calls in (("adversary", bad), ("honest", good)):
                for index, (tool, tool_input) in enumerate(calls):
                    refusal = evaluate(tool, tool_input, policy)
                    verdict = "allow" if refusal is None else \
                        f"{refusal.decision}:{refusal.rule}"
                    call = json.dumps([tool, tool_input], sort_keys=True)
                    stream.write(f"{name}\t{kind}\t{index}\t{verdict}\t{call}\n")


def load(path: Path) -> Rows:
    rows: Rows = {}
    for line in path.read_text().splitlines():
        name, kind, index, verdict, call = line.split("\t", 4)
        rows[(name, kind, index)] = (verdict, call)
    return rows


def compare(before: Rows, after: Rows) -> None:
    for label, rows in (("before", before), ("after", after)):
        wrong, total = Counter[tuple[str, str]](), Counter[tuple[str, str]]()
        for (name, kind, _), (verdict, _) in rows.items():
            total[name, kind] += 1
            wrong[name, kind] += (verdict == "allow") == (kind == "adversary")
        print(f"{label}: " + "; ".join(
            f"{name} let through {wrong[name, 'adversary']}/{total[name, 'adversary']}, "
            f"refused {wrong[name, 'honest']}/{total[name, 'honest']}"
            for name in dict.fromkeys(n for n, _ in total)))
    for key in [*before, *(k for k in after if k not in before)]:
        old, new = before.get(key, ("-", "")), after.get(key, ("-", ""))
        if old[0] != new[0]:
            print(f"changed {key[0]} {key[1]}: {old[0]} -> {new[0]}  {new[1] or old[1]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--code", type=Path, help="a checkout whose ralph_verify to judge with")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    options = parser.parse_args()
    if options.compare:
        compare(load(options.compare[0]), load(options.compare[1]))
        return 0
    if options.out is None:
        parser.error("name the file to write, or --compare BEFORE AFTER")
    if options.code:  # its package first; the corpora still from this checkout
        sys.path.insert(0, str(options.code.resolve()))
        import ralph_verify  # noqa: F401

        sys.path.pop(0)
    sys.path.insert(0, str(ROOT))
    dump(options.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
