"""The machine used against its owner: reverse shells, containers given the host, miners, a
full disk, the machine's accounts, clock, network and packages; each yields ``(rule, reason)``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ralph_verify.guard.command import SECRET_NAME, Found, SimpleCommand
from ralph_verify.guard.credentials import CLOUD_CLIS, CONTAINER_TOOLS, container_command
from ralph_verify.guard.families import written
from ralph_verify.guard.inline import interpreter_family
from ralph_verify.guard.net import classify
from ralph_verify.guard.policy import Policy, holds_secrets, is_inside, is_secret, real, resolve
from ralph_verify.guard.scripts import SHELLS
from ralph_verify.guard.unfold import INTERPRETERS, NOT_RUNNERS, PACKAGE_RUNNERS, reads_stdin

_NETCATS = frozenset({"nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "pwncat"})
_NETCAT_EXEC = re.compile(r"^(-e|-c|--exec|--sh-exec|--lua-exec)(=.*)?$|^-[a-zA-Z]*[ec]$")
_SOCKET_FILE = re.compile(r"^/dev/(tcp|udp)/([^/]+)/")
_INET = re.compile(r"/inet[46]?/(tcp|udp)/")
MINERS = frozenset({"xmrig", "xmr-stak", "xmr-stak-cpu", "minerd", "cpuminer", "cpuminer-opt",
                    "ccminer", "cgminer", "bfgminer", "ethminer", "t-rex", "nbminer",
                    "lolminer", "gminer", "phoenixminer", "teamredminer", "nanominer",
                    "srbminer", "srbminer-multi", "nheqminer", "xmrig-cuda", "miner"})
_POOL = re.compile(r"stratum[0-9]?\+(tcp|ssl|tls)://|xmrig|minexmr|nicehash|nanopool|"
                   r"2miners|f2pool|supportxmr", re.IGNORECASE)
_HOST_DIRS = ("/etc", "/root", "/var", "/run", "/proc", "/sys", "/dev", "/boot", "/usr",
              "/bin", "/sbin", "/lib", "/home", "/mnt", "/media", "/srv", "/opt", "/snap")
_GENERATORS = re.compile(r"^/dev/(zero|u?random)$")
#: Programs that print what they read as they read it, to the end of their input; ``read``:
#: the loop around it (``yes | while read l; do echo $l; done > f``).
_FILTERS = frozenset({"cat", "tee", "tr", "dd", "sed", "awk", "gawk", "mawk", "grep", "egrep",
                      "fgrep", "cut", "rev", "nl", "fold", "base64", "base32", "read"})
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([KMGTPE]?)(i?B)?$", re.IGNORECASE)


def reverse_shell(command: SimpleCommand) -> Iterator[Found]:
    """A shell (or a program's input and output) handed to a network socket."""
    name, args = command.name, command.args
    why = ""
    if name in _NETCATS and any(_NETCAT_EXEC.match(a) for a in args):
        why = f"{name} -e/-c runs a program for whoever connects"
    elif name == "socat" and any(re.match(r"(exec|system):", a, re.IGNORECASE) or
                                 re.search(r",(exec|system):", a, re.IGNORECASE) for a in args):
        why = "socat EXEC:/SYSTEM: hands a program to a network connection"
    elif name in ("zmodload", "ztcp") and (name == "ztcp" or any(a.startswith("zsh/net")
                                                                 for a in args)):
        why = "zsh's TCP module opens a socket for the shell"
    elif name in ("ssh", "autossh") and any(a.startswith(("-R", "-D")) or a.lower().startswith(
            ("remoteforward", "dynamicforward")) for a in args):
        why = "ssh -R/-D opens a tunnel between this machine and a remote host"
    elif name == "xterm" and any(a in ("-display", "-d") for a in args) and not all(
            w.startswith(":") for i, w in enumerate(args) if i and args[i - 1] in ("-display",
                                                                                   "-d")):
        why = "xterm -display sends a terminal to another machine"
    elif any(_INET.search(w) for w in command.words):
        why = f"{name} opens a network connection (/inet/tcp) for its program"
    for _op, target in command.redirects:
        match = _SOCKET_FILE.match(target)
        if match is None:
            continue
        shell = name in SHELLS or name == "exec"
        if shell or classify(match.group(2)) != "loopback":
            why = why or f"redirecting {name or 'the shell'} to {target} opens a raw socket"
    if name in SHELLS and reads_stdin(args) and any(
            op in ("<&", ">&", "<>") and target not in ("0", "1", "2", "-", "/dev/null")
            for op, target in command.redirects):
        why = why or f"{name} reads its commands from another descriptor (a socket)"
    if why:
        yield ("reverse-shell", f"{why}; a remote party would control this machine")


def miner(command: SimpleCommand) -> Iterator[Found]:
    if command.name.lower() in MINERS or any(_POOL.search(w) for w in command.words[1:]
                                             if "://" in w or command.name in (
                                                 "docker", "podman", "nerdctl")):
        yield ("miner", f"{command.name} looks like a cryptocurrency miner (a known miner or a "
                        "stratum pool); it spends the user's machine for someone else")


def container(command: SimpleCommand, cwd: Path | None, policy: Policy) -> Iterator[Found]:
    """``docker run`` given the host: privileges, its namespaces, or a mount of what the
    project must not reach."""
    name, args = command.name, command.args
    if any(a.endswith(".sock") and re.search(r"docker|containerd|podman", a) for a in args):
        yield ("container", f"{name} talks to the container engine's socket: root on the host")
        return
    if name in ("kubectl", "oc") and re.search(r"host(PID|Network|IPC|Path)|privileged\W+true",
                                               " ".join(args)):
        yield ("container", f"{name} runs a pod given the host (its processes, network, files)")
        return
    if name not in ("docker", "podman", "nerdctl") or not ({"run", "create"} & set(args[:4])):
        return
    for index, arg in enumerate(args):
        value = args[index + 1] if index + 1 < len(args) else ""
        flag = arg.split("=", 1)
        if arg == "--privileged" or (flag[0] in ("--pid", "--userns", "--uts", "--ipc") and (
                (flag[1:] or [value])[0] == "host")) or (
                flag[0] == "--cap-add" and (flag[1:] or [value])[0].upper() in (
                    "ALL", "SYS_ADMIN", "SYS_PTRACE", "SYS_MODULE", "DAC_READ_SEARCH")) or (
                flag[0] == "--device"):
            yield ("container", f"{name} {arg} gives the container the host itself")
            return
        if (arg in ("-e", "--env") and re.fullmatch(r"[A-Za-z_]\w*", value) and
                SECRET_NAME.search(value)) or (
                arg == "--env-file" and is_secret(resolve(value, cwd, policy), policy)):
            yield ("read-secrets", f"{name} {arg} {value} hands a secret of this machine to the "
                                   "container, where it can print or send it")
            return
        source, spec = None, None
        if arg in ("-v", "--volume"):
            spec = value
        elif arg.startswith("--volume="):
            spec = arg.split("=", 1)[1]
        elif arg.startswith("-v") and len(arg) > 2:
            spec = arg[2:]
        if spec is not None:
            source = spec.split(":", 1)[0] if ":" in spec else None
        elif arg == "--mount" or arg.startswith("--mount="):
            spec = value if arg == "--mount" else arg.split("=", 1)[1]
            found = re.search(r"(?:^|,)(?:source|src)=([^,]+)", spec)
            source = found.group(1) if found else None
        if source and source.startswith(("/", "~", ".", "$")):
            path = resolve(source, cwd, policy)
            if path is None or _host_path(path, policy):
                yield ("container", f"{name} mounts {source} into the container: the host's "
                                    "files, secrets or docker socket; mount only the project")
                return


def served(command: SimpleCommand, cwd: Path | None, policy: Policy) -> Iterator[Found]:
    """A folder (by default the one it runs in) served to whoever connects, or a process
    attached to and read, or a link made to: the home folder, the root or a secret."""
    name, args = command.name, command.args

    def secret(path: Path | None) -> bool:
        return holds_secrets(path, policy) or is_secret(path, policy)

    option = ("-d", "--directory") if name.startswith("python") and "http.server" in args \
        else ("-t",) if name == "php" and "-S" in args else ("-h",) if "httpd" in (
            name, *args[:1]) else ("-p", "--pid", "-pid") if name in _ATTACH else None
    if name == "ln" and any((a.startswith("-") and "s" in a.lstrip("-")[:3]) or a == "--symbolic"
                            for a in args):
        targets = [a for a in args if not a.startswith("-")][:-1]
        if any(secret(resolve(t, cwd, policy)) for t in targets):
            yield ("read-secrets", f"ln -s to {targets[0]} makes the home folder, the root or "
                                   "a secret reachable through a path inside the project")
        return
    if option is None:
        # Any other program given the home folder, the root or a secret folder whole
        # (``npx serve ~``, ``caddy file-server --root ~``, ``rclone serve http ~``).
        if name not in _OWN_VERBS and name not in _LISTS and any(
                secret(path) and path is not None and path.is_dir() for path in (
                    resolve(a.split("=", 1)[-1], cwd, policy) for a in args
                    if not a.startswith("-") or a.startswith("--root="))):
            yield ("read-secrets", f"{name} is given the home folder, the root or a secret "
                                   "folder whole: serving, syncing or running it hands the "
                                   "user's keys to whoever it reaches")
        return
    folder = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in option),
                  "." if name not in _ATTACH else "$PPID" if name == "gcore" else None)
    if name in _ATTACH and folder is not None:
        yield ("read-secrets", f"{name} {' '.join(args[:3])} attaches to a running process "
                               "and reads its memory (keys, tokens)")
    elif folder is not None and secret(resolve(folder, cwd, policy)):
        yield ("read-secrets", f"serving {folder} hands the home folder or the machine's "
                               "files (keys, credentials) to whoever connects")


