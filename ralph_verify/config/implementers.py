"""Which plugin implemented a hook: pluggy does not say which implementation is running, so
errors and votes name their plugin through these helpers."""

from __future__ import annotations

import inspect
from types import CodeType, FrameType, TracebackType

import pluggy


def plugin_name_of(pm: pluggy.PluginManager, module: str) -> str:
    """The registered plugin name whose module is ``module`` (or a parent of it)."""
    for name, plugin in pm.list_name_plugin():
        plugin_module = getattr(plugin, "__name__", None) or type(plugin).__module__
        if module == plugin_module or module.startswith(f"{plugin_module}."):
            return name or ""
    return module


def implementers(pm: pluggy.PluginManager, hook_name: str) -> dict[CodeType, str]:
    """The code of each implementation of ``hook_name``, with its plugin's name."""
    codes: dict[CodeType, str] = {}
    for impl in getattr(pm.hook, hook_name).get_hookimpls():
        code = getattr(getattr(impl.function, "__func__", impl.function), "__code__", None)
        if code is not None:
            codes.setdefault(code, impl.plugin_name)
    return codes


def implementer_on_stack(codes: dict[CodeType, str]) -> str:
    """The plugin of the innermost implementation in ``codes`` running now, else ``""``."""
    frame: FrameType | None = inspect.currentframe()  # None: Python keeps no frames
    frame = frame.f_back if frame is not None else None  # the caller's (no cycle)
    while frame is not None:
        if frame.f_code in codes:
            return codes[frame.f_code]
        frame = frame.f_back
    return ""


def implementer_in_traceback(codes: dict[CodeType, str], tb: TracebackType | None) -> str:
    """The plugin of the innermost implementation in ``codes`` that an exception's
    traceback ``tb`` passed through, else ``""``: who crashed inside a hook call."""
    found = ""
    while tb is not None:
        if tb.tb_frame.f_code in codes:
            found = codes[tb.tb_frame.f_code]
        tb = tb.tb_next
    return found
