"""The gate a tool started ahead waits behind (:mod:`ralph_verify.proc.ahead`).

Run by the project's interpreter as ``PYTHON gate.py -m MODULE ARGS...``, with the read end
of a pipe in ``$RALPH_VERIFY_GATE``, the command's own interpreter path in
``$RALPH_VERIFY_GATE_PYTHON`` and ralph-verify's pid in ``$RALPH_VERIFY_GATE_PARENT``. It
asks for SIGKILL when ralph-verify dies (what its other tools get from a ``preexec_fn``),
imports what ``-m MODULE`` imports before it runs the module (the tool's package: pytest's
own start, the part worth doing early), then waits for one byte: ``g`` runs the module as
``PYTHON -m MODULE ARGS`` would; anything else, or the end of the pipe (ralph-verify did not
adopt the process, or died), ends it at once.

If that import read anything from the project's folder (the project is the tool, or
shadows it), it was read before ralph-verify had vetted the project's bytecode; and if the
module is not there or its import failed, the error belongs to the real run. In those
cases the gate starts the real command afresh (``exec``) instead. Like the reaper it
imports nothing of ralph-verify, and it runs on every Python the project may use.
"""

from __future__ import annotations

import os
import sys

GATE_VAR = "RALPH_VERIFY_GATE"
PYTHON_VAR = "RALPH_VERIFY_GATE_PYTHON"
PARENT_VAR = "RALPH_VERIFY_GATE_PARENT"
_PR_SET_PDEATHSIG = 1
_SIGKILL = 9


def _die_with_parent(parent: int) -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the end of the pipe still ends us
        pass
    if os.getppid() != parent:
        os._exit(1)  # ralph-verify is gone already


def _from_project(roots: tuple[str, ...]) -> bool:
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and os.path.abspath(path).startswith(roots):
            return True
    return False


def _import_ahead(module: str) -> bool:
    """Import what ``python -m MODULE`` imports before it runs anything as ``__main__``: a
    package (its ``__main__`` runs next), or the package of a module; never a plain module,
    whose import would run its code. Whether anything was imported."""
    import importlib.util

    spec = importlib.util.find_spec(module)  # imports the packages it lies in, as -m does
    if spec is not None and spec.submodule_search_locations is not None:
        __import__(module)
    return spec is not None


def main() -> None:
    fd = int(os.environ.pop(GATE_VAR))
    python = os.environ.pop(PYTHON_VAR)
    _die_with_parent(int(os.environ.pop(PARENT_VAR)))
    module = sys.argv[2]
    command = [python, "-m", *sys.argv[2:]]
    cwd = os.getcwd()
    roots = (os.path.join(cwd, ""), os.path.join(os.path.realpath(cwd), ""))
    if not getattr(sys.flags, "safe_path", False):
        sys.path[0] = cwd  # where 'python -m' puts the current folder (not this file's)
    sys.argv = ["-m", *sys.argv[3:]]  # runpy puts the module's file in argv[0], as -m does
    try:
        afresh = not _import_ahead(module) or _from_project(roots)
    except BaseException:
        afresh = True
    try:
        go = os.read(fd, 1)
    except OSError:
        go = b""
    os.close(fd)
    if go != b"g":
        os._exit(0)
    if afresh:
        os.execv(python, command)
    import runpy
    import types

    # A __main__ of its own, as under -m: not this file's, with its names in it.
    sys.modules["__main__"] = types.ModuleType("__main__")
    runpy._run_module_as_main(module)  # type: ignore[attr-defined]  # what -m itself calls


if __name__ == "__main__":
    main()