_ATTACH = frozenset({"gdb", "strace", "ltrace", "gcore", "perf", "pstack", "lldb"})
#: Programs that only list or measure what a folder holds, or make a fresh name in it.
_LISTS = frozenset({"du", "tree", "df", "stat", "ls", "file", "realpath", "readlink", "namei",
                    "exa", "eza", "lsd", "fd", "fdfind", "ncdu", "cd", "test", "dirname",
                    "mktemp"})


def _host_path(path: Path, policy: Policy) -> bool:
    if is_inside(path, policy):
        return False
    root, home = real(policy.root), real(policy.home)
    return (path == Path("/") or path == home or path in root.parents or
            path in home.parents or is_secret(path, policy) or
            path.name.endswith(".sock") or any(str(path) == d or str(path).startswith(d + "/")
                                                for d in _HOST_DIRS))


def disk_fill(command: SimpleCommand) -> Iterator[Found]:
    """Endless or huge writes: ``yes > f``, ``yes | tee f``, ``dd if=/dev/zero of=f`` without a
    count."""
    name, args = command.name, command.args
    files = written(command)
    why = ""
    if name == "dd" and any(_GENERATORS.match(a[3:]) for a in args if a.startswith("if=")) \
            and not any(a.startswith(("count=", "iflag=count")) for a in args):
        why = "dd from an endless device without count= writes until the disk is full"
    elif any(not f.startswith("/dev/") for f in files) and _endless(command):
        why = f"{name} into a file writes until the disk is full: its output never ends"
    elif name in ("fallocate", "head", "truncate") and any(
            _bytes(args[i + 1]) >= 2 ** 30 for i, a in enumerate(args[:-1])
            if a in ("-l", "--length", "-c", "--bytes") or (a == "-s" and name != "truncate")):
        why = f"{name} of a gigabyte or more fills the disk"
    if why:
        yield ("system", f"{why}; leave it to the user")


