"""Judge one unfolded shell command: deletions, git, redirections, secrets, network; words
become paths on the real file system (globs matched, symlinks followed)."""

from __future__ import annotations

import fnmatch
import glob
import re
from collections.abc import Iterator
from itertools import islice, starmap
from pathlib import Path

from ralph_verify.guard.abuse import (
    administration,
    container,
    disk_fill,
    foreign_code,
    miner,
    reverse_shell,
    served,
)
from ralph_verify.guard.command import FOUND, GLOB, SimpleCommand, as_fnmatch
from ralph_verify.guard.credentials import credentials
from ralph_verify.guard.effects import (
    SECRET_VAR,
    env_dump,
    machine,
    persistence,
    reads,
    startup_file,
)
from ralph_verify.guard.families import (
    flag,
    git_global_options,
    git_history,
    git_sub,
    operands,
    written,
)
from ralph_verify.guard.net import NETWORK_COMMANDS, network_findings
from ralph_verify.guard.policy import (
    Policy,
    Refusal,
    branch_text,
    current_branch,
    expand_tilde,
    holds_secrets,
    is_inside,
    is_secret,
    real,
    resolve,
    session_branch,
    writable,
)
from ralph_verify.guard.scripts import SHELLS
from ralph_verify.guard.tamper import cache_read, changed, words_refusals
from ralph_verify.guard.unfold import DOWNLOADERS, INTERPRETERS
from ralph_verify.guard.words import FIND_TESTS, UNKNOWN_SUBST, find_starts, find_target

ELEVATORS = frozenset({"sudo", "su", "doas", "pkexec", "run0", "runuser"})
#: Commands that read the files named in their arguments even when the guard cannot see
#: them exist yet; for any other command a secret is refused only when it exists.
READERS = frozenset({
    "cat", "tac", "less", "more", "head", "tail", "nl", "od", "xxd", "hexdump", "strings",
    "base64", "base32", "grep", "egrep", "fgrep", "rg", "ag", "ack", "awk", "gawk", "sed",
    "cut", "sort", "uniq", "diff", "jq", "yq", "cp", "scp", "rsync", "curl", "wget", "nc",
    "ncat", "socat", "tar", "zip", "gzip", "bzip2", "xz", "openssl", "gpg", "vi", "vim",
    "nvim", "nano", "emacs", "view", "bat", "batcat", "paste", "column", "fold", "iconv",
    "dd", "install", "git", "mv", "source", ".", "python", "python3", "node", "xargs",
})
DNS_TOOLS = frozenset({"dig", "host", "nslookup", "drill", "delv", "whois", "getent",
                       "resolvectl", "ping", "ping6", "traceroute"})
#: Programs that match a quoted pattern against files themselves (archivers, git's
#: pathspecs, searches, interpreters' scripts); to others ``'*.json'`` names no file.
_EXPANDS_PATTERNS = INTERPRETERS | SHELLS | {
    "zip", "7z", "7za", "7zr", "tar", "gtar", "bsdtar", "git", "find", "fd", "fdfind", "rg",
    "ag", "grep", "egrep", "fgrep", "rsync", "scp", "sftp", "unzip", "jar", "xargs", "parallel",
    "eval", "bat", "batcat", "rclone", "gsutil", "aws", "az", "gcloud", "docker", "kubectl"}
MAX_MATCHES = 200
#: Variables that hold a cloud credential service's address (ECS, Azure's managed identity).
_METADATA_VARIABLE = re.compile(r"\$\{?(ECS_CONTAINER_METADATA_URI\w*|AWS_CONTAINER_CREDENTIALS"
                                r"_\w+|IDENTITY_ENDPOINT|MSI_ENDPOINT)\b")


def paths(word: str, cwd: Path | None, policy: Policy) -> list[Path | None]:
    """Where ``word`` lands: each glob match (symlinks followed), or the path itself."""
    if not GLOB.search(word) or "$" in word or cwd is None:
        return [resolve(word, cwd, policy)]
    pattern = expand_tilde(as_fnmatch(word), policy)
    if pattern is None:
        return [None]
    absolute = pattern if pattern.startswith("/") else str(cwd / pattern)
    if absolute.startswith(("/proc/", "/sys/")):  # thousands of entries: judged by the pattern
        return [Path(absolute)]
    matches = list(islice(glob.iglob(absolute), MAX_MATCHES))
    return [resolve(m, cwd, policy) for m in matches] or [resolve(word, cwd, policy)]


