"""Commands that print or store a credential (cloud, container and package CLIs, password
stores, ``docker exec web env``): the transcript goes to the model's provider."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ralph_verify.guard.command import Found, SimpleCommand
from ralph_verify.guard.unfold import INTERPRETERS, NOT_RUNNERS

#: Program -> a pattern over its arguments (joined by spaces) that prints a credential.
CREDENTIAL_COMMANDS: dict[str, str] = {
    "aws": r"\bconfigure (get|export-credentials)\b|get-login-password|get-secret-value|"
           r"--with-decryption|create-access-key|get-authorization-token|get-session-token|"
           r"get-federation-token|\bassume-role|\bget-token\b|get-password-data|\bget-login\b",
    "gcloud": r"print-access-token|print-identity-token|config-helper|secrets versions access|"
              r"\bkeys create\b|hmac create",
    "az": r"get-access-token|\bsecret (show|download)\b|create-for-rbac|--expose-token|"
          r"\bkeys list\b|\bcredential show\b|show-connection-string|--show-secret",
    "kubectl": r"\bconfig view\b.*--(raw|flatten)|--(raw|flatten)\b.*\bconfig view|"
               r"\bcreate token\b|\bget (secret|secrets)\b.*(-o|--output)|"
               r"(-o|--output)\S*.*\bget (secret|secrets)\b|view-secret|whoami -t\b|"
               r"--show-token",
    "gh": r"\bauth token\b|\bauth status\b.*(--show-token|-t\b)|oauth_token",
    "npm": r"\btoken\b|\bconfig get\b.*(_auth|token|password)",
    "pnpm": r"\bconfig get\b.*(_auth|token|password)", "yarn": r"npmAuthToken|_auth|token",
    "heroku": r"auth:token|authorizations:create", "flyctl": r"\bauth token\b|tokens create",
    "fly": r"\bauth token\b|tokens create", "doctl": r"\bauth token\b",
    "op": r"\bread\b|\bitem get\b|\binject\b|--raw", "bw": r"\bget\b|\bexport\b|--raw",
    "pass": r"^(?!(ls|list|find|search|grep|git|init|insert|generate|edit|rm|mv|cp)\b)\S",
    "gopass": r"\bshow\b|^(?!(ls|list|find|search|init|insert|generate|edit|rm|mv|cp)\b)\S",
    "lpass": r"\bshow\b|\bexport\b", "keyring": r"\bget\b",
    "security": r"find-(generic|internet)-password|dump-keychain|\bexport\b",
    "gpg": r"--export-secret", "gpg2": r"--export-secret",
    "git": r"\bcredential(-store|-cache)? (fill|get)\b",
    "getent": r"^g?shadow\b",
    "docker": r"^login\b|\slogin\b", "podman": r"^login\b|\slogin\b",
    "nerdctl": r"^login\b|\slogin\b",
    "helm": r"\bregistry login\b|\bget (values|all|manifest)\b",  # a release's secrets
}
#: Cloud and platform CLIs: a verb that gets, prints or makes a credential, whatever the CLI.
CLOUD_CLIS = frozenset({"aws", "gcloud", "az", "doctl", "heroku", "flyctl",
                        "fly", "ibmcloud", "oci", "linode-cli", "vercel", "netlify", "firebase",
                        "supabase", "wrangler", "railway", "hcloud", "scw", "aliyun", "vault",
                        "gh", "glab", "tea", "doppler", "infisical", "sops", "terraform",
                        "pulumi", "eksctl", "aws-vault", "saml2aws", "gsutil", "bq"})
_CREDENTIAL_VERB = re.compile(
    r"\b(get|print|generate|create|show|export|fetch|read|access|view|decrypt|reveal|"
    r"whoami)[\w-]*[- ](\w+[- ])?(tokens?|passwords?|secrets?|credentials?|keys?|auth|"
    r"login)\b|--show-(token|secrets?)|--reveal\b|whoami -t\b|--show-token|"
    r"\b(registry|acr|ecr) login\b|\b(config|env):get\b|^config$", re.IGNORECASE)
_COMPILED = {name: re.compile(pattern) for name, pattern in CREDENTIAL_COMMANDS.items()}
_COMPILED["oc"] = _COMPILED["kubectl"]
_COMPILED["glab"] = _COMPILED["gh"]
CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl", "kubectl", "oc"})
_EXEC_OPTIONS = frozenset({"-e", "--env", "-u", "--user", "-w", "--workdir", "--env-file",
                           "--detach-keys", "-c", "--container", "-n", "--namespace",
                           "--index", "--context", "--kubeconfig", "-p", "--project-name",
                           "-f", "--file"})


def credentials(command: SimpleCommand) -> Iterator[Found]:
    """A CLI printing a token or a key; a container's environment printed through exec."""
    name, args = command.name, command.args
    pattern = _COMPILED.get(name)
    text = " ".join(args)
    if name.startswith("docker-credential-") or (
            pattern is not None and pattern.search(text)) or (
            name in CLOUD_CLIS and _CREDENTIAL_VERB.search(text)):
        yield ("read-secrets", f"{name} {' '.join(args)[:60]} prints or stores a credential "
                               "(a token, a key, a login); use it without printing it, or "
                               "leave it to the user")
        return
    words = [w for a in [name, *[a for a in args if not a.startswith("-")][:3]]
             for w in re.split(r"[:/]", a.lower())]
    own = name in NOT_RUNNERS or name in INTERPRETERS or name in _PROJECT_ENVS
    if not own and _SECRET_NOUN.search(" ".join(words)) and (
            _REVEAL.search(" ".join(words[1:]) + " " + text)):
        yield ("read-secrets", f"{name} {text[:60]} prints or writes out what a secret store, "
                               "a vault or a state file holds; leave it to the user")
        return
    if name not in _SEARCHERS and any(_TEMPLATE_SECRET.search(t) for t in [
            *args, command.stdin_text or ""]):
        yield ("env-dump", f"{name} fills a template with a secret of the environment; the "
                           "transcript must not see it")
        return
    if name in CONTAINER_TOOLS:
        inner = container_command(args)
        if inner and (inner[0].rsplit("/", 1)[-1] in ("env", "printenv", "set", "export")
                      and len([a for a in inner[1:] if not a.startswith("-")]) == 0):
            yield ("env-dump", f"{name} exec {' '.join(inner)} prints the container's whole "
                               "environment (its API keys and passwords)")
        if "inspect" in args and any(re.search(r"\bEnv\b", a) for a in args):
            yield ("env-dump", f"{name} inspect of the environment prints the container's "
                               "secrets")


