"""The fleet (``ralph-verify fleet``): what runs many loops at once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.markers import hookspec

if TYPE_CHECKING:
    from ralph_verify.fleet.executor import ExecutorRegistry


@hookspec
def ralph_register_executors(registry: ExecutorRegistry) -> None:
    """Declare fleet executors: what runs the loops of ``ralph-verify fleet``.

    ``local`` is built in (a pool of child processes, ``-j`` at once); ``dask`` is a
    plugin that only the ``dask`` entry point of the ``ralph_verify`` group loads
    (``ralph_verify.fleet.dask_executor``; ``pip install 'ralph-verify[dask]'``).

    :param registry: call ``registry.add(ExecutorType(name, factory, help))``;
        ``--executor NAME`` then calls ``factory()`` for an :class:`~ralph_verify.Executor`:
        an object with a ``mode`` (``"worktree"`` on the repository's machine, ``"clone"``
        elsewhere) and a ``run(jobs, fleet)`` method. A name registered twice is an error
        naming it.

    An executor runs each job with :func:`~ralph_verify.run_job` wherever it likes and
    hands every result to ``fleet.finished(job, result)`` (a
    :class:`~ralph_verify.FleetContext`) as soon as it has it::

        @hookimpl
        def ralph_register_executors(registry):
            registry.add(ExecutorType("inline", Inline, "one loop after another"))

        class Inline:
            mode = "worktree"

            def run(self, jobs, fleet):
                for job in jobs:
                    job = fleet.prepare(job)
                    if job is not None:
                        fleet.started(job, "here")
                        fleet.finished(job, run_job(job))
    """
