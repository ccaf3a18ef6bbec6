"""Secrets never leave ralph-verify: not whole, not cut, not escaped, in no file or stream."""

from __future__ import annotations

import html
import json
import os

import pytest

from ralph_verify.redact import PARTIAL_MIN, redact, redact_data, secret_values
from ralph_verify.testing import Ralph

#: A token as services issue them, and a password no JSON/XML/HTML writer leaves alone.
TOKEN = "ghp_Zq8rT2mVx9LpK4sWn7Yb3Hc6Jd1Fg5Ra0Ue"
PASSWORD = 'p"a\\ss wörd<&>\'Ω-7319'
ENV = {"DEPLOY_TOKEN": TOKEN, "DB_PASSWORD": PASSWORD}

#: Failing tests whose messages put the token at every offset around the cuts that
#: messages, excerpts, one-line summaries and reports make (70 to 2000 characters).
LEAKY_TESTS = '''\
import os
import pytest

TOKEN = os.environ["DEPLOY_TOKEN"]
PASSWORD = os.environ["DB_PASSWORD"]
PADS = [*range(40, 80), *range(100, 130), *range(270, 310), *range(470, 510),
        *range(1170, 1210), *range(1480, 1510)]


@pytest.mark.parametrize("pad", PADS)
def test_leak(pad):
    print("the password is", PASSWORD)
    assert False, "x" * pad + TOKEN + " and " + PASSWORD


def test_long_output():
    print("\\n".join(f"line {i} {TOKEN}" for i in range(200)))
    raise ValueError("y" * 1190 + TOKEN)
'''


def _pieces(secret: str) -> list[str]:
    """Every form in which a piece of ``secret`` would be a leak."""
    forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    return [form[:PARTIAL_MIN] for form in forms] + [form[-PARTIAL_MIN:] for form in forms]


def _assert_clean(text: str, where: str) -> None:
    for secret in (TOKEN, PASSWORD):
        for piece in _pieces(secret):
            assert piece not in text, f"{piece!r} of a secret leaked into {where}"


def test_secrets_are_redacted_before_anything_is_cut(ralph: Ralph) -> None:
    ralph.env.update(ENV)
    ralph.makepyfile(**{"tests/test_leak": LEAKY_TESTS})
    result = ralph.run("run", "--agent", "cmd:true", "--until", "tests", "--max-iterations",
                       "1", "--feedback-budget", "20000", "--json", "session.json",
                       "--junitxml", "junit.xml", "-p", "no:breaker", "task")
    assert result.ret == 10, result
    _assert_clean(result.out + result.err, "the terminal")
    check = ralph.run("check", "--until", "tests", "--json", "-", "--feedback-budget", "20000")
    assert check.ret == 1, check
    _assert_clean(check.out + check.err, "check --json")
    files = [ralph.path / "session.json", ralph.path / "junit.xml",
             *(path for path in (ralph.path / ".ralph").rglob("*") if path.is_file())]
    names = {path.name for path in files}
    assert {"report.html", "prompt.md", "verification.json", "history.jsonl"} <= names, names
    for path in files:
        _assert_clean(path.read_text(encoding="utf-8"), str(path.relative_to(ralph.path)))
    # The failures are all there, only the secrets are gone.
    feedback = check.json()["feedback"]
    assert "[redacted:DEPLOY_TOKEN]" in feedback and "[redacted:DB_PASSWORD]" in feedback
    assert check.json()["checks"][0]["counts"]["failed"] == 40 + 30 + 40 + 40 + 40 + 30 + 1


def test_every_spelling_and_every_cut_piece_is_redacted() -> None:
    env = {"API_KEY": PASSWORD, "GH_TOKEN": TOKEN}
    for form in (PASSWORD, json.dumps(PASSWORD)[1:-1], html.escape(PASSWORD),
                 json.dumps(PASSWORD, ensure_ascii=False)[1:-1], repr(PASSWORD)[1:-1]):
        assert redact(f"<{form}>", env) == "<[redacted:API_KEY]>"
    assert redact(json.dumps({"m": PASSWORD}), env) == '{"m": "[redacted:API_KEY]"}'
    assert redact(f"cut here: {TOKEN[:11]}...", env) == "cut here: [redacted:GH_TOKEN]..."
    assert redact(f"...{TOKEN[-12:]} was kept", env) == "...[redacted:GH_TOKEN] was kept"
    assert redact_data({"a": [f"x{PASSWORD}y"]}, env) == {"a": ["x[redacted:API_KEY]y"]}
    # An ordinary word that merely starts like a secret is left alone.
    assert redact(f"{TOKEN[:PARTIAL_MIN]}abc", env) == f"{TOKEN[:PARTIAL_MIN]}abc"
    assert redact("password: wrong", {"DB_PASSWORD": "password-Xy7-long"}) == "password: wrong"


def test_a_secret_path_does_not_redact_its_neighbours() -> None:
    env = {"SSH_KEY_FILE": "/home/someone/.ssh/id_ed25519"}
    assert redact("/home/someone/project/x.py", env) == "/home/someone/project/x.py"
    assert redact("read /home/someone/.ssh/id_ed25519", env) == "read [redacted:SSH_KEY_FILE]"


def test_the_environment_is_read_once_while_it_does_not_change(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Every cut and result redacts (hundreds of times in a verification): the process's
    # secrets are read again only when the environment changed, and then at once.
    monkeypatch.setenv("DEPLOY_TOKEN", TOKEN)
    reads: list[int] = []
    iterate = type(os.environ).__iter__

    def counted(environ: object) -> object:
        reads.append(1)
        return iterate(environ)  # type: ignore[arg-type]  # os._Environ, private

    monkeypatch.setattr(type(os.environ), "__iter__", counted)
    for _ in range(50):
        assert secret_values()[TOKEN] == "DEPLOY_TOKEN"
        assert redact(f"token={TOKEN}") == "token=[redacted:DEPLOY_TOKEN]"
    assert len(reads) == 1
    monkeypatch.setenv("DEPLOY_TOKEN", TOKEN[::-1])
    assert redact(f"{TOKEN} {TOKEN[::-1]}") == f"{TOKEN} [redacted:DEPLOY_TOKEN]"
    monkeypatch.delenv("DEPLOY_TOKEN")
    assert TOKEN[::-1] not in secret_values()
    assert len(reads) == 3
    # A mapping given is read as it is, every time.
    assert secret_values({"API_KEY": TOKEN}) == {TOKEN: "API_KEY"}
