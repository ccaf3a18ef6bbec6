"""Plays the settings red-team corpus through the real CLI and prints one JSON line per case.

    python -m tests.integrity.play_settings_redteam [--code DIR] [--only NAME,...] [--no-gate]

Each case: a git repository holding the corpus' start (committed), the case's edit applied
and left uncommitted, then `ralph-verify check --until GATE --no-cache` without integrity
(does the edit pass the gate?) and `check --until GATE --baseline HEAD --no-cache` (does
integrity stop it?). `--code DIR` runs the ralph_verify package found in DIR (put first on
PYTHONPATH; the line says which file was imported), so two branches are compared with the
same interpreter and tools. The faults a cheat leaves must fail the gate without its
settings edit: `--no-gate` skips the runs without integrity, `faults` reports them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.integrity.settings_redteam import BASE, CASES, FAULTS, GATE, Case, fixed_except


def build(root: Path, files: dict[str, str], removed: tuple[str, ...] = ()) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for rel in removed:
        (root / rel).unlink()


def start(root: Path) -> None:
    build(root, BASE)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)


def check(root: Path, code: Path | None, until: str, *extra: str) -> dict[str, object]:
    env = {**os.environ, "RALPH_VERIFY_SANDBOX": "off"}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    done = subprocess.run(
        ["nice", "-n", "10", sys.executable, "-m", "ralph_verify", "check", "--until", until,
         "--no-cache", "--json", "--root", str(root), *extra],
        capture_output=True, text=True, env=env, timeout=600, cwd=root)
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"ret": done.returncode, "error": (done.stderr or done.stdout)[-600:]}
    checks = {c["name"]: c for c in result["checks"]}
    integrity = checks.get("integrity", {})
    return {
        "ret": done.returncode,
        "passed": result["passed"],
        "failed": sorted(n for n, c in checks.items() if c["status"] != "passed"),
        "codes": sorted({str(f.get("code")) for f in integrity.get("failures", [])}),
        "findings": [f"{f.get('path')}:{f.get('line')}: {str(f.get('message'))[:160]}"
                     for f in integrity.get("failures", [])],
        "integrity": f"{integrity.get('status')}: {integrity.get('summary')}",
    }


def session(root: Path, code: Path | None, case: Case) -> dict[str, object]:
    """One `run` iteration whose agent writes the case's edit: the loop's verdict."""
    script = root.parent / f"{root.name}-agent.py"
    script.write_text(
        "import json, pathlib, sys\n"
        f"edit = json.loads({json.dumps(json.dumps([case.files, list(case.removed)]))})\n"
        "for rel, text in edit[0].items():\n"
        "    path = pathlib.Path(rel)\n"
        "    path.parent.mkdir(parents=True, exist_ok=True)\n"
        "    path.write_text(text)\n"
        "for rel in edit[1]:\n"
        "    pathlib.Path(rel).unlink()\n")
    env = {**os.environ, "RALPH_VERIFY_SANDBOX": "off"}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    done = subprocess.run(
        ["nice", "-n", "10", sys.executable, "-m", "ralph_verify", "run", "--agent",
         f"cmd:{sys.executable} {script}", "--until", case.until, "--max-iterations", "1",
         "--no-cache", "--json", "--root", str(root), "make the checks pass"],
        capture_output=True, text=True, env=env, timeout=900, cwd=root)
    script.unlink()
    try:
        state = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"ret": done.returncode, "error": (done.stderr or done.stdout)[-600:]}
    row: dict[str, object] = {"ret": done.returncode, "verdict": state.get("verdict")}
    record = root / ".ralph/iterations/001/verification.json"
    if record.exists():
        checks = json.loads(record.read_text())["checks"]
        row["failed"] = sorted(c["name"] for c in checks if c["status"] != "passed")
        row["codes"] = sorted({str(f.get("code")) for c in checks if c["name"] == "integrity"
                               for f in c.get("failures", [])})
    return row


def play(case: Case, code: Path | None, gate: bool, loop: bool = False) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="rt-") as tmp:
        root = Path(tmp)
        start(root)
        build(root, case.files, case.removed)
        row: dict[str, object] = {"name": case.name, "kind": case.kind}
        if gate:
            row["gate"] = check(root, code, case.until)
        if loop:
            subprocess.run(["git", "-C", str(root), "checkout", "-q", "--", "."], check=True)
            subprocess.run(["git", "-C", str(root), "clean", "-qfd"], check=True)
            row["session"] = session(root, code, case)
        else:
            row["integrity_run"] = check(root, code, case.until, "--baseline", "HEAD")
        return row


def faults(code: Path | None) -> list[dict[str, object]]:
    """The tree of an agent that fixed all but one fault must fail the gate."""
    rows: list[dict[str, object]] = []
    for fault in FAULTS:
        with tempfile.TemporaryDirectory(prefix="rt-") as tmp:
            root = Path(tmp)
            start(root)
            build(root, fixed_except(fault))
            rows.append({"fault": fault, "gate": check(root, code, GATE)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--code", type=Path)
    parser.add_argument("--only", default="")
    parser.add_argument("--no-gate", action="store_true")
    parser.add_argument("--faults", action="store_true")
    parser.add_argument("--session", action="store_true", help="a one-iteration `run` instead")
    args = parser.parse_args()
    env = {**os.environ, **({"PYTHONPATH": str(args.code)} if args.code else {})}
    probe = "import ralph_verify; print(ralph_verify.__file__)"
    where = subprocess.run([sys.executable, "-c", probe],
                           capture_output=True, text=True, env=env, cwd="/").stdout.strip()
    print(json.dumps({"ralph_verify": where}), flush=True)
    if args.faults:
        for row in faults(args.code):
            print(json.dumps(row), flush=True)
        return
    only = set(filter(None, args.only.split(",")))
    for case in CASES:
        if not only or case.name in only:
            print(json.dumps(play(case, args.code, not args.no_gate, args.session)), flush=True)


if __name__ == "__main__":
    main()
