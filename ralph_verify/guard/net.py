"""Where a command connects: a host classified by the address it means as the C library reads
it (``0xa9fea9fe`` is the metadata address): ``metadata``, ``private`` or ``loopback``."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable, Iterator
from urllib.parse import urlsplit

METADATA_NAMES = frozenset({"metadata", "metadata.google.internal", "metadata.goog",
                            "instance-data", "instance-data.ec2.internal", "metadata.internal",
                            "metadata.azure.internal", "metadata.tencentyun.com"})
METADATA_ADDRESSES = frozenset({
    ipaddress.ip_address(a) for a in (
        "169.254.169.254", "169.254.170.2", "169.254.169.123", "169.254.169.253",
        "100.100.100.200", "192.0.0.192", "fd00:ec2::254", "fd00:ec2::23")})
PRIVATE_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10",
    "fc00::/7", "fe80::/10"))
LOOPBACK_NAMES = frozenset({"localhost", "ip6-localhost", "ip6-loopback", "localhost.localdomain"})
#: Commands whose plain arguments name hosts (``nc 10.0.0.5 80``, ``ssh user@host``).
NETWORK_COMMANDS = frozenset({
    "curl", "wget", "http", "https", "xh", "httpie", "nc", "ncat", "netcat", "socat", "telnet",
    "ssh", "scp", "sftp", "rsync", "ftp", "tftp", "ping", "ping6", "nmap", "aria2c", "lynx",
    "links", "w3m", "openssl", "mosh", "dig", "host", "nslookup", "traceroute", "mtr",
    "redis-cli", "psql", "mysql", "mongo", "mongosh", "websocat", "grpcurl", "ab", "wrk", "hey",
})
_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>]+")
_BRACKETED = re.compile(r"\[([0-9a-fA-F:.%a-zA-Z]+)\]")
_EMBEDDED = re.compile(r"(?<![0-9])(\d{1,3}[.-]){3}\d{1,3}(?![0-9])")
_NUMERIC = re.compile(r"(0x[0-9a-f]+|[0-9]+)(\.(0x[0-9a-f]+|[0-9]+)){0,3}", re.IGNORECASE)


def classify(host: str) -> str | None:
    """``metadata``, ``private``, ``loopback`` or ``None`` (a public or unknown host)."""
    name = host.strip().strip("[]").rstrip(".").lower().split("%", 1)[0]
    if not name:
        return None
    if name in METADATA_NAMES or name.endswith(".metadata.google.internal"):
        return "metadata"
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return "loopback"
    address = _address(name)
    if address is None:
        # ``169.254.169.254.nip.io``, ``10-0-0-5.sslip.io``: a name that spells an address.
        spelt = _EMBEDDED.search(name)
        return classify(spelt.group(0).replace("-", ".")) if spelt else None
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour or _nat64(address)
        if embedded is not None:
            return classify(str(embedded))
    if address in METADATA_ADDRESSES:
        return "metadata"
    if address.is_loopback or address.is_unspecified or (
            isinstance(address, ipaddress.IPv4Address) and address.packed[0] == 0):
        return "loopback"
    if any(address in network for network in PRIVATE_NETWORKS):
        return "private"
    return None


def _nat64(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address in ipaddress.ip_network("64:ff9b::/96"):
        return ipaddress.IPv4Address(address.packed[-4:])
    return None


def _address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if ":" in name:
        try:
            return ipaddress.IPv6Address(name)
        except ValueError:
            return None
    if not _NUMERIC.fullmatch(name):
        return None
    if "." not in name and not name.startswith("0x") and int(name) < 1 << 24:
        return None  # a port or a count, not an address
    try:
        return ipaddress.IPv4Address(socket.inet_aton(name))
    except (OSError, ValueError):
        return None


def hosts_in(word: str, plain: bool) -> Iterator[str]:
    """The hosts a word names: URLs always; with ``plain``, bare hosts too."""
    for match in _URL.finditer(word):
        try:
            host = urlsplit(match.group(0)).hostname
        except ValueError:
            host = None
        if host:
            yield host
        else:
            authority = match.group(0).split("://", 1)[1].split("/", 1)[0]
            yield authority.rsplit("@", 1)[-1]
    for match in _BRACKETED.finditer(word):
        yield match.group(1)
    if plain:
        if "/" not in word:
            yield word
        for token in re.split(r"[/@:,=\s]+", word):
            if token:
                yield token


def network_findings(words: Iterable[str], plain: bool, allow_hosts: tuple[str, ...],
                     refuse_localhost: bool) -> Iterator[tuple[str, str]]:
    """``(rule, reason)`` for every host in ``words`` the policy refuses."""
    for word in words:
        if len(word) > 4096:
            word = word[:4096]
        for host in hosts_in(word, plain):
            kind = classify(host)
            if kind == "metadata":
                yield ("metadata", f"{host} is a cloud metadata address, which hands out the "
                                   "machine's credentials; it is off limits")
            elif kind == "private" and not allowed(host, allow_hosts):
                yield ("private-network", f"{host} is in a private network range; requests "
                                          "to the machine's own network are refused (the "
                                          "user can allow a host with [tool.ralph-verify."
                                          "guard] allow-hosts)")
            elif kind == "loopback" and refuse_localhost and not allowed(host, allow_hosts):
                yield ("private-network", f"{host} is this machine; the project's settings "
                                          "refuse requests to localhost")


def allowed(host: str, allow_hosts: tuple[str, ...]) -> bool:
    """``host`` is named in ``allow-hosts`` (a name, an address or a CIDR range)."""
    name = host.strip("[]").rstrip(".").lower()
    spelt = _EMBEDDED.search(name)
    address = _address(name) or (_address(spelt.group(0).replace("-", ".")) if spelt else None)
    for entry in allow_hosts:
        entry = entry.lower()
        if entry == name:
            return True
        if address is not None:
            try:
                if address in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                continue
    return False
