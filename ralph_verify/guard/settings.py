"""``[tool.ralph-verify.guard]``: the settings of the PreToolUse safety guard (guard.py),
read by the PreToolUse agent hook (hookmode/pretool.py) and declared by the agenthook plugin."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ralph_verify.guard.rules import RULES

__all__ = ["GuardSettings"]


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class GuardSettings(BaseModel):
    """``[tool.ralph-verify.guard]``: the PreToolUse safety guard."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True,
                              alias_generator=_kebab)

    enabled: bool = Field(default=True, description="false lets every tool call through")
    disable: list[str] = Field(default_factory=list,
                               description="rules to switch off (see 'ralph-verify hook --help')")
    allow_paths: list[str] = Field(default_factory=list,
                                   description="folders outside the project that may be written "
                                               "to and deleted from")
    secret_patterns: list[str] | None = Field(
        default=None, description="file name patterns that are secrets (replaces the default)")
    public_patterns: list[str] | None = Field(
        default=None, description="patterns that are never secrets (replaces the default)")
    metadata_hosts: list[str] | None = Field(
        default=None, description="cloud metadata addresses (replaces the default)")
    allow_commands: list[str] = Field(
        default_factory=list, description="commands let through whatever they do: patterns "
                                          "matched against one command's words (e.g. "
                                          "\"docker system prune *\")")
    allow_hosts: list[str] = Field(
        default_factory=list, description="hosts in private network ranges the agent may "
                                          "reach (names, addresses or CIDR ranges such as "
                                          "10.0.0.0/8); the metadata service never")
    refuse_localhost: bool = Field(default=False,
                                   description="refuse requests to this machine (localhost, "
                                               "127.0.0.1) too; allowed by default for local "
                                               "dev servers")
    session_branch_prefix: str | None = Field(
        default=None, description="branches where git reset --hard / clean -f are allowed "
                                  "(default: the loop's branch-prefix, ralph/)")

    @field_validator("disable")
    @classmethod
    def _known_rules(cls, value: list[str]) -> list[str]:
        unknown = [rule for rule in value if rule not in RULES]
        if unknown:
            raise ValueError(f"unknown guard rule(s) {', '.join(unknown)}; known rules: "
                             f"{', '.join(RULES)}")
        return value
