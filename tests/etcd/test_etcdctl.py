"""etcdctl v3.6.6 against ``fakeapi etcd`` and against a real etcd v3.6.6: the same commands, in
the same order, on two fresh servers; every output (stdout, stderr, exit code) must be the same
once the values that differ between two servers by nature are replaced by placeholders:
member and cluster ids, lease ids (numbered in order of appearance), client and peer URLs, the raft index,
database sizes, the remaining TTL of a lease, health-check timings.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.etcd

#: (arguments, stdin) in order; ``{lease}`` is the id of the last lease granted on that server.
COMMANDS: list[tuple[list[str], str | None]] = [
    (["put", "a", "1"], None),
    (["put", "b", "2"], None),
    (["put", "c", "3", "--prev-kv"], None),
    (["put", "c", "33", "--prev-kv"], None),
    (["get", "a", "-w", "json"], None),
    (["get", "", "--prefix", "-w", "json"], None),
    (["get", "", "--prefix", "--limit", "2", "-w", "json"], None),
    (["get", "", "--prefix", "--count-only", "-w", "json"], None),
    (["get", "", "--prefix", "--keys-only"], None),
    (["get", "a", "z", "--sort-by", "VALUE", "--order", "DESCEND"], None),
    (["get", "a", "z", "--sort-by", "MODIFY", "--order", "ASCEND", "-w", "json"], None),
    (["get", "", "--prefix", "--from-key", "--max-mod-rev", "3", "-w", "json"], None),
    (["get", "a", "--rev", "2", "-w", "json"], None),
    (["get", "a", "--rev", "100"], None),
    (["get", "a", "--consistency", "s", "-w", "json"], None),
    (["put", "", "x"], None),
    (["del", "b", "--prev-kv", "-w", "json"], None),
    (["del", "nothing"], None),
    (["txn", "-w", "json"], 'value("a") = "1"\n\nput a 11\nget c\n\nput a nope\n\n'),
    (["txn"], 'mod("a") < "2"\n\nput a x\n\ndel c\nget a\n\n'),
    (["lease", "grant", "600", "-w", "json"], None),
    (["put", "held", "v", "--lease", "{lease}"], None),
    (["lease", "timetolive", "{lease}", "--keys", "-w", "json"], None),
    (["lease", "list", "-w", "json"], None),
    (["lease", "keep-alive", "--once", "{lease}"], None),
    (["lease", "revoke", "{lease}"], None),
    (["lease", "revoke", "{lease}"], None),
    (["lease", "timetolive", "{lease}"], None),
    (["get", "held"], None),
    (["put", "x", "1", "--lease", "1234"], None),
    (["compaction", "4"], None),
    (["compaction", "3"], None),
    (["get", "a", "--rev", "3"], None),
    (["watch", "a", "--rev", "2"], None),
    (["endpoint", "status", "-w", "json"], None),
    (["endpoint", "health", "-w", "json"], None),
    (["member", "list", "-w", "json"], None),
    (["alarm", "list"], None),
    (["defrag"], None),
    (["version"], None),
]
#: Watches that keep running: started, given this long to print, then stopped.
WATCHES = [
    ["watch", "", "--prefix", "--rev", "5", "-w", "json"],
    ["watch", "a", "--prev-kv", "--rev", "4"],
]
WATCH_SECONDS = 1.5


def run_all(etcdctl: Path, url: str) -> list[str]:
    outputs = []
    lease = ""
    base = [str(etcdctl), "--endpoints", url, "--command-timeout", "5s"]
    for args, stdin in COMMANDS:
        argv = base + [a.replace("{lease}", lease) for a in args]
        if args[0] == "watch":  # canceled by compaction: ends by itself
            result = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        else:
            result = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=30)
        if args[:2] == ["lease", "grant"] and result.returncode == 0:
            lease = f"{json.loads(result.stdout)['ID']:x}"
        outputs.append(f"$ etcdctl {' '.join(args)}\n[{result.returncode}]\n{result.stdout}{result.stderr}")
    for args in WATCHES:
        proc = subprocess.Popen(base + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = proc.communicate(timeout=WATCH_SECONDS)
        except subprocess.TimeoutExpired:
            proc.terminate()
            out, err = proc.communicate(timeout=10)
        outputs.append(f"$ etcdctl {' '.join(args)}\n{out}{err}")
    return outputs


class Normalizer:
    """Replaces what differs between two servers by nature with stable placeholders."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.leases: dict[str, str] = {}

    def lease(self, value: str) -> str:
        return self.leases.setdefault(value, f"<lease{len(self.leases)}>")

    def text(self, text: str) -> str:
        text = text.replace(self.url, "<url>").replace(self.url.removeprefix("http://"), "<url>")
        text = re.sub(r'"ts":"[^"]*"', '"ts":"<ts>"', text)
        text = re.sub(r'"target":"etcd-endpoints://0x[0-9a-f]+/', '"target":"etcd-endpoints://<ptr>/', text)
        text = re.sub(r"took = [0-9.]+[µnm]?s", "took = <t>", text)
        text = re.sub(r'"took":"[^"]*"', '"took":"<t>"', text)
        text = re.sub(r"took [0-9.]+[µnm]?s", "took <t>", text)
        for lease in re.findall(r"\b(?:lease |lease\(|ID )?([0-9a-f]{16})\b", text):
            text = text.replace(lease, self.lease(lease))
        text = re.sub(r"remaining\(\d+s\)", "remaining(<ttl>s)", text)
        text = re.sub(r"TTL\(\d+\)", "TTL(<ttl>)", text)
        return self._json_lines(text)

    def _json_lines(self, text: str) -> str:
        lines = []
        for line in text.splitlines():
            if line.startswith(("{", "[")):
                try:
                    line = json.dumps(self.value(json.loads(line)), sort_keys=True)
                except ValueError:
                    pass
            lines.append(line)
        return "\n".join(lines)

    def value(self, v: Any, key: str = "") -> Any:
        if isinstance(v, dict):
            return {k: self.value(x, k) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x, key) for x in v]
        if key in ("cluster_id", "member_id", "leader") or key == "ID" and v and v > 2**40:
            return f"<{key}>"
        if key == "peerURLs":
            return "<peer urls>"
        if key in ("raft_index", "raftIndex", "raft_applied_index", "raftAppliedIndex",
                   "dbSize", "dbSizeInUse", "db_size", "db_size_in_use"):
            return f"<{key}>"
        if key in ("ID", "id", "lease") and isinstance(v, int) and v:
            return self.lease(f"{v:016x}")  # as etcdctl prints lease ids
        if key in ("TTL", "ttl") and isinstance(v, int) and v > 0:
            return "<ttl>"
        return v


def test_etcdctl_outputs_match_real_etcd(etcd_bin: Path, fake_etcd: str, real_etcd: str) -> None:
    etcdctl = etcd_bin / "etcdctl"
    ours = run_all(etcdctl, fake_etcd)
    theirs = run_all(etcdctl, real_etcd)
    norm_ours, norm_theirs = Normalizer(fake_etcd), Normalizer(real_etcd)
    differences = [
        f"--- fakeapi etcd:\n{a}\n--- etcd 3.6.6:\n{b}"
        for a, b in (
            (norm_ours.text(mine), norm_theirs.text(real))
            for mine, real in zip(ours, theirs, strict=True)
        )
        if a != b
    ]
    if differences:
        pytest.fail("etcdctl outputs differ\n" + "\n".join(differences), pytrace=False)
