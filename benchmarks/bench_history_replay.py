"""Real history as real iterations: each commit applied by an agent in ``run --until tests``.

For each project (a local git repository) and each of its last N main-line commits
(first-parent order: what landed), oldest first: a fresh clone at the commit's parent (always
at the same path, so one virtualenv per project, with the project installed editable, serves
every commit), then ``ralph-verify run`` with a ``replay:`` agent whose one iteration applies
exactly that commit's diff. ``--until tests`` plus a ``cmd:`` check that passes once the
diff is applied (``git apply --check -R``), so the agent is called even when the parent's
tests pass; integrity is on, as by default; pytest runs for real, with the frozen oracle.

Each commit is replayed in two modes: the default (the session's start tests judge the
commit's product code) and with the commit's own test edits released (``--allow-test-edits``).
A commit that changes no test-side file runs once: the option then changes nothing. A refusal
is any verdict but ``complete``; each is printed with its failures, and called *explained*
when the commit removes or changes lines of an existing test-side file (a test's expectation:
the diff says so) and every failing test is in such a file. A parent whose own tests fail
is reported apart (the commit is not judged).

    python benchmarks/bench_history_replay.py itsdangerous=/path/to/repo ... [--commits 50]
    python benchmarks/bench_history_replay.py NAME=REPO --only SHA    # one commit again

Dependencies of each project's tests beyond pytest: ``--deps NAME=pkg,pkg`` (defaults in
:data:`DEPS`). The clones and virtualenvs live in the benchmarks' cache folder, outside this
repository. Run it under ``nice -n 10``: it is CPU-heavy.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_projects import WORK  # the module beside this one

HERE = WORK / "replay"
RALPH = Path(sys.executable).with_name("ralph-verify")
#: Test dependencies of the projects replayed so far, beyond pytest.
DEPS: dict[str, tuple[str, ...]] = {"itsdangerous": ("freezegun",),
                                    "pluggy": ("pytest-benchmark",),
                                    "sqlparse": (), "tomli": ()}
TEST_DIRS = {"tests", "test", "testing"}
SETTINGS = {"pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", ".coveragerc",
            "conftest.py"}
#: Everything the runs inherit: git identity, the sandbox left at its default.
ENV = {**os.environ, "GIT_AUTHOR_NAME": "replay", "GIT_AUTHOR_EMAIL": "replay@example.org",
       "GIT_COMMITTER_NAME": "replay", "GIT_COMMITTER_EMAIL": "replay@example.org",
       "PYTHONDONTWRITEBYTECODE": "1"}
ENV.pop("VIRTUAL_ENV", None)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True, env=ENV, errors="replace").stdout


def is_test_side(rel: str) -> bool:
    parts = rel.split("/")
    name = parts[-1]
    return (name in SETTINGS or name.endswith(".pth") or bool(TEST_DIRS.intersection(parts[:-1]))
            or (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))))


@dataclass
class Outcome:
    """One replay: the verdict and, for a refusal, its failures."""

    verdict: str
    failures: list[str] = field(default_factory=list)
    files: set[str] = field(default_factory=set)  # the failing tests' files
    seconds: float = 0.0


@dataclass
class Commit:
    sha: str
    subject: str
    test_side: list[str]  # test-side files the commit changes
    expectations: list[str]  # existing test-side files it removes or changes lines of
    changed_text: str = ""  # the diff of those files (a test inherited from them is named)
    parent_red: bool = False
    runs: dict[str, Outcome] = field(default_factory=dict)


def venv_for(name: str, clone: Path, deps: tuple[str, ...]) -> Path:
    """The project's virtualenv (made once): pytest, its test dependencies, the project
    installed editable from ``clone`` (always the same path)."""
    venv = HERE / name / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "pytest", *deps,
                        "-e", str(clone)], check=True, env=ENV)
    return python


def checkout(repo: Path, clone: Path, parent: str) -> None:
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(repo), str(clone)],
                   check=True, env=ENV)
    git(clone, "checkout", "-q", "-B", "replay", parent)


def replay_one(clone: Path, python: Path, agent: Path, released: bool) -> Outcome:
    """One ``ralph-verify run`` whose agent applies ``agent/001.patch``."""
    out = agent.parent / "run.json"
    out.unlink(missing_ok=True)
    applied = f"cmd:git apply --check -R {agent / '001.patch'}"
    argv = ["nice", "-n", "10", str(RALPH), "run", "--agent", f"replay:{agent}",
            "--until", f"tests,{applied}", "--max-iterations", "1", "--python", str(python),
            "--json", str(out), "-q", *(["--allow-test-edits"] if released else []),
            "apply the change"]
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=clone, capture_output=True, text=True, env=ENV,
                          errors="replace")
    seconds = time.perf_counter() - started
    if not out.exists():
        return Outcome("no-result", [proc.stdout[-2000:] + proc.stderr[-2000:]], set(), seconds)
    data = json.loads(out.read_text())
    outcome = Outcome(data["verdict"], seconds=seconds)
    if data["verdict"] != "complete":
        for check in data.get("verification", {}).get("checks", []):
            if check["status"] in ("passed", "skipped"):
                continue
            outcome.failures.append(f"{check['name']}: {check['summary']}")
            shown = check["failures"][:8] + [f for f in check["failures"][8:]
                                              if f.get("code") == "frozen-tests"]
            for failure in shown:
                where = failure.get("location") or failure.get("path") or ""
                outcome.failures.append(f"    {where}: {failure['message'][:400]}")
                if check["name"] == "tests" and "::" in where:  # the test's own file
                    outcome.files.add(where.split("::")[0])
                elif check["name"] == "tests" and failure.get("path"):
                    outcome.files.add(failure["path"])
        if not outcome.failures:
            outcome.failures.append(data.get("reason", ""))
    return outcome


def baseline_red(clone: Path) -> bool:
    """Whether the session's baseline verification failed its tests (the parent is red)."""
    path = clone / ".ralph" / "iterations" / "000" / "verification.json"
    if not path.exists():
        return False
    return any(c["name"] == "tests" and c["status"] not in ("passed", "skipped")
               for c in json.loads(path.read_text())["checks"])


