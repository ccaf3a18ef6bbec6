"""One verification: every check run against one working tree, concurrently. The core knows
no tool: it asks ``ralph_verify_check`` for each result and ``ralph_format_feedback`` for the
text the agent reads."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.api import Check, CheckResult, Failure, Status, VerifyContext
from ralph_verify.config.stash import StashKey
from ralph_verify.records.codec import encode
from ralph_verify.redact import redactor
from ralph_verify.state_files import utc_now_iso
from ralph_verify.terminal_text import strip_controls

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.proc.process import ProcessGroup

#: What is kept of one text (head and tail), and of one check's failures (the rest: ``unkept``).
KEEP_CHARS = 8000
MAX_KEPT_FAILURES = 5000


@dataclass
class Verification:
    """The results of all checks against one tree; passed only if every check passed."""

    root: Path
    results: list[CheckResult]
    duration_s: float = 0.0
    started_at: str = field(default_factory=utc_now_iso)
    feedback: str = ""

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.results)

    @property
    def failed(self) -> list[CheckResult]:
        return [r for r in self.results if r.status is Status.FAILED]

    @property
    def errored(self) -> list[CheckResult]:
        return [r for r in self.results if r.status is Status.ERROR]

    def record(self) -> VerificationRecord:
        return VerificationRecord(passed=self.passed, root=str(self.root),
                                  started_at=self.started_at,
                                  duration_s=round(self.duration_s, 3), checks=self.results,
                                  feedback=self.feedback)

    def to_json(self) -> dict[str, Any]:
        """Its JSON form: ``check --json``, ``iterations/NNN/verification.json``."""
        data: dict[str, Any] = encode(self.record())
        return data


@dataclass(kw_only=True)
class VerificationRecord:
    """A verification as saved (``iterations/NNN/verification.json``, ``check --json``)."""

    passed: bool = False
    root: str
    started_at: str = ""
    duration_s: float = 0.0
    checks: list[CheckResult]
    feedback: str = ""

    def verification(self) -> Verification:
        return Verification(root=Path(self.root), results=self.checks,
                            duration_s=self.duration_s, started_at=self.started_at,
                            feedback=self.feedback)


@dataclass
class Reuse:
    """The last verification's decided results, answering the next one on the same tree and
    settings when the caller ``armed`` it (no agent ran in between: ``run --tasks``' next
    gate). Held in memory, out of the agent's reach, and for one verification only."""

    state: str = ""
    results: dict[str, CheckResult] = field(default_factory=dict)
    armed: bool = False


#: Set by a caller whose verifications may answer the next one (:class:`Reuse`).
REUSE_KEY = StashKey[Reuse]("checks.reuse")
#: Counts of a result judged against a session's start, not the tree alone: never reused.
SESSION_BOUND = ("frozen", "released")


def _state(config: Config) -> str:
    """What a reusable result depends on besides its spec: the tree and the settings."""
    from ralph_verify.checks.cache import tree_digest

    try:
        tree = tree_digest(config.root)
    except (OSError, ValueError):
        return ""
    settings = [(o.setting, config.get(o.setting.replace("-", "_")))
                for o in config.parser.options if o.setting and "verify" in o.scopes]
    return f"{tree} {settings!r}"


def _reused(config: Config, checks: Sequence[Check]) -> tuple[str, dict[int, CheckResult]]:
    """The state now, and what :class:`Reuse` answers for the cacheable ``checks``."""
    memo = config.stash.get(REUSE_KEY)
    if memo is None:
        return "", {}
    state = _state(config)
    if not memo.armed or not state or state != memo.state:
        return state, {}
    found = {i: memo.results.get(check.spec.text) for i, check in enumerate(checks)
             if check.cacheable}
    return state, {i: _copy(result, cached=True, duration_s=0.0)
                   for i, result in found.items() if result}


def _copy(result: CheckResult, **changes: Any) -> CheckResult:
    """A copy whose lists a later step may change (``mark_pre_existing``) apart."""
    return replace(result, failures=list(result.failures), counts=dict(result.counts),
                   flaky=list(result.flaky), **changes)


def _keep(config: Config, state: str, checks: Sequence[Check],
          results: list[CheckResult]) -> None:
    """Keep this verification's decided results for the next, when no check moved the tree."""
    memo = config.stash.get(REUSE_KEY)
    if memo is None:
        return
    bound = any(result.counts.get(name) for result in results for name in SESSION_BOUND)
    memo.armed = False
    memo.state = "" if bound or _state(config) != state else state
    memo.results = {check.spec.text: _copy(result)
                    for check, result in zip(checks, results, strict=True)
                    if check.cacheable and result.status in (Status.PASSED, Status.FAILED)}


def apply_negation(check: Check, result: CheckResult) -> CheckResult:
    """``!name`` passes where ``name`` fails and fails where it passes; errors stay errors."""
    if (not check.spec.negated or check.handles_negation
            or result.status not in (Status.PASSED, Status.FAILED)):
        return result
    if result.status is Status.PASSED:
        result.status = Status.FAILED
        result.summary = f"must not hold, but: {result.summary}"
        result.failures = [Failure(message=f"{check.spec.text}: {result.summary}")]
    else:
        result.status = Status.PASSED
        result.summary = f"not met, as required: {result.summary}"
        result.failures = []
    return result


