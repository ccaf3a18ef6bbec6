"""``aider``: aider in one-shot mode (``--message-file``).
Its page: scripts/agent_docs/aider.rst (docs/agents/aider.md)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

from ralph_verify.agents import AgentRequest, AgentResult
from ralph_verify.agents.cli import CLIAgent, Parsed, session_file
from ralph_verify.project import git

_TOKENS = re.compile(r"^Tokens: (?P<counts>[^.]*(?:\.\d[^.]*)*)\.(?: Cost: \$(?P<message>[\d.]+)"
                     r" message, \$(?P<session>[\d.]+) session\.)?")
_COUNT = re.compile(r"(?P<value>[\d.]+)(?P<unit>[kM]?) (?P<label>[a-z ]+)")
#: aider reports a failed model call (bad request, auth, connection) as litellm's exception.
_API_ERROR = re.compile(r"^litellm\.(?P<kind>\w+Error): (?P<message>.+)")
#: aider's repo-map cache at the repository's root (``TAGS_CACHE_DIR`` in aider/repomap.py).
TAGS_CACHE = ".aider.tags.cache.v"
#: aider's cached price list, and the copy litellm ships (``ModelInfoManager`` in aider/models.py).
PRICE_LIST = "model_prices_and_context_window.json"
BUNDLED = "model_prices_and_context_window_backup.json"
#: litellm fetches its price list on every start unless told to use its own.
QUIET_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def parse_aider_output(lines: Iterable[str]) -> Parsed:
    """Tokens, cost and model calls from aider's report lines; the text is the output itself."""
    parsed = Parsed()
    calls = 0
    for line in lines:
        error = _API_ERROR.match(line.strip())
        if error:
            parsed.error = f"{error.group('kind')}: {error.group('message')}"
        match = _TOKENS.match(line.strip())
        if not match:
            continue
        calls += 1
        for count in _COUNT.finditer(match.group("counts")):
            tokens = _tokens(count.group("value"), count.group("unit"))
            label = count.group("label").strip()
            if label == "received":
                parsed.output_tokens = (parsed.output_tokens or 0) + tokens
            elif label in ("sent", "cache write", "cache hit"):
                parsed.input_tokens = (parsed.input_tokens or 0) + tokens
        if match.group("session"):
            # Cumulative over this aider process: the last one is the run's cost.
            parsed.cost_usd = float(match.group("session"))
    parsed.turns = calls or None
    return parsed


class AiderAgent(CLIAgent):
    name = "aider"
    program = "aider"
    install = "pip install aider-chat  (or: pipx install aider-chat)"
    tested_versions = ("0.86.2", "0.87.0")
    prompt_via = "file"
    quiet_env = QUIET_ENV
    parse = staticmethod(parse_aider_output)

    def command(self, request: AgentRequest) -> list[str]:
        argv = [
            "--message-file", str(request.prompt_file), "--yes-always",
            "--no-auto-commits", "--no-dirty-commits", "--no-gitignore",
            "--no-check-update", "--no-show-release-notes", "--analytics-disable",
            "--no-stream", "--no-pretty", "--no-fancy-input",
            "--input-history-file", str(session_file(request, "aider.input.history")),
            "--chat-history-file", str(session_file(request, "aider.chat.history.md")),
        ]
        if self.continuing(request):
            argv.append("--restore-chat-history")
        if self.options.model:
            argv += ["--model", self.options.model]
        return [*argv, *self.options.extra_args]

    def run(self, request: AgentRequest) -> AgentResult:
        keep_price_list(shutil.which(self.program_path))
        with tags_cache_kept(request):
            return super().run(request)


def keep_price_list(executable: str | None) -> None:
    """aider's price list, fresh in its cache, so aider does not fetch it (offline: at every
    start); litellm's own copy, installed with aider, stands in for a missing or empty one."""
    cache = Path.home() / ".aider" / "caches" / PRICE_LIST
    with contextlib.suppress(OSError):
        if cache.stat().st_size > len("{}"):
            os.utime(cache)
            return
    if executable is None:
        return
    with contextlib.suppress(OSError, UnicodeDecodeError):
        with open(executable, encoding="utf-8") as script:
            shebang = script.readline()
        prefix = Path(shebang.removeprefix("#!").strip()).parent.parent
        for bundled in [*prefix.glob(f"lib/python3*/site-packages/litellm/{BUNDLED}"),
                        *prefix.glob(f"Lib/site-packages/litellm/{BUNDLED}")]:
            cache.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(bundled, cache)
            return


@contextlib.contextmanager
def tags_cache_kept(request: AgentRequest) -> Iterator[None]:
    """aider's repo-map cache is in the repository only while aider runs: moved there from
    ``.ralph/agent/`` (warm, as aider left it) and back right after, even if the run fails."""
    try:  # the top of the work tree, where aider keeps its cache
        top = Path(git.git(request.root, "rev-parse", "--show-toplevel").strip())
    except (git.GitError, OSError):
        top = None
    if top is None:  # no repository: aider builds no repo map
        yield
        return
    kept = session_file(request, "aider").parent
    git.exclude(top, f"/{TAGS_CACHE}*/", "aider's repo-map cache (ralph-verify keeps it "
                                         "in .ralph/agent/)")
    for cache in sorted(kept.glob(f"{TAGS_CACHE[1:]}*")):
        target = top / f".{cache.name}"
        if not target.exists():
            cache.replace(target)
    try:
        yield
    finally:
        for cache in sorted(top.glob(f"{TAGS_CACHE}*")):
            home = kept / cache.name[1:]
            if home.exists():
                shutil.rmtree(home)
            shutil.move(cache, home)


def _tokens(value: str, unit: str) -> int:
    return round(float(value) * {"": 1, "k": 1_000, "M": 1_000_000}[unit])