def _endless(command: SimpleCommand) -> bool:
    """Whether ``command`` prints without end: ``yes``, or a filter (``cat``, ``tee``, ``dd``
    without ``count=``, ``grep`` without ``-m`` ...) reading an endless device or an endless
    stage before it."""
    while command.name in _FILTERS and not any(
            a.startswith(("count=", "iflag=count", "-m", "--max-count")) for a in command.args):
        name, args = command.name, command.args
        reads = [a[3:] for a in args if a.startswith("if=")] if name == "dd" else [
            a for a in args if name == "cat" and (a == "-" or not a.startswith("-"))]
        if any(_GENERATORS.match(a) for a in reads):
            return True
        if reads and "-" not in reads:
            return False
        stdin = [t for op, t in command.redirects if op == "<"]
        if stdin or command.stdin_text is not None:
            return any(_GENERATORS.match(t) for t in stdin)
        if not command.upstream:
            return False
        command = command.upstream[-1]
    return command.name == "yes"


def _bytes(text: str) -> float:
    match = _SIZE.match(text.lstrip("+"))
    if match is None:
        return 0
    power = " KMGTPE".index(match.group(2).upper() or " ")
    return float(match.group(1)) * float(1024 ** power)


_ADMIN = {"modprobe": "loads or unloads kernel modules", "rmmod": "unloads a kernel module",
          "insmod": "loads a kernel module", "passwd": "changes a password",
          "chpasswd": "changes passwords", "useradd": "adds a user", "userdel": "deletes a user",
          "usermod": "changes a user", "groupadd": "adds a group", "groupdel": "deletes a group",
          "adduser": "adds a user", "deluser": "deletes a user", "vipw": "edits the users",
          "visudo": "edits sudo's rules", "setenforce": "switches SELinux",
          "swapon": "changes swap", "hostname": "renames the machine",
          "gpasswd": "changes a group's members", "setcap": "gives a program privileges",
          "newgrp": "changes the group of the shell"}
