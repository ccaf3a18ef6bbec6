"""Hooks, exercised with inline plugin classes registered for one run."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Generator
from pathlib import Path

import pytest

from ralph_verify import (
    Check,
    CheckRegistry,
    CheckResult,
    CheckType,
    Config,
    Failure,
    FileChange,
    InitRegistry,
    InitTarget,
    Status,
    Verification,
    VerifyContext,
    apply_changes,
    hookimpl,
    hookspec,
)
from ralph_verify.testing import Ralph
from tests.loop.test_live_output import SUITE_WAITING_FOR_GO


class AnswerCheck(Check):
    def run(self, ctx: VerifyContext) -> CheckResult:
        value = float(self.spec.arg or 0)
        if self.spec.compare(value):
            return self.result(Status.PASSED, f"answer {value:g}", metric=value)
        return self.result(Status.FAILED, f"answer {value:g}", metric=value,
                           failures=[Failure(message=f"wrong answer {value:g}")])


class AnswerPlugin:
    @hookimpl
    def ralph_register_checks(self, registry: CheckRegistry) -> None:
        registry.add(CheckType(name="answer", factory=AnswerCheck, arg="required",
                               threshold="the answer", help="the answer must be right"))


def test_a_plugin_adds_a_check(ralph: Ralph) -> None:
    assert ralph.run("check", "--until", "answer:42==42", plugins=[AnswerPlugin()]).ret == 0
    result = ralph.run("check", "--until", "answer:41==42", "--json", plugins=[AnswerPlugin()])
    assert result.ret == 1
    assert result.json()["checks"][0]["failures"][0]["message"] == "wrong answer 41"


def test_checks_lists_the_plugin_that_owns_a_check(ralph: Ralph) -> None:
    result = ralph.run("checks", plugins=[AnswerPlugin()])
    assert "answer:ARG[<op>N]  [plugin AnswerPlugin]" in result.out


def test_a_wrapper_sees_every_check(ralph: Ralph) -> None:
    seen: list[str] = []

    class Wrapper:
        @hookimpl(wrapper=True)
        def ralph_verify_check(self, check: Check) -> Generator[None, CheckResult, CheckResult]:
            result = yield
            seen.append(f"{check.spec.text}={result.status.value}")
            result.summary += " (wrapped)"
            return result

    result = ralph.run("check", "--until", "files:pyproject.toml,files:nope", plugins=[Wrapper()])
    assert sorted(seen) == ["files:nope=failed", "files:pyproject.toml=passed"]
    assert "(wrapped)" in result.out


def test_a_plugin_can_answer_a_check_itself(ralph: Ralph) -> None:
    class Cache:
        @hookimpl
        def ralph_verify_check(self, check: Check) -> CheckResult:
            return check.result(Status.PASSED, "from cache")

    result = ralph.run("check", "--until", "files:nope", plugins=[Cache()])
    assert result.ret == 0 and "from cache" in result.out


def test_feedback_can_be_replaced_and_results_are_logged(ralph: Ralph) -> None:
    logged: list[str] = []

    class Custom:
        @hookimpl
        def ralph_format_feedback(self, verification: Verification, budget: int) -> str:
            return f"{len(verification.failed)} failing (budget {budget})"

        @hookimpl
        def ralph_verify_logresult(self, result: CheckResult) -> None:
            logged.append(result.spec)

    result = ralph.run("check", "--until", "files:nope", "--feedback-budget", "99",
                       "--feedback", plugins=[Custom()])
    assert "1 failing (budget 99)" in result.out
    assert logged == ["files:nope"]


def test_configure_and_unconfigure_are_called(ralph: Ralph) -> None:
    calls: list[str] = []

    class Lifecycle:
        @hookimpl
        def ralph_configure(self, config: Config) -> None:
            calls.append(f"configure {config.command.name}")

        @hookimpl
        def ralph_unconfigure(self) -> None:
            calls.append("unconfigure")

    ralph.run("check", "--until", "files:x", plugins=[Lifecycle()])
    assert calls == ["configure check", "unconfigure"]


def test_a_crashing_check_is_an_error_naming_the_plugin(ralph: Ralph) -> None:
    class Broken(Check):
        def run(self, ctx: VerifyContext) -> CheckResult:
            raise ZeroDivisionError("oops")

    class BrokenPlugin:
        @hookimpl
        def ralph_register_checks(self, registry: CheckRegistry) -> None:
            registry.add(CheckType(name="broken", factory=Broken, help="crashes"))

    result = ralph.run("check", "--until", "broken,files:pyproject.toml", "--json",
                       plugins=[BrokenPlugin()])
    assert result.ret == 3
    broken = result.json()["checks"][0]
    assert broken["status"] == "error"
    assert "crashed (ZeroDivisionError: oops); this is a bug in plugin BrokenPlugin" \
        in broken["summary"]
    assert "Traceback" in broken["output"]
    assert result.json()["checks"][1]["status"] == "passed"


def test_unknown_hook_is_refused_with_its_name(ralph: Ralph) -> None:
    class Typo:
        @hookimpl
        def ralph_register_check(self, registry: CheckRegistry) -> None:
            pass

    result = ralph.run("checks", plugins=[Typo()])
    assert result.ret == 2
    assert "ralph_register_check" in result.err and "Typo" in result.err


def test_a_name_taken_twice_names_both_plugins(ralph: Ralph) -> None:
    class Clash:
        @hookimpl
        def ralph_register_checks(self, registry: CheckRegistry) -> None:
            registry.add(CheckType(name="lint2", aliases=("files",), factory=AnswerCheck,
                                   help="x"))

    result = ralph.run("checks", plugins=[Clash()])
    assert result.ret == 2
    assert "check name 'files' of plugin" in result.err
    assert "plugin Clash" in result.err and "plugin files" in result.err


def test_a_plugin_adds_a_setting_read_from_pyproject(ralph: Ralph) -> None:
    got: list[object] = []

    class Settings:
        @hookimpl
        def ralph_addoption(self, parser: object) -> None:
            parser.addoption("--flavour", setting="flavour", default="vanilla")  # type: ignore[attr-defined]  # Parser, untyped here on purpose: the hook passes it by name

        @hookimpl
        def ralph_configure(self, config: Config) -> None:
            got.append(config.get("flavour"))

    ralph.makepyproject('[tool.ralph-verify]\nflavour = "mint"\n')
    ralph.run("check", "--until", "files:x", plugins=[Settings()])
    ralph.run("check", "--until", "files:x", "--flavour", "lemon", plugins=[Settings()])
    assert got == ["mint", "lemon"]


HOOKS = sorted(name for name in vars(hookspec) if name.startswith("ralph_"))
TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_is_documented_as_pytest_does(name: str) -> None:
    """When it is called, each parameter, the answer, and an implementation to copy."""
    spec = getattr(hookspec, name)
    doc = inspect.getdoc(spec) or ""
    summary, _, body = doc.partition("\n\n")
    assert summary.strip() and body.strip(), f"{name}: a summary line, then the details"
    signature = inspect.signature(spec)
    for parameter in signature.parameters:
        assert f":param {parameter}:" in doc, f"{name}: parameter {parameter} is not documented"
    if signature.return_annotation not in ("None", None):
        assert ":returns:" in doc, f"{name} returns {signature.return_annotation}: say what"
    example = re.search(r"::\n\n((?:    .*\n|\n)+)", doc + "\n")
    assert example, f"{name}: no example (a '::' block)"
    assert "@hookimpl" in example.group(1) and f"def {name}(" in example.group(1), \
        f"{name}: the example implements another hook"
    ast.parse(textwrap.dedent(example.group(1)), f"example of {name}")  # it is Python


def _implemented_hooks(path: Path) -> set[str]:
    """The names of the ``@hookimpl``-decorated ``ralph_*`` functions in a test module."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("ralph_") and any(
                "hookimpl" in ast.unparse(decorator) for decorator in node.decorator_list):
            found.add(node.name)
    return found


