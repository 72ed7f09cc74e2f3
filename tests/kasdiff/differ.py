"""The machinery of the differential suite: one request sent to fakeapi and to the real
kube-apiserver, both answers normalised, and the difference — if any — described.

What must differ between two servers is normalised away, nothing else: uids, timestamps,
resourceVersion *numbers* (but not whether a write moved it), the random suffix of a generated
name, the IPs a Service allocation picked, the issue time of a token. A normalised answer keeps
its status code, reason, message and causes, its body and the ``Warning`` headers.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

Json = Any

#: The namespace every namespaced case works in (created on both servers).
NAMESPACE = "kasdiff"
#: The arguments ``fakeapi serve`` gets beside the suite's own (``--workers 2``: the suite over
#: two API workers).
FAKEAPI_ARGS = shlex.split(os.environ.get("KASDIFF_FAKEAPI_ARGS", ""))


def _api_servers(args: list[str]) -> int:
    for index, arg in enumerate(args):
        if arg.startswith("--workers="):
            return int(arg.partition("=")[2])
        if arg == "--workers" and index + 1 < len(args):
            return int(args[index + 1])
    return 1


#: How many API servers fakeapi runs as (its workers), against kube's one. What each keeps of
#: its own (a watch cache per version converting every event, a controller's counters) is
#: then that many times kube's, as with that many kube-apiservers.
FAKE_API_SERVERS = _api_servers(FAKEAPI_ARGS)

#: Keys whose values are per-server by nature, replaced by a placeholder wherever they occur in
#: metadata.
_METADATA_VOLATILE = ("uid", "creationTimestamp", "deletionTimestamp")
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
_UID_ANYWHERE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: apimachinery's ``SimpleNameGenerator``: the prefix, cut to 58 characters, then 5 of util/rand's
#: alphabet. Nothing else counts as generated: a name of another shape still differs.
_GENERATED_PREFIX_LENGTH = 58
_GENERATED_SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]{5}"


def generated_names(prefix: str) -> re.Pattern[str]:
    """The names kube generates from ``prefix``, as whole words of a text (a Status's message)."""
    return re.compile(r"(?<![\w.-])" + re.escape(prefix[:_GENERATED_PREFIX_LENGTH]) + _GENERATED_SUFFIX + r"(?![\w.-])")


@dataclass
class Answer:
    """A server's answer, normalised."""

    status: int
    body: Json
    warnings: list[str]
    #: The body before normalisation (continue tokens, resourceVersions a test sends back).
    raw: Json = None
    #: The response's headers (``Content-Type``, ``Retry-After``, ...), for tests that compare them.
    headers: httpx.Headers = field(default_factory=httpx.Headers)

    def summary(self) -> str:
        reason = self.body.get("reason", "") if isinstance(self.body, dict) else ""
        return f"{self.status} {reason}".strip()


@dataclass
class Outcome:
    """One step of a case: what each server answered and where they differ."""

    case: str
    kind: str
    verb: str
    fake: Answer
    real: Answer
    differences: list[str] = field(default_factory=list)

    @property
    def matched(self) -> bool:
        return not self.differences


class Normaliser:
    """Makes two servers' answers comparable. Resource versions are renumbered in the order
    each server first showed them, per server, so "the same write happened" stays visible;
    generated names are mapped the same way."""

    def __init__(self) -> None:
        self._versions: dict[str, str] = {}
        self._names: dict[str, str] = {}
        #: The names generated from a ``generateName`` a request sent, wherever they appear (the
        #: Status refusing the object names it, and has no metadata to find the prefix in).
        self._requested_prefixes: list[re.Pattern[str]] = []

    def resource_version(self, value: str) -> str:
        if value in ("", "0"):
            return value
        return self._versions.setdefault(value, f"rv{len(self._versions) + 1}")

    def generated_name(self, name: str) -> str:
        return self._names.setdefault(name, f"generated{len(self._names) + 1}")

    def requested(self, body: bytes | None) -> None:
        """A request body sent to this server: the ``metadata.generateName`` of a JSON object."""
        try:
            obj = json.loads(body or b"")
        except (ValueError, RecursionError):  # the bodies of bad requests (nested too deep)
            return
        metadata = obj.get("metadata") if isinstance(obj, dict) else None
        prefix = metadata.get("generateName") if isinstance(metadata, dict) else None
        if isinstance(prefix, str) and prefix:
            self._requested_prefixes.append(generated_names(prefix))

    def _generated_in(self, text: str) -> str:
        for pattern in self._requested_prefixes:
            text = pattern.sub(lambda match: self.generated_name(match.group()), text)
        return text

    def __call__(self, body: Json) -> Json:
        body = copy.deepcopy(body)
        self._walk(body)
        return body

    def _walk(self, node: Json) -> None:
        if isinstance(node, list):
            for item in node:
                self._walk(item)
            return
        if not isinstance(node, dict):
            return
        meta = node.get("metadata")
        if isinstance(meta, dict):
            self._metadata(meta)
        if node.get("kind") == "Table":
            _mask_ages(node)
        for key, value in list(node.items()):
            if isinstance(value, str):
                # uids, and the labels, selectors and messages made of them (a Job's
                # controller-uid); generated names seen before, in a Status's details or message
                value = self._generated_in(_UID_ANYWHERE.sub("<uid>", value))
                for name, placeholder in self._names.items():
                    value = value.replace(name, placeholder)
                node[key] = value
            if key in ("time", "lastTransitionTime", "lastHeartbeatTime", "lastProbeTime", "eventTime",
                       "firstTimestamp", "lastTimestamp", "renewTime", "acquireTime", "lastPhaseTransitionTime") and isinstance(value, str) \
                    and _RFC3339.match(value):
                node[key] = "<time>"
            elif key == "resourceVersion" and isinstance(value, str) and value.isdigit():
                node[key] = self.resource_version(value)
            elif key in ("clusterIP", "clusterIPs", "nodePort", "healthCheckNodePort"):
                node[key] = _ip_placeholder(value)
            elif key == "message" and isinstance(value, str):
                node[key] = _volatile_in_text(value)
            elif not isinstance(value, str):
                self._walk(value)

    def _metadata(self, meta: dict[str, Any]) -> None:
        for key in _METADATA_VOLATILE:
            if key in meta:
                meta[key] = f"<{key}>"
        entries = meta.get("managedFields")
        if isinstance(entries, list) and all(isinstance(e, dict) for e in entries):
            # kube orders entries by operation, then the second of their time, then manager,
            # apiVersion and subresource (sortEncodedManagedFields): two writes may fall in one
            # second on one server and in two on the other, so with times masked only the rest
            # of the order compares.
            entries.sort(key=lambda e: (str(e.get("operation")), str(e.get("manager")), str(e.get("apiVersion")),
                                        str(e.get("subresource", ""))))
        if isinstance(meta.get("resourceVersion"), str) and meta["resourceVersion"].isdigit():
            # A list's (or a Status's) revision is the store's, which kube-apiserver's own
            # writers (its identity Lease) move at any time: only an object's compares.
            is_object = "name" in meta
            meta["resourceVersion"] = self.resource_version(meta["resourceVersion"]) if is_object else "<rv>"
        prefix = meta.get("generateName")
        if prefix and isinstance(meta.get("name"), str) and generated_names(prefix).fullmatch(meta["name"]):
            meta["name"] = self.generated_name(meta["name"])
        if isinstance(meta.get("continue"), str) and meta["continue"]:
            meta["continue"] = "<continue>"


#: Table columns of time since something (``translateTimestampSince``): a read falls into the
#: next second on one server and not on the other.
_AGE_COLUMNS = frozenset({"Age", "Last Seen", "First Seen", "Duration", "Last Schedule"})
#: Go's ``duration.HumanDuration`` forms: 0s, 45s, 5m2s, 3h, 3h5m, 4d, 4d5h, 2y, 2y30d.
_HUMAN_DURATION = re.compile(r"\d+(s|m(\d+s)?|h(\d+m)?|d(\d+h)?|y(\d+d)?)")


def _mask_ages(table: dict[str, Any]) -> None:
    """A Table's cells of time since something, where they are durations, as ``<age>``."""
    columns = table.get("columnDefinitions")
    rows = table.get("rows")
    if not isinstance(columns, list) or not isinstance(rows, list):
        return
    ages = [i for i, column in enumerate(columns) if isinstance(column, dict) and column.get("name") in _AGE_COLUMNS]
    for row in rows:
        cells = row.get("cells") if isinstance(row, dict) else None
        if not isinstance(cells, list):
            continue
        for i in ages:
            if i < len(cells) and isinstance(cells[i], str) and _HUMAN_DURATION.fullmatch(cells[i]):
                cells[i] = "<age>"


_UID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")
_VERSION_TEXT = re.compile(r'(resourceVersion\\?":\\?")\d+')
#: A "too large resource version" message names the server's current revision.
_CURRENT_REVISION_TEXT = re.compile(r"(Too large resource version: \d+, current: |ResourceVersion in record \()\d+")


def _volatile_in_text(text: str) -> str:
    """Messages that quote an object (a patch that did not decode) quote its uid, times and
    resourceVersion: those parts are the servers' own."""
    text = _UID_TEXT.sub("<uid>", text)
    text = _TIME_TEXT.sub("<time>", text)
    text = _CURRENT_REVISION_TEXT.sub(r"\1<rv>", text)
    return _VERSION_TEXT.sub(r"\1<rv>", text)


def _ip_placeholder(value: Json) -> Json:
    """Allocated addresses and ports: only whether one was allocated, and its shape, compare."""
    if isinstance(value, list):
        return [_ip_placeholder(v) for v in value]
    if isinstance(value, int):
        return "<port>" if value else 0
    if isinstance(value, str) and value not in ("", "None"):
        return "<ip>"
    return value


def differences(fake: Json, real: Json, path: str = "") -> Iterator[str]:
    """Where two normalised JSON values differ, as ``path: fake=... real=...`` lines."""
    if isinstance(fake, dict) and isinstance(real, dict):
        for key in sorted(set(fake) | set(real), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in fake:
                yield f"{sub}: missing in fakeapi (kube: {_short(real[key])})"
            elif key not in real:
                yield f"{sub}: only in fakeapi ({_short(fake[key])})"
            else:
                yield from differences(fake[key], real[key], sub)
    elif isinstance(fake, list) and isinstance(real, list) and len(fake) == len(real):
        for i, (a, b) in enumerate(zip(fake, real, strict=True)):
            yield from differences(a, b, f"{path}[{i}]")
    elif isinstance(fake, str) and isinstance(real, str) and fake != real and len(fake) + len(real) > 200:
        at = next((i for i, (a, b) in enumerate(zip(fake, real)) if a != b), min(len(fake), len(real)))
        start = max(0, at - 60)
        yield (f"{path or '<body>'}: strings differ at {at}: fakeapi ...{fake[start:at + 80]!r} != kube "
               f"...{real[start:at + 80]!r}")
    elif fake != real or type(fake) is not type(real):
        yield f"{path or '<body>'}: fakeapi {_short(fake)} != kube {_short(real)}"


def _short(value: Json, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


class Pair:
    """fakeapi and the real kube-apiserver, side by side; every step is recorded in ``outcomes``."""

    def __init__(self, fake: httpx.Client, real: httpx.Client) -> None:
        self.fake = fake
        self.real = real
        self._fake_normaliser = Normaliser()
        self._real_normaliser = Normaliser()
        self._case = ""
        self.outcomes: list[Outcome] = []

    def send(self, case: str, kind: str, verb: str, method: str, path: str | tuple[str, str], *,
             body: bytes | None | tuple[bytes | None, bytes | None] = None,
             content_type: str | None = "application/json", headers: dict[str, str] | None = None,
             rewrite: Callable[[Json, bool], Json] | None = None) -> Outcome:
        """One request to both servers; ``path`` and ``body`` may differ per server as a
        (fakeapi, kube) pair (objects with generated names, bodies built from each server's
        own stored object). ``rewrite(answer, is_fake)`` maps each answer before it is
        normalised: to compare a part of it, or to make comparable what differs by nature in a
        way the normaliser cannot know (a server's URL, a signed token)."""
        paths = path if isinstance(path, tuple) else (path, path)
        bodies = body if isinstance(body, tuple) else (body, body)
        answers = []
        if case != self._case:
            # Versions and generated names are numbered per case: a write one server refused
            # and the other accepted in an earlier case must not shift every later number.
            self._case = case
            self._fake_normaliser, self._real_normaliser = Normaliser(), Normaliser()
        servers = ((self.fake, self._fake_normaliser), (self.real, self._real_normaliser))
        for (client, normaliser), server_path, server_body in zip(servers, paths, bodies, strict=True):
            normaliser.requested(server_body)
            request_headers = dict(headers or {})
            if server_body is not None and content_type is not None:
                request_headers.setdefault("Content-Type", content_type)
            response = client.request(method, server_path, content=server_body, headers=request_headers)
            parsed = _parsed(response)
            if rewrite is not None:
                parsed = rewrite(parsed, client is self.fake)
            answers.append(Answer(response.status_code, normaliser(parsed), response.headers.get_list("warning"),
                                  parsed, response.headers))
        fake, real = answers
        outcome = Outcome(case, kind, verb, fake, real)
        if fake.status != real.status:
            outcome.differences.append(f"status: fakeapi {fake.status} != kube {real.status}")
        outcome.differences.extend(differences(fake.body, real.body))
        if fake.warnings != real.warnings:
            outcome.differences.append(f"Warning headers: fakeapi {fake.warnings} != kube {real.warnings}")
        self.outcomes.append(outcome)
        return outcome


def _parsed(response: httpx.Response) -> Json:
    """A response body as data: JSON, a watch's JSON lines (a list of events), YAML; else text."""
    if "yaml" in response.headers.get("content-type", ""):
        return yaml.safe_load(response.text)
    try:
        return response.json()
    except ValueError:
        pass
    try:
        return [json.loads(line) for line in response.text.splitlines() if line]
    except ValueError:
        return response.text


KNOWN = Path(__file__).parent / "known-differences.yaml"


def compared_reviews(case: str, kind: str, verb: str, fake: list[tuple[str, Json]],
                     kube: list[tuple[str, Json]], *, per_server: bool = False) -> Outcome:
    """The reviews (``kind``: AdmissionReview, ConversionReview) each server sent a webhook
    server for one step, in order, keyed by the path called without the server's prefix
    (``/<server>/...``) and normalised (their uids are the server's own). ``per_server``: some
    are sent by every API server (a conversion webhook's, from each watch cache): with
    ``FAKE_API_SERVERS`` above one, each review is compared once, at its first place."""
    normalised = []
    for reviews in (fake, kube):
        normaliser = Normaliser()
        for _, review in reviews:
            review["request"]["uid"] = "<uid>"
        if per_server and FAKE_API_SERVERS > 1:
            reviews = _first_of_each(reviews)
        normalised.append(normaliser([{path.split("/", 2)[2]: review} for path, review in reviews]))
    outcome = Outcome(case, kind, verb, Answer(200, normalised[0], []), Answer(200, normalised[1], []))
    if len(normalised[0]) != len(normalised[1]):
        outcome.differences.append(f"reviews sent: fakeapi {[p for p, _ in fake]} != kube {[p for p, _ in kube]}")
    for index, (fake_review, kube_review) in enumerate(zip(normalised[0], normalised[1])):
        outcome.differences.extend(differences(fake_review, kube_review, f"[{index}]"))
    return outcome


def _first_of_each(reviews: list[tuple[str, Json]]) -> list[tuple[str, Json]]:
    seen, kept = set(), []
    for path, review in reviews:
        key = json.dumps([path, review], sort_keys=True)
        if key not in seen:
            seen.add(key)
            kept.append((path, review))
    return kept


def known_differences() -> dict[str, list[str]]:
    """case -> the differences (``<verb>: <difference>``, as ``differences`` prints them) accepted
    for now, each entry with the reason in a comment."""
    if not KNOWN.exists():
        return {}
    return {entry["case"]: entry["differences"] for entry in yaml.safe_load(KNOWN.read_text()) or []}


def table(outcomes: list[Outcome]) -> str:
    """Matched/different counts per kind and verb, as the closing note quotes them."""
    counts: dict[tuple[str, str], list[int]] = {}
    for outcome in outcomes:
        row = counts.setdefault((outcome.kind, outcome.verb), [0, 0])
        row[0 if outcome.matched else 1] += 1
    verbs = sorted({verb for _, verb in counts})
    kinds = sorted({kind for kind, _ in counts})
    width = max([len(k) for k in kinds] + [4])
    lines = [f"{'kind':<{width}}  " + "  ".join(f"{v:>11}" for v in verbs) + "   matched"]
    total = [0, 0]
    for kind in kinds:
        cells = []
        matched = different = 0
        for verb in verbs:
            ok, bad = counts.get((kind, verb), (0, 0))
            matched, different = matched + ok, different + bad
            cells.append(f"{ok:>5}/{ok + bad:<5}" if ok + bad else f"{'-':>11}")
        total[0] += matched
        total[1] += different
        lines.append(f"{kind:<{width}}  " + "  ".join(cells) + f"   {100 * matched / max(1, matched + different):5.1f}%")
    lines.append(f"total: {total[0]}/{sum(total)} matched ({100 * total[0] / max(1, sum(total)):.1f}%)")
    return "\n".join(lines)


def check(pair: Pair, start: int) -> None:
    """Every step since ``start`` matched, but for the differences ``known-differences.yaml``
    lists for its case (and those must still happen, so the list stays true)."""
    known = known_differences()
    found: dict[str, list[str]] = {}
    for outcome in pair.outcomes[start:]:
        found.setdefault(outcome.case, []).extend(f"{outcome.verb}: {d}" for d in outcome.differences)
    unexpected = [f"{case} {d}" for case, lines in found.items() for d in lines if d not in known.get(case, [])]
    gone = [f"{case} {d}" for case, lines in found.items() for d in known.get(case, []) if d not in lines]
    assert not unexpected, "differs from kube-apiserver:\n" + "\n".join(unexpected)
    assert not gone, "known differences no longer happen, remove them:\n" + "\n".join(gone)


#: The CRD collection of both servers.
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def serve_crd(pair: Pair, crd: Json, collection: str) -> str:
    """``crd`` created on both servers, then ``collection`` (a path of its resources) once both
    serve it: kube serves a new CRD once it is established, a moment after the create."""
    for client in (pair.fake, pair.real):
        response = client.post(CRDS, json=crd)
        assert response.status_code == 201, response.text
    for client in (pair.fake, pair.real):
        deadline = time.monotonic() + 30
        while client.get(collection).status_code != 200:
            assert time.monotonic() < deadline, f"{collection} not served within 30 s"
            time.sleep(0.1)
    return collection
