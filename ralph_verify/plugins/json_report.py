"""``--json [FILE]``: the verification as JSON (``schema_version``, per check its status,
counts, metric and failures; ``feedback``), on stdout or in a file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ralph_verify.checks.verification import Verification
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.markers import hookimpl
from ralph_verify.redact import redact, redact_data
from ralph_verify.state_files import output_target, write_text_atomic

#: The layout of ``--json``'s verification document.
SCHEMA_VERSION = 1


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--json", scope=("output", "status", "list"), nargs="?", const="-",
                     metavar="FILE",
                     help="write the result as JSON to FILE, or to stdout when no FILE is given: "
                          "the verification (check, run; the terminal summary then goes to "
                          "stderr), the session's state.json (status), or the list (checks, "
                          "plugins)")


@hookimpl
def ralph_configure(config: Config) -> None:
    target = config.get("json")
    if target is not None and target != "-":
        output_target("--json", target, config.invocation_dir)


@hookimpl
def ralph_verification_finish(config: Config, verification: Verification) -> None:
    if config.get("json") is not None:
        data = {"schema_version": SCHEMA_VERSION, **verification.to_json()}
        _write(config, redact(json.dumps(redact_data(data), indent=2)) + "\n")


def write_json(config: Config, data: object) -> None:
    """``data`` as JSON where ``--json`` says: stdout (``-``) or a file."""
    _write(config, json.dumps(data, indent=2) + "\n")


def _write(config: Config, text: str) -> None:
    target = config.get("json")
    if target == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_text_atomic(Path(config.invocation_dir, str(target)), text)
