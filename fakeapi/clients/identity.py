"""Who a request comes from: its client's name, from the User-Agent as kube components build it,
or from a header the server was told to trust (``fakeapi serve --client-header``).

client-go builds ``<command>/<version> (<os>/<arch>) kubernetes/<commit>``
(``rest.DefaultKubernetesUserAgent``) and ``rest.AddUserAgent`` appends ``/<name>``: the real
kube-controller-manager gives each controller its own client that way
(``kube-controller-manager/v1.35.4 (linux/amd64) kubernetes/<commit>/statefulset-controller``).
The client's name is the command, as kube-apiserver derives a field manager from a User-Agent
(``prefixFromUserAgent``: up to the first ``/``, printable characters, at most 128 bytes), plus
``/<name>`` when a kube-shaped User-Agent carries one; the version is kept beside it. Other
User-Agents name their product the same way (``kubectl``, ``OpenAPI-Generator``, ``python-requests``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: kube-apiserver's ``validation.FieldManagerMaxLength``, which bounds ``prefixFromUserAgent``.
MAX_NAME_BYTES = 128
#: The most of a User-Agent kept to show (kube's audit log keeps 1024 bytes).
MAX_USER_AGENT = 1024
UNKNOWN = "unknown"

_KUBE_USER_AGENT = re.compile(r"([^/]*)/(\S*) \([^)]*\) kubernetes/[^/\s]*(?:/(.+))?")


@dataclass(frozen=True, slots=True)
class ClientIdentity:
    name: str
    version: str
    user_agent: str


def identify(user_agent: str) -> ClientIdentity:
    """The client a User-Agent names (``unknown`` for none)."""
    product, _, rest = user_agent.partition("/")
    version = rest.split(" ", 1)[0].split("/", 1)[0]
    name = _printable(product)
    kube = _KUBE_USER_AGENT.fullmatch(user_agent)
    if kube is not None and kube.group(3):
        name = f"{name}/{_printable(kube.group(3))}"
    return ClientIdentity(name or UNKNOWN, version, user_agent[:MAX_USER_AGENT])


def named(value: str, user_agent: str) -> ClientIdentity:
    """The client a trusted header names; the User-Agent is kept to show."""
    return ClientIdentity(_printable(value) or UNKNOWN, "", user_agent[:MAX_USER_AGENT])


def _printable(text: str) -> str:
    """``prefixFromUserAgent``'s filter: printable characters, at most ``MAX_NAME_BYTES`` bytes."""
    if text.isprintable() and len(text) <= MAX_NAME_BYTES and text.isascii():
        return text
    kept = []
    size = 0
    for char in text:
        if not char.isprintable():
            continue
        size += len(char.encode())
        if size > MAX_NAME_BYTES:
            break
        kept.append(char)
    return "".join(kept)