def verify(config: Config, checks: Sequence[Check]) -> Verification:
    """Run ``checks`` concurrently, the costliest first; Ctrl-C kills every tool started."""
    import tempfile  # not at import: it pulls in shutil and random (--help needs neither)

    started = time.perf_counter()
    state, results = _reused(config, checks)
    config.hook.ralph_report_verification_start(config=config, checks=list(checks))
    for result in results.values():
        config.hook.ralph_verify_logresult(result=result)
    with tempfile.TemporaryDirectory(prefix="ralph-verify-") as folder:
        tmp = Path(folder)
        ctx = VerifyContext(config, checks, tmp)
        with _running_lock:
            _running[id(ctx)] = (tmp, ctx.processes)
        order = sorted((i for i in range(len(checks)) if i not in results),
                       key=lambda i: -checks[i].cost)
        workers = max(1, min(len(checks), int(config.get("jobs") or len(checks) or 1)))
        # Checks that must run alone do, one at a time, once all the others have finished.
        batches = [[i for i in order if not checks[i].alone]]
        batches += [[i] for i in order if checks[i].alone]
        try:
            for batch in batches:
                _run_batch(config, checks, batch, ctx, workers, results)
        finally:
            with _running_lock:
                _running.pop(id(ctx), None)
            ctx.cleanup.close()
    verification = Verification(root=config.root,
                                results=[results[i] for i in range(len(checks))],
                                duration_s=time.perf_counter() - started)
    _keep(config, state, checks, verification.results)
    budget = int(config.get("feedback_budget"))
    verification.feedback = config.hook.ralph_format_feedback(
        verification=verification, budget=budget) or ""
    return verification


#: The verifications running in this process: their work folder and their tools, for
#: :func:`abandon_running`.
_running: dict[int, tuple[Path, ProcessGroup]] = {}
_running_lock = threading.Lock()


def abandon_running() -> None:
    """Kill the running verifications' tools and remove their folders, for a caller about to
    ``os._exit`` (no ``finally`` runs). Never raises."""
    import shutil

    with _running_lock:
        running = list(_running.values())
    for folder, processes in running:
        processes.kill_all()  # never raises (kill_process_group)
        shutil.rmtree(folder, ignore_errors=True)


def _run_batch(config: Config, checks: Sequence[Check], batch: list[int], ctx: VerifyContext,
               workers: int, results: dict[int, CheckResult]) -> None:
    """Run ``batch`` on up to ``workers`` threads, logging each result on this thread. An
    exception (or Ctrl-C) kills every tool, drops the checks not started and is raised."""
    if not batch:
        return
    todo = batch[::-1]  # popped from the end: in the order given
    done: list[tuple[int, CheckResult | None, BaseException | None]] = []
    ready = threading.Condition()

    def work() -> None:
        while True:
            with ready:
                if not todo:
                    return
                index = todo.pop()
            try:
                config.hook.ralph_report_check_start(config=config, check=checks[index])
                outcome: tuple[int, CheckResult | None, BaseException | None] = (
                    index, _run_one(config, checks[index], ctx), None)
            except BaseException as exc:
                outcome = (index, None, exc)
            with ready:
                done.append(outcome)
                ready.notify()

    threads = [threading.Thread(target=work, name=f"ralph-check_{n}")
               for n in range(min(workers, len(batch)))]
    for thread in threads:
        thread.start()
    try:
        for _ in batch:
            with ready:
                while not done:
                    ready.wait(timeout=0.2)  # a short timeout keeps Ctrl-C responsive
                index, result, error = done.pop(0)
            if error is not None:
                raise error
            assert result is not None
            results[index] = result
            config.hook.ralph_verify_logresult(result=result)
    except BaseException:
        with ready:
            todo.clear()
        ctx.processes.kill_all()
        raise
    finally:
        for thread in threads:
            thread.join()


def _run_one(config: Config, check: Check, ctx: VerifyContext) -> CheckResult:
    result: CheckResult | None = config.hook.ralph_verify_check(check=check, ctx=ctx)
    if result is None:
        return check.error(f"no plugin ran check {check.spec.text!r}")
    return clean_result(apply_negation(check, result))


def clean_result(result: CheckResult) -> CheckResult:
    """``result`` with secrets redacted and terminal controls stripped from all its text,
    once, as it leaves its check: every reader sees the same clean text."""
    hide = redactor()

    def clean(text: str, limit: int = KEEP_CHARS) -> str:
        text = strip_controls(hide(text))
        if len(text) <= limit:
            return text
        note = f"\n[... {len(text) - limit} characters cut ...]\n"
        return text[: limit // 4] + note + text[-(limit - limit // 4):]

    def maybe(text: str | None) -> str | None:
        return None if text is None else clean(text, 1000)

    result.summary = clean(result.summary, 1000)
    result.output = clean(result.output)
    result.flaky = [clean(name, 1000) for name in result.flaky[:MAX_KEPT_FAILURES]]
    if len(result.failures) > MAX_KEPT_FAILURES:
        result.unkept += len(result.failures) - MAX_KEPT_FAILURES
        del result.failures[MAX_KEPT_FAILURES:]

    def cleaned(f: Failure) -> Failure:
        message, detail = clean(f.message, 1000), clean(f.detail)
        location, path, code = maybe(f.location), maybe(f.path), maybe(f.code)
        if (message is f.message and detail is f.detail and location is f.location
                and path is f.path and code is f.code):
            return f  # nothing to hide or strip (most failures): no copy
        return replace(f, message=message, detail=detail, location=location, path=path,
                       code=code)

    result.failures = [cleaned(f) for f in result.failures]
    return result
