"""``ralph-verify fleet``: many loops at once, each in its own git worktree or clone and branch.

- :mod:`~ralph_verify.fleet.tasks`: the fleet file and ``--matrix``;
- :mod:`~ralph_verify.fleet.job`: one loop, run anywhere, returned as data and commits;
- :mod:`~ralph_verify.fleet.executor`: the executor protocol and registry;
- :mod:`~ralph_verify.fleet.run`: the records, fleet-wide limits and cancel;
- :mod:`~ralph_verify.fleet.outputs` and :mod:`~ralph_verify.fleet.html`: the fleet's files;
- :mod:`~ralph_verify.fleet.status`: ``fleet status`` and ``fleet cancel``;
- :mod:`~ralph_verify.fleet.graph`, :mod:`~ralph_verify.fleet.feed` and
  :mod:`~ralph_verify.fleet.merge`: a task file with ``depends-on``: the graph, the jobs
  fed to the executor as they become ready, the merge queue onto the integration branch;
- :mod:`~ralph_verify.fleet.dask_executor`: the ``dask`` executor, a plugin loaded only
  through its entry point (``pip install 'ralph-verify[dask]'``).

Floor 6: imports config, project, proc, the leaves and ``tasks/`` (one loader reads a
fleet file and a task list); a job runs its loop through the
``ralph-verify`` command, not through the loop's modules; imported by the fleet plugins
and the hook specifications.
"""
