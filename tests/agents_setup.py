"""The real agent CLIs for end-to-end tests: installed once per machine, run offline.

Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode and Copilot CLI come from npm, aider
from PyPI into its own virtual
environment, pinned to the versions observed offline (``shared/agent-clis.md``).
They go into a persistent cache (``$RALPH_VERIFY_TEST_CACHE``, else
``$XDG_CACHE_HOME/ralph-verify-tests``, else ``~/.cache/ralph-verify-tests``),
so only the first run on a machine pays for the install; a file lock keeps
parallel xdist workers from installing twice.

Fixtures (made available to every test by ``tests/conftest.py``)::

    claude_cli, codex_cli, aider_cli,  session-scoped AgentCLI (installs on first use)
    gemini_cli, qwen_cli, opencode_cli, copilot_cli
    agent_home                         a fresh, empty HOME for one test

An :class:`AgentCLI` gives a clean, offline environment for one run::

    def test_x(claude_cli, agent_home, model_server):
        env = claude_cli.env(agent_home, model_server.url)
        subprocess.run([str(claude_cli.executable), "-p", "hi"], env=env, ...)

A test that needs a CLI is marked ``agents_e2e`` (deselect locally with
``-m "not agents_e2e"``). When npm or the install is missing the fixture
FAILS with the reason; it never skips.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

CACHE_ENV = "RALPH_VERIFY_TEST_CACHE"
#: The model name every scripted CLI run asks for.
MODEL = "ralph-test-model"
#: The environment variable holding the (dummy) key Codex sends to the scripted server.
CODEX_KEY_ENV = "RALPH_TEST_API_KEY"
_INSTALL_TIMEOUT_S = 900
_MARK = "RALPH_VERIFY_TEST_MARK"


@dataclass(frozen=True)
class CLISpec:
    """One pinned CLI: where it comes from and what its executable is called."""

    name: str
    package: str
    version: str
    installer: str  # "npm" | "pip"

    @property
    def folder(self) -> str:
        return f"{self.installer}-{self.package.replace('@', '').replace('/', '-')}-{self.version}"


SPECS: dict[str, CLISpec] = {
    "claude": CLISpec("claude", "@anthropic-ai/claude-code", "2.1.330", "npm"),
    "codex": CLISpec("codex", "@openai/codex", "0.169.0", "npm"),
    "aider": CLISpec("aider", "aider-chat", "0.86.2", "pip"),
    "gemini": CLISpec("gemini", "@google/gemini-cli", "0.61.0", "npm"),
    "qwen": CLISpec("qwen", "@qwen-code/qwen-code", "0.24.4", "npm"),
    "opencode": CLISpec("opencode", "opencode-ai", "1.18.33", "npm"),
    "copilot": CLISpec("copilot", "@github/copilot", "1.0.102", "npm"),
    # Not run against the model server (Amp has no base-URL setting): only its refusals.
    "amp": CLISpec("amp", "@ampcode/cli", "0.0.1790142911-g7618fb", "npm"),
}


class InstallError(Exception):
    """A CLI could not be installed; the message says why and what to do."""


def cache_dir() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ralph-verify-tests"


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock between processes (xdist workers) on this machine."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as handle:
        if sys.platform == "win32":
            import msvcrt

            while True:
                try:
                    msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
                    break
                except OSError:
                    time.sleep(0.5)
            try:
                yield
            finally:
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _executable(spec: CLISpec, folder: Path) -> Path:
    if spec.installer == "npm":
        return folder / "node_modules" / ".bin" / (spec.name + (".cmd" if os.name == "nt" else ""))
    scripts = folder / ("Scripts" if os.name == "nt" else "bin")
    return scripts / (spec.name + (".exe" if os.name == "nt" else ""))


def _run_install(argv: list[str], cwd: Path, spec: CLISpec) -> None:
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                              timeout=_INSTALL_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise InstallError(f"installing {spec.package}=={spec.version} timed out after "
                           f"{_INSTALL_TIMEOUT_S}s: {' '.join(argv)}") from exc
    if proc.returncode != 0:
        raise InstallError(f"installing {spec.package}@{spec.version} failed "
                           f"(exit {proc.returncode}): {' '.join(argv)}\n"
                           f"{(proc.stdout + proc.stderr)[-3000:]}")


def install(name: str) -> AgentCLI:
    """Install ``name`` (claude, codex, aider) into the cache unless it is there already."""
    spec = SPECS[name]
    root = cache_dir()
    folder = root / spec.folder
    marker = folder / ".ralph-installed"
    executable = _executable(spec, folder)
    with _file_lock(root / f".{spec.folder}.lock"):
        if marker.is_file() and executable.exists():
            return AgentCLI(spec, executable, install_seconds=0.0)
        started = time.monotonic()
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        if spec.installer == "npm":
            npm = shutil.which("npm")
            if npm is None:
                raise InstallError(
                    f"npm is not on PATH: it is needed to install {spec.package}@{spec.version} "
                    "for the agents_e2e tests (install Node.js and npm, or deselect these tests "
                    "locally with -m 'not agents_e2e'; in CI they must run)")
            (folder / "package.json").write_text('{"private": true}\n', encoding="utf-8")
            _run_install([npm, "install", "--no-audit", "--no-fund", "--loglevel=error",
                          "--prefix", str(folder), f"{spec.package}@{spec.version}"],
                         folder, spec)
        else:
            _run_install([sys.executable, "-m", "venv", str(folder)], root, spec)
            python = folder / ("Scripts" if os.name == "nt" else "bin") / "python"
            _run_install([str(python), "-m", "pip", "install", "-q",
                          "--disable-pip-version-check", f"{spec.package}=={spec.version}"],
                         folder, spec)
        if not executable.exists():
            raise InstallError(f"{spec.package}@{spec.version} installed but {executable} "
                               "is missing")
        seconds = time.monotonic() - started
        marker.write_text(json.dumps({"version": spec.version, "seconds": round(seconds, 1)}),
                          encoding="utf-8")
        return AgentCLI(spec, executable, install_seconds=seconds)


def base_env(home: Path, path_dirs: list[Path] | None = None) -> dict[str, str]:
    """A clean environment: nothing from ours but a minimal PATH and the hygiene mark.

    ``path_dirs`` come first on PATH; the test interpreter's folder follows (so
    ``python``, ``pytest`` and ``ralph-verify`` of the test venv are found).
    """
    dirs = [*(path_dirs or []), Path(sys.executable).parent]
    node = shutil.which("node")
    if node is not None:
        dirs.append(Path(node).parent)
    system = ["/usr/local/bin", "/usr/bin", "/bin"] if os.name != "nt" else []
    env = {
        "HOME": str(home), "USERPROFILE": str(home),
        "PATH": os.pathsep.join([*(str(d) for d in dirs), *system]),
        "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "GIT_AUTHOR_NAME": "ralph-test", "GIT_AUTHOR_EMAIL": "ralph@example.invalid",
        "GIT_COMMITTER_NAME": "ralph-test", "GIT_COMMITTER_EMAIL": "ralph@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    for key in (_MARK, "SYSTEMROOT", "COMSPEC"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


@dataclass(frozen=True)
class AgentCLI:
    """An installed CLI and how to run it offline against a scripted model server."""

    spec: CLISpec
    executable: Path
    install_seconds: float = 0.0

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def version(self) -> str:
        return self.spec.version

    @property
    def bin_dir(self) -> Path:
        return self.executable.parent

    def env(self, home: Path, base_url: str, extra: Mapping[str, str] | None = None,
            quiet: bool = True) -> dict[str, str]:
        """A clean environment for one run with ``HOME=home``, talking only to ``base_url``.

        ``base_url`` is the server's root (``http://127.0.0.1:PORT``). Writes the
        CLI's config under ``home`` (Codex's ``config.toml``, aider's price
        cache). The CLI's folder is first on PATH. ``quiet=False`` leaves out the
        switches that stop the CLI's other traffic (telemetry, updates): for runs through
        an adapter, which must set them itself.
        """
        home.mkdir(parents=True, exist_ok=True)
        env = base_env(home, [self.bin_dir])
        env.update(_CLI_ENV[self.name](home, base_url.rstrip("/")))
        if not quiet:
            for key in _QUIET_KEYS:
                env.pop(key, None)
            if self.name == "codex":
                config = Path(env["CODEX_HOME"]) / "config.toml"
                config.write_text(codex_config(base_url.rstrip("/"), quiet=False),
                                  encoding="utf-8")
        if self.name == "codex":
            env["PATH"] = _path_without_bwrap(home, env["PATH"])
        env.update(extra or {})
        return env


def _claude_env(home: Path, base_url: str) -> dict[str, str]:
    env = {
        "ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "dummy",
        "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # As root, Claude Code refuses --dangerously-skip-permissions without it.
        env["IS_SANDBOX"] = "1"
    return env


#: What the tests' environments set to stop a CLI's traffic besides the model's.
_QUIET_KEYS = ("DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "LITELLM_LOCAL_MODEL_COST_MAP",
               "AIDER_CHECK_UPDATE", "AIDER_ANALYTICS_DISABLE")


def codex_config(base_url: str, model: str = MODEL, quiet: bool = True) -> str:
    """``config.toml`` pointing Codex at the scripted server, with all other traffic off
    (``quiet=False``: only the provider; update check and analytics left to the adapter)."""
    head = f"""\
