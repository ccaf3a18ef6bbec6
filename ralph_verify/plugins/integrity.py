"""``integrity``: the agent must not pass by weakening the project's own checks.

A session's start is pictured into ``.ralph/integrity-baseline.json`` (and frozen out of the
agent's reach); each verification reports what got weaker since, as failures with a file and
line (docs/integrity.md)."""

from __future__ import annotations

import ast
import json
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import Check, CheckResult, CheckType, Failure, Status
from ralph_verify.checks.registry import CheckRegistry
from ralph_verify.config.parser import CommonOptions
from ralph_verify.config.pyproject import load_table
from ralph_verify.config.stash import StashKey
from ralph_verify.config.until import parse_spec
from ralph_verify.errors import ConfigError
from ralph_verify.markers import hookimpl
from ralph_verify.proc.process import ToolError
from ralph_verify.records.codec import ShapeError, encode
from ralph_verify.state_files import write_text_atomic

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext
    from ralph_verify.config import Config
    from ralph_verify.config.parser import Parser
    from ralph_verify.config.until import CheckSpec
    from ralph_verify.loop.session import Session
    from ralph_verify.loop.verdict import VerdictProposal
    from ralph_verify.records.integrity import Picture

NAME = "integrity"
BASELINE_FILE = "integrity-baseline.json"
_WHAT = {"deleted-file": "deleted file", "edited-protected": "edited protected file",
         "fewer-tests": "fewer tests", "removed-test": "removed test",
         "new-skip": "new skip", "new-xfail": "new xfail", "new-noqa": "new noqa",
         "new-type-ignore": "new type: ignore", "new-no-cover": "new no cover",
         "weakened-setting": "weakened setting",
         "more-skipped": "more tests skipped", "edited-config": "edited ralph-verify config",
         "edited-baseline": "edited .ralph baseline", "test-infra": "test infrastructure",
         "test-exit": "process exit in tests", "weakened-test": "weakened test",
         "gaming": "source gaming the tests", "idle-test": "new test that kills no mutant",
         "narrowed-setting": "narrowed tool setting", "stand-in": "stand-in for project code",
         "special-case": "special-cased test input", "routed-around": "code routed around",
         "type-escape": "code taken out of mypy's sight",
         "lint-game": "lint finding kept quiet by a statement that does nothing",
         **dict.fromkeys(("constant-true", "or-constant", "self-compare"),
                         "assertion that cannot fail"),
         "swallowed-assert": "swallowed assertion", "checks-removed": "test without checks",
         "dead-assert": "assertion never run"}


@dataclass(frozen=True)
class IntegrityOptions(CommonOptions):
    """``[tool.ralph-verify.checks.integrity]``."""

    protected: list[str] = field(default_factory=list, metadata={
        "help": 'Globs of files the agent may neither edit nor delete, e.g. ["conftest.py", '
                '"tests/data/**"] (** spans folders)'})
    keep: list[str] = field(default_factory=lambda: ["tests/**"], metadata={
        "help": 'Globs of files the agent may edit but not delete (default ["tests/**"])'})
    allow: list[str] = field(default_factory=list, metadata={
        "help": 'Findings that are legitimate, frozen at the session\'s start: a source-scan '
                'finding ("src/x.py:__eq__" a file and function, "src/x.py" or a rule: '
                '"constant-eq", "forced-bool", "special-case", "call-stack", '
                '"pytest-internals", "time-patch"), or any other flag by its rule '
                '("new-type-ignore") or rule and file ("removed-test:tests/test_old.py"); '
                'see docs/integrity.md'})
    mutate_new_tests: bool | None = field(default=None, metadata={
        "help": "Run each test added this session against the mutants of the product code "
                "it runs: a new test that kills few is a finding (idle-test). Default: on "
                "when mutation is among the checks, or coverage is and the tests pass (it "
                "runs the new tests once per mutant)"})


def baseline_path(root: Path) -> Path:
    return root / ".ralph" / BASELINE_FILE


def options_of(config: Config) -> IntegrityOptions:
    options = config.check_options.get(NAME)
    return options if isinstance(options, IntegrityOptions) else IntegrityOptions()


