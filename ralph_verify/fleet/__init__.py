"""``ralph-verify fleet``: many loops at once, each in its own git worktree or clone and branch;
with ``depends-on``, the driver of ``tasks/``' rulebook with a merge queue (``graph.py``).
A job runs its loop through the ``ralph-verify`` command, never through ``loop/``'s modules.
"""

#: A fleet loop's share of the fleet's ``--total-cost`` (USD): set by the fleet, enforced inside
#: the loop by the fleet plugin on top of its own ``--max-cost``.
COST_SHARE_ENV = "RALPH_FLEET_COST_SHARE"
