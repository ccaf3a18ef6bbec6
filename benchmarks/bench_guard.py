"""Decision time of the PreToolUse guard per tool call, since it runs before every call.

    python benchmarks/bench_guard.py [--rounds N]

Evaluates every call of the guard's corpora (tests/guard_corpus.py and
tests/guard_corpus_wide.py, which it was built against, tests/guard_corpus_adversary.py and
tests/guard_corpus_round7.py, written by an adversary who had not read its rules (round 7: 64.9%
refused before its fixes), and tests/guard_corpus_honest.py, ordinary calls across ecosystems
(27 of 897 refused before its fixes): destructive and ordinary calls, against
a real project with secrets and symlinks) N times in-process after one warm-up round, and
prints how many of each were refused per corpus, the median, the 95th percentile and the
slowest decision, and the cold
cost of the first call (tree-sitter's grammar loaded). Targets: the median under 1 ms of
CPU, every call under 20 ms. Also times one hook process end to end
(``python -m ralph_verify hook claude-pretool``), which is what Claude Code waits for.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET_MS = 20.0
MEDIAN_TARGET_MS = 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    start = time.perf_counter()
    from ralph_verify.guard.decide import evaluate

    import_ms = (time.perf_counter() - start) * 1000
    from tests.guard_corpus import DESTRUCTIVE, ORDINARY, make_project
    from tests.guard_corpus_adversary import (
        ADVERSARY,
        ADVERSARY_ORDINARY,
        ROUND6,
        ROUND6_ORDINARY,
    )
    from tests.guard_corpus_honest import HONEST_ORDINARY
    from tests.guard_corpus_merges import MERGES, MERGES_ORDINARY
    from tests.guard_corpus_round7 import ROUND7, ROUND7_ORDINARY
    from tests.guard_corpus_round8 import ROUND8, ROUND8_ORDINARY

    corpora = {"ours": (DESTRUCTIVE, ORDINARY), "adversary": (ADVERSARY, ADVERSARY_ORDINARY),
               "adversary round 7": (ROUND7, ROUND7_ORDINARY),
               "adversary round 8": (ROUND8, ROUND8_ORDINARY), "honest": ([], HONEST_ORDINARY),
               "merged readers' edges": (MERGES, MERGES_ORDINARY)}
    rounds = {"adversary round 6": (ROUND6, ROUND6_ORDINARY)}  # within the adversary's
    calls = [call for destructive, ordinary in corpora.values()
             for call in [*(c for _, c in destructive), *ordinary]]
    with tempfile.TemporaryDirectory() as scratch:
        policy = make_project(Path(scratch))
        start = time.perf_counter()
        evaluate("Bash", {"command": "git status"}, policy)
        first_ms = (time.perf_counter() - start) * 1000
        shares = {name: (sum(evaluate(t, i, policy) is not None for _, (t, i) in bad),
                         sum(evaluate(t, i, policy) is not None for t, i in good))
                  for name, (bad, good) in {**corpora, **rounds}.items()}  # and warm-up
        cpu: dict[int, list[float]] = {i: [] for i in range(len(calls))}
        wall: list[float] = []
        for _ in range(options.rounds):
            for index, (tool, tool_input) in enumerate(calls):
                start, start_cpu = time.perf_counter(), time.process_time()
                evaluate(tool, tool_input, policy)
                cpu[index].append((time.process_time() - start_cpu) * 1000)
                wall.append((time.perf_counter() - start) * 1000)
        process_ms = _hook_process(Path(scratch) / "project")
    # Per call, the median over the rounds of its CPU time: what the decision costs,
    # not what other processes on a loaded machine take from it.
    per_call = sorted((statistics.median(values), index) for index, values in cpu.items())
    slowest_ms, slowest = per_call[-1]
    slowest_text = str(calls[slowest][1].get("command", calls[slowest][1]))[:60]
    wall.sort()
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; "
          f"{len(calls)} calls x {options.rounds} rounds")
    for name, (destructive, stopped) in shares.items():
        bad, good = {**corpora, **rounds}[name]
        print(f"refused ({name}): {destructive} of {len(bad)} destructive or leaking calls "
              f"({100 * destructive / max(1, len(bad)):.1f}%), {stopped} of {len(good)} "
              "ordinary calls")
    print(f"import ralph_verify.guard.decide: {import_ms:.1f} ms; first call (grammar loaded): "
          f"{first_ms:.1f} ms")
    print(f"CPU per call (median over rounds): median {per_call[len(per_call) // 2][0]:.2f} "
          f"ms, p95 {per_call[int(len(per_call) * 0.95)][0]:.2f} ms, slowest "
          f"{slowest_ms:.2f} ms ({slowest_text!r})")
    print(f"wall per call: median {statistics.median(wall):.2f} ms, p95 "
          f"{wall[int(len(wall) * 0.95)]:.2f} ms, max {wall[-1]:.2f} ms (load inflates these)")
    print(f"hook process end to end (python -m ralph_verify hook claude-pretool): "
          f"{process_ms:.0f} ms")
    median_ms = per_call[len(per_call) // 2][0]
    met = slowest_ms <= TARGET_MS and median_ms < MEDIAN_TARGET_MS
    print(f"targets: median < {MEDIAN_TARGET_MS:.0f} ms, every decision <= {TARGET_MS:.0f} ms "
          f"of CPU: {'met' if met else 'NOT met'}")
    return 0 if met else 1


def _hook_process(project: Path) -> float:
    payload = json.dumps({"session_id": "b", "cwd": str(project), "tool_name": "Bash",
                          "hook_event_name": "PreToolUse",
                          "tool_input": {"command": "rm -rf build/ && pytest -q"}})
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "ralph_verify", "hook", "claude-pretool"],
                       input=payload, text=True, capture_output=True, cwd=project,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
        runs.append((time.perf_counter() - start) * 1000)
    return min(runs)


if __name__ == "__main__":
    raise SystemExit(main())
