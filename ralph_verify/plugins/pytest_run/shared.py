"""The one pytest run of a verification, shared by ``tests``, ``coverage`` and any check
(under coverage when a check needs it; in a loop, maybe the affected tests first)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import VerifyContext
from ralph_verify.checks.registry import looks_like_test_path
from ralph_verify.loop.keys import SESSION_KEY
from ralph_verify.plugins.junit import MAX_KEPT
from ralph_verify.plugins.pytest_run.options import TestsOptions
from ralph_verify.plugins.pytest_run.plugin_dir import XDIST_COVERAGE_PLUGIN, plugin_dir
from ralph_verify.proc.process import ToolError, ToolRun
from ralph_verify.project.caches import bytecode_prefix
from ralph_verify.project.interpreter import python_version
from ralph_verify.recorder.progress import watch_progress
from ralph_verify.recorder.sources import (
    AFFECTED_PLUGIN_NAME,
    FINISHED,
    JUNIT_VAR,
    PLUGIN_NAME,
    fresh_record_dir,
)

if TYPE_CHECKING:
    from ralph_verify.junit.read import JUnitReport
    from ralph_verify.loop.session import Session
    from ralph_verify.plugins.pytest_run.oracle import Oracle
    from ralph_verify.recorder.affected import Plan

#: pytest exit codes (``pytest.ExitCode``), without importing pytest.
EXIT_OK, EXIT_TESTS_FAILED, EXIT_INTERRUPTED, EXIT_INTERNAL, EXIT_USAGE, EXIT_NO_TESTS = range(6)

#: Environment a surrounding pytest-xdist run would leak into the project's own run.
#: Not passed on: pytest's own variables of an outer run, and ``PYTHONDONTWRITEBYTECODE``,
#: which keeps ``.pyc`` files out of the user's tree: the prefix below already does, and with
#: the variable set nothing would be kept there, so every run would compile pytest, the
#: standard library and the project again (3.5 times plain pytest's CPU on tabulate).
_LEAKED_ENV = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID",
               "PYTEST_CURRENT_TEST", "PYTHONDONTWRITEBYTECODE")

@dataclass(frozen=True)
class PytestRun:
    """The one pytest run of a verification (``shared_pytest_run(ctx)``). When pytest collected
    no tests (``tool_run.returncode == 5``) the JUnit and coverage files may be missing."""

    python: str
    #: pytest's JUnit XML (xunit1: test cases carry ``file`` and ``line``).
    junit_path: Path
    #: The combined coverage data file; ``None`` when the run was not under coverage.
    coverage_data: Path | None
    tool_run: ToolRun
    #: ``args`` of ``[tool.ralph-verify.checks.tests]``.
    args: tuple[str, ...] = ()
    #: Where ralph-verify's pytest plugin wrote its records (:mod:`ralph_verify.recorder.read`).
    record_dir: Path | None = None
    #: Only the affected tests ran, and one failed: no check may pass on this run, and
    #: nothing may compare its counts or ids with a full run's.
    partial: bool = False
    selected: int = 0
    #: What the partial run left to the full suite (:meth:`Plan.note`).
    note: str = ""
    #: The frozen oracle's judging tree, when pytest ran there (it lives until the
    #: verification ends: read coverage reports there).
    cwd: Path | None = None
    #: The frozen oracle this run was judged with; ``None`` when no test-side file changed.
    oracle: Oracle | None = None
    #: Under the oracle, the run of the agent's new and changed test modules, as they are.
    agent_run: PytestRun | None = None


def shared_pytest_run(ctx: VerifyContext) -> PytestRun:
    """Run pytest for this verification, or return the run another check already made."""
    return ctx.shared("pytest", lambda: _run_pytest(ctx))


def tests_options(ctx: VerifyContext) -> TestsOptions:
    options = ctx.config.check_options.get("tests")
    return options if isinstance(options, TestsOptions) else TestsOptions()


#: ``tests:hidden`` with no path: the tests marked ``@pytest.mark.hidden`` are held out.
HIDDEN_MARKER = "hidden"


def tests_args(ctx: VerifyContext) -> list[str]:
    """``args`` of ``[tool.ralph-verify.checks.tests]`` (without the table, the options are
    not built: pydantic is not imported before pytest starts), and ``-m "not hidden"`` when
    ``tests:hidden`` runs the marked tests apart."""
    args = tests_options(ctx).args if ctx.config.check_options.get("tests") is not None else []
    if any(c.name == "tests" and c.spec.arg == HIDDEN_MARKER for c in ctx.checks):
        return [*args, "-m", f"not {HIDDEN_MARKER}"]
    return list(args)


def pytest_env(ctx: VerifyContext) -> dict[str, str]:
    """Our environment without the variables of :data:`_LEAKED_ENV`, with a bytecode prefix
    in which no ``.pyc`` of the project is stale."""
    env = {key: value for key, value in os.environ.items() if key not in _LEAKED_ENV}
    env["PYTHONPYCACHEPREFIX"] = str(ctx.shared("bytecode-prefix",
                                                lambda: bytecode_prefix(ctx.root)))
    return env


def _timeout(ctx: VerifyContext) -> float:
    users = [c.timeout for c in ctx.checks
             if c.name in ("tests", "coverage") or c.needs_coverage]
    if users:
        return max(users)
    value = ctx.config.get("timeout")
    return float(value) if value is not None else 900.0


def _run_pytest(ctx: VerifyContext) -> PytestRun:
    frozen = None
    if ctx.config.stash.get(SESSION_KEY) is not None:  # the frozen oracle: in a session only
        from ralph_verify.plugins.pytest_run import oracle

        allow = ["**"] if ctx.config.get("allow_test_edits") else tests_options(ctx).allow
        frozen = oracle.plan(ctx, allow)
    if frozen is not None and frozen.frozen:
        return _run_frozen(ctx, frozen)
    if frozen is not None:  # only released files changed: the project as it is
        return replace(launch(ctx, "pytest-run"), oracle=frozen)
    session = _affected_session(ctx)
    if session is None:
        return launch(ctx, "pytest-run")
    from ralph_verify.recorder import affected

    if session.baseline is not None:  # the baseline itself always runs the full suite
        changed = session.last.files_changed if session.last is not None else []
        chosen, _ = affected.plan(ctx.root, session.dir, changed)
        if chosen is not None:
            partial = _run_affected(ctx, session.dir, chosen)
            if partial is not None:
                return partial
    run = launch(ctx, "pytest-run", deps=True)
    from ralph_verify.recorder.read import failing_ids, outcomes  # once pytest has run

    ended = outcomes(run.record_dir) if run.record_dir is not None else None
    if run.record_dir is not None and ended is not None:
        affected.save(ctx.root, session.dir, run.record_dir, failing_ids(ended))
    else:
        affected.forget(session.dir)
    return run


def _run_frozen(ctx: VerifyContext, oracle: Oracle) -> PytestRun:
    """The agent's changed and new test modules as they are now, then the start's tests in the
    judging tree (kept until the verification ends: the coverage report is read there)."""
    import shutil

    from ralph_verify.plugins.pytest_run.oracle import keep_now
    from ralph_verify.project.judging_tree import judging_tree, scratch

    folder = scratch(ctx.root)
    ctx.cleanup.callback(shutil.rmtree, folder, ignore_errors=True)
    at = folder / ctx.root.resolve().name
    agent_run = None
    if oracle.agent_tests:
        args = [*rerun_args(tuple(tests_args(ctx)), ctx.root), *oracle.agent_tests]
        if any(check.needs_coverage for check in ctx.checks):  # today's tree at the frozen
            with judging_tree(ctx.root, oracle.base, keep_now=lambda rel: True, at=at) as now:
                agent_run = launch(ctx, "pytest-agent-tests", args=args, cwd=now)
        else:  # tree's path: the coverage data of both passes name the same files
            agent_run = launch(ctx, "pytest-agent-tests", args=args, coverage=False)
    tree = ctx.cleanup.enter_context(judging_tree(ctx.root, oracle.base,
                                                  keep_now=keep_now(oracle), at=at))
    run = launch(ctx, "pytest-run", cwd=tree)
    if run.coverage_data is not None and agent_run is not None \
            and agent_run.coverage_data is not None and agent_run.coverage_data.exists():
        shutil.copyfile(agent_run.coverage_data,
                        run.coverage_data.with_name(f"{run.coverage_data.name}.agent"))
        _combine(ctx, run.python, run.coverage_data, tree)
    return replace(run, oracle=oracle, agent_run=agent_run)


def _affected_session(ctx: VerifyContext) -> Session | None:
    """The loop session, when this verification may run the affected tests first."""
    session = ctx.config.stash.get(SESSION_KEY)
    if session is None:
        return None  # not in a loop: the options need not even be built
    options = tests_options(ctx)
    if options.flaky == "allow":
        return None  # with flaky = "allow", a partial run could pass after its re-run
    from ralph_verify.recorder.affected import selects_affected

    if not selects_affected(options.select, python_version(ctx.python())):
        return None
    if any(check.spec.arg == "new" for check in ctx.checks if check.name == "tests"):
        return None  # tests:new judges failures against the baseline: it needs every test
    return session


def _run_affected(ctx: VerifyContext, session_dir: Path, chosen: Plan) -> PytestRun | None:
    """Run the affected tests; the run if one failed, else ``None`` (the full suite decides)."""
    import json

    folder = ctx.workdir / "pytest-affected"
    folder.mkdir(exist_ok=True)
    select = folder / "select.json"
    select.write_text(json.dumps(chosen.selection()), encoding="utf-8")
    args = [*rerun_args(tuple(tests_args(ctx)), ctx.root), *chosen.files]
    try:
        run = launch(ctx, "pytest-affected", args=args, coverage=False, select=select)
    except ToolError:
        return None
    if run.tool_run.returncode != EXIT_TESTS_FAILED or run.record_dir is None:
        return None
    from ralph_verify.recorder.read import failing_ids, outcomes  # once pytest has run

    failing = failing_ids(outcomes(run.record_dir) or {})
    if not failing:
        return None
    from ralph_verify.recorder import affected

    affected.set_failing(session_dir, failing)
    return replace(run, partial=True, selected=len(chosen.ids), note=chosen.note())


def launch(ctx: VerifyContext, name: str, *, args: list[str] | None = None,
           coverage: bool | None = None, deps: bool = False,
           select: Path | None = None, cwd: Path | None = None) -> PytestRun:
    """One pytest run in ``ctx.workdir / name``; ``deps``: record what each test ran,
    ``select`` (a JSON file of ids): run only those (:mod:`ralph_verify.recorder.affected_plugin`);
    ``cwd``: a judging tree, whose ``src`` comes first on the path (an editable install's
    path points into the project)."""
    python = ctx.python()
    run_args = tuple(tests_args(ctx) if args is None else args)
    folder = ctx.workdir / name
    folder.mkdir(exist_ok=True)
    junit = folder / "junit.xml"
    record = fresh_record_dir(folder / "record")
    under_coverage = (any(check.needs_coverage for check in ctx.checks) if coverage is None
                      else coverage)
    run_env = pytest_env(ctx)
    plugins = plugin_dir(ctx, python, folder, env=dict(run_env))
    # tests:PATH judges some files' tests: a broken file elsewhere (a later task's tests
    # importing what does not exist yet) must not stop pytest from running them.
    by_path = any(check.name == "tests" and check.spec.arg and looks_like_test_path(
        check.spec.arg) for check in ctx.checks)
    pytest_argv = ["-m", "pytest", "-p", PLUGIN_NAME,
                   *(["-p", AFFECTED_PLUGIN_NAME] if deps or select else []), *run_args,
                   *(["--continue-on-collection-errors"] if by_path else []),
                   f"--junitxml={junit}", "-o", "junit_family=xunit1"]
    src = [str(cwd / "src")] if cwd is not None and (cwd / "src").is_dir() else []
    run_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(plugins), *src, run_env.get("PYTHONPATH")) if p)
    run_env["RALPH_VERIFY_RECORD_DIR"] = str(record)
    run_env[JUNIT_VAR] = str(junit)  # written only if our recorder does not run
    if deps:
        run_env["RALPH_VERIFY_DEPS"] = "1"
    if select is not None:
        run_env["RALPH_VERIFY_SELECT"] = str(select)
    data: Path | None = None
    if under_coverage:
        data = folder / ".coverage"
        run_env["RALPH_VERIFY_COVERAGE_FILE"] = str(data)
        argv = [python, "-m", "coverage", "run", f"--data-file={data}", *pytest_argv,
                "-p", XDIST_COVERAGE_PLUGIN]
    else:
        argv = [python, *pytest_argv]
    hint = f"the project's Python {python} does not exist (set --python or the python setting)"
    with watch_progress(record, _progress_reporter(ctx)):
        run = ctx.run(argv, timeout=_timeout(ctx), env=run_env, missing_hint=hint, cwd=cwd)
    _raise_for_unusable(run, python, junit, record, under_coverage=data is not None)
    if data is not None:
        _combine(ctx, python, data, cwd)
    return PytestRun(python=python, junit_path=junit, coverage_data=data, tool_run=run,
                     args=run_args, record_dir=record, cwd=cwd)


def _progress_reporter(ctx: VerifyContext) -> Callable[[int, int | None], None] | None:
    """``ralph_report_progress`` for this pytest run, or ``None`` when nobody listens."""
    hook = getattr(ctx.config.hook, "ralph_report_progress", None)  # hook mode: no reporting
    if hook is None or not hook.get_hookimpls():
        return None
    return lambda done, total: hook(config=ctx.config, name="pytest", done=done, total=total)


def _raise_for_unusable(run: ToolRun, python: str, junit: Path, record: Path, *,
                        under_coverage: bool) -> None:
    """Raise :class:`ToolError` unless the run produced test results (or found no tests): its
    session finished (our recorder says so, or pytest wrote its JUnit file without it)."""
    code = run.returncode
    if code in (EXIT_OK, EXIT_TESTS_FAILED, EXIT_INTERRUPTED) and (
            (record / FINISHED).exists() or junit.exists()):
        return
    if code == EXIT_NO_TESTS:
        return
    output = run.tail(50)
    if under_coverage and _no_module("coverage", output):
        raise ToolError(f"coverage is not installed in {python}: install it there with "
                        "'pip install coverage'", output=run.tail())
    if under_coverage and "no such option: --data-file" in output:
        raise ToolError(f"coverage in {python} is too old: upgrade it with "
                        "'pip install -U coverage' (7.0 or newer)", output=run.tail())
    if _no_module("pytest", output):
        raise ToolError(f"pytest is not installed in {python}: install it there with "
                        "'pip install pytest' (or point --python at the project's "
                        "interpreter)", output=run.tail())
    if code == EXIT_INTERNAL:
        raise ToolError("pytest stopped with an internal error (exit 3)", output=run.tail())
    if code == EXIT_USAGE:
        raise ToolError("pytest stopped with a usage error (exit 4): check the pytest "
                        "arguments and conftest.py", output=run.tail())
    if code in (EXIT_OK, EXIT_TESTS_FAILED, EXIT_INTERRUPTED):
        raise ToolError(f"pytest exited {code} before its session finished (no results: did "
                        "a test or plugin end the process?)", output=run.tail())
    raise ToolError(f"pytest crashed or was killed (exit {code})", output=run.tail())


def _no_module(name: str, output: str) -> bool:
    """Python says ``No module named pytest``; ``coverage run`` says ``... 'pytest'``."""
    return f"No module named {name}" in output or f"No module named '{name}'" in output


def _combine(ctx: VerifyContext, python: str, data: Path, cwd: Path | None = None) -> None:
    """Fold parallel and xdist-worker data files (``.coverage.*``) into ``data``."""
    if not any(data.parent.glob(f"{data.name}.*")):
        return
    run = ctx.run([python, "-m", "coverage", "combine", "--append", f"--data-file={data}"],
                  timeout=_timeout(ctx), env=pytest_env(ctx), cwd=cwd)
    if run.returncode != 0:
        raise ToolError(f"'coverage combine' failed (exit {run.returncode})", output=run.tail())


def read_pytest_report(run: PytestRun) -> JUnitReport:
    """What ralph-verify's pytest plugin recorded; JUnit XML only when it did not report."""
    if run.record_dir is not None:
        from ralph_verify.recorder.read import read_record  # once pytest has run

        report = read_record(run.record_dir, max_problems=MAX_KEPT)
        if report is not None:
            return report
    from ralph_verify.junit.read import read_report  # after pytest has started: XML parsing

    report = read_report(run.junit_path, max_problems=MAX_KEPT)
    report.note = ("read from pytest's JUnit XML: ralph-verify's pytest plugin did not report "
                   "(is it disabled with -p no:ralph_verify_recorder?)")
    return report


