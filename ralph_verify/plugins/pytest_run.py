"""``tests`` (alias ``pytest``) and ``coverage`` (alias ``cov``): one pytest run feeds both.

The suite runs once per verification, with the project's interpreter, from the
root, with our recorder plugin loaded first (:mod:`ralph_verify.pytest_recorder`,
read by :mod:`ralph_verify.pytest_record`), and writing JUnit XML to a temporary
file, read only when the recorder did not report. When any check of the
verification sets ``needs_coverage`` (``coverage`` does; so may a third-party
check), that one run goes under ``python -m coverage run`` with a data file of
our own, honouring the project's coverage config; parallel data files (and
those of pytest-xdist workers) are combined into it afterwards.

Public API for third-party plugins
----------------------------------
``shared_pytest_run(ctx: VerifyContext) -> PytestRun``
    Run the suite, or reuse the run already made in this verification, under
    coverage if any check in ``ctx.checks`` has ``needs_coverage = True``.
    Raises :class:`~ralph_verify.process.ToolError` when there is no usable
    run (interpreter, pytest or coverage missing, pytest internal or usage
    error, crash, timeout); a check that lets it propagate becomes an
    ``error`` result with the tool's last output.

``PytestRun`` (frozen dataclass)
    ``python``: the interpreter that ran pytest; ``junit_path``: pytest's
    JUnit XML (xunit1, so test cases carry ``file`` and ``line``);
    ``coverage_data``: the combined coverage data file, or ``None`` when the
    run was not under coverage; ``tool_run``: the :class:`ToolRun`
    (``returncode`` is pytest's exit code); ``args``: the extra pytest
    arguments (option ``args`` of ``[tool.ralph-verify.checks.tests]``). When
    pytest collected no tests (``returncode == 5``) the JUnit and coverage
    files may be missing: check ``.exists()``. ``record_dir``: what our pytest
    plugin recorded; ``read_record(run.record_dir)`` (:mod:`ralph_verify.pytest_record`)
    gives the counts, the failing tests and ``hooks``: for each hook that can
    rewrite reports or change collection, the plugins and conftest files
    implementing it, with their paths (``None`` if the plugin did not run).

Example, a check reading the shared coverage data::

    run = shared_pytest_run(ctx)
    ctx.run([run.python, "-m", "coverage", "xml", f"--data-file={run.coverage_data}", ...])
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify import hookimpl
from ralph_verify.checks import (
    Check,
    CheckRegistry,
    CheckResult,
    CheckType,
    Failure,
    Status,
)
from ralph_verify.junit_xml import JUnitError, JUnitReport, iter_cases, read_report
from ralph_verify.plugins.junit import MAX_KEPT, report_result
from ralph_verify.process import ToolError, ToolRun
from ralph_verify.pytest_record import (
    PLUGIN_NAME,
    failing_ids,
    passed_ids,
    plugin_source,
    read_record,
    test_ids,
)
from ralph_verify.stash import SESSION_KEY, StashKey
from ralph_verify.verification import VerifyContext

if TYPE_CHECKING:
    from ralph_verify.affected import Plan
    from ralph_verify.iteration import Session
    from ralph_verify.plugins.pytest_run_options import TestsOptions

__all__ = ["TEST_IDS_KEY", "PytestRun", "collected_ids", "shared_pytest_run", "tests_args"]

#: In a session: every test id of the last full pytest run, with how it ended (see
#: :func:`~ralph_verify.pytest_record.test_ids`); the integrity plugin keeps the baseline's
#: ids, so that a test present at the session's start and gone later is a finding. A run of
#: only some tests must not set it.
TEST_IDS_KEY = StashKey[dict[str, str]]("pytest.test_ids")

#: pytest exit codes (``pytest.ExitCode``), without importing pytest.
EXIT_OK, EXIT_TESTS_FAILED, EXIT_INTERRUPTED, EXIT_INTERNAL, EXIT_USAGE, EXIT_NO_TESTS = range(6)

#: Environment a surrounding pytest-xdist run would leak into the project's own run.
_LEAKED_ENV = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID",
               "PYTEST_CURRENT_TEST")

_XDIST_COVERAGE_PLUGIN = "ralph_verify_xdist_coverage"
#: Loaded with ``-p`` into the project's pytest: measures pytest-xdist workers, which
#: ``coverage run`` does not (it measures only the main process).
_XDIST_COVERAGE_SOURCE = '''\
"""Written by ralph-verify: coverage for pytest-xdist workers (like pytest-cov does)."""
import os

_cov = None
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("RALPH_VERIFY_COVERAGE_FILE"):
    import coverage

    _cov = coverage.Coverage(data_file=os.environ["RALPH_VERIFY_COVERAGE_FILE"],
                             data_suffix=True)
    _cov.start()


def pytest_unconfigure(config):
    global _cov
    if _cov is not None:
        _cov.stop()
        _cov.save()
        _cov = None
'''


@dataclass(frozen=True)
class PytestRun:
    """The one pytest run of a verification; see the module docstring."""

    python: str
    junit_path: Path
    coverage_data: Path | None
    tool_run: ToolRun
    args: tuple[str, ...] = ()
    #: Where ralph-verify's pytest plugin wrote its records (:mod:`ralph_verify.pytest_record`).
    record_dir: Path | None = None
    #: Only the affected tests ran (``tests.select = "affected"``), and one failed: no check
    #: may pass on this run, and nothing may compare its test counts or ids with a full run.
    partial: bool = False
    #: How many tests the partial run selected.
    selected: int = 0


def shared_pytest_run(ctx: VerifyContext) -> PytestRun:
    """Run pytest for this verification, or return the run another check already made."""
    return ctx.shared("pytest", lambda: _run_pytest(ctx))


def tests_options(ctx: VerifyContext) -> TestsOptions:
    from ralph_verify.plugins.pytest_run_options import TestsOptions

    options = ctx.config.check_options.get("tests")
    return options if isinstance(options, TestsOptions) else TestsOptions()


def tests_args(ctx: VerifyContext) -> list[str]:
    """``args`` of ``[tool.ralph-verify.checks.tests]``: without the table, none, and the
    options are not built (pydantic is not imported before pytest starts)."""
    if ctx.config.check_options.get("tests") is None:
        return []
    return list(tests_options(ctx).args)


def pytest_env(ctx: VerifyContext) -> dict[str, str]:
    """Our environment without pytest's own variables, and with a bytecode prefix whose
    project part is fresh for this verification (see :mod:`ralph_verify.caches`)."""
    from ralph_verify.caches import bytecode_prefix

    env = {key: value for key, value in os.environ.items() if key not in _LEAKED_ENV}
    env["PYTHONPYCACHEPREFIX"] = str(ctx.shared("bytecode-prefix",
                                                lambda: bytecode_prefix(ctx.root)))
    return env


def _timeout(ctx: VerifyContext) -> float:
    users = [c.timeout for c in ctx.checks
             if isinstance(c, (TestsCheck, CoverageCheck)) or c.needs_coverage]
    if users:
        return max(users)
    value = ctx.config.get("timeout")
    return float(value) if value is not None else 900.0


def _run_pytest(ctx: VerifyContext) -> PytestRun:
    session = _affected_session(ctx)
    if session is None:
        return _full_run(ctx, _launch(ctx, "pytest-run"))
    from ralph_verify import affected

    if session.baseline is not None:  # the baseline itself always runs the full suite
        changed = session.last.files_changed if session.last is not None else []
        chosen, _ = affected.plan(ctx.root, session.dir, changed)
        if chosen is not None:
            partial = _run_affected(ctx, session.dir, chosen)
            if partial is not None:
                return partial
    run = _full_run(ctx, _launch(ctx, "pytest-run", deps=True))
    if run.record_dir is not None and read_record(run.record_dir, max_problems=0) is not None:
        affected.save(ctx.root, session.dir, run.record_dir, failing_ids(run.record_dir))
    else:
        affected.forget(session.dir)
    return run


def _affected_session(ctx: VerifyContext) -> Session | None:
    """The loop session, when this verification may run the affected tests first."""
    from ralph_verify.stash import SESSION_KEY

    session = ctx.config.stash.get(SESSION_KEY)
    if session is None:
        return None  # not in a loop: the options need not even be built
    options = tests_options(ctx)
    if options.select != "affected" or options.flaky == "allow":
        return None  # with flaky = "allow", a partial run could pass after its re-run
    if any(check.spec.arg == "new" for check in ctx.checks if isinstance(check, TestsCheck)):
        return None  # tests:new judges failures against the baseline: it needs every test
    return session


def _run_affected(ctx: VerifyContext, session_dir: Path, chosen: Plan) -> PytestRun | None:
    """Run the affected tests; the run if one failed, else ``None`` (the full suite decides)."""
    import json

    from ralph_verify import affected

    folder = ctx.workdir / "pytest-affected"
    folder.mkdir(exist_ok=True)
    select = folder / "select.json"
    select.write_text(json.dumps(chosen.selection()), encoding="utf-8")
    args = [*rerun_args(tuple(tests_args(ctx)), ctx.root), *chosen.files]
    try:
        run = _launch(ctx, "pytest-affected", args=args, coverage=False,
                      env={"RALPH_VERIFY_SELECT": str(select)})
    except ToolError:
        return None
    if run.tool_run.returncode != EXIT_TESTS_FAILED or run.record_dir is None:
        return None
    failing = failing_ids(run.record_dir)
    if not failing:
        return None
    affected.set_failing(session_dir, failing)
    return replace(run, partial=True, selected=len(chosen.ids))


def _launch(ctx: VerifyContext, name: str, *, args: list[str] | None = None,
            coverage: bool | None = None, deps: bool = False,
            env: dict[str, str] | None = None) -> PytestRun:
    """One pytest run in ``ctx.workdir / name`` (under coverage if a check needs it)."""
    python = ctx.python()
    run_args = tuple(tests_args(ctx) if args is None else args)
    folder = ctx.workdir / name
    folder.mkdir(exist_ok=True)
    junit = folder / "junit.xml"
    record = _record_dir(folder / "record")
    under_coverage = (any(check.needs_coverage for check in ctx.checks) if coverage is None
                      else coverage)
    plugins = _plugin_dir(ctx, python, folder, compiled=under_coverage)
    # Our recorder is loaded first, before the project's own plugins and conftest files.
    pytest_argv = ["-m", "pytest", "-p", PLUGIN_NAME, *run_args, f"--junitxml={junit}",
                   "-o", "junit_family=xunit1"]
    run_env = pytest_env(ctx)
    run_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(plugins), run_env.get("PYTHONPATH")) if p)
    run_env["RALPH_VERIFY_RECORD_DIR"] = str(record)
    if deps:
        run_env["RALPH_VERIFY_DEPS"] = "1"
    run_env.update(env or {})
    data: Path | None = None
    if under_coverage:
        data = folder / ".coverage"
        run_env["RALPH_VERIFY_COVERAGE_FILE"] = str(data)
        argv = [python, "-m", "coverage", "run", f"--data-file={data}", *pytest_argv,
                "-p", _XDIST_COVERAGE_PLUGIN]
    else:
        argv = [python, *pytest_argv]
    hint = f"the project's Python {python} does not exist (set --python or the python setting)"
    run = ctx.run(argv, timeout=_timeout(ctx), env=run_env, missing_hint=hint)
    _raise_for_unusable(run, python, junit, under_coverage=data is not None)
    if data is not None:
        _combine(ctx, python, data)
    return PytestRun(python=python, junit_path=junit, coverage_data=data, tool_run=run,
                     args=run_args, record_dir=record)


def _full_run(ctx: VerifyContext, run: PytestRun) -> PytestRun:
    """``run`` of the whole suite; in a session its test ids are kept (:data:`TEST_IDS_KEY`)."""
    if ctx.config.stash.get(SESSION_KEY) is not None and run.record_dir is not None:
        ids = test_ids(run.record_dir)
        if ids is not None:
            ctx.config.stash[TEST_IDS_KEY] = ids
    return run


def collected_ids(ctx: VerifyContext) -> dict[str, str] | None:
    """The test ids of this verification's pytest run; ``None`` when no check runs pytest, the
    run could not be used (the tests check says why), ran only the affected tests (a partial
    run has fewer tests by design) or our recorder did not report."""
    if not any(c.name in ("tests", "coverage") or c.needs_coverage for c in ctx.checks):
        return None
    try:
        run = shared_pytest_run(ctx)
    except ToolError:
        return None
    if run.record_dir is None or run.partial:
        return None
    folder = run.record_dir
    return ctx.shared("pytest-test-ids", lambda: test_ids(folder))


def _record_dir(path: Path) -> Path:
    path.mkdir(exist_ok=True)
    for old in path.glob("record-*.jsonl"):
        old.unlink()
    return path


def _plugin_dir(ctx: VerifyContext, python: str, folder: Path, *, compiled: bool) -> Path:
    """A folder holding our plugins for the project's interpreter to import with ``-p``.

    Under coverage they are compiled to sourceless ``.pyc`` files whose code is
    named ``<...>``: coverage never measures code from a file name in angle
    brackets, so our plugins do not show up in the project's report.
    """
    plugin_dir = folder / "plugin"
    plugin_dir.mkdir(exist_ok=True)
    sources = {PLUGIN_NAME: plugin_source(), _XDIST_COVERAGE_PLUGIN: _XDIST_COVERAGE_SOURCE}
    if not compiled:
        (plugin_dir / f"{PLUGIN_NAME}.py").write_text(sources[PLUGIN_NAME], encoding="utf-8")
        return plugin_dir
    kept = _compiled_plugins(python, sources)
    if kept is not None and all((kept / f"{name}.pyc").is_file() for name in sources):
        import shutil

        # Compiled by an earlier run for this interpreter: copied, no Python start (into
        # this run's folder: the re-run of failed tests finds them there too).
        for name in sources:
            shutil.copyfile(kept / f"{name}.pyc", plugin_dir / f"{name}.pyc")
        return plugin_dir
    pairs = []
    for name, text in sources.items():
        source = folder / f"{name}_source.py"
        source.write_text(text, encoding="utf-8")
        pairs += [str(source), str(plugin_dir / f"{name}.pyc")]
    code = ("import py_compile, sys; a = sys.argv[1:]; [py_compile.compile(a[i], "
            "cfile=a[i + 1], dfile='<ralph-verify pytest plugin>', doraise=True) "
            "for i in range(0, len(a), 2)]")
    hint = f"the project's Python {python} does not exist (set --python or the python setting)"
    run = ctx.run([python, "-c", code, *pairs], timeout=60, env=pytest_env(ctx),
                  missing_hint=hint)
    if run.returncode != 0:
        raise ToolError(f"{python} could not compile a file (exit {run.returncode})",
                        output=run.tail())
    if kept is not None:
        import shutil

        partial = kept.with_name(f"{kept.name}.{os.getpid()}.{id(folder)}.tmp")
        try:  # a cache: never an error (another run may have kept it first)
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(plugin_dir, partial)
            os.replace(partial, kept)
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)
    return plugin_dir


def _compiled_plugins(python: str, sources: dict[str, str]) -> Path | None:
    """Where the compiled plugins for ``python`` are kept between runs (compiling them is a
    Python start before every pytest run under coverage). Keyed by the interpreter's binary
    (a virtualenv's python is a link to it: its real path, size and time, which decide the
    bytecode's magic number) and the sources; None when the binary cannot be read."""
    import hashlib

    from ralph_verify.caches import user_cache_dir

    try:
        binary = os.path.realpath(python)
        stat = os.stat(binary)
    except OSError:
        return None
    key = hashlib.sha256("\0".join([binary, str(stat.st_size), str(stat.st_mtime_ns),
                                     *sources.values()]).encode("utf-8", "surrogateescape"))
    return user_cache_dir() / "pytest-plugins" / key.hexdigest()[:24]


def _raise_for_unusable(run: ToolRun, python: str, junit: Path, *, under_coverage: bool) -> None:
    """Raise :class:`ToolError` unless the run produced test results (or found no tests)."""
    code = run.returncode
    if code in (EXIT_OK, EXIT_TESTS_FAILED, EXIT_INTERRUPTED) and junit.exists():
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
        raise ToolError(f"pytest exited {code} without writing its JUnit XML",
                        output=run.tail())
    raise ToolError(f"pytest crashed or was killed (exit {code})", output=run.tail())


def _no_module(name: str, output: str) -> bool:
    """Python says ``No module named pytest``; ``coverage run`` says ``... 'pytest'``."""
    return f"No module named {name}" in output or f"No module named '{name}'" in output


def _combine(ctx: VerifyContext, python: str, data: Path) -> None:
    """Fold parallel and xdist-worker data files (``.coverage.*``) into ``data``."""
    if not any(data.parent.glob(f"{data.name}.*")):
        return
    run = ctx.run([python, "-m", "coverage", "combine", "--append", f"--data-file={data}"],
                  timeout=_timeout(ctx), env=pytest_env(ctx))
    if run.returncode != 0:
        raise ToolError(f"'coverage combine' failed (exit {run.returncode})", output=run.tail())


class TestsCheck(Check):
    """``tests``: every collected test passes (flaky ones excepted), at least N with ``>=N``."""

    __test__ = False
    cost = 100  # the slowest check: start it last so cheap ones report first

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.alone = self.hidden  # the held-out tests are in the tree only while they run

    @property
    def hidden(self) -> bool:
        """``tests:hidden=PATH``: held-out acceptance tests (:mod:`.hidden_tests`)."""
        return (self.spec.arg or "").startswith("hidden=")

    def run(self, ctx: VerifyContext) -> CheckResult:
        if self.hidden:
            from ralph_verify.plugins.hidden_tests import run_hidden

            return run_hidden(self, ctx)
        if self.spec.arg is not None:
            from ralph_verify.new_failures import judge_new  # tests:new, in a loop

            return judge_new(self, ctx, self.run_suite)
        return self.run_suite(ctx)

    def run_suite(self, ctx: VerifyContext) -> CheckResult:
        """The plain ``tests`` verdict of this verification's pytest run."""
        run = shared_pytest_run(ctx)
        code = run.tool_run.returncode
        if code == EXIT_NO_TESTS:
            where = " ".join(run.args) or "the default test paths"
            message = (f"no tests collected from {where} (pytest exit 5): add tests, or fix "
                       "[tool.ralph-verify.checks.tests] args / pytest's testpaths")
            return self.result(Status.FAILED, "no tests collected", metric=0.0,
                               counts={"passed": 0}, output=run.tool_run.tail(),
                               failures=[Failure(message=message, code="no-tests")])
        try:
            report = read_pytest_report(run)
        except JUnitError as exc:
            return self.error(f"pytest's JUnit XML is unreadable: {exc}",
                              output=run.tool_run.tail())
        if report.failing == 0 and code == EXIT_INTERRUPTED:
            return self.error("pytest was interrupted (exit 2)", output=run.tool_run.tail())
        if report.failing == 0 and code == EXIT_TESTS_FAILED:
            tail = run.tool_run.tail()
            result = report_result(self, report, no_tests="no tests ran", output=tail)
            result.status = Status.FAILED
            result.summary += "; but pytest exited 1"
            result.failures.append(Failure(
                message="pytest exited 1 although no test failed (a plugin, a warning "
                        "filter or a session hook failed)", detail=tail, code="pytest-exit"))
            return result
        flaky_allowed = False
        if report.failing or report.flaky:  # else the options are not built (no pydantic)
            from ralph_verify.plugins.pytest_run_options import TestsOptions

            options = self.options if isinstance(self.options, TestsOptions) else TestsOptions()
            if options.rerun and 1 <= report.failing <= options.rerun:
                _mark_flaky(report, self._rerun(ctx, run, report))
            flaky_allowed = options.flaky == "allow" and not run.partial
        result = report_result(self, report, no_tests="no tests ran", flaky_allowed=flaky_allowed)
        return _partial_result(result, run) if run.partial else result

    def _rerun(self, ctx: VerifyContext, run: PytestRun, report: JUnitReport) -> list[str]:
        """Run the failed tests once more (not under coverage); the ids that passed."""
        if (len(report.problems) != report.failing or any(c.collection for c in report.problems)
                or any(c.code == "tampering" for c in report.problems)):
            return []
        ids = list(dict.fromkeys(case.id for case in report.problems))
        folder = run.junit_path.parent
        junit = folder / "rerun.xml"
        record = _record_dir(folder / "rerun-record")
        env = pytest_env(ctx)
        plugins = folder / "plugin"
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(plugins), env.get("PYTHONPATH")) if p)
        env["RALPH_VERIFY_RECORD_DIR"] = str(record)
        argv = [run.python, "-m", "pytest", "-p", PLUGIN_NAME, *rerun_args(run.args, ctx.root),
                f"--junitxml={junit}", "-o", "junit_family=xunit1", *ids]
        try:
            ctx.run(argv, timeout=self.timeout, env=env)
            if read_record(record, max_problems=0) is not None:
                passed = passed_ids(record)
            else:
                passed = {case.id for case in iter_cases(junit) if case.outcome == "passed"}
        except (ToolError, JUnitError):
            return []  # the re-run could not tell: the first run's failures stand
        return [test_id for test_id in ids if test_id in passed]


