"""The safety guard: decide whether an agent's tool call may run (rules, families, policy,
settings, shell parsing) and the OS sandbox the agent runs under.

Imports only leaves, ``config`` and ``proc``; imported by hook mode and plugins.
"""
