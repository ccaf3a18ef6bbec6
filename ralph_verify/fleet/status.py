"""``fleet status [--watch]`` and ``fleet cancel`` from another terminal, through the files a
fleet keeps in its ``--out`` folder; ``cancel`` signals only a proven ``ralph-verify fleet``
of this folder, which then stops every loop cleanly."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from dataclasses import replace
from pathlib import Path

from ralph_verify.errors import UsageError
from ralph_verify.fleet.job import loop_state
from ralph_verify.fleet.outputs import FLEET_JSON
from ralph_verify.fleet.run import PID_FILE
from ralph_verify.proc import info as procinfo
from ralph_verify.records.files import load
from ralph_verify.records.fleet import FleetDocument, FleetProcess, LoopRecord, Totals, read_fleet
from ralph_verify.records.plugin_state import BudgetState


def _live(loop: LoopRecord) -> LoopRecord:
    """A running loop's record with its current iteration and cost, where they can be read."""
    if loop.status != "running":
        return loop
    if not loop.state:  # on a remote worker: the cost it last reported
        return replace(loop, cost_usd=loop.live_cost_usd or 0.0)
    state = loop_state(Path(loop.state))
    if state is None:
        return loop
    return replace(loop, iterations=state.iteration,
                   cost_usd=BudgetState.of(state.plugin_state).cost_usd, phase=state.phase)


def lines(document: FleetDocument) -> list[str]:
    loops = [_live(loop) for loop in document.loops]
    width = max([len(loop.name) for loop in loops] + [4])
    running = sum(1 for loop in loops if loop.status == "running")
    others = Totals.of([loop for loop in loops if loop.status != "running"])
    head = (f"fleet {document.fleet} · {len(loops)} loops · {running} running · "
            + ", ".join(f"{n} {v}" for v, n in others.verdicts.items()))
    rows = [head]
    for loop in loops:
        state = loop.verdict or loop.status or "pending"
        if loop.status == "running" and loop.phase:
            state = f"running ({loop.phase})"
        task = loop.task_status  # a fleet with depends-on: after the merge queue
        if task is not None and loop.status != "running" and task != state:
            state = f"{state} -> {task}"
        rows.append(f"{loop.name:<{width}}  {state:<24} it {loop.iterations:>3}  "
                    f"${loop.cost_usd:>7.2f}  {loop.branch}")
    return rows


def fleet_running(out: Path) -> FleetProcess | None:
    """The pid file of the fleet running in ``out``, if that process is alive here."""
    try:
        info = load(FleetProcess, out / PID_FILE)
    except UsageError:
        return None
    if info is None or info.host != socket.gethostname() or info.pid <= 1 \
            or not _is_fleet_process(info.pid):
        return None
    return info


def _is_fleet_process(pid: int) -> bool:
    """Only a live ``ralph-verify ... fleet`` process counts: fleet.pid is data anyone can
    write, and a wrong pid must never be signalled."""
    words = procinfo.cmdline(pid) or []
    return "fleet" in words and any("ralph" in word for word in words)


def ending(document: FleetDocument) -> str:
    """The last line of ``status --watch``: the fleet's outcome, and why it stopped early."""
    total = Totals.of(document.loops)
    text = (f"fleet {document.fleet} ended: {total.complete}/{total.loops} loops complete ("
            + ", ".join(f"{n} {v}" for v, n in total.verdicts.items()) + ")")
    if document.cancelled:
        text += f"; stopped: {document.cancelled}"
    return text


def status(out: Path, watch: bool, interval: float) -> int:
    path = out / FLEET_JSON
    if not path.is_file():
        print(f"no fleet in {out} (no {FLEET_JSON}); pass --out DIR of the fleet")
        return 1
    if not watch:
        for line in lines(read_fleet(path)):
            print(line)
        return 0
    tty = sys.stdout.isatty()
    seen: dict[str, str] = {}
    while True:
        # Whether it runs first, then its file: a fleet found ended has written its last one.
        running = fleet_running(out) is not None
        document = read_fleet(path)
        rows = lines(document)
        if tty:
            sys.stdout.write("\x1b[H\x1b[2J" + "\n".join(rows) + "\n")
            sys.stdout.flush()
        else:
            for row, loop in zip(rows[1:], document.loops, strict=False):
                if seen.get(loop.name) != row:
                    seen[loop.name] = row
                    print(row, flush=True)
        if not running:
            print(ending(document), flush=True)
            return 0
        time.sleep(interval)


def cancel(out: Path, wait: float) -> int:
    info = fleet_running(out)
    if info is None:
        raise UsageError(f"no fleet is running from {out} on this machine (no live process in "
                         f"{out / PID_FILE}); pass --out DIR of the running fleet")
    pid = info.pid
    os.kill(pid, signal.SIGTERM)
    print(f"fleet {info.fleet}: asked pid {pid} to stop every loop")
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if fleet_running(out) is None:
            print("the fleet stopped; 'ralph-verify fleet FILE --resume' runs what did not finish")
            return 0
        time.sleep(0.2)
    print(f"the fleet is still stopping after {wait:g}s (pid {pid})")
    return 1
