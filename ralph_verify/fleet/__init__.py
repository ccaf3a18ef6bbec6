"""``ralph-verify fleet``: many loops at once, each in its own git worktree or clone and branch;
with ``depends-on``, the driver of ``tasks/``' rulebook with a merge queue (``graph.py``).
A job runs its loop through the ``ralph-verify`` command, never through ``loop/``'s modules.
"""
