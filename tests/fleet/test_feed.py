"""The feed of a fleet whose tasks depend on each other, in threads: a job put while the
executor waits is taken; iterating ends when it is closed and drained."""

from __future__ import annotations

import threading
import time

from ralph_verify.fleet.feed import JobFeed
from ralph_verify.fleet.job import LoopJob


def _job(name: str) -> LoopJob:
    return LoopJob(fleet_id="f", name=name, folder=".", branch=f"b/{name}", prompt="p",
                   run_args=[], source=".", base="HEAD")


def test_jobs_put_while_the_executor_waits_are_taken_and_only_close_ends_it() -> None:
    feed = JobFeed([_job("T1"), _job("T2")])
    taken: list[str] = []

    def executor() -> None:
        for job in feed:
            taken.append(job.name)

    thread = threading.Thread(target=executor)
    thread.start()
    feed.put(_job("T1"))
    time.sleep(0.3)
    feed.put(_job("T2"))
    deadline = time.monotonic() + 10
    while len(taken) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.6)  # longer than its poll: it still waits for more, until closed
    assert thread.is_alive()
    feed.close()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert taken == ["T1", "T2"]
    assert feed.exhausted and len(feed) == 2


def test_jobs_put_before_the_close_are_still_taken() -> None:
    feed = JobFeed([])
    feed.put(_job("T1"))
    feed.close()
    assert not feed.exhausted
    assert [job.name for job in feed] == ["T1"]
    assert feed.exhausted and feed.take(0) is None