#: Judged on the full suite only: a partial run has fewer tests by design.
_FULL_ONLY = {"tests-threshold", "no-test-passed", "no-tests"}


def _partial_result(result: CheckResult, run: PytestRun) -> CheckResult:
    """A partial run's result: marked partial, and never a pass."""
    result.failures = [f for f in result.failures if f.code not in _FULL_ONLY]
    result.summary = (f"partial run, the {run.selected} affected tests first: "
                      f"{result.summary.split('; wanted')[0]}")
    result.counts["partial"] = 1
    result.counts["selected"] = run.selected
    if result.status is Status.PASSED or not result.failures:
        result.status = Status.FAILED  # cannot happen: a partial run is kept only if one failed
        result.failures.append(Failure(message="a partial run cannot pass: run the full suite",
                                       code="partial"))
    return result


def read_pytest_report(run: PytestRun) -> JUnitReport:
    """What ralph-verify's pytest plugin recorded; JUnit XML only when it did not report."""
    if run.record_dir is not None:
        report = read_record(run.record_dir, max_problems=MAX_KEPT)
        if report is not None:
            return report
    report = read_report(run.junit_path, max_problems=MAX_KEPT)
    report.note = ("read from pytest's JUnit XML: ralph-verify's pytest plugin did not report "
                   "(is it disabled with -p no:ralph_verify_recorder?)")
    return report