def read_baseline(root: Path) -> Picture | None:
    """The saved baseline, ``None`` if there is none; ``ValueError`` if it is unreadable."""
    path = baseline_path(root)
    if not path.exists():
        return None
    # The records' types are imported when a picture is read (a check without integrity
    # reads none).
    from ralph_verify.records.integrity import picture_of

    try:
        return picture_of(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is unreadable ({exc}): delete it and start a new session "
                         "to take a new baseline") from None
    except ShapeError as exc:
        raise ValueError(f"{path} is not an integrity baseline ({exc}): delete it and start "
                         "a new session to take a new baseline") from None


def write_baseline(root: Path, picture: Picture) -> None:
    write_text_atomic(baseline_path(root), json.dumps(encode(picture), indent=1) + "\n")


def take_baseline(config: Config, session: Session) -> Picture:
    """Take and save the baseline of ``session`` (kept as is when the session resumes)."""
    from ralph_verify.integrity.picture import take

    try:
        existing = read_baseline(session.root)
    except ValueError:
        existing = None
    if existing is not None and existing.session == session.id:
        return existing
    options = options_of(config)
    counts: dict[str, int] = {}
    if session.baseline is not None:
        tests = next((r for r in session.baseline.results if r.name == "tests"), None)
        counts = dict(tests.counts) if tests is not None else {}
    picture = take(session.root, protected=options.protected, keep=options.keep,
                   session=session.id, test_counts=counts, allow=options.allow)
    if session.baseline is not None:
        from ralph_verify.integrity.judge import gate_of

        picture.gate = gate_of(session.baseline.results)
    write_baseline(session.root, picture)
    return picture


@hookimpl
def ralph_session_checks(config: Config, specs: list[CheckSpec]) -> list[CheckSpec]:
    """Every loop session verifies ``integrity`` too, unless it is switched off."""
    return [spec for spec in loop_specs(config, specs) if spec not in specs]


def loop_specs(config: Config, specs: list[CheckSpec]) -> list[CheckSpec]:
    """``specs`` with ``integrity`` added, unless it is there already or switched off
    (``--no-integrity``, ``integrity = false``)."""
    if config.get(NAME) is False or any(spec.name == NAME for spec in specs):
        return specs
    return [*specs, parse_spec(NAME, source="run (integrity is on by default)")]


