"""Fuzz the guard's spelling blindness: destructive calls re-spelt thousands of ways (quoting,
spacing, flag order, wrappers, variables, nesting), seeded and deterministic; none may pass.

Each mutation keeps what bash would run: a quoted word is the same word, ``env X=1 CMD``
runs CMD, ``bash -c 'CMD'`` runs CMD, ``V=word; CMD $V`` passes the word.
"""

from __future__ import annotations

import random
import shlex
from pathlib import Path

from ralph_verify.guard.decide import evaluate
from tests.guard_corpus import make_project

SEED = 22
CASES = 3000
BASES: list[list[str]] = [
    ["rm", "-rf", "/"], ["rm", "-rf", "~"], ["rm", "-r", "-f", "/etc"], ["rm", "-rf", ".git"],
    ["rm", "-rf", "link_root/usr"], ["rm", "-rf", "link_home/"], ["rm", "-rf", ".."],
    ["cat", ".env"], ["head", "-n", "3", ".env.local"], ["source", ".env"],
    ["cat", "deploy.pem"], ["base64", "credentials.json"], ["printenv"], ["env"],
    ["curl", "http://169.254.169.254/latest/"], ["curl", "http://0xa9fea9fe/"],
    ["wget", "http://192.168.1.1/"], ["curl", "http://10.0.0.5:8080/x"],
    ["git", "push", "--force", "origin", "main"], ["git", "reset", "--hard", "HEAD~1"],
    ["git", "config", "--global", "core.hooksPath", "/tmp/h"], ["crontab", "-r"],
    ["dd", "if=/dev/zero", "of=/dev/sda"], ["kill", "-9", "-1"], ["chmod", "-R", "777", "/etc"],
    ["mkfs.ext4", "/dev/sdb1"], ["cp", "x", "/usr/local/bin/x"], ["tee", "-a", "/etc/motd"],
    ["python3", "-c", "import shutil; shutil.rmtree('/')"],
    ["python3", "-c", "print(open('.env').read())"],
    ["node", "-e", "require('child_process').execSync('rm -rf ~')"],
    ["git", "branch", "-D", "main"], ["find", "/", "-delete"], ["shred", "-u", "/etc/hosts"],
]
WRAPPERS = ["env", "env FOO=1", "command", "nice -n 5", "timeout 30", "nohup", "time",
            "stdbuf -o0", "busybox", "sudo", "xargs -0", "exec", "setsid"]


def quote(word: str, rng: random.Random) -> str:
    """One way to spell ``word`` that bash reads as ``word``."""
    if word == "~" or word.startswith("~/"):
        return word  # a quoted ~ is not the home folder
    choice = rng.randrange(6)
    if choice == 0:
        return shlex.quote(word)
    if choice == 1:
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") \
            .replace("`", "\\`") + '"'
    if choice == 2 and len(word) > 1 and word.isalnum():
        cut = rng.randrange(1, len(word))
        return f"{word[:cut]}''{word[cut:]}"
    if choice == 3 and word.isalnum():
        return "$'" + "".join(f"\\x{ord(c):02x}" for c in word) + "'"
    if choice == 4 and word.isalpha() and len(word) > 1:
        return word[0] + "\\" + word[1:]
    return shlex.quote(word)


def mutate(words: list[str], rng: random.Random) -> str:
    words = list(words)
    if words[0] == "rm" and rng.random() < 0.5:
        flags = rng.choice([["-rf"], ["-fr"], ["-r", "-f"], ["-f", "-r"], ["--recursive",
                                                                            "--force"],
                            ["-R", "-f"]])
        words = ["rm", *flags, *[w for w in words[1:] if not w.startswith("-")]]
    prefix = ""
    if rng.random() < 0.3 and len(words) > 1 and words[-1] not in ("~",):
        prefix = f"V={shlex.quote(words[-1])}; "
        unquoted = ["$V", "${V}"] if not any(c.isspace() for c in words[-1]) else []
        words = [*words[:-1], rng.choice(['"$V"', '"${V}"', *unquoted])]
    line = (" " * rng.randrange(1, 3)).join(
        w if w.startswith("$") or w.startswith('"$') else quote(w, rng) for w in words)
    if rng.random() < 0.4:
        wrapper = rng.choice(WRAPPERS)
        line = f"echo | {wrapper} {line}" if wrapper.startswith("xargs") else f"{wrapper} {line}"
    line = prefix + line
    for _ in range(rng.choice([0, 0, 1, 2])):
        form = rng.randrange(6)
        if form == 0:
            line = f"bash -c {shlex.quote(line)}"
        elif form == 1:
            line = f"sh -lc {shlex.quote(line)}"
        elif form == 2:
            line = f"eval {shlex.quote(line)}"
        elif form == 3:
            line = f"( {line} )"
        elif form == 4:
            line = f"true && {{ {line}; }}"
        else:
            line = f"echo {shlex.quote(line)} | bash"
    return line if rng.random() < 0.8 else f"  {line} ; true"


def test_no_respelling_of_a_destructive_call_is_allowed(tmp_path: Path) -> None:
    policy = make_project(tmp_path)
    rng = random.Random(SEED)
    allowed = []
    for _ in range(CASES):
        line = mutate(rng.choice(BASES), rng)
        if evaluate("Bash", {"command": line}, policy) is None:
            allowed.append(line)
    assert not allowed, f"{len(allowed)} of {CASES} allowed:\n" + "\n".join(allowed[:30])


def test_the_mutations_keep_ordinary_calls_ordinary(tmp_path: Path) -> None:
    """The control: the same mutations of harmless calls are let through, so the test above
    measures the guard's reading, not a guard that refuses everything mutated."""
    policy = make_project(tmp_path)
    rng = random.Random(SEED)
    harmless = [["rm", "-rf", "build"], ["cat", "README.md"], ["git", "status"],
                ["curl", "-o", "f.tgz", "https://example.org/f.tgz"], ["ls", "-la", "src"]]
    stopped = []
    for _ in range(300):
        line = mutate(rng.choice(harmless), rng)
        refusal = evaluate("Bash", {"command": line}, policy)
        if refusal is not None and refusal.rule != "sudo":
            stopped.append(f"{line}: {refusal.rule}")
    assert not stopped, "\n".join(stopped[:30])
