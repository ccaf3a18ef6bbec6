"""``[tool.ralph-verify.guard]``: the guard's settings, read by the PreToolUse hook."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from ralph_verify.guard.rules import RULES

__all__ = ["GuardSettings"]


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _help(text: str) -> dict[str, str]:
    return {"help": text}


def _known_rules(value: list[str]) -> list[str]:
    unknown = [rule for rule in value if rule not in RULES]
    if unknown:
        raise ValueError(f"unknown guard rule(s) {', '.join(unknown)}; known rules: "
                         f"{', '.join(RULES)}")
    return value


class _KnownRules:
    """``disable``'s type: rules the guard knows (checked when pydantic reads the file)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(_known_rules, handler(source))


@dataclass(frozen=True)
class GuardSettings:
    """``[tool.ralph-verify.guard]``: the PreToolUse safety guard (validated by the type, as
    every setting is: pydantic reads the config below, kebab-case keys, none unknown)."""

    __pydantic_config__: ClassVar[dict[str, object]] = {
        "extra": "forbid", "populate_by_name": True, "alias_generator": _kebab}

    enabled: bool = field(default=True, metadata=_help("false lets every tool call through"))
    disable: Annotated[list[str], _KnownRules()] = field(default_factory=list, metadata=_help(
        "rules to switch off (see 'ralph-verify hook --help')"))
    allow_paths: list[str] = field(default_factory=list, metadata=_help(
        "folders outside the project that may be written to and deleted from"))
    secret_patterns: list[str] | None = field(default=None, metadata=_help(
        "file name patterns that are secrets (replaces the default)"))
    public_patterns: list[str] | None = field(default=None, metadata=_help(
        "patterns that are never secrets (replaces the default)"))
    metadata_hosts: list[str] | None = field(default=None, metadata=_help(
        "cloud metadata addresses (replaces the default)"))
    allow_commands: list[str] = field(default_factory=list, metadata=_help(
        "commands let through whatever they do: patterns matched against one command's "
        "words (e.g. \"docker system prune *\")"))
    allow_hosts: list[str] = field(default_factory=list, metadata=_help(
        "hosts in private network ranges the agent may reach (names, addresses or CIDR "
        "ranges such as 10.0.0.0/8); the metadata service never"))
    refuse_localhost: bool = field(default=False, metadata=_help(
        "refuse requests to this machine (localhost, 127.0.0.1) too; allowed by default for "
        "local dev servers"))
    session_branch_prefix: str | None = field(default=None, metadata=_help(
        "branches where git reset --hard / clean -f are allowed (default: the loop's "
        "branch-prefix, ralph/)"))
