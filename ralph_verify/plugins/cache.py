"""The verification cache: an unchanged tree is verified without running its tools again.

A ``cacheable`` check is looked up before it runs and stored after (``--no-cache`` turns it
off). In a loop a stored pass is never used, so an entry the agent planted cannot end one
``complete``; stored failures are used."""

from __future__ import annotations

import copy
import time
from collections.abc import Generator

from ralph_verify.checks.api import Check, CheckResult, Status, VerifyContext
from ralph_verify.checks.verification import apply_negation
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser, options_data
from ralph_verify.loop.keys import SESSION_KEY
from ralph_verify.markers import VERSION as __version__
from ralph_verify.markers import hookimpl

NAME = "cache"


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--no-cache", setting=NAME, action="store_false", default=True,
                     help="run every check even when the tree, configs, environment and "
                          "installed packages are the same as at a stored verification "
                          "(config: cache = false)",
                     setting_help="reuse a check's stored result when nothing its result "
                                  "depends on changed (the tree's content, configs, "
                                  "environment variables, interpreter, installed packages, "
                                  "settings); a loop never ends 'complete' on a stored "
                                  "result (true by default; --no-cache on the command line)")


def _session_id(config: Config) -> str | None:
    session = config.stash.get(SESSION_KEY)
    return None if session is None else str(session.id)


def _base_key(ctx: VerifyContext) -> str:
    """Everything but the tree and the check: computed once per verification."""
    import os
    import sys

    from ralph_verify.checks import cache as vc
    config = ctx.config
    python = ctx.python()
    # The verification's settings (--python...), not the output's (--json). Not the timeout
    # either (hook mode gives each stop what is left): a run it cuts short is not stored.
    settings = {dest: config.get(dest) for dest in sorted(
        o.setting.replace("-", "_") for o in config.parser.options
        if o.setting and "verify" in o.scopes and o.setting != "timeout")}
    dists = {id(plugin): f"{dist.project_name} {dist.version}"
             for plugin, dist in config.pluginmanager.list_plugin_distinfo()}
    plugins = sorted((name, dists.get(id(plugin), ""))
                     for name, plugin in config.pluginmanager.list_name_plugin())
    own = [p for p in sys.path if p != os.getcwd()]
    return vc._sha(
        __version__, str(ctx.root.resolve()), _session_id(config), settings, plugins,
        [check.spec.text for check in ctx.checks], vc.environment(),
        vc.interpreter(python), vc.interpreter(sys.executable),
        vc.distributions([*vc.site_folders(python), *own], ctx.root),
        vc.outside_configs(ctx.root))


def _key(check: Check, ctx: VerifyContext, tree: str) -> str:
    from ralph_verify.checks.cache import _sha

    base = ctx.shared("cache: base key", lambda: _base_key(ctx))
    # The table as given (None: the defaults, fixed by ralph-verify's version, in the base key).
    given = check.given_options
    options = None if given is None else options_data(given)
    return _sha(base, tree, check.spec.text, check.type.name, check.type.plugin, options)


def _enabled(check: Check, ctx: VerifyContext) -> bool:
    return bool(check.cacheable) and ctx.config.get(NAME) is not False


def _tree_before(ctx: VerifyContext) -> str | None:
    """The tree's digest before the checks ran; None if it could not be taken (no cache)."""
    return ctx.shared("cache: tree before", lambda: _digest(ctx))


def _digest(ctx: VerifyContext) -> str | None:
    from ralph_verify.checks.cache import tree_digest

    try:
        return tree_digest(ctx.root)
    except (OSError, ValueError):
        return None


@hookimpl(tryfirst=True)
def ralph_verify_check(check: Check, ctx: VerifyContext) -> CheckResult | None:
    """The stored result of ``check`` if nothing it depends on changed, else None."""
    if not _enabled(check, ctx):
        return None
    from ralph_verify.checks import cache as verify_cache
    started = time.perf_counter()
    tree = _tree_before(ctx)
    if tree is None:
        return None
    result = verify_cache.load(ctx.root, _key(check, ctx, tree))
    if result is None or result.status not in (Status.PASSED, Status.FAILED):
        return None
    if _session_id(ctx.config) is not None \
            and apply_negation(check, copy.deepcopy(result)).status is not Status.FAILED:
        return None  # in a loop a stored result may say "not done", never "done"
    result.cached = True
    result.duration_s = max(time.perf_counter() - started, 1e-6)
    return result


@hookimpl(wrapper=True, tryfirst=True, specname="ralph_verify_check")
def store_result(check: Check, ctx: VerifyContext) -> Generator[
        None, CheckResult | None, CheckResult | None]:
    """Store a real run's decided result, if the tree is the one its key was taken from."""
    tree = _tree_before(ctx) if _enabled(check, ctx) else None
    key = None if tree is None else _key(check, ctx, tree)  # before the run builds options
    result = yield
    if (key is not None and result is not None and not result.cached
            and result.status in (Status.PASSED, Status.FAILED)):
        from ralph_verify.checks import cache as verify_cache
        from ralph_verify.checks.verification import clean_result

        if _digest(ctx) == tree:  # no test or other check changed the tree meanwhile
            verify_cache.save(ctx.root, key, clean_result(copy.deepcopy(result)))
    return result