def _mark_flaky(report: JUnitReport, flaky: list[str]) -> None:
    for case in [c for c in report.problems if c.id in flaky]:
        report.problems.remove(case)
        if case.outcome == "failed":
            report.failed -= 1
        else:
            report.errors -= 1
        report.passed += 1
        report.flaky.append(case.id)


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


class CoverageCheck(Check):
    """``coverage>=N``: total coverage of the shared run, as ``coverage report`` prints it."""

    cost = 100
    needs_coverage = True

    def run(self, ctx: VerifyContext) -> CheckResult:
        import json

        run = shared_pytest_run(ctx)
        if run.partial:
            return self.result(Status.SKIPPED, "not judged: only the affected tests ran, and "
                               "one failed (coverage is judged on full runs)",
                               counts={"partial": 1})
        if run.coverage_data is None:  # only if a plugin replaced the shared run
            return self.error("the shared pytest run was not under coverage")
        out = run.coverage_data.with_name("coverage.json")
        report = ctx.run([run.python, "-m", "coverage", "json", f"--data-file={run.coverage_data}",
                          "-o", str(out)], timeout=self.timeout, env=pytest_env(ctx))
        # coverage exits 2 when the project's own fail_under is not met; the file is written.
        if report.returncode not in (0, 2) or not out.exists():
            if "No data to report" in report.tail():
                why = ("pytest collected no tests" if run.tool_run.returncode == EXIT_NO_TESTS
                       else "the tests ran no measured code (check [run] source in the "
                            "coverage config)")
                return self.error(f"coverage has no data to report: {why}",
                                  output=run.tool_run.tail())
            return self.error(f"'coverage json' failed (exit {report.returncode})",
                              output=report.tail())
        try:
            data = json.loads(out.read_text(encoding="utf-8"))
            totals = data["totals"]
            display = str(totals.get("percent_covered_display")
                          or f"{float(totals['percent_covered']):.0f}")
            metric = float(display)
            files = data.get("files", {})
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            return self.error(f"'coverage json' wrote an unreadable report: {exc}")
        counts = {"statements": int(totals.get("num_statements", 0)),
                  "missing": int(totals.get("missing_lines", 0)), "files": len(files)}
        if self.spec.op is not None and self.spec.threshold is not None:
            passed = self.spec.compare(metric)
            shown = f"{self.spec.threshold:g}%"
            summary = (f"{display}% {self.spec.op} {shown}" if passed
                       else f"{display}% {_NEGATED[self.spec.op]} {shown}")
        else:
            passed = report.returncode != 2
            summary = (f"{display}% covered" if passed
                       else f"{display}% is below the project's fail_under")
        failures = [] if passed else least_covered(files)
        return self.result(Status.PASSED if passed else Status.FAILED, summary, metric=metric,
                           counts=counts, failures=failures)


