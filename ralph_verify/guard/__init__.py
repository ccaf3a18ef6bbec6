"""The safety guard: decide whether an agent's tool call may run, and the OS sandbox the
agent runs under.

A shell command is parsed with tree-sitter-bash (:mod:`.parse`, :mod:`.words`), its wrappers
and nested scripts unfolded (:mod:`.unfold`, :mod:`.inline`) and each command judged by
its effect (:mod:`.judge`, :mod:`.effects`, :mod:`.net`); :mod:`.decide` is the entry point,
:mod:`.policy`, :mod:`.rules`, :mod:`.families` and :mod:`.settings` what it protects;
:mod:`.stats` the refusal log; :mod:`.agent_hooks` the hook entries agents are given;
:mod:`.sandbox` the bubblewrap sandbox, :mod:`.netproxy` and :mod:`.bridge` its network by host.

Floor 3: imports only the leaves (``errors``, ``redact``, ``state_files``); imported by the
agents, hook mode and plugins.
"""