class IntegrityCheck(Check):
    cost = 3

    def run(self, ctx: VerifyContext) -> CheckResult:
        from ralph_verify.integrity.git_baseline import REF_PICTURE_KEY
        from ralph_verify.loop.frozen import FrozenError
        from ralph_verify.loop.keys import SESSION_KEY

        ref = ctx.config.stash.get(REF_PICTURE_KEY)
        if ref is not None:  # check --baseline REF
            return self._compare(ctx, ref, [])
        session = ctx.config.stash.get(SESSION_KEY)
        if session is not None and session.baseline is None:
            if _measured(ctx):
                from ralph_verify.plugins.pytest_run.routes import executed

                ctx.config.stash[_REACHED_KEY] = executed(ctx, self.timeout) or {}
            ctx.config.stash[_PRECISION_KEY] = _precision(ctx, start=True) or {}
            return self.result(Status.SKIPPED, "the baseline is taken when the session starts; "
                                               "later verifications compare against it")
        from ralph_verify.records.plugin_state import IntegrityState

        state = IntegrityState.of(session.plugin_state) if session is not None else None
        tampering: list[Failure] = []
        if state is not None and state.frozen is not None:
            # In a session: the copy frozen out of the agent's reach is the baseline.
            try:
                frozen = _thawed(state.frozen)
            except FrozenError as exc:
                message = (f"the session's integrity baseline cannot be trusted: {exc}; "
                           "integrity cannot pass in this session: restore it or start a new "
                           "session")
                return self.result(Status.FAILED, message, metric=1.0,
                                   failures=[Failure(message=message, code="edited-baseline")])
            tampering = tampered(ctx.root, frozen) + self._routed(ctx, frozen)
            return self._compare(ctx, frozen, tampering)
        try:
            before = read_baseline(ctx.root)
        except ValueError as exc:
            return self.error(str(exc))
        if session is not None and before is not None and before.session != session.id:
            return self.result(
                Status.SKIPPED, f"{baseline_path(ctx.root).relative_to(ctx.root)} belongs to "
                f"session {before.session}, not to this session {session.id}: a "
                "baseline is taken when a session starts")
        if before is None:
            return self.result(
                Status.SKIPPED,
                "no baseline: integrity compares against the baseline a session takes when it "
                f"starts ({baseline_path(ctx.root).relative_to(ctx.root)}); run "
                "'ralph-verify run' first")
        return self._compare(ctx, before, tampering)

    def _compare(self, ctx: VerifyContext, before: Picture,
                 tampering: list[Failure]) -> CheckResult:
        from ralph_verify.integrity.judge import judge, noted_summary

        judgement = judge(ctx.root, before, checks=[c.name for c in ctx.checks],
                          precision=_precision(ctx))
        after = judgement.picture
        failures = tampering + judgement.failures
        failures += compare_collected(before.test_counts, self._collected(ctx))
        failures += _dead_uses(ctx, before, after)
        if _oracle_judges(ctx):  # the start's test files run as they were: none can go
            from ralph_verify.plugins.pytest_run.oracle import is_test_side

            failures = [f for f in failures if f.code not in _ORACLE_CODES and not (
                f.code == "deleted-file" and f.path and is_test_side(f.path))]
            released = _released(ctx)
            judgement.notes += [f"released ({f.code}): {f.message}" for f in failures
                                if f.path in released and f.code not in _NEVER_RELEASED]
            failures = [f for f in failures
                        if f.path not in released or f.code in _NEVER_RELEASED]
        if self._mutates_new_tests(ctx):
            failures += self._idle(ctx, before, after)
        since = f"since {before.ref}" if before.ref \
            else f"since session {before.session or '?'} started"
        noted = noted_summary(judgement.notes)
        if not failures:
            return self.result(
                Status.PASSED,
                f"nothing weakened {since} ({after.test_total} tests, {after.marker_total} "
                f"markers and suppressions, {len(after.settings)} gating settings){noted}",
                metric=0.0, counts={"tests": after.test_total})
        kinds = Counter(f.code or "?" for f in failures)
        listing = ", ".join(f"{n} {_WHAT.get(code, code)}" for code, n in kinds.most_common())
        return self.result(Status.FAILED, f"{len(failures)} weakened {since}: {listing}{noted}",
                           metric=float(len(failures)), failures=failures,
                           counts={"tests": after.test_total})

    def _routed(self, ctx: VerifyContext, frozen: Picture) -> list[Failure]:
        """Product lines the start's tests ran, kept as they were, that no test runs now."""
        from ralph_verify.plugins.pytest_run.oracle import session_base
        from ralph_verify.plugins.pytest_run.routes import executed, routed_around

        base = session_base(ctx)
        if not frozen.reached or base is None or not _measured(ctx):
            return []
        now = executed(ctx, self.timeout)
        return [] if now is None else routed_around(ctx.root, base, frozen.reached, now)

    def _mutates_new_tests(self, ctx: VerifyContext) -> bool:
        """Asked, or ``mutation`` checked, or ``coverage`` checked on a verification that could
        end the loop (new tests that check nothing raise coverage all the same)."""
        wanted = options_of(ctx.config).mutate_new_tests
        if wanted is not None:
            return wanted
        names = {c.name for c in ctx.checks}
        return "mutation" in names or ("coverage" in names and _tests_pass(ctx))

    def _idle(self, ctx: VerifyContext, before: Picture, after: Picture) -> list[Failure]:
        """The tests added since ``before`` that kill no mutant of the code they run."""
        from ralph_verify.plugins.mutation.new_tests import idle_new_tests

        new = [f"{rel}::{name.replace('.', '::')}" for rel, names in sorted(after.tests.items())
               for name in names if name not in before.tests.get(rel, {})]
        try:
            return idle_new_tests(ctx, new, timeout=self.timeout)
        except ToolError:
            return []  # tests that cannot run: the tests check reports them

    def _collected(self, ctx: VerifyContext) -> dict[str, int] | None:
        """Counts of this verification's pytest run, when one runs anyway (tests, coverage)."""
        if not _runs_pytest(ctx):
            return None
        from ralph_verify.junit.read import JUnitError
        from ralph_verify.plugins.pytest_run import EXIT_NO_TESTS, shared_pytest_run
        from ralph_verify.plugins.pytest_run.shared import read_pytest_report
        try:
            run = shared_pytest_run(ctx)
            if run.partial:
                return None  # only the affected tests ran: no count to compare
            if run.tool_run.returncode == EXIT_NO_TESTS:
                return dict.fromkeys(_COUNTED, 0)
            report = read_pytest_report(run)
        except (ToolError, JUnitError, OSError):
            return None  # the tests check reports what went wrong
        # Counted as JUnit XML counts them (which sessions kept before): an xfail is a skip,
        # an xpass a pass.
        return {"passed": report.passed + report.xpassed, "failed": report.failed,
                "errors": report.errors, "skipped": report.skipped + report.xfailed}