def commits_of(repo: Path, count: int, only: str | None, upto: str = "HEAD"
               ) -> list[tuple[str, str]]:
    chain = git(repo, "rev-list", "--first-parent", f"-n{count + 1}", upto).split()[::-1]
    pairs = list(itertools.pairwise(chain))
    if only:
        pairs = [(git(repo, "rev-parse", f"{only}^").strip(),
                  git(repo, "rev-parse", only).strip())]
    return pairs


def describe(repo: Path, parent: str, sha: str) -> Commit:
    subject = git(repo, "log", "-1", "--format=%s", sha).strip()
    test_side, expectations = [], []
    for line in git(repo, "diff", "--numstat", "--no-renames", parent, sha).splitlines():
        _added, removed, path = line.split("\t", 2)
        if not is_test_side(path):
            continue
        test_side.append(path)
        existed = subprocess.run(["git", "-C", str(repo), "cat-file", "-e", f"{parent}:{path}"],
                                 capture_output=True, check=False).returncode == 0
        if existed and (removed == "-" or int(removed) > 0):
            expectations.append(path)
    text = git(repo, "diff", "--no-renames", "--function-context", parent, sha, "--",
               *expectations) \
        if expectations else ""
    return Commit(sha, subject, test_side, expectations, text)


def replay_project(name: str, repo: Path, count: int, deps: tuple[str, ...],
                   only: str | None, upto: str) -> list[Commit]:
    base = HERE / name
    clone, agent = base / name, base / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    pairs = commits_of(repo, count, only, upto)
    checkout(repo, clone, pairs[0][0])
    python = venv_for(name, clone, deps)
    done: list[Commit] = []
    for index, (parent, sha) in enumerate(pairs, 1):
        commit = describe(repo, parent, sha)
        # --no-renames: a rename is a deletion and a creation, which apply (and reverse)
        # whatever else the commit does to the same paths.
        # Bytes, as git wrote them: a text round trip would turn "\r\n" into "\n".
        (agent / "001.patch").write_bytes(subprocess.run(
            ["git", "-C", str(repo), "diff", "--binary", "--no-renames", parent, sha],
            capture_output=True, check=True).stdout)
        if not (agent / "001.patch").stat().st_size:  # a merge that changed nothing here
            commit.runs = {"default": Outcome("empty"), "released": Outcome("empty")}
            done.append(commit)
            continue
        modes = ("default", "released") if commit.test_side else ("default",)
        for mode in modes:
            checkout(repo, clone, parent)
            outcome = replay_one(clone, python, agent, released=mode == "released")
            commit.runs[mode] = outcome
            commit.parent_red = commit.parent_red or baseline_red(clone)
        if "released" not in commit.runs:
            commit.runs["released"] = commit.runs["default"]
        verdicts = " ".join(f"{m}={o.verdict}" for m, o in commit.runs.items())
        print(f"{name} {index}/{len(pairs)} {sha[:10]} {verdicts} "
              f"({sum(o.seconds for o in commit.runs.values()):.0f} s) {commit.subject[:60]}",
              file=sys.stderr, flush=True)
        done.append(commit)
        with (base / "results.jsonl").open("a") as log:  # a run cut short keeps what it did
            log.write(json.dumps(as_json(commit)) + "\n")
    shutil.rmtree(clone, ignore_errors=True)
    return done


def as_json(commit: Commit) -> dict[str, Any]:
    return {"sha": commit.sha, "subject": commit.subject, "parent_red": commit.parent_red,
            "test_side": commit.test_side, "expectations": commit.expectations,
            "changed_text": commit.changed_text,
            "runs": {m: {"verdict": o.verdict, "failures": o.failures, "files": sorted(o.files),
                         "seconds": round(o.seconds, 1)} for m, o in commit.runs.items()}}


def files(outcome: dict[str, Any]) -> set[str]:
    """The failing tests' files, read again from the failures kept."""
    return {line.strip().split("::")[0] for line in outcome["failures"]
            if line.startswith("    ") and "::" in line.split(": ")[0]}