def command_refusals(command: SimpleCommand, cwd: Path | None,
                     policy: Policy) -> Iterator[Refusal]:
    """Every rule ``command`` breaks, run in ``cwd``."""
    name, args = command.name, command.args
    if ELEVATORS & set(command.wrappers) or name in ELEVATORS:
        yield Refusal("sudo", "running commands as another user (sudo/su/doas) is not "
                              "allowed; do without elevated rights")
    if name in DOWNLOADERS and (command.substituted_into in SHELLS | INTERPRETERS |
                                {"eval", "source", "."}):
        yield Refusal("pipe-to-shell", f"{name} output would run as a script; download it to "
                                       "a file in the project and read it first")
    if name in ("rm", "srm", "trash", "trash-put"):
        yield from _deletions(operands(args), cwd, policy, name)
    elif name == "find" and "-delete" in args:  # without a test: all of DIR, DIR included
        yield from _deletions([find_target(s, args) for s in find_starts(args)], cwd, policy,
                              "find -delete", searched=bool(FIND_TESTS & set(args)))
    elif name == "git":
        yield from _git_refusals(args, cwd, policy)
    for op, target in command.redirects:
        if op in ("<", "<>"):
            for path in paths(target, cwd, policy):
                if is_secret(path, policy):
                    yield _secret_refusal(target)
    yield from _secrets(command, cwd, policy)
    for target in written(command):  # ``mv`` to scratch takes the files out of the project
        yield from write_refusals(target, resolve(target, cwd, policy),
                                  f"{name or 'a redirection'} writing", policy,
                                  scratch=name != "mv", cwd=cwd)
    yield from _tamper(command, cwd, policy)
    for rule, reason in (*reverse_shell(command), *miner(command), *disk_fill(command),
                         *administration(command), *container(command, cwd, policy),
                         *served(command, cwd, policy), *foreign_code(command, cwd, policy),
                         *env_dump(command), *machine(command), *credentials(command),
                         *persistence(command, args if name == "git" else None)):
        yield Refusal(rule, reason)
    yield from network(command, policy)


def write_refusals(word: str, path: Path | None, what: str, policy: Policy,
                   scratch: bool = True, cwd: Path | None = None) -> Iterator[Refusal]:
    """What writing ``word`` (at ``path``, from ``cwd``) breaks, by any tool (``what``: ``Write
    of``, ``tee writing``); ``scratch``: a temp folder may be written."""
    yield from starmap(Refusal, changed([(word, path)], what, policy))
    if path is not None and not is_inside(path, policy) and startup_file(path):
        yield Refusal("persistence", f"{what} {word}: it runs again in later sessions "
                                     "(a start-up file, a service, cron); leave it to the user")
    git_dir = real(policy.root) / ".git"
    if path is None or not writable(path, policy, word if scratch else "", cwd):
        yield Refusal("write-outside", f"{what} {word}: it is outside the project "
                                       f"{policy.root}; work inside the project")
    elif path == git_dir or git_dir in path.parents:
        yield Refusal("write-outside", f"{what} {word}: it is inside the project's "
                                       ".git (hooks, config, objects); git itself manages it")


def _tamper(command: SimpleCommand, cwd: Path | None, policy: Policy) -> Iterator[Refusal]:
    """Reads of ralph-verify's cache; commands naming it or ending the session."""
    for word in reads(command):
        if any(cache_read(p, policy) for p in paths(word, cwd, policy)):
            yield Refusal("tamper", f"{command.name} {word}: ralph-verify's cache holds the "
                                    "cancel key and the session's frozen files; it is the user's")
            break
    yield from starmap(Refusal, words_refusals(command))