_COUNTED = ("passed", "failed", "errors", "skipped")
#: The line precision of the baseline verification's mypy run, for the session's frozen copy.
_PRECISION_KEY = StashKey[dict[str, list[int]]]("integrity.precision")


def _precision(ctx: VerifyContext, *, start: bool = False) -> dict[str, list[int]] | None:
    """The line precision of mypy's run (:meth:`TypesCheck.precision`, a cold run) when this
    verification checks types and could end the loop: at the session's ``start``, or its
    types and tests pass."""
    from ralph_verify.plugins.mypy import TypesCheck

    types = next((c for c in ctx.checks if isinstance(c, TypesCheck)), None)
    if types is None or not (start or _tests_pass(ctx)):
        return None
    return types.precision(ctx, always=start)


class _Idle(ast.NodeTransformer):
    """Takes out the statements that do nothing but name something."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                kept = [s for s in body if not _idle(s)]
                setattr(node, name, kept or ([ast.Pass()] if name == "body" else []))
        return node


def _idle(stmt: ast.stmt) -> bool:
    return isinstance(stmt, (ast.Assert, ast.Delete)) or (
        isinstance(stmt, ast.Expr) and not isinstance(stmt.value, (ast.Call, ast.Await,
                                                                    ast.Yield, ast.YieldFrom)))\
        or (isinstance(stmt, ast.If) and all(isinstance(s, ast.Pass) for s in stmt.body)
            and not stmt.orelse)


def _dead_uses(ctx: VerifyContext, before: Picture, after: Picture) -> list[Failure]:
    """A ``lint-game`` per finding of the start's lint check in a product file (an unused
    import or variable) that ruff reports again once the file's asserts (which ``python -O``
    drops), ``del`` statements, bare expressions and empty ``if`` statements are taken out:
    such a statement "uses" the name without using it; the honest fix removes the name."""
    from ralph_verify.integrity.rules.gaming import is_source
    from ralph_verify.plugins.ruff import LintCheck

    lint = next((c for c in ctx.checks if isinstance(c, LintCheck)), None)
    if lint is None or before.gate is None or before.facts is None or after.facts is None:
        return []
    wanted = {(path, code) for check, path, code in before.gate.failing if check == "lint"}
    old, new = before.facts.files, after.facts.files
    folder = ctx.workdir / "dead-uses"
    written = {}
    for rel in sorted({path for path, _ in wanted}):
        if rel not in new or not is_source(rel) or (rel in old and old[rel].sha == new[rel].sha):
            continue
        try:
            tree = ast.parse((ctx.root / rel).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        text = ast.unparse(tree)
        stripped = ast.unparse(_Idle().visit(tree))
        if stripped != text:
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(stripped, encoding="utf-8")
            written[(folder / rel).resolve().as_posix()] = rel
    if not written:
        return []
    codes = ",".join(sorted({code for _, code in wanted}))
    try:
        run = ctx.run([*lint.ruff_command(ctx), "check", "--isolated", "--no-cache", "--select",
                       codes, "--output-format", "json", "--exit-zero", str(folder)],
                      timeout=60, cwd=folder)
        found = json.loads(run.stdout) if run.returncode == 0 else []
    except (ToolError, json.JSONDecodeError):
        return []
    failures = []
    for item in found:
        path = written.get(Path(str(item.get("filename", ""))).resolve().as_posix())
        if path is not None and (path, item.get("code")) in wanted:
            failures.append(Failure(
                message=f"{path}: {item.get('message')} ({item.get('code')}) once its asserts,"
                        " del statements and empty ifs are taken out: a statement that does "
                        "nothing keeps ruff quiet; remove the unused name instead (lint-game)",
                location=path, path=path, code="lint-game"))
    return failures


def _tests_pass(ctx: VerifyContext) -> bool:
    """Whether this verification's pytest run, if it makes one, passed (both its passes)."""
    if not _runs_pytest(ctx):
        return True
    from ralph_verify.plugins.pytest_run import shared_pytest_run

    try:
        run = shared_pytest_run(ctx)
    except ToolError:
        return False
    return all(r.tool_run.returncode == 0 and not r.partial for r in (run, run.agent_run)
               if r is not None)


