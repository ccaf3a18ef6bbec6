"""The guard's rule names and what each refuses: apart from :mod:`ralph_verify.guard.decide`, whose
parsers cost about 20 ms to import, because ``--help`` lists them at every start."""

from __future__ import annotations

RULES: dict[str, str] = {
    "rm-outside": "deleting files outside the project (or the project itself, or inside .git)",
    "force-push": "force-pushing with git",
    "reset-hard": "git reset --hard on the user's branch",
    "clean": "git clean -f on the user's branch",
    "sudo": "running commands as another user (sudo)",
    "pipe-to-shell": "running a downloaded script (curl | sh) or commands fed to a shell "
                     "on stdin that the guard cannot read",
    "write-outside": "writing files outside the project or inside its .git",
    "read-secrets": "reading secrets (.env files, keys, credentials) by any route",
    "env-dump": "printing the whole environment (env, printenv, set, /proc/*/environ)",
    "persistence": "changes that outlive the session (git config --global, core.hooksPath, "
                   "shell start-up files, crontab, systemd --user units)",
    "metadata": "requests to a cloud metadata address, in any spelling",
    "private-network": "requests to private network ranges (allow-hosts lets named hosts "
                       "through); to localhost only with refuse-localhost",
    "git-history": "destroying git history or uncommitted work (push :branch, branch -D, "
                   "checkout -- ., reflog expire, gc --prune, stash clear ...)",
    "inline-code": "inline code (python -c, node -e ...) that changes files outside the project",
    "system": "the machine's own state (kill -1, shutdown, systemctl stop, mkfs, dd onto a "
              "disk)",
    "fork-bomb": "functions that call themselves, code that forks in a loop",
    "tamper": "changing ralph-verify's own files (.ralph/, the session's frozen files, the "
              "agent settings holding its hooks), reading its cancel key, running "
              "ralph-verify cancel/rollback/recover/init, killing ralph-verify",
    "reverse-shell": "a shell handed to a network socket (bash -i >& /dev/tcp/..., nc -e, "
                     "socat EXEC:, inline code that connects then runs a shell)",
    "container": "containers given the host: --privileged, --pid=host, mounts of /, the "
                 "home folder, secrets or the docker socket",
    "miner": "cryptocurrency miners (known programs, stratum+tcp:// pools)",
    "hidden-code": "settings and variables that make a program run code the guard cannot "
                   "read (git -c core.fsmonitor, include.path, GIT_CONFIG_*, BASH_ENV, "
                   "git ext:: URLs, hooks or templates from outside the project)",
    "unparsable": "commands the guard cannot read (a grammar error, a computed command name, "
                  "eval of a computed script, past the size cap or time budget): refused",
}
#: When a call breaks several rules, the first of these names the refusal.
PRIORITY: tuple[str, ...] = (
    "metadata", "tamper", "reverse-shell", "miner", "fork-bomb", "system", "container",
    "persistence", "hidden-code", "pipe-to-shell", "env-dump",
    "read-secrets", "private-network", "force-push", "reset-hard", "clean", "git-history",
    "inline-code", "rm-outside", "write-outside", "sudo", "unparsable")
