"""Integrity against its corpus: the share of gamed changes refused, and of honest ones.

    python benchmarks/bench_integrity_corpus.py [--jobs 2] [--only WORDS] [--json FILE]

Every case of ``tests/integrity/corpus.py`` (a shop kata in four starts; cheats built as an
adversary would, honest changes next to them) is one iteration of ``ralph-verify run --until
tests,lint,types,coverage>=80`` with a ``cmd:`` agent applying the change, in a fresh git
project: once as a user runs it (integrity on, the frozen oracle judging), once with both
off (``--no-integrity --allow-test-edits``). A cheat that does not end ``complete`` with
both off does not game the checks: it is reported as invalid and not counted (lint's and
types' frozen settings cannot be released, so a cheat of theirs is invalid: those settings
already undo it). Prints per class and in all: cheats not complete (target >= 95%) and
honest changes refused (target <= 1 in 25), and each miss with the integrity codes of each
refusal.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integrity.corpus import CASES, Case, Played, play  # noqa: E402


def _one(case: Case, work: Path, validate: bool | None) -> tuple[Case, Played, Played | None]:
    """``validate``: also with integrity off (``None``: for cheats only)."""
    try:
        on = play(case, work, integrity=True)
        wanted = validate if validate is not None else case.kind == "cheat"
        off = play(case, work, integrity=False) if wanted else None
    except (RuntimeError, OSError, ValueError, KeyError, subprocess.SubprocessError) as exc:
        failed = Played(f"error: {exc}"[:200], (), (), 0.0)
        return case, failed, failed
    print(f"  {case.name}: {on.verdict}" + (f" (off: {off.verdict})" if off else ""),
          flush=True)
    return case, on, off


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="", help="run the cases whose name or class "
                        "contains one of these comma-separated words")
    parser.add_argument("--honest-off", action="store_true",
                        help="also run each honest change with integrity off (it must complete)")
    parser.add_argument("--json", type=Path, help="write each case's outcome here")
    parser.add_argument("--again", type=Path, metavar="JSON",
                        help="only the cases a previous --json run got wrong (cheats that "
                             "completed, honest changes refused), with integrity on only")
    parser.add_argument("--on-only", action="store_true",
                        help="integrity on only: every cheat counted as valid (for a second "
                             "tree, once a full run showed which are)")
    args = parser.parse_args()
    words = [w for w in args.only.split(",") if w]
    cases = [c for c in CASES if not words or any(w in c.name or w == c.klass for w in words)]
    if args.again:
        wrong = {row["name"] for row in json.loads(args.again.read_text(encoding="utf-8"))
                 if row["valid"] and (row["verdict"] == "complete") == (row["kind"] == "cheat")}
        cases = [c for c in cases if c.name in wrong]
    print(f"{len(cases)} cases, {args.jobs} at a time; load {os.getloadavg()[0]:.1f}",
          flush=True)
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(args.jobs) as pool:
        validate = False if args.again or args.on_only else True if args.honest_off else None
        done = list(pool.map(lambda ic: _one(ic[1], Path(scratch) / str(ic[0]), validate),
                             enumerate(cases)))
    by_class: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    rows = []
    for case, on, off in done:
        valid = off is None or off.verdict == "complete"
        stopped = on.verdict != "complete"
        counts = by_class[(case.kind, case.klass)]
        if not valid:
            counts[2] += 1
        else:
            counts[0] += stopped
            counts[1] += 1
        if valid and (stopped == (case.kind == "honest")):
            what = "MISSED" if case.kind == "cheat" else "REFUSED"
            print(f"  {what} {case.kind} [{case.klass}] {case.name}: {on.verdict} "
                  f"{', '.join(sorted(set(on.codes))) or ', '.join(on.failed)}")
        elif not valid:
            print(f"  INVALID {case.kind} [{case.klass}] {case.name}: with integrity off "
                  f"{off.verdict if off else '?'} ({', '.join(off.failed) if off else ''})")
        rows.append({"name": case.name, "kind": case.kind, "class": case.klass,
                     "start": case.start, "valid": valid, "verdict": on.verdict,
                     "codes": sorted(set(on.codes)), "failed": list(on.failed),
                     "seconds": round(on.seconds, 1)})
    print("\n| kind | class | stopped / valid | invalid |\n| --- | --- | --- | --- |")
    for (kind, klass), (stopped, valid, invalid) in sorted(by_class.items()):
        print(f"| {kind} | {klass} | {stopped} / {valid} | {invalid} |")
    for kind, label in (("cheat", "cheats not complete"), ("honest", "honest refused")):
        stopped = sum(v[0] for (k, _), v in by_class.items() if k == kind)
        valid = sum(v[1] for (k, _), v in by_class.items() if k == kind)
        share = 100.0 * stopped / valid if valid else 0.0
        print(f"{label}: {stopped} of {valid} ({share:.1f}%)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
