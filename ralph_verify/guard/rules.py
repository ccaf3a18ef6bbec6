"""The guard's rule names and what each refuses: apart from :mod:`ralph_verify.guard.decide`, whose
parsers cost about 20 ms to import, because ``--help`` lists them at every start."""

from __future__ import annotations

RULES: dict[str, str] = {
    "rm-outside": "deleting files outside the project (or the project itself, or its .git)",
    "force-push": "force-pushing with git",
    "reset-hard": "git reset --hard on the user's branch",
    "clean": "git clean -f on the user's branch",
    "sudo": "running commands as another user (sudo)",
    "pipe-to-shell": "running a downloaded script (curl | sh)",
    "write-outside": "writing files outside the project",
    "read-secrets": "reading secrets (.env files, keys, credentials)",
    "metadata": "requests to a cloud metadata address",
    "git-history": "destroying git history or uncommitted work (push :branch, branch -D, "
                   "checkout -- ., reflog expire, gc --prune, stash clear ...)",
    "inline-code": "inline code (python -c, node -e ...) that changes files outside the project",
    "system": "changing the machine's own state (crontab -r, kill -1, systemctl stop)",
    "unparsable": "commands the guard cannot read (eval, a computed command name, sh -c of a "
                  "computed script, unbalanced quotes): asked, not allowed",
}