_NEGATED = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!="}


def least_covered(files: dict[str, Any], limit: int = 10) -> list[Failure]:
    """Failures for the ``limit`` least-covered files, with their missing line ranges."""
    rows = []
    for path, info in files.items():
        summary = info.get("summary", {})
        percent = float(summary.get("percent_covered", 100.0))
        if percent >= 100.0:
            continue
        missing = [int(n) for n in info.get("missing_lines", [])]
        statements = sorted({*missing, *(int(n) for n in info.get("executed_lines", []))})
        rows.append((percent, -len(missing), path, summary, missing, statements, info))
    rows.sort(key=lambda row: (row[0], row[1], row[2]))
    failures = []
    for percent, _, path, summary, missing, statements, info in rows[:limit]:
        display = summary.get("percent_covered_display") or f"{percent:.0f}"
        if missing:
            what = f"missing {line_ranges(statements, missing)}"
        else:
            branches = sorted({int(pair[0]) for pair in info.get("missing_branches", [])})
            what = f"partial branches at {line_ranges(branches, branches)}"
        failures.append(Failure(message=f"{path}: {display}% — {what}", location=path,
                                path=path, line=missing[0] if missing else None,
                                code="coverage"))
    return failures


def line_ranges(statements: list[int], missing: list[int], max_chars: int = 200) -> str:
    """``12-15, 30`` as ``coverage report`` shows them: runs of missing statements."""
    wanted = set(missing)
    runs: list[tuple[int, int]] = []
    start: int | None = None
    end = 0
    for number in statements:
        if number in wanted:
            start = number if start is None else start
            end = number
        elif start is not None:
            runs.append((start, end))
            start = None
    if start is not None:
        runs.append((start, end))
    text = ""
    for index, (first, last) in enumerate(runs):
        part = str(first) if first == last else f"{first}-{last}"
        if len(text) + len(part) > max_chars:
            return f"{text}, ... ({len(runs) - index} more)"
        text = f"{text}, {part}" if text else part
    return text