model = "{model}"
model_provider = "ralph-test"
"""
    if not quiet:
        return head + _codex_provider(base_url)
    return head + "check_for_update_on_startup = false\n" + _codex_provider(base_url) + """
[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
"""


def _codex_provider(base_url: str) -> str:
    return f"""
[model_providers.ralph-test]
name = "ralph-test"
base_url = "{base_url}/v1"
env_key = "{CODEX_KEY_ENV}"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
"""


def _path_without_bwrap(home: Path, path: str) -> str:
    """``path`` with every folder holding ``bwrap`` replaced by a copy of it without bwrap.

    Codex's workspace-write sandbox runs commands under the system's bubblewrap when one is
    on PATH (``run --sandbox``'s tests install it), and that bubblewrap cannot set Codex's
    sandbox up as root in this container: every command then fails silently and the agent
    changes nothing. Without bwrap on PATH Codex uses its own sandbox, which works here.
    The copy is a folder of symlinks, so every other program is found as before.
    """
    folders = []
    for folder in path.split(os.pathsep):
        if folder and (Path(folder) / "bwrap").exists():
            shadow = home / "path-without-bwrap" / folder.strip("/").replace("/", "_")
            if not shadow.exists():
                shadow.mkdir(parents=True)
                for entry in Path(folder).iterdir():
                    if entry.name != "bwrap":
                        (shadow / entry.name).symlink_to(entry)
            folder = str(shadow)
        folders.append(folder)
    return os.pathsep.join(folders)


def _codex_env(home: Path, base_url: str) -> dict[str, str]:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(codex_config(base_url), encoding="utf-8")
    return {"CODEX_HOME": str(codex_home), CODEX_KEY_ENV: "dummy"}


def _aider_env(home: Path, base_url: str) -> dict[str, str]:
    # Without a fresh, non-empty price list aider downloads one at start.
    caches = home / ".aider" / "caches"
    caches.mkdir(parents=True, exist_ok=True)
    entry = {"max_tokens": 8192, "max_input_tokens": 128000, "max_output_tokens": 8192,
             "input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06,
             "litellm_provider": "openai", "mode": "chat"}
    prices = {MODEL: entry, f"openai/{MODEL}": entry}
    (caches / "model_prices_and_context_window.json").write_text(json.dumps(prices),
                                                                 encoding="utf-8")
    return {
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "AIDER_OPENAI_API_BASE": f"{base_url}/v1", "AIDER_OPENAI_API_KEY": "dummy",
        "AIDER_MODEL": f"openai/{MODEL}", "AIDER_CHECK_UPDATE": "false",
        "AIDER_ANALYTICS_DISABLE": "true", "AIDER_SHOW_RELEASE_NOTES": "false",
    }


# The four below get only what a user sets up for a custom endpoint (docs/agents/*.md):
# auth and base URL. Switching their telemetry and update checks off is the adapter's job,
# and the tests that run them in a loopback-only namespace prove it does.


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def _gemini_env(home: Path, base_url: str) -> dict[str, str]:
    _write_json(home / ".gemini" / "settings.json",
                {"security": {"auth": {"selectedType": "gemini-api-key"}}})
    return {"GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": base_url}


def _qwen_env(home: Path, base_url: str) -> dict[str, str]:
    _write_json(home / ".qwen" / "settings.json",
                {"security": {"auth": {"selectedType": "openai"}}})
    return {"OPENAI_API_KEY": "dummy", "OPENAI_BASE_URL": f"{base_url}/v1"}


def opencode_config(base_url: str) -> dict[str, object]:
    """An OpenCode provider block for the scripted server (model ``ralph/MODEL``)."""
    return {"$schema": "https://opencode.ai/config.json", "model": f"ralph/{MODEL}",
            "provider": {"ralph": {
                "npm": "@ai-sdk/openai-compatible", "name": "ralph",
                "options": {"baseURL": f"{base_url}/v1", "apiKey": "dummy"},
                # A price (USD per million tokens): OpenCode reports each call's cost from it.
                "models": {MODEL: {"name": MODEL, "tool_call": True,
                                   "cost": {"input": 1.0, "output": 2.0}}}}}}


def _opencode_env(home: Path, base_url: str) -> dict[str, str]:
    folder = home / ".config" / "opencode"
    _write_json(folder / "opencode.json", opencode_config(base_url))
    # OpenCode installs @opencode-ai/plugin into its config folder in the background (from
    # npm) until the folder's lock file lists it: as after one run on a machine online.
    wanted = {"@opencode-ai/plugin": SPECS["opencode"].version}
    _write_json(folder / "package.json", {"dependencies": wanted})
    _write_json(folder / "package-lock.json", {"lockfileVersion": 3,
                                               "packages": {"": {"dependencies": wanted}}})
    (folder / "node_modules").mkdir(exist_ok=True)
    return {}


def _copilot_env(home: Path, base_url: str) -> dict[str, str]:
    return {"COPILOT_PROVIDER_BASE_URL": f"{base_url}/v1", "COPILOT_PROVIDER_API_KEY": "dummy",
            "COPILOT_MODEL": MODEL}


_CLI_ENV = {"claude": _claude_env, "codex": _codex_env, "aider": _aider_env,
            "gemini": _gemini_env, "qwen": _qwen_env, "opencode": _opencode_env,
            "copilot": _copilot_env}


def _installed(name: str) -> AgentCLI:
    try:
        return install(name)
    except InstallError as exc:
        pytest.fail(f"cannot install the {name} CLI for the agents_e2e tests: {exc}",
                    pytrace=False)


@pytest.fixture(scope="session")
def claude_cli() -> AgentCLI:
    """Claude Code, pinned, installed with npm into the test cache (once per machine)."""
    return _installed("claude")


@pytest.fixture(scope="session")
def codex_cli() -> AgentCLI:
    """Codex, pinned, installed with npm into the test cache (once per machine)."""
    return _installed("codex")


@pytest.fixture(scope="session")
def aider_cli() -> AgentCLI:
    """aider, pinned, in its own virtual environment in the test cache (once per machine)."""
    return _installed("aider")


@pytest.fixture(scope="session")
def gemini_cli() -> AgentCLI:
    """Gemini CLI, pinned, installed with npm into the test cache (once per machine)."""
    return _installed("gemini")


@pytest.fixture(scope="session")
def qwen_cli() -> AgentCLI:
    """Qwen Code, pinned, installed with npm into the test cache (once per machine)."""
    return _installed("qwen")


@pytest.fixture(scope="session")
def opencode_cli() -> AgentCLI:
    """OpenCode, pinned, installed with npm into the test cache (once per machine)."""
    return _installed("opencode")


@pytest.fixture(scope="session")
def copilot_cli() -> AgentCLI:
    """Copilot CLI, pinned, installed with npm into the test cache (once per machine)."""
    return _installed("copilot")


@pytest.fixture
def agent_home(tmp_path: Path) -> Path:
    """A fresh, empty HOME for one CLI run (never the user's)."""
    home = tmp_path / "home"
    home.mkdir()
    return home


if __name__ == "__main__":  # ``python tests/agents_setup.py``: install all, print the times
    for cli_name in sys.argv[1:] or list(SPECS):
        cli = install(cli_name)
        print(f"{cli_name} {cli.version}: {cli.executable} ({cli.install_seconds:.1f}s)")