def network(command: SimpleCommand, policy: Policy) -> Iterator[Refusal]:
    name = command.name
    plain = name in NETWORK_COMMANDS or (name == "git" and git_sub(command.args)[0] in (
        "clone", "fetch", "pull", "push", "ls-remote", "remote", "submodule"))
    words = command.args if name not in ("echo", "printf") else []
    if (plain or name in DNS_TOOLS) and any(SECRET_VAR.search(w) for w in words):
        yield Refusal("read-secrets", f"{name} sends a secret-looking variable to another "
                                      "host; the secrets of the environment stay here")
    if any(_METADATA_VARIABLE.search(w) for w in command.words[1:]):
        yield Refusal("metadata", f"{name} addresses the container's credential service "
                                  "(its address is in the environment); it is off limits")
    if name in DNS_TOOLS and any(UNKNOWN_SUBST in w for w in command.args):
        yield Refusal("exfiltration", f"{name} looks up a name computed when it runs: a DNS "
                                      "query carries whatever it holds to that domain's server")
    yield from starmap(Refusal, network_findings(words, plain, policy.allow_hosts,
                                                 policy.refuse_localhost))
    if not plain:
        for rule, reason in network_findings(command.words, True, (), False):
            if rule == "metadata":
                yield Refusal(rule, reason)


def _secrets(command: SimpleCommand, cwd: Path | None, policy: Policy) -> Iterator[Refusal]:
    known_reader = command.name in READERS or command.name in SHELLS
    if (command.name in READERS and any(_finds_secrets(c, policy) for c in command.upstream) \
            and "xargs" in command.wrappers) or (command.substituted_into in READERS and \
            _finds_secrets(command, policy)):  # ``cat $(find ~ -name id_rsa)``
        yield _secret_refusal(f"what {command.name} finds")
        return
    given = [v for a, v in zip(command.args, command.args[1:], strict=False) if a in ("-e", "-c")]
    # ``lftp -e "put F"``, ``smbclient -c "put F"``: commands as sftp reads them on stdin
    script = "\n".join([command.stdin_text or "", *given]).replace(";", "\n")
    sent = [line.split()[-1] for line in script.splitlines()
            if command.name in ("sftp", "ftp", "lftp", "smbclient") and line.split()[:1] in (
                ["put"], ["mput"], ["send"], ["append"]) and len(line.split()) > 1]
    for word in [*reads(command), *sent]:
        literal = word in command.patterns and command.name not in _EXPANDS_PATTERNS
        for path in [resolve(word, cwd, policy)] if literal else paths(word, cwd, policy):
            if known_reader and command.name != "git" and holds_secrets(path, policy):
                yield Refusal("read-secrets", f"{command.name} {word} reads a folder that holds "
                                              "the user's keys and credentials; search the "
                                              "project instead")
                return
            if path is None and known_reader:  # ``cat $DIR/.env``: judged by its name
                path = Path("/unknown") / word.rsplit("/", 1)[-1]
            if is_secret(path, policy) and (known_reader or (path is not None and (
                    path.exists() or not is_inside(path, policy)))):
                yield _secret_refusal(word if path is None else
                                      (word if not GLOB.search(word) else
                                       f"{word} (matches {path.name})"))
                return


def _finds_secrets(command: SimpleCommand, policy: Policy) -> bool:
    """A search (``find -name``, ``locate``) whose names are secrets' names."""
    args = command.args
    if command.name in ("find", "fd", "fdfind"):
        names = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-name", "-iname")]
    else:
        names = [a for a in args if not a.startswith("-")] if command.name in (
            "locate", "plocate", "mlocate") else []
    return any(is_secret(Path("/searched") / n.strip("*/"), policy) for n in names if n)


def _secret_refusal(path: str) -> Refusal:
    return Refusal("read-secrets", f"{path} looks like a secret (.env, key, credentials) and "
                                   "must not be read, sourced or sent anywhere")