#: What a program names when it keeps secrets (in its name or its subcommands), and what it
#: does when it hands them out: ``sops -d``, ``aws kms decrypt``, ``vercel env pull``,
#: ``ansible-vault view``, ``terraform state pull``, ``chamber export``.
_SECRET_NOUN = re.compile(r"(?i)(^|\s|-|_)(secrets?|vault|password|passwd|tokens?|credentials?|kms|"
                          r"keychain|k?wallet|keepass\w*|sops|chamber|infisical|env|state|"
                          r"output)(-\w+)?(\s|$)")
_REVEAL = re.compile(r"(?i)(^|\s)(decrypt|reveal|export|view|show|get|read|pull|print|dump|"
                     r"download|access|lookup|-d|--decrypt|-r|--show|--plain|-json|-raw)"
                     r"(\s|$)")
#: A secret-looking variable named in a template or an expression (``env(API_KEY)``,
#: ``{{ .Env.TOKEN }}``, ``$GITHUB_TOKEN`` given to envsubst).
#: A secret's name ends a word of it (``API_KEY``, ``KEYS``), not ``monkeypatch``'s "key".
_TEMPLATE_SECRET = re.compile(r"(env\(|\.Env\.|\$\{?|ENV\[['\"]?)[A-Za-z_]*(KEY|TOKEN|SECRET|"
                              r"PASSWORD|PASSWD|CREDENTIAL)S?(?![a-z])", re.IGNORECASE)


_SEARCHERS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "echo", "printf",
                        "sed", "which", "type", "test", "[", "[["})
_PROJECT_ENVS = frozenset({"poetry", "pdm", "hatch", "pipenv", "uv", "conda", "mamba", "tox",
                           "nox", "direnv", "dotenv", "python3", "make", "just", "task"})


def container_command(args: list[str]) -> list[str]:
    """The command ``docker exec [opts] CONTAINER CMD`` / ``kubectl exec POD -- CMD`` runs."""
    if "exec" not in args:
        return []
    rest = args[args.index("exec") + 1:]
    if "--" in rest:
        return rest[rest.index("--") + 1:]
    index = 0
    while index < len(rest) and rest[index].startswith("-"):
        index += 2 if rest[index] in _EXEC_OPTIONS else 1
    return rest[index + 1:]
