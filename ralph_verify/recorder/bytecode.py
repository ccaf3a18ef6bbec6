"""ralph-verify's bytecode prefix inside the project's interpreter, for the project's code only.

ralph-verify runs pytest with a bytecode prefix of its own, in which no ``.pyc`` of the
project can be stale (:func:`ralph_verify.project.caches.bytecode_prefix`). Python's
``PYTHONPYCACHEPREFIX`` would move *every* module's bytecode there, and a cold cache would
compile pytest and the standard library again. So instead this
file is written into the plugin folder as ``sitecustomize`` (the folder is first on
``PYTHONPATH``); at interpreter start it sets ``sys.pycache_prefix`` to
``$RALPH_VERIFY_PYCACHE_PREFIX`` for the files under ``$RALPH_VERIFY_PYCACHE_ROOTS``
(the project root, ``os.pathsep``-separated spellings of it) outside the interpreter's own
environment, and leaves every other file's bytecode where Python keeps it without the
prefix (its ``__pycache__``, or a prefix of the user's own ``PYTHONPYCACHEPREFIX``). The
same holds for the modules pytest rewrites (test files, conftest files, plugins): those of
the project are cached in the prefix, the others where pytest keeps them. Then the
``sitecustomize`` this one hides, if any, runs as it would have.

Like the recorder it imports nothing but the standard library, and does nothing when
imported under its package name.
"""

from __future__ import annotations

import os
import sys

#: ``typing`` is not imported at run time: every Python start with the plugin folder on
#: ``PYTHONPATH`` runs this file. Type checkers read the name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PREFIX_ENV = "RALPH_VERIFY_PYCACHE_PREFIX"
ROOTS_ENV = "RALPH_VERIFY_PYCACHE_ROOTS"
#: The module pytest caches rewritten modules from (``get_cache_dir`` since pytest 6).
PYTEST_REWRITE = "_pytest.assertion.rewrite"


class ProjectPrefix:
    """Which sources get their bytecode in ``prefix``: those under ``roots`` but not under
    the interpreter's own environment; the others go where ``outer`` (the user's own
    prefix, or None) puts them."""

    def __init__(self, prefix: str, roots: list[str], outer: str | None,
                 environments: list[str]) -> None:
        self.prefix = prefix
        self.outer = outer
        self.roots = tuple(_folder(root) for root in roots if root)
        # Only an environment inside the project is carved out of it (a project inside a
        # virtualenv's folder stays the project).
        self.outside = tuple(_folder(env) for env in environments
                             if env and _folder(env).startswith(self.roots))

    def covers(self, path: str) -> bool:
        if not os.path.isabs(path):
            path = os.path.join(os.getcwd(), path)
        return path.startswith(self.roots) and not path.startswith(self.outside)

    def elsewhere(self, folder: str) -> str:
        """Where Python keeps the bytecode of the sources in ``folder`` when ralph-verify's
        prefix does not cover them."""
        if self.outer:
            return os.path.join(self.outer, os.path.abspath(folder).lstrip(os.sep))
        return os.path.join(folder, "__pycache__")

    def moved(self, path: str, cached: str) -> str:
        """Where the bytecode of ``path``, a source the prefix does not cover, goes
        (``cached``: its name in our prefix); :meth:`elsewhere` of its folder."""
        if self.outer is None and path.startswith(os.sep):
            # Every import of a source outside the project comes here: string operations only.
            return f"{path.rpartition(os.sep)[0]}{os.sep}__pycache__{os.sep}" \
                   f"{cached.rpartition(os.sep)[2]}"
        return os.path.join(self.elsewhere(os.path.dirname(path)), os.path.basename(cached))


def _folder(path: str) -> str:
    return path.rstrip(os.sep) + os.sep


def router(prefix: ProjectPrefix, original: Any) -> Any:
    """importlib's ``cache_from_source`` (``original``, which sees ``sys.pycache_prefix``
    set to ours) with the bytecode of the files ``prefix`` does not cover put back where
    Python keeps it without our prefix."""
    def cache_from_source(path: Any, debug_override: Any = None, *,
                          optimization: Any = None) -> str:
        cached: str = original(path, debug_override, optimization=optimization)
        path = os.fspath(path)
        return cached if prefix.covers(path) else prefix.moved(path, cached)

    return cache_from_source


def install(prefix: ProjectPrefix) -> None:
    """Route bytecode: importlib's ``cache_from_source`` (every source import), and pytest's
    cache of rewritten modules once pytest imports it."""
    sys.pycache_prefix = prefix.prefix
    try:  # importlib's own (private: listed in docs/architecture.md), already loaded
        import _frozen_importlib_external as bootstrap
    except ImportError:  # another interpreter: every module's bytecode goes to the prefix
        return
    original = getattr(bootstrap, "cache_from_source", None)
    if callable(original):
        bootstrap.cache_from_source = router(prefix, original)
    sys.meta_path.insert(0, _PytestRewriteWatch(prefix))


class _PytestRewriteWatch:
    """Finds nothing itself: when pytest's assertion rewriter is imported, it points the
    rewriter's cache of modules outside the project back where pytest keeps them."""

    def __init__(self, prefix: ProjectPrefix) -> None:
        self.prefix = prefix
        self.done = False

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != PYTEST_REWRITE or self.done:
            return None
        self.done = True  # once, and not again while asking the other finders
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None) if finder is not self else None
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        execute = getattr(loader, "exec_module", None)
        if execute is None:
            return spec
        prefix = self.prefix

        def exec_module(module: Any) -> None:
            execute(module)
            original = getattr(module, "get_cache_dir", None)
            if original is None:
                return

            def get_cache_dir(file_path: Any) -> Any:
                if prefix.covers(str(file_path)):
                    return original(file_path)
                return type(file_path)(prefix.elsewhere(str(file_path.parent)))

            module.get_cache_dir = get_cache_dir

        loader.exec_module = exec_module
        return spec


def run_hidden_sitecustomize(here: str) -> None:
    """Run the ``sitecustomize`` that ours hides (the next one on ``sys.path``), as Python
    would have; it then stands in ``sys.modules`` under its name."""
    from importlib.machinery import PathFinder

    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    import importlib.util

    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


def start(here: str) -> None:
    prefix = os.environ.get(PREFIX_ENV)
    roots = os.environ.get(ROOTS_ENV, "").split(os.pathsep)
    if prefix and any(roots):
        environments = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix]
        install(ProjectPrefix(prefix, roots, sys.pycache_prefix, environments))
    run_hidden_sitecustomize(here)


if __name__ == "sitecustomize":
    start(os.path.dirname(os.path.abspath(__file__)))