#: The product lines the baseline verification's tests ran, for the session's frozen copy.
_REACHED_KEY = StashKey[dict[str, list[int]]]("integrity.reached")


def _measured(ctx: VerifyContext) -> bool:
    """Whether this verification's pytest run measures coverage."""
    return any(c.needs_coverage for c in ctx.checks)
#: What the frozen oracle makes moot: a test removed, renamed, split or merged is judged by
#: the start's test file still passing as it was.
_ORACLE_CODES = frozenset({"removed-test", "fewer-tests"})


#: Findings a release of test files never turns into notes.
_NEVER_RELEASED = frozenset({"gaming", "edited-baseline", "edited-config"})


def _released(ctx: VerifyContext) -> frozenset[str]:
    """The test-side files the user released from the frozen oracle (``allow``,
    ``--allow-test-edits``): their edits count, so findings about them are notes."""
    from ralph_verify.plugins.pytest_run import shared_pytest_run

    try:
        oracle = shared_pytest_run(ctx).oracle
    except ToolError:
        return frozenset()
    return frozenset(oracle.released) if oracle is not None else frozenset()


def _oracle_judges(ctx: VerifyContext) -> bool:
    """Whether this verification's pytest run is judged by the frozen oracle (a session with
    a recovery point, a check that runs pytest)."""
    from ralph_verify.plugins.pytest_run.oracle import session_base

    return _runs_pytest(ctx) and session_base(ctx) is not None


def _runs_pytest(ctx: VerifyContext) -> bool:
    return any(c.name in ("tests", "coverage") or c.needs_coverage for c in ctx.checks)


def compare_collected(then: dict[str, int], now: dict[str, int] | None) -> list[Failure]:
    """More tests skipped than in the baseline verification's pytest run. (Fewer tests are
    not counted: the frozen oracle runs the start's test files, and outside it the source
    comparison names each removed test.)"""
    if now is None or "skipped" not in then:
        return []
    # The baseline's counts are the tests check's, where an xfail is counted apart.
    skipped = then["skipped"] + then.get("xfailed", 0)
    if now.get("skipped", 0) <= skipped:
        return []
    return [Failure(message=f"pytest skipped more tests than at the session's start: "
                            f"{now['skipped']} now, {skipped} then; make them pass "
                            "instead of skipping them", code="more-skipped")]


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--no-integrity", scope="loop", setting=NAME, action="store_false",
                     default=True,
                     help="do not add the integrity check to the loop's checks (by default "
                          "'run' fails any iteration that deletes tests, adds skips or "
                          "suppressions, or loosens tool settings; config: integrity = false)",
                     setting_help="add the integrity check to the loop's checks, so that 'run' "
                                  "fails any iteration that deletes tests, adds skips or "
                                  "suppressions, or loosens tool settings (true by default; "
                                  "--no-integrity on the command line)")
    parser.addoption("--baseline", scope="check", metavar="REF",
                     help="also check integrity against git ref REF (e.g. origin/main for a "
                          "pull request): nothing may be weakened since REF, by the same rules "
                          "as a loop")


@hookimpl
def ralph_register_checks(registry: CheckRegistry) -> None:
    registry.add(CheckType(
        name=NAME, factory=IntegrityCheck, options=IntegrityOptions,
        help="nothing was weakened since the session started: no test deleted, no new skip/"
             "xfail, # noqa, # type: ignore or pragma: no cover, no loosened coverage/ruff/"
             "mypy/pytest setting, no guarded file deleted or edited (on by default in 'run')",
    ))