_NEEDS = {"ip": re.compile(r"\b(link|addr|address|route|rule|neigh|netns)\b.*\b(set|add|del|"
                           r"delete|flush|change|replace)\b"),
          "ifconfig": re.compile(r"\b(down|up|add|del|netmask|mtu|hw)\b"),
          "nmcli": re.compile(r"\b(networking|radio|connection|con|device|dev)\b.*\b(off|down|"
                              r"delete|disconnect|modify)\b"),
          "date": re.compile(r"(^|\s)(-s|--set)\b"), "timedatectl": re.compile(r"\bset-"),
          "hwclock": re.compile(r"--systohc|--hctosys|(^|\s)-w\b|--set\b"),
          "hostnamectl": re.compile(r"\bset-"), "journalctl": re.compile(r"--vacuum|--rotate"),
          "apt": re.compile(r"\b(remove|purge|autoremove)\b"),
          "apt-get": re.compile(r"\b(remove|purge|autoremove)\b"),
          "dpkg": re.compile(r"(^|\s)(-r|-P|--remove|--purge)\b"),
          "yum": re.compile(r"\b(remove|erase)\b"), "dnf": re.compile(r"\b(remove|erase)\b"),
          "pacman": re.compile(r"(^|\s)-R"),
          "kill": re.compile(r"(^|\s)(0|1|\$PPID|\$\{PPID\}|-0)$|\$PPID|^-?\S*\s*-\$\("),
          # ``fuser -k 3000/tcp`` stops what listens on a port (``lsof -ti:3000 | xargs kill``)
          "fuser": re.compile(r"^(?!(-\S+|\d+/(tcp|udp))(\s+(-\S+|\d+/(tcp|udp)))*$)"
                              r".*(^|\s)-[a-zA-Z]*k"),
          "apk": re.compile(r"\bdel\b"),
          "conda": re.compile(r"\b(remove|uninstall)\b.*(--all|\bbase\b)|\benv remove\b"),
          "service": re.compile(r"\b(stop|restart|reload|disable)\b"),
          "update-alternatives": re.compile(r"--(remove|remove-all|set|install|config)\b"),
          "pip": re.compile(r"--break-system-packages|\buninstall\b.*\b(pip|setuptools|wheel)"
                            r"\b"),
          "killall": re.compile(r"(^|\s)(python\S*|node|bash|sh|ralph-verify)$"),
          "pkill": re.compile(r"(^|\s)(claude|codex|gemini|aider|node|python\S*)$|\$PPID|\$\$"),
          "dmesg": re.compile(r"(^|\s)(-C|-c|--clear|--read-clear)\b"),
          "renice": re.compile(r""), "loginctl": re.compile(r"\b(terminate|kill)-")}
