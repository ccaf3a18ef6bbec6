"""Process plumbing: run a tool in its own process group with a timeout, what we know of
other processes, the agent's watchdog and clean stops on signals.

The ground floor: imports only the standard library and the leaves (``errors``, ``redact``,
``compat``); anything may import it.
"""
