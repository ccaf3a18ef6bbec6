"""Keep secrets out of feedback, logs and reports: the values of environment variables whose
names look secret become ``[redacted:NAME]`` in every spelling (as is, JSON-, HTML/XML-,
``repr``- and URL-escaped). Every cut redacts first (half a token is no longer recognised);
as a second defence, a cut-off start or end of a secret (:data:`PARTIAL_MIN` characters or
more) is redacted too."""

from __future__ import annotations

import functools
import json
import os
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

#: Words of a variable's name that say its value is a secret (any case, anywhere in the name).
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")
#: Shorter values are too likely to occur by chance ("1", "true").
_MIN_LENGTH = 6
#: The shortest cut-off piece of a secret that is still redacted.
PARTIAL_MIN = 8


@functools.lru_cache(maxsize=4096)
def _secret_name(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in _SECRET_WORDS)


def secret_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Map each secret-looking value in the environment to the variable's name."""
    if environ is None:
        return dict(_process_secrets())
    return _secrets_of(environ)


def _secrets_of(env: Mapping[str, str]) -> dict[str, str]:
    return {value: name for name, value in env.items()
            if len(value) >= _MIN_LENGTH and _secret_name(name)}


#: This process's secrets, with ``os.environ``'s store they were read from (compared whole:
#: decoding the environment at each of hundreds of calls cost milliseconds).
_process_memo: tuple[dict[bytes, bytes], dict[str, str]] | None = None


def _process_secrets() -> dict[str, str]:
    global _process_memo
    store = getattr(os.environ, "_data", None)
    if not isinstance(store, dict):  # not CPython's os.environ: read it each time
        return _secrets_of(os.environ)
    memo = _process_memo
    if memo is not None and memo[0] == store:
        return memo[1]
    snapshot = dict(store)
    found = _secrets_of(os.environ)
    _process_memo = (snapshot, found)
    return found


def _xml_escape(value: str) -> str:
    """``xml.sax.saxutils.escape(value, {'"': "&quot;"})`` without its 20 ms import."""
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def _forms(value: str) -> set[str]:
    """The spellings of ``value`` that may reach a file or the screen."""
    import html

    forms = {
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        html.escape(value, quote=True),
        html.escape(value, quote=False),
        _xml_escape(value),
        repr(value)[1:-1],
        urllib.parse.quote(value, safe=""),
        urllib.parse.quote_plus(value, safe=""),
    }
    # The JSON escaping of the HTML spelling (a report embedded in JSON, and so on).
    forms |= {json.dumps(form)[1:-1] for form in list(forms)}
    return {form for form in forms if len(form) >= _MIN_LENGTH}


def _looks_like_path(value: str) -> bool:
    return value.startswith(("/", "~", "\\")) or re.match(r"[A-Za-z]:[\\/]", value) is not None


class Redactor:
    """Replaces every spelling of a set of secret values; build once, call often."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        forms: dict[str, str] = {}
        partial: list[tuple[str, str]] = []
        for value, name in secrets.items():
            for form in _forms(value):
                forms.setdefault(form, name)
                if len(form) > PARTIAL_MIN and not _looks_like_path(value):
                    partial.append((form, name))
        # Longest first, so a secret containing another one is replaced whole.
        self._forms = sorted(forms.items(), key=lambda kv: -len(kv[0]))
        self._partial = sorted(partial, key=lambda kv: -len(kv[0]))

    def __call__(self, text: str) -> str:
        if not self._forms or not text:
            return text
        for form, name in self._forms:
            if form in text:
                text = text.replace(form, f"[redacted:{name}]")
        for form, name in self._partial:
            marker = f"[redacted:{name}]"
            text = _cut_prefixes(text, form, marker)
            # A cut-off end (a tail kept by a cut): a cut-off start of the reversed form.
            text = _cut_prefixes(text[::-1], form[::-1], marker[::-1])[::-1]
        return text

    def data(self, value: Any) -> Any:
        """``value`` (JSON-like: dicts, lists, strings) with every string redacted."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {self(k) if isinstance(k, str) else k: self.data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(item) for item in value]
        return value


def _token_like(piece: str) -> bool:
    """A piece that cannot be an ordinary word ("password", "localhost")."""
    return not (piece.isalpha() and (piece.islower() or piece.isupper()))


