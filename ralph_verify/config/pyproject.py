"""Reading and validating ``[tool.ralph-verify]`` in ``pyproject.toml``.

The accepted keys are the settings plugins declared, plus one table per check
under ``checks``; both are validated with pydantic, and an error names the file,
the key and what was expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.errors import ConfigError

if TYPE_CHECKING:
    from pydantic import ValidationError

    from ralph_verify.config.parser import Setting

TABLE = "[tool.ralph-verify]"


def load_table(path: Path) -> dict[str, Any]:
    """The ``[tool.ralph-verify]`` table of ``path`` (empty if the file or table is absent)."""
    if not path.is_file():
        return {}
    from ralph_verify.compat import tomllib  # not at import: --help reads no file
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: not UTF-8 text (byte {exc.start})") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply for the TOML "
                          "reader") from None
    table = data.get("tool", {}).get("ralph-verify", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {TABLE} must be a table, not {type(table).__name__}")
    return table


def validate_settings(table: Mapping[str, Any], settings: Mapping[str, Setting],
                      path: Path) -> dict[str, Any]:
    """Validated setting values by ``dest`` (snake_case); only keys present in the file."""
    if not table:
        return {}  # nothing to validate: pydantic is not even imported
    from pydantic import ConfigDict, Field, ValidationError, create_model

    fields: dict[str, Any] = {
        setting.dest: (setting.value_type | None, Field(default=None, alias=setting.key))
        for setting in settings.values()
    }
    fields["checks"] = (dict[str, dict[str, Any]], Field(default_factory=dict))
    model = create_model(
        "RalphVerifySettings",
        __config__=ConfigDict(extra="forbid", populate_by_name=True, strict=False),
        **fields,
    )
    try:
        validated = model.model_validate(dict(table))
    except ValidationError as exc:
        known = sorted([*settings, "checks"])
        raise ConfigError(describe_validation_error(exc, path, TABLE, known)) from None
    present = validated.model_fields_set
    return {name: getattr(validated, name) for name in present if name != "checks"}


def describe_validation_error(exc: ValidationError, path: Path, where: str,
                              known: list[str]) -> str:
    """One line per problem: the file, the table, the key, what was expected."""
    lines = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        if error["type"] == "extra_forbidden":
            import difflib

            close = difflib.get_close_matches(str(error["loc"][0]), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            lines.append(f"{path}: {where}: unknown key {key!r}{hint}; "
                         f"known keys: {', '.join(known)}")
        else:
            lines.append(f"{path}: {where} {key}: {error['msg'].lower()} "
                         f"(got {error.get('input')!r})")
    return "\n".join(lines)