#: Tools that destroy what lives beyond the project: a cloud, a cluster, a database, a
#: registry, a container engine's volumes. Matched against the words after the tool.
_REMOTE = {
    "docker": re.compile(r"\bprune\b.*(--volumes|-a\b|--all|-af\b)|\bvolume (prune|rm)\b|"
                         r"\b(rm|rmi|kill|stop)\b.*\$\(|^logout\b|\bsystem reset\b"),
    "kubectl": re.compile(r"^(\S+ )*(delete|drain|cordon|scale|patch|replace)\b|"
                          r"\bconfig (delete|set|unset|rename)-?|\brollout undo\b"),
    "helm": re.compile(r"\b(uninstall|delete)\b"),
    "terraform": re.compile(r"\bdestroy\b|-destroy\b|\bstate (rm|push|mv)\b|\bforce-unlock\b"),
    "aws": re.compile(r"\bconfigure set\b"), "dropdb": re.compile(""),
    "dropuser": re.compile(""),
    "npm": re.compile(r"\bunpublish\b|\bdist-tag\b|\bdeprecate\b|\bowner (rm|add)\b|"
                      r"\bpublish\b(?!.*--dry-run)|"
                      r"\b(uninstall|remove|rm|un|install|i|add)\b.*(-g|--global)\b|^link$|"
                      r"\bconfig (set|delete|edit)\b(?!.*--location[= ]project)"),
    "yarn": re.compile(r"\b(unpublish|publish)\b|\bglobal remove\b|\bconfig set\b"),
    "pnpm": re.compile(r"\b(unpublish|publish)\b|\b(remove|rm|uninstall)\b.*(-g|--global)\b"),
    "gh": re.compile(r"\b(repo|release) delete\b|\bauth (logout|refresh|setup-git)\b"),
    "pip": re.compile(r"^config (set|unset|edit)\b|\binstall\b.*--user\b"),
    "ssh-add": re.compile(r"(^|\s)-[dDx]\b"), "pass": re.compile(r"\b(rm|mv|insert|generate)\b"),
    "gpg": re.compile(r"--delete-(secret-)?(and-public-)?keys?\b|--delete-secret-and-public-key"),
    "keyring": re.compile(r"\b(del|set)\b"),
    "code": re.compile(r"--(install|uninstall)-extension\b"),
}
_PODMAN = ("podman", "nerdctl")
_TUNNELS = frozenset({"ngrok", "chisel", "frpc", "bore", "cloudflared", "lt", "localtunnel",
                      "pagekite", "sshuttle", "inlets", "zrok", "sshd", "dropbear", "telnetd",
                      "in.telnetd", "ttyd", "gotty", "websocketd"})
#: A server told to let anyone in: an empty token or password, authentication off.
_AUTH_OFF = re.compile(r"(?i)(token|password|auth)[= ]('')?(none|\s|$)")