def _cut_prefixes(text: str, form: str, marker: str) -> str:
    """Replace with ``marker`` the pieces of ``text`` that are a cut-off start of ``form``."""
    head = form[:PARTIAL_MIN]
    start = text.find(head)
    while start != -1:
        end = start + PARTIAL_MIN
        limit = min(len(text), start + len(form))
        while end < limit and text[end] == form[end - start]:
            end += 1
        if (end == len(text) or not text[end].isalnum()) and _token_like(text[start:end]):
            text = text[:start] + marker + text[end:]
            end = start + len(marker)
        start = text.find(head, end)
    return text


@functools.lru_cache(maxsize=16)
def _redactor_for(secrets: tuple[tuple[str, str], ...]) -> Redactor:
    return Redactor(dict(secrets))


def redactor(environ: Mapping[str, str] | None = None) -> Redactor:
    """The redactor for the secrets of ``environ`` (default: this process's environment)."""
    return _redactor_for(tuple(sorted(secret_values(environ).items())))


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Return ``text`` with every secret environment value replaced, in every spelling."""
    return redactor(environ)(text)


def redact_data(value: Any, environ: Mapping[str, str] | None = None) -> Any:
    """A JSON-like value with every string redacted: redact *before* serialising."""
    return redactor(environ).data(value)


def cut(text: str, limit: int, marker: str = "...") -> str:
    """``text`` redacted, then cut to at most ``limit`` characters (ending in ``marker``)."""
    text = redact(text)
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(marker))] + marker


def cut_tail(text: str, limit: int, marker: str = "...") -> str:
    """``text`` redacted, then its last ``limit`` characters (after ``marker``)."""
    text = redact(text)
    return text if len(text) <= limit else marker + text[-limit:]


#: Shapes of credentials typed into a command line: known services' tokens, a private key,
#: ``Bearer X``, ``password=X`` (and ``--token X``), ``user:password@`` in a URL. Redacted
#: where a command is kept (the guard's refusals in ``.ralph/guard.jsonl``), whether or not
#: the value is in this process's environment.
_TOKEN_SHAPES = (
    r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|"
    r"sk-[A-Za-z0-9_-]{16,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|"
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}|xox[abposre]-[A-Za-z0-9-]{10,}|"
    r"AIza[A-Za-z0-9_-]{30,}|npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}|"
    r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|"
    r"-----BEGIN[A-Z ]*PRIVATE KEY-----.*?(?:-----END[A-Z ]*PRIVATE KEY-----|$)")
#: A name whose value is a credential (``DB_PASSWORD``, ``--api-key``; not ``--auth-file``).
_NAME = (r"[\w-]{0,40}(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|"
         r"auth)(?![\w-]{0,40}(?:file|path|dir)\b)[\w-]{0,40}")
_CREDENTIALS = (
    rf"(?P<token>{_TOKEN_SHAPES})|"
    r"(?P<scheme>\b(?:Bearer|Basic|token)\s+)(?P<bearer>[A-Za-z0-9._~+/=-]{8,})|"
    r"(?P<url>\b[a-zA-Z][a-zA-Z0-9+.-]{0,30}://[^/\s:@'\"]+:)(?P<userpass>[^/\s@'\"]+)@|"
    rf"(?P<name>--?{_NAME}(?:=|\s+(?=[^-\s]))|\b{_NAME}\s*[=:]\s*|"
    r"(?:^|(?<=\s))(?:-u|--user)(?:\s+|=)[^\s:'\"]+:)"
    r"(?P<value>(?:(?:Bearer|Basic|Token)\s+)?(?:\"[^\"]*\"|'[^']*'|[^\s&'\";]+))")


@functools.lru_cache(maxsize=1)
def _credentials() -> re.Pattern[str]:
    """Compiled on first use: every command imports this module, few redact a command."""
    return re.compile(_CREDENTIALS, re.IGNORECASE | re.DOTALL)


def redact_credentials(text: str) -> str:
    """``text`` with whatever looks like a credential replaced by ``[redacted:credential]``
    (a name before it, ``password=`` or ``Bearer ``, is kept); linear in ``text``'s length."""
    def replace(match: re.Match[str]) -> str:
        for keep in ("scheme", "url", "name"):
            if match.group(keep) is not None:
                return f"{match.group(keep)}[redacted:credential]" + (
                    "@" if keep == "url" else "")
        return "[redacted:credential]"

    return _credentials().sub(replace, text) if text else text