def config_table(root: Path) -> tuple[dict[str, object] | None, int | None]:
    """``[tool.ralph-verify]`` of ``root``'s pyproject.toml as JSON data (``None``: unreadable),
    and the line of its header."""
    path = root / "pyproject.toml"
    try:
        table: dict[str, object] | None = json.loads(json.dumps(load_table(path), default=str))
    except ConfigError:
        table = None
    line = None
    try:
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if text.strip().startswith(("[tool.ralph-verify", '[tool."ralph-verify"')):
                line = number
                break
    except (OSError, UnicodeDecodeError):
        pass
    return table, line


def _differing(then: dict[str, object], now: dict[str, object], prefix: str = ""
               ) -> list[str]:
    keys = []
    for key in sorted(set(then) | set(now)):
        old, new = then.get(key), now.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            keys += _differing(old, new, f"{prefix}{key}.")
        elif old != new:
            keys.append(prefix + key)
    return keys


def _thawed(ref: object) -> Picture:
    """The picture frozen at the session's start; :class:`FrozenError` when it is not one."""
    from ralph_verify.loop.frozen import FrozenError, thaw
    from ralph_verify.records.integrity import picture_of

    try:
        return picture_of(thaw(ref))
    except ShapeError as exc:
        raise FrozenError(f"the session's frozen copy is not an integrity picture ({exc})"
                          ) from None


def tampered(root: Path, frozen: Picture) -> list[Failure]:
    """Edits to the session's own rules: the ``.ralph`` baseline and ``[tool.ralph-verify]``."""
    failures = []
    where = baseline_path(root).relative_to(root).as_posix()
    try:
        copy = read_baseline(root)
    except ValueError:
        from ralph_verify.records.integrity import Picture

        copy = Picture()  # not a picture: edited
    if copy is None or copy.as_taken() != frozen.as_taken():
        failures.append(Failure(
            message=f"{where} was {'deleted' if copy is None else 'edited'} during the "
                    "session; ralph-verify keeps comparing against the copy it froze at the "
                    "start, leave .ralph/ alone",
            location=where, path=where, code="edited-baseline"))
    then = frozen.config.table if frozen.config is not None else None
    if then is not None:
        now, line = config_table(root)
        if now != then:
            changed = ", ".join(_differing(then, now)) if now is not None else "unreadable"
            at = f"pyproject.toml:{line}" if line else "pyproject.toml"
            failures.append(Failure(
                message=f"[tool.ralph-verify] was edited during the session at {at} "
                        f"({changed}); the session keeps verifying with the configuration "
                        "frozen at its start: restore the table",
                location=at, path="pyproject.toml", line=line, code="edited-config"))
    return failures


@hookimpl
def ralph_session_start(session: Session) -> None:
    from ralph_verify.loop.frozen import freeze
    from ralph_verify.records.integrity import ConfigCopy
    from ralph_verify.records.plugin_state import IntegrityState

    config = session.config
    picture = take_baseline(config, session)
    if IntegrityState.of(session.plugin_state).frozen is not None:
        return  # a resumed session keeps what it froze at its start
    table, _ = config_table(session.root)
    frozen = freeze(session.root, session.id, BASELINE_FILE,
                    encode(replace(picture, config=ConfigCopy(table or {}),
                                   reached=config.stash.get(_REACHED_KEY) or {},
                                   precision=config.stash.get(_PRECISION_KEY) or {})))
    session.plugin_state[NAME] = encode(IntegrityState(
        frozen=frozen,
        baseline=baseline_path(session.root).relative_to(session.root).as_posix(),
        taken_at=picture.taken_at,
        tests=picture.test_total,
        markers=picture.marker_total,
        settings=len(picture.settings)))


def describe(data: object) -> str:
    """What ``status`` shows after ``integrity:``."""
    from ralph_verify.records.plugin_state import IntegrityState, of_json

    state = of_json(IntegrityState, data)
    return (f"baseline of {state.tests} tests, {state.markers} markers and "
            f"suppressions, {state.settings} gating settings, taken "
            f"{state.taken_at} ({state.baseline})")


@hookimpl
def ralph_session_finish(session: Session, verdict: VerdictProposal) -> None:
    """Note in the baseline that its session ended (``check`` says so)."""
    try:
        data = read_baseline(session.root)
    except ValueError:
        return
    if data is not None and data.session == session.id:
        data.finished = verdict.verdict.value
        write_baseline(session.root, data)
