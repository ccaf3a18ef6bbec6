"""``ralph-verify check``: verify the project once, without an agent (CI, pre-commit, hooks);
and the options every verifying command shares (``--until``, ``-q``, ``-v``)."""

from __future__ import annotations

from ralph_verify.checks.registry import build_checks, registry_of, until_specs
from ralph_verify.checks.verification import verify
from ralph_verify.cli import verification_exit_code
from ralph_verify.config import TABLE_HINT, Config
from ralph_verify.config.parser import Once, Parser
from ralph_verify.config.until import CheckSpec
from ralph_verify.loop.keys import SESSION_KEY
from ralph_verify.markers import hookimpl


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "check", run_check, scopes=("verify", "output", "check"),
        help="verify the project once, without an agent (CI, hooks)",
        description="Run the checks of --until (or [tool.ralph-verify] until; with neither, "
                    "what 'ralph-verify init' finds the project has) once against the "
                    "working tree and print one line per check, each failing one followed by "
                    "its failures as its tool reports them (--feedback: also the text an "
                    "agent would read). An unchanged tree is answered from the verification cache "
                    "('(cached)'; --no-cache runs everything).\n\nexamples:\n"
                    "  ralph-verify check --until tests,lint,types,coverage.min=80\n"
                    "  ralph-verify check --until 'tests>=120,files:src/app.py,"
                    "!files:jest.config.js,cmd:\"make docs\"' --json\n"
                    "  ralph-verify check --until tests,lint --baseline origin/main",
    )
    parser.addoption("--until", setting="until", setting_type=list[str] | str, metavar="SPECS",
                     action=Once,
                     help="comma-separated checks that must pass, e.g. "
                          "tests,lint,types,coverage.min=80 (quote operators in a shell: "
                          "'coverage>=80'; see 'ralph-verify checks')")
    parser.addoption("-q", "--quiet", scope="output", action="count", default=0,
                     help="less output, as pytest's -q: no header (check), no agent lines "
                          "(run); -qq prints nothing but errors (the exit code tells the "
                          "verdict)")
    parser.addoption("--color", "--colour", scope="output", type=colour_word,
                     default="auto", metavar="WHEN",
                     help="colour the status words: auto (a terminal, unless NO_COLOR is set; "
                          "FORCE_COLOR=1 forces it), always (or yes), never (or no)")
    parser.addoption("-v", "--verbose", scope="output", action="count", default=0,
                     help="more output, as pytest's -v: check shows each failure's excerpt "
                          "and every failure, -vv uncut; run shows each check's line and "
                          "failures as it is decided, and the feedback's size")
    parser.addoption("--feedback", scope="check", action="store_true", default=False,
                     help="also print the feedback an agent would read (the prompt's text: "
                          "failures folded, quoted and cut to --feedback-budget)")


#: ``--color``'s words: pytest's (yes, no, auto) and ruff's (always, never, auto).
_COLOUR_WORDS = {"auto": "auto", "always": "always", "yes": "always", "never": "never",
                 "no": "never"}


def colour_word(text: str) -> str:
    """argparse type of ``--color``: either tool's spelling, as ``always|never|auto``."""
    try:
        return _COLOUR_WORDS[text.lower()]
    except KeyError:
        import argparse

        raise argparse.ArgumentTypeError(
            f"expected auto, always (yes) or never (no), got {text!r}") from None


def _asked_or_detected(config: Config) -> list[CheckSpec]:
    """``--until``, else the file's ``until``, else what ``init`` finds the project has
    (``tests`` when it has tests, ``lint``, ``types`` with a mypy config ...), said in one
    line: a first ``check`` needs no configuration."""
    if config.source_of("until") != "default":
        return until_specs(config)
    from ralph_verify.config.until import parse_until
    from ralph_verify.plugins.init import detected_until
    from ralph_verify.project.detect import detect

    until = ",".join(detected_until(detect(config.root, ())))
    config.hook.ralph_report_line(
        config=config, line=f"no --until and no until in {TABLE_HINT}: checking what "
                            f"'ralph-verify init' finds here: {until}")
    specs = parse_until(until, source="what the project has")
    for spec in specs:
        registry_of(config).resolve(spec)
    return specs


def run_check(config: Config) -> int:
    from ralph_verify.proc import signals

    specs = _asked_or_detected(config)
    if config.get("baseline"):
        from ralph_verify.config.until import parse_spec
        from ralph_verify.integrity.git_baseline import REF_PICTURE_KEY, take_ref_picture
        from ralph_verify.plugins.integrity import options_of

        options = options_of(config)
        config.stash[REF_PICTURE_KEY] = take_ref_picture(
            config.root, str(config.get("baseline")), protected=options.protected,
            keep=options.keep, allow=options.allow)
        if not any(spec.name == "integrity" for spec in specs):
            specs = [*specs, parse_spec("integrity", source="--baseline")]
    for spec in specs:
        check_type = registry_of(config).resolve(spec)
        if spec.arg is not None and spec.arg in check_type.loop_args \
                and config.stash.get(SESSION_KEY) is None:
            from ralph_verify.errors import UsageError

            raise UsageError(
                f"{spec.text!r} judges against a session's baseline, so it works only in a loop "
                f"(ralph-verify run or start); for one verification use {check_type.name!r}")
    checks = build_checks(config, specs)
    # SIGTERM and SIGHUP (a closed terminal) stop like Ctrl-C: every tool killed, temp
    # folders removed, exit 130.
    with signals.cancel_on_signals(lambda name: True):
        verification = verify(config, checks)
    config.hook.ralph_report_verification(config=config, session=None, iteration=None,
                                          verification=verification)
    config.hook.ralph_verification_finish(config=config, verification=verification)
    return verification_exit_code(verification.passed, bool(verification.errored))