def administration(command: SimpleCommand) -> Iterator[Found]:
    """The machine's users, kernel, clock, network and packages."""
    name, args = command.name, command.args
    text, family = " ".join(args), interpreter_family(name) or name
    if name == "kill" and "xargs" in command.wrappers and any(
            _every_process(c.name, " ".join(c.args)) for c in command.upstream):
        yield ("system", "kill of every process ps lists; leave it to the user")
    if name == "kill" and "xargs" in command.wrappers and any(
            c.name in ("pgrep", "pidof") for c in command.upstream):
        yield ("system", "kill of the processes pgrep or pidof finds by name: they may be the "
                         "agent, ralph-verify or the user's; kill the pid you started")
    if name in ("pkill", "killall") and any(re.fullmatch(r"-[PtuUsgG]", a) or a.startswith(
            ("--parent", "--terminal", "--euid", "--uid", "--session", "--pgroup", "--user"))
            for a in args):
        yield ("system", f"{name} {text[:40]} kills every process of a parent, terminal, user "
                         "or session, not one the agent started")
    if command.substituted_into == "kill" and (_every_process(name, text) or re.search(
            r"PPID|\$\$|ralph|claude|codex|gemini|aider|\bnode\b|\bpython", text)):
        yield ("system", f"kill of what {name} finds from the agent's own process: it kills "
                         "the agent, its parent or ralph-verify; leave it to the user")
    if name in _ADMIN and (name != "hostname" or [a for a in args if not a.startswith("-")]):
        yield ("system", f"{name} {_ADMIN[name]} of the machine; leave it to the user")
    elif _NEEDS.get(family, _NEVER).search(text):
        what = "kills the agent itself, ralph-verify or its process group" if name in (
            "kill", "killall") else "changes the machine (its network, clock, logs, services "\
            "or system packages)"
        yield ("system", f"{name} {text[:60]} {what}; leave it to the user")
    elif _REMOTE.get("docker" if name in _PODMAN else family, _NEVER).search(text):
        yield ("remote-data", f"{name} {text[:60]} destroys, publishes or reconfigures what "
                              "lies beyond the project (a cloud, cluster, database, registry, "
                              "the user's settings); leave it to the user")
    elif (name in _PLATFORMS or _remote_engine(name, args)) and _DESTROY.search(text):
        yield ("remote-data", f"{name} {text[:60]} deletes, resets or archives what a cloud, "
                              "a cluster, a store or a remote engine holds; leave it to the user")
    elif name in CONTAINER_TOOLS and _DESTROY_INSIDE.search(" ".join(container_command(args))):
        yield ("remote-data", f"{name} exec {text[:60]} deletes inside a container or pod (its "
                              "data is not the project's); leave it to the user")
    elif (name in _PLATFORMS or name in _REMOTE) and _GRANTS.search(text):
        yield ("remote-data", f"{name} {text[:60]} grants administrator rights or opens a "
                              "service to the whole internet; leave it to the user")
    elif name not in _OWN_VERBS and _DATA_GONE.search(text):
        yield ("remote-data", f"{name} {text[:60]} drops or empties a database or a store "
                              "beyond the project; leave it to the user")
    elif name.startswith(("python", "pip")) and command.words[:1] and command.words[0].startswith(
            ("/usr/", "/bin/", "/opt/")) and "uninstall" in args:
        yield ("system", f"{command.words[0]} uninstalls from the machine's own Python; leave "
                         "it to the user")
    elif name in _TUNNELS or any(w in ("tunnel", "funnel") for w in _verbs(args)) or (
            _AUTH_OFF.search(text) is not None) or (name in ("kubectl", "oc") and _verbs(
                args)[:1] in (["port-forward"], ["proxy"]) and "0.0.0.0" in text):
        yield ("reverse-shell", f"{name} opens a tunnel from the internet into this machine; "
                                "a remote party would reach it")
    elif name not in _OWN_VERBS and (_VERB.search(name) or any(
            _VERB.search(w) for w in _verbs(args)) or "--delete" in args or "--purge" in args):
        yield ("remote-data", f"{name} {text[:60]} deletes, resets or uninstalls what lies "
                              "beyond the project (a store, a database, a machine, a tool "
                              "chain, a cloud); leave it to the user")
    verbs = _verbs(args)
    if name == "dotnet":  # ``dotnet publish`` builds into a folder; ``nuget push`` uploads
        verbs = verbs[1:] if verbs[:1] == ["nuget"] else []
    if (name not in ("git", "kubectl", "oc", "helm") and "--dry-run" not in args and
            _PUBLISH.fullmatch(next(iter(verbs), "")) and not re.search(
                r"\b(localhost|127\.0\.0\.1)\b", text)) or _PUBLIC.search(text) or (
            name == "git" and _verbs(args)[:1] == ["send-email"]) or name in _MAILERS:
        yield ("exfiltration", f"{name} {text[:60]} publishes the project or sends it off the "
                               "machine (a registry, a site, a public bucket, mail); leave it "
                               "to the user")