def from_log(name: str, repo: Path) -> list[Commit]:
    """The commits a run (perhaps cut short) of ``name`` kept in its ``results.jsonl``, the
    diff read again from ``repo``."""
    commits: dict[str, Commit] = {}
    for line in (HERE / name / "results.jsonl").read_text().splitlines():
        data = json.loads(line)
        commit = describe(repo, f"{data['sha']}^", data["sha"])
        commit.parent_red = data["parent_red"]
        commit.runs = {m: Outcome(o["verdict"], o["failures"], files(o), o["seconds"])
                       for m, o in data["runs"].items()}
        if not git(repo, "diff", f"{data['sha']}^", data["sha"]):
            commit.runs = {"default": Outcome("empty"), "released": Outcome("empty")}
        commits[commit.sha] = commit  # a commit replayed again (--only): the last run
    return list(commits.values())


def explained(commit: Commit, outcome: Outcome) -> bool:
    """The commit removes or changes lines of existing test-side files, and every failing
    test is in one of them, or is named in their diff (a test class inherited from one)."""
    names = {line.split("::")[-1].split("[")[0].split(":")[0] for line in outcome.failures
             if line.startswith("    ") and "::" in line.split(": ")[0]}
    return bool(commit.expectations) and (outcome.files <= set(commit.expectations) or all(
        name in commit.changed_text for name in names))


def listed(paths: list[str]) -> str:
    if not paths:
        return "no existing test file"
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def report(results: dict[str, list[Commit]]) -> dict[str, Any]:
    rows, summary = [], {}
    totals = {"commits": 0, "red": 0, "default": 0, "default_explained": 0,
              "released": 0}
    for name, commits in results.items():
        judged = [c for c in commits if not c.parent_red and c.runs["default"].verdict != "empty"]
        red = {c.sha for c, child in itertools.pairwise(commits) if child.parent_red}
        row = {"commits": len(commits), "red": len(commits) - len(judged), "default": 0,
               "default_explained": 0, "released": 0}
        for commit in judged:
            for mode in ("default", "released"):
                outcome = commit.runs[mode]
                if outcome.verdict == "complete":
                    continue
                row[mode] += 1
                ok = explained(commit, outcome)
                if mode == "default" and ok:
                    row["default_explained"] += 1
                if mode == "released" and not ok and commit.sha in red:
                    ok = True  # the commit's own tests fail at the commit (its child's parent)
                text = "\n".join(outcome.failures)
                named = bool(outcome.files) and ("allow = [" in text or ": frozen: " in text)
                rows.append(f"{name} {commit.sha[:10]} [{mode}] {outcome.verdict}"
                            f" ({'explained' if ok else 'NOT explained'},"
                            f" {'names the test and its release' if named else 'names no release'}:"
                            f" changes {listed(commit.expectations)})"
                            f" {commit.subject[:70]}")
                rows.extend(f"    {line[:300].splitlines()[0]}" for line in outcome.failures
                            if not line.startswith("        : frozen: "))
        for key in totals:
            totals[key] += row[key]
        summary[name] = row
    summary["total"] = totals
    print("\n".join(rows))
    print("\n| project | commits | not judged (parent red, empty) | refused (default) "
          "| of them explained "
          "| refused (own test edits released) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, row in summary.items():
        judged = max(row["commits"] - row["red"], 1)
        print(f"| {name} | {row['commits']} | {row['red']} | {row['default']} "
              f"({100 * row['default'] / judged:.1f}%) | {row['default_explained']} "
              f"| {row['released']} ({100 * row['released'] / judged:.1f}%) |")
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("repos", nargs="+", help="NAME=PATH of a git repository")
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--only", help="one commit (with one repository)")
    parser.add_argument("--upto", default="HEAD",
                        help="the commit the replay ends at (HEAD~25: a long history in two "
                             "halves, each under its own NAME)")
    parser.add_argument("--deps", action="append", default=[], help="NAME=pkg,pkg")
    parser.add_argument("--json", type=Path, help="keep every outcome here")
    parser.add_argument("--from-log", action="store_true",
                        help="replay nothing: report what the last runs kept in results.jsonl")
    args = parser.parse_args()
    deps = dict(DEPS)
    for item in args.deps:
        key, _, value = item.partition("=")
        deps[key] = tuple(filter(None, value.split(",")))
    results: dict[str, list[Commit]] = {}
    for item in args.repos:
        name, _, path = item.rpartition("=")
        repo = Path(path)
        name = name or repo.resolve().name.removesuffix(".git")
        if args.from_log:
            results[name] = from_log(name, repo)
            continue
        if not args.only:  # --only replays one commit again: its line replaces the kept one
            (HERE / name / "results.jsonl").unlink(missing_ok=True)
        results[name] = replay_project(name, repo, args.commits,
                                       deps.get(name.split("-")[0], ()), args.only, args.upto)
    summary = report(results)
    if args.json:
        args.json.write_text(json.dumps({
            "summary": summary,
            "commits": {name: [as_json(c) for c in commits] for name, commits in results.items()}},
            indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
