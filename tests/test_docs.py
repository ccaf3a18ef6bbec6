"""The docs: generated pages are up to date, nothing a user can set or implement is undocumented,
and every relative link resolves."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ralph_verify.checks.registry import registry_of
from ralph_verify.config.parser import option_help

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_docs"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated(gen_docs: ModuleType) -> dict[Path, str]:
    pages: dict[Path, str] = gen_docs.pages()
    return pages


@pytest.fixture(scope="module")
def config(gen_docs: ModuleType) -> Any:
    config = gen_docs._config()
    yield config
    config.hook.ralph_unconfigure(config=config)


def test_generated_pages_are_committed_and_up_to_date(generated: dict[Path, str]) -> None:
    stale = [path.relative_to(ROOT).as_posix() for path, text in generated.items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    assert not stale, (f"out of date: {', '.join(stale)}; run 'python scripts/gen_docs.py' "
                       "and commit the result")


def test_every_setting_is_documented(config: Any) -> None:
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    for key, setting in config.parser.settings.items():
        assert f"#### `{key}`" in text, f"setting {key!r} is missing from configuration.md"
        assert setting.help.strip(), f"setting {key!r} of {setting.plugin} has no help"


def test_every_check_option_is_documented(config: Any) -> None:
    from ralph_verify import CheckOptions

    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    common = set(CheckOptions.model_fields)
    for check_type in registry_of(config).types():
        table = f"### `[tool.ralph-verify.checks.{check_type.name}]`"
        assert table in text
        section = text.split(table, 1)[1].split("\n### ", 1)[0]
        for key, help_text in option_help(check_type.options).items():
            assert help_text, f"option {key} of check {check_type.name} has no description"
            if key not in common:
                assert f"- `{key}` (" in section, f"{table} lacks {key}"


def test_every_option_of_every_command_is_documented(config: Any) -> None:
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    for name, command in config.parser.commands.items():
        assert f"### `ralph-verify {name}`" in text
        for option in config.parser.options:
            if set(option.scopes) & set(command.scopes) and option.flags[0].startswith("-"):
                assert f"`{option.flags[-1]}" in text, (name, option.flags)


def test_each_command_family_has_a_page_ending_with_its_options(config: Any,
                                                                gen_docs: ModuleType) -> None:
    # run, check, a session's commands, hook mode: one page each, the options generated.
    documented = {name for names in gen_docs.COMMAND_PAGES.values() for name in names}
    assert {"run", "check", "status", "report", "rollback", "recover", "cancel", "start",
            "hook", "slash"} <= documented
    for page, commands in gen_docs.COMMAND_PAGES.items():
        options = (DOCS / page).read_text(encoding="utf-8").split(gen_docs.OPTIONS_MARK)[1]
        for command in commands:
            assert f"### `ralph-verify {command}`" in options, (page, command)
            for option in config.parser.options:
                if (set(option.scopes) & set(config.parser.commands[command].scopes)
                        and option.flags[0].startswith("-")):
                    assert f"`{option.flags[-1]}" in options, (page, option.flags)


def test_every_hook_is_documented() -> None:
    from ralph_verify import hookspec

    text = (DOCS / "hooks.md").read_text(encoding="utf-8")
    hooks = [name for name in vars(hookspec) if name.startswith("ralph_")]
    assert len(hooks) > 10
    for name in hooks:
        assert f"### `{name}`" in text, f"hook {name} is missing from hooks.md"
        assert (getattr(hookspec, name).__doc__ or "").strip(), f"hook {name} has no docstring"


def test_every_check_and_agent_has_its_page(config: Any, gen_docs: ModuleType) -> None:
    checks = (DOCS / "checks.md").read_text(encoding="utf-8")
    for check_type in registry_of(config).types():
        assert f"## `{check_type.name}`" in checks
    agents = gen_docs._agent_types(config)
    assert {"claude", "codex", "cmd", "replay"} <= {a.name for a in agents}
    index = (DOCS / "agents" / "index.md").read_text(encoding="utf-8")
    for agent in agents:
        assert (DOCS / "agents" / f"{agent.name}.md").is_file()
        assert f"[`{agent.name}`]({agent.name}.md)" in index


def test_a_setting_without_help_fails_the_generator(gen_docs: ModuleType, config: Any) -> None:
    from ralph_verify.config.parser import Setting

    config.parser.settings["silent"] = Setting("silent", int, 1, "", "someplugin")
    try:
        with pytest.raises(gen_docs.Undocumented, match="setting 'silent' has no help"):
            gen_docs.configuration(config)
    finally:
        del config.parser.settings["silent"]


def test_relative_links_resolve() -> None:
    broken = []
    for page in [*DOCS.rglob("*.md")]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, broken


def test_the_generator_command_line_checks(gen_docs: ModuleType,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert gen_docs.main(["--check"]) == 0
    assert capsys.readouterr().out == ""