#: Whatever the platform, a verb that destroys: ``doctl ... delete``, ``heroku apps:destroy``,
#: ``gh api -X DELETE``, ``aws kms schedule-key-deletion``, ``aws s3 sync --delete``.
_DESTROY = re.compile(
    r"(?i)(^|[\s:])(delete|destroy|remove|rm|rb|del|drop|purge|prune|terminate|wipe|archive|"
    r"deprecate|flush\w*|truncate|reset|erase|unpublish|deregister|revoke|[\w-]+-deletion|"
    r"(delete|destroy|remove|terminate)-[\w-]+)(?=$|[\s:])|-X\s*DELETE\b|--method[= ]DELETE|"
    r"--(delete|prune|force-delete)(?=$|[\s=])")
_DESTROY_INSIDE = re.compile(r"(^|\s|/)(rm|shred|rmdir|unlink|mkfs\S*|wipefs|truncate|dd)\s")
_PLATFORMS = CLOUD_CLIS | {"kubectl", "oc", "helm", "etcdctl", "consul", "nomad", "eksctl",
                           "kubeadm", "minikube", "kind", "argocd", "gsutil", "s3cmd", "rclone",
                           "mc", "databricks", "snowsql"}


#: A verb that destroys, as a subcommand or in the program's name (``nats stream rm``,
#: ``mysqladmin drop``, ``dmsetup remove_all``, ``aa-teardown``, ``pg_dropcluster``).
_VERB = re.compile(r"(^|[-_:])(delete|destroy|remove|rm|rb|del|drop|dropcluster|purge|"
                   r"prune|terminate|wipe|erase|flush\w*|truncate|reset|uninstall|undefine|"
                   r"teardown|unpublish|deregister|revoke|block)([-_:]\w*)?$")
_PUBLISH = re.compile(r"publish|push|deploy|upload")
_PUBLIC = re.compile(r"(?i)public-read|\ballusers\b|\ballauthenticatedusers\b|"
                     r"(^|\s)--public(\s|$)|visibility[= ]public|private=false|--public-access")
_GRANTS = re.compile(r"AdministratorAccess|cluster-admin|roles/(owner|editor)\b|"
                     r"0\.0\.0\.0/0|::/0")
_DATA_GONE = re.compile(r"(?i)\b(drop|truncate)\s+(database|table|schema|keyspace)\b|"
                        r"\bflush_?(all|db)\b|dropDatabase|\.drop\(")
_MAILERS = frozenset({"mail", "mailx", "mutt", "sendmail", "msmtp", "swaks", "s-nail"})
#: Programs whose verbs act on the project (its packages, containers, targets, sessions) or
#: are judged by their own rules; a text tool's words are data.
_OWN_VERBS = (NOT_RUNNERS | INTERPRETERS | SHELLS | {
    "make", "gmake", "just", "task", "tox", "nox", "pre-commit", "poetry", "pdm", "pipenv",
    "hatch", "bun", "rsync", "tmux", "screen", "systemctl", "crontab", "pytest", "py.test",
    "jest", "vitest", "mocha", "rspec", "awk", "gawk", "mawk", "nawk", "bundle", "composer",
    "dotnet", "sqlite3", "python3", "perl", "env", "nice", "time", "timeout", "xargs",
    "sudo", "kill", "ssh-add", "gpg", "pass", "keyring", "twine", "npx",
    "truncate", "shred", "rmdir", "unlink", "dd", "coverage", "pixi", "rye", "dvc",
}) - {"gem", "pipx", "brew"}