def test_every_hook_is_exercised_by_a_test() -> None:
    """Each hook has an implementation in a test that runs it through the real CLI."""
    implemented = set().union(*(_implemented_hooks(path) for path in TESTS.rglob("test_*.py")))
    missing = sorted(set(HOOKS) - implemented)
    assert not missing, f"no test implements these hooks: {missing}"


def test_a_plugin_adds_an_init_target_that_never_clobbers_your_text(ralph: Ralph) -> None:
    class EditorConfig:
        @hookimpl
        def ralph_register_init_targets(self, registry: InitRegistry) -> None:
            registry.add(InitTarget("editorconfig", self.write, "write .editorconfig"))

        def write(self, config: Config) -> int:
            path = config.root / ".editorconfig"
            old = path.read_text() if path.exists() else None
            apply_changes([FileChange(path, old, "root = true\n", clobbers=old is not None)],
                          config.root, force=config.option.force,
                          dry_run=config.option.dry_run)
            return 0

    created = ralph.run("init", "editorconfig", plugins=[EditorConfig()])
    assert created.ret == 0, created
    assert (ralph.path / ".editorconfig").read_text() == "root = true\n"
    assert not (ralph.path / "PROMPT.md").exists()  # only the target asked for

    (ralph.path / ".editorconfig").write_text("mine\n")
    refused = ralph.run("init", "editorconfig", plugins=[EditorConfig()])
    assert refused.ret == 2
    assert "ERROR: not changing .editorconfig" in refused.err and "--force" in refused.err
    assert (ralph.path / ".editorconfig").read_text() == "mine\n"

    unknown = ralph.run("init", "vimrc", plugins=[EditorConfig()])
    assert unknown.ret == 2
    assert "unknown init target 'vimrc'; known targets:" in unknown.err
    assert "editorconfig" in unknown.err and "project" in unknown.err


def test_a_reporter_sees_each_finished_verification(ralph: Ralph) -> None:
    reports: list[str] = []

    class Summary:
        @hookimpl
        def ralph_verification_finish(self, config: Config, verification: Verification) -> None:
            reports.append(f"{config.command.name}: {len(verification.results)} checks, "
                           f"failed {[r.spec for r in verification.failed]}")

    ralph.makefile("here.txt", "x")
    result = ralph.run("check", "--until", "files:here.txt,files:nope", plugins=[Summary()])
    assert result.ret == 1
    assert reports == ["check: 2 checks, failed ['files:nope']"]


def test_a_reporter_hears_pytest_progress_while_it_runs(ralph: Ralph) -> None:
    """The third test waits until the reporter has heard of two tests done of four."""
    ralph.makefile("test_progress.py", SUITE_WAITING_FOR_GO)
    heard: list[tuple[str, int, int | None]] = []

    class Progress:
        @hookimpl
        def ralph_report_progress(self, config: Config, name: str, done: int,
                                  total: int | None) -> None:
            heard.append((name, done, total))
            if done >= 2:
                (config.root / "go").write_text("")

    result = ralph.run("check", "--no-cache", "--until", "tests", plugins=[Progress()])
    assert result.ret == 0, result
    assert ("pytest", 2, 4) in heard