def _deletions(targets: list[str], cwd: Path | None, policy: Policy, what: str,
               searched: bool = False) -> Iterator[Refusal]:
    """``searched``: the targets are folders whose contents are deleted (``find``)."""
    root = real(policy.root)
    git_dir = root / ".git"
    for target in targets:
        has_glob = bool(GLOB.search(target))
        head, _, last = target.rstrip("/").rpartition("/")
        folder = resolve(head or ("/" if target.startswith("/") else "."), cwd, policy)
        if has_glob:  # any name with its fixed start (``link/*``: in where the link
            # leads; ``/tmp/pytest-*``: names of its own), and what the pattern matches now
            start = GLOB.split(target, maxsplit=1)[0] + FOUND
            found = [(start, resolve(start, cwd, policy)),
                     *((target, p) for p in paths(target, cwd, policy))]
        else:
            follow = target.endswith("/") and target.rstrip("/") != ""
            found = [(target, resolve(target, cwd, policy, follow_last=follow))]
        yield from starmap(Refusal, changed(found, f"{what} deleting", policy))
        # ``rm -rf *``, ``.g*`` in the project's top: all of it, or its .git
        whole = has_glob and folder == root and (last in ("*", ".*") or fnmatch.fnmatchcase(
            ".git", as_fnmatch(last)))
        for word, path in found:
            if path is None:
                yield Refusal("rm-outside", f"{what} {target}: cannot tell where that is (a "
                                            "variable or an unknown folder); name a path "
                                            "inside the project")
                break
            in_git = path == git_dir or git_dir in path.parents
            own = (path == root and not (has_glob or searched)) or in_git or whole
            if not writable(path, policy, word, cwd) or own:
                yield Refusal("rm-outside", f"{what} {target} deletes {path}, which is outside "
                                            f"the project {policy.root} (or is the project or "
                                            "inside its .git); delete only what you created "
                                            "inside the project")
                break


def _git_refusals(args: list[str], cwd: Path | None, policy: Policy) -> Iterator[Refusal]:
    options, index = git_global_options(args)
    repo, elsewhere = cwd, None
    for option, value in options:
        if option == "-C" and value is not None:
            repo = resolve(value, repo, policy)
        if option in ("-C", "--git-dir", "--work-tree") and value is not None:
            elsewhere = value
    if index >= len(args):
        return
    sub, rest = args[index], args[index + 1:]
    if sub == "push":
        forced = [a for a in rest if a in ("-f", "--force", "--mirror", "--force-if-includes")
                  or a.startswith("--force-with-lease")
                  or (re.fullmatch(r"-[a-zA-Z]+", a) is not None and "f" in a)
                  or (a.startswith("+") and len(a) > 1)]
        if forced:
            yield Refusal("force-push", f"git push {forced[0]} rewrites history on the remote; "
                                        "push without force, or leave the push to the user")
    elif sub == "reset" and ("--hard" in rest or ({"--merge", "--keep"} & set(rest) and [
            a for a in rest if not a.startswith("-")])):
        branch = current_branch(repo or policy.root)
        if not session_branch(branch, policy):
            yield Refusal("reset-hard", f"git reset --hard on {branch_text(branch)} throws away "
                                        "the user's work; use git stash, git restore on "
                                        "single files, or a new commit instead")
    elif sub == "clean":
        force = flag(rest, "f", ("--force",))
        # Folders named inside the project (``git clean -fdx build/``): what ``rm -rf`` of
        # them would delete at most, judged as that.
        specs = operands([a for a, before in zip(rest, ["", *rest[:-1]], strict=True)
                             if a != "-e" and before != "-e"])
        inside = bool(specs) and all(not GLOB.search(p) and not p.startswith(":") and (
            (found := resolve(p, repo, policy)) is not None and real(policy.root) in found.parents)
            for p in specs)
        if inside and force:
            yield from _deletions(specs, repo, policy, "git clean")
        elif force and not flag(rest, "n", ("--dry-run",)):
            branch = current_branch(repo or policy.root)
            if not session_branch(branch, policy):
                yield Refusal("clean", f"git clean -f on {branch_text(branch)} deletes the "
                                       "user's untracked files; remove single files you "
                                       "created instead")
    yield from starmap(Refusal, git_history(sub, rest, options, elsewhere, cwd, policy))