def _verbs(args: list[str]) -> list[str]:
    """A command's first words that are not options: its subcommands."""
    return [a for a in args if not a.startswith("-")][:3]


def _remote_engine(name: str, args: list[str]) -> bool:
    """``docker -H ssh://prod ...``, ``docker --context prod ...``: another machine's engine."""
    if name not in ("docker", "podman", "nerdctl"):
        return False
    values = [v for i, a in enumerate(args[:-1]) if a in ("-H", "--host", "-c", "--context")
              for v in [args[i + 1]]] + [a.split("=", 1)[1] for a in args
                                          if a.startswith(("--host=", "--context="))]
    return any(not v.startswith(("unix://", "npipe://")) and v != "default" for v in values)


#: Package managers, and the verbs that fetch code and install or run it ("": any).
_INSTALLERS = {"pip": "install|download|wheel", "pipx": "install|run|inject",
               "uv": "add|run|pip|tool", "uvx": "", "npx": "", "pnpx": "", "bunx": "",
               "npm": "install|i|add|exec|x", "yarn": "add|dlx", "pnpm": "add|install|i|dlx",
               "bun": "add|install|i|x", "cargo": "install", "gem": "install",
               "composer": "require", "deno": "run|install", "kubectl": "apply|create|replace",
               "oc": "apply|create|replace", "helm": "install|upgrade"}
#: The package indexes themselves (``--index-url https://pypi.org/simple``).
_INDEX = re.compile(r"https://(pypi\.org|files\.pythonhosted\.org|registry\.npmjs\.org|"
                    r"registry\.yarnpkg\.com|rubygems\.org|index\.crates\.io)/")
_FOREIGN = re.compile(r"^(git\+|hg\+|svn\+|bzr\+|github:|gitlab:|bitbucket:|gist:|git@)|://")


def foreign_code(command: SimpleCommand, cwd: Path | None, policy: Policy) -> Iterator[Found]:
    """A package manager given a URL, a repository, another index or a folder outside the
    project: code no one chose, whose install scripts run here."""
    name, args = command.name, command.args
    fetched = [w for w in [*command.wrappers[1:], *command.words[:1]] if _FOREIGN.search(w)]
    if fetched and set(command.wrappers) & {r for r, _ in PACKAGE_RUNNERS} | {"uv run"}:
        yield ("pipe-to-shell", f"{command.wrappers[0]} runs {fetched[0][:60]}, code from a "
                               "source the user did not choose; leave it to the user")
        return
    if name.startswith("python") and args[:2] == ["-m", "pip"]:
        name, args = "pip", args[2:]
    verbs = _INSTALLERS.get(interpreter_family(name) or name)
    verb = next((a for a in args if not a.startswith("-")), "")
    if verbs is None or (verbs and not re.fullmatch(verbs, verb)):
        return
    for index, arg in enumerate(args):
        value = arg.split("=", 1)[1] if arg.startswith("--") and "=" in arg else arg
        value = value[len("file:"):] if value.startswith("file:") else value
        local = value.startswith(("../", "/", "~")) or value == ".."
        valued = index > 0 and args[index - 1].startswith("-")  # ``-d /tmp/wheels``: an output
        if (_FOREIGN.search(value) and not _INDEX.match(value)) or (
                local and not valued and not is_inside(resolve(value, cwd, policy), policy)):
            yield ("pipe-to-shell", f"{name} {verb} {value[:60]} fetches code from a source "
                                    "the user did not choose (not the package index, not the "
                                    "project) and runs its install scripts; leave it to the "
                                    "user")
            return


_NEVER = re.compile(r"(?!)")


def _every_process(name: str, text: str) -> bool:
    """``ps -e``, ``ps aux``: a listing of every process (the agent's and ralph-verify's)."""
    return name == "ps" and re.search(r"(^|\s)(-\w*[eA]|a\w*x|x\w*a)", text) is not None