TESTS_OPTIONS = "ralph_verify.plugins.pytest_run_options:TestsOptions"
COVERAGE_OPTIONS = "ralph_verify.plugins.pytest_run_options:CoverageOptions"


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name="tests", aliases=("pytest",), factory=TestsCheck, options=TESTS_OPTIONS,
        threshold="minimum number of passing tests (tests.min=120)", arg="optional",
        arg_choices=("new", "hidden="), loop_args=("new",),
        arg_help="new: in a loop, only failures that were not there at the baseline count "
                 "(tests:new); hidden=PATH: held-out tests kept outside the project, copied "
                 "in only while they run, reported by id and message, never by source",
        help="the pytest suite passes (run once with ralph-verify's own pytest plugin, which "
             "records pytest's node ids, counts and raw outcomes; a few failed tests are re-run "
             "once to tell flaky from failing, and flaky still fails unless flaky = \"allow\")",
    ))
    registry.add(CheckType(
        name="coverage", aliases=("cov",), factory=CoverageCheck, options=COVERAGE_OPTIONS,
        threshold="total coverage in percent, as 'coverage report' prints it (coverage.min=80)",
        threshold_max=100,
        help="coverage of the same pytest run, read with 'coverage json' and the project's "
             "coverage config (without a threshold: the project's fail_under)",
    ))


@hookimpl
def ralph_session_prepare(session: Session) -> None:
    """Remove held-out tests a killed verification left in the tree, before any agent runs."""
    from ralph_verify.plugins.hidden_tests import remove_copy

    remove_copy(session.root)

