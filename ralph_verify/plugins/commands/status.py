"""``ralph-verify status``: the current or last session, from ``.ralph/state.json``."""

from __future__ import annotations

from ralph_verify.checks.tool_output import one_line
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.markers import hookimpl
from ralph_verify.records.codec import encode
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
        from ralph_verify.errors import UsageError

        raise UsageError(f"no session in {config.root} (no .ralph/state.json): "
                         "'ralph-verify run' starts one")
    from ralph_verify.records.refusals import safety_stats

    # The guard's refusals during this session (agenthook/pretool.py, .ralph/guard.jsonl).
    safety = safety_stats(config.root, data.started_at or None)
    if config.get("json"):  # --json: declared by plugins/json_report.py
        from ralph_verify.plugins.json_report import write_json

        write_json(config, {**encode(data), "safety": encode(safety)})
        return 0
    holder = state.lock_holder()
    if data.finished:
        condition = "finished"
    elif holder is not None and holder.session == data.session:
        condition = f"running (pid {holder.pid}), {data.phase}"
    elif data.mode == "hook":  # driven by the agent's Stop hook (agenthook/stop.py)
        from ralph_verify.hookmode.session import waiting_condition

        condition = waiting_condition(data)
    else:
        condition = "interrupted: go on with 'ralph-verify run --resume'"
        owner = state.read_lock()
        if data.status == "running" and owner is not None and owner.session == data.session:
            condition = (f"dead: the ralph-verify process that ran it (pid {owner.pid}) "
                         f"ended without finishing it (phase {data.phase}); "
                         "'ralph-verify run --resume' continues it")
    print(f"session {data.session} · {condition}")
    from ralph_verify.reports.watch import task_line

    line = task_line(data, str(config.root))  # this session is one task of a list
    if line is not None:  # the list's verdict too: after a list, not only the task's
        print(f"{line} ('ralph-verify tasks status' shows the list)")
    print(f"iteration {data.iteration}/{data.max_iterations} · "
          f"elapsed {duration(data.elapsed_s)} · agent {data.agent}")
    passed = sum(1 for c in data.checks if c.passed)
    print(f"checks: {passed}/{len(data.checks)} passed")
    for check in data.checks:
        print(f"  {check.status.upper():<7} {check.spec}  {one_line(check.summary, 100)}")
    from ralph_verify.loop.records import describe_plugin_state

    for name, value in data.plugin_state.items():
        described = describe_plugin_state(config, name, value)
        if described is not None:
            print(f"{name}: {described}")
    if safety.refused:
        print(f"guard: {safety.refused} tool calls refused ("
              + ", ".join(f"{rule} {n}" for rule, n in safety.by_rule.items()) + ")")
    if data.verdict is not None:
        print(strip_controls(f"verdict: {data.verdict.verdict} — {data.verdict.reason}"))
    elif data.error:
        print(strip_controls(f"stopped: {data.error}"))
    else:
        print("verdict: none yet")
    print(f"logs: {data.log_dir}")
    return 0