#: Options that take a value which may look like a path; the value is kept on re-runs.
_VALUE_OPTIONS = {"-c", "--config-file", "--rootdir", "--confcutdir", "--basetemp", "-p",
                  "--ignore", "--ignore-glob", "--deselect", "-o", "--override-ini", "-k", "-m",
                  "--cov", "--cov-config", "--log-file", "--import-mode", "-W"}
#: pytest-xdist and ordering options dropped on re-runs: a handful of tests, in one process.
_DROPPED_OPTIONS = {"-n", "--numprocesses", "--maxprocesses", "--dist", "-d"}
_DROPPED_FLAGS = {"--lf", "--last-failed", "--ff", "--failed-first", "--sw", "--stepwise",
                  "--nf", "--new-first"}


def rerun_args(args: tuple[str, ...], root: Path) -> list[str]:
    """``args`` without test paths, pytest-xdist and selection flags: re-runs name their tests."""
    kept: list[str] = []
    skip_value = False
    for index, arg in enumerate(args):
        if skip_value:
            skip_value = False
            continue
        name = arg.split("=", 1)[0]
        if name in _DROPPED_OPTIONS:
            skip_value = "=" not in arg
            continue
        if arg in _DROPPED_FLAGS or (arg.startswith("-n") and arg[2:].isalnum()):
            continue
        previous = args[index - 1] if index else ""
        if (not arg.startswith("-") and previous not in _VALUE_OPTIONS
                and (root / arg.split("::", 1)[0]).exists()):
            continue
        kept.append(arg)
    return kept
