"""``ralph-verify status``: the current or last session, from ``.ralph/state.json``."""

from __future__ import annotations

import json

from ralph_verify.checks.tool_output import one_line
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.markers import hookimpl
from ralph_verify.terminal_text import strip_controls


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command("status", status, help="show the current or last session: iteration, "
                       "checks, breaker, verdict", scopes=("status",))


def status(config: Config) -> int:
    from ralph_verify.display import duration
    from ralph_verify.loop.state import StateDir

    if config.get("watch"):  # --watch: declared by plugins/watch.py
        from ralph_verify.plugins.watch import watch_status

        return watch_status(config)
    state = StateDir(config.root)
    data = state.read_state()
    if data is None:
        print(f"no session in {config.root} (no .ralph/state.json)")
        return 1
    from ralph_verify.guard.stats import safety_stats

    # The guard's refusals during this session (agenthook/pretool.py, .ralph/guard.jsonl).
    data["safety"] = safety_stats(config.root, str(data.get("started_at") or "") or None)
    target = config.get("json")  # --json: declared by plugins/json_report.py
    if target == "-":
        print(json.dumps(data, indent=2))
        return 0
    if target:
        from ralph_verify.state_files import write_text_atomic

        write_text_atomic(config.invocation_dir / target, json.dumps(data, indent=2) + "\n")
        return 0
    holder = state.lock_holder()
    if data.get("status") == "finished":
        condition = "finished"
    elif holder is not None and holder.session == data.get("session"):
        condition = f"running (pid {holder.pid}), {data.get('phase')}"
    elif data.get("mode") == "hook":  # driven by the agent's Stop hook (agenthook/stop.py)
        from ralph_verify.hookmode.session import waiting_condition

        condition = waiting_condition(data)
    else:
        condition = "interrupted: go on with 'ralph-verify run --resume'"
        owner = state.read_lock()
        if data.get("status") == "running" and owner is not None \
                and owner.session == data.get("session"):
            condition = (f"dead: the ralph-verify process that ran it (pid {owner.pid}) "
                         f"ended without finishing it (phase {data.get('phase')}); "
                         "'ralph-verify run --resume' continues it")
    print(f"session {data.get('session')} · {condition}")
    from ralph_verify.tasks.state import TasksState

    tasks = TasksState.read(config.root)  # run --tasks: this session is one task of a list
    if tasks is not None and tasks.current is not None:
        done = sum(row.status in ("done", "already") for row in tasks.tasks)
        print(f"task {tasks.current} of {tasks.file} · {done}/{len(tasks.tasks)} tasks done "
              "('ralph-verify tasks status' shows the list)")
    print(f"iteration {data.get('iteration')}/{data.get('max_iterations')} · "
          f"elapsed {duration(float(data.get('elapsed_s') or 0))} · agent {data.get('agent')}")
    checks = data.get("checks") or []
    passed = sum(1 for c in checks if c.get("status") in ("passed", "skipped"))
    print(f"checks: {passed}/{len(checks)} passed")
    for check in checks:
        print(f"  {check.get('status', '?').upper():<7} {check.get('spec')}  "
              f"{one_line(str(check.get('summary', '')), 100)}")
    from ralph_verify.loop.records import describe_plugin_state

    for name, value in (data.get("plugin_state") or {}).items():
        described = describe_plugin_state(config, name, value)
        if described is not None:
            print(f"{name}: {described}")
    refused = data["safety"]["by_rule"]
    if refused:
        print(f"guard: {data['safety']['refused']} tool calls refused ("
              + ", ".join(f"{rule} {n}" for rule, n in refused.items()) + ")")
    verdict = data.get("verdict")
    if verdict:
        print(strip_controls(f"verdict: {verdict.get('verdict')} — {verdict.get('reason')}"))
    elif data.get("error"):
        print(strip_controls(f"stopped: {data['error']}"))
    else:
        print("verdict: none yet")
    print(f"logs: {data.get('log_dir')}")
    return 0
