"""YAML bodies as kube-apiserver reads them: ``sigs.k8s.io/yaml``'s ``YAMLToJSON`` over its
``goyaml.v2`` fork (a Go port of libyaml), with that parser's error messages; and YAML answers as
it writes them (``yaml_from_json``). Imported at the first YAML body or answer: PyYAML costs a
start ~7 ms.

PyYAML's C loader runs libyaml itself, so a malformed document fails at the same place with the
same problem as in Go; the message is then worded as goyaml's ``parser.fail`` words it: ``yaml:
line N: <problem>``, where N is the problem's (0-based) line, plus one for scanner errors,
or the context's line, and no line at all when both are 0. The few problems newer libyaml
words differently are translated back.

Values come out as goyaml v2 decodes them into ``interface{}`` and ``YAMLToJSON`` prints them: a
plain scalar is resolved by goyaml's ``resolve`` (``y`` and ``on`` are booleans, ``1e3`` and
``08`` floats, ``0o17`` an integer, ``1:20`` a string), not by PyYAML's YAML 1.1 rules;
timestamps stay strings; a float with no fraction becomes the integer Go's JSON prints; a
repeated key keeps its last value and earns the strict decoder's warning (``line N: key "k"
already set in map``).
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson
import yaml

from .golang import go_quote

#: libyaml's wording -> goyaml v2's (which kept libyaml 0.1's).
_PROBLEMS = {
    "found a tab character that violates indentation": "found character that cannot start any token",
    "found a tab character where an indentation space is expected": "found character that cannot start any token",
    "exceeded maximum nesting depth": "exceeded max depth of 10000",
}


class GoYAMLError(ValueError):
    """What ``yaml.YAMLToJSON`` returns; ``str`` is goyaml's message (``yaml: line 2: ...``)."""


#: A plain (unquoted, untagged) scalar: resolved by ``_go_scalar`` as goyaml's ``resolve`` does,
#: not by PyYAML's YAML 1.1 rules (which read ``1e3`` and ``y`` as strings and ``1:20`` as 80).
_PLAIN_TAG = "tag:fakeapi,2026:plain"


class _Loader(yaml.CSafeLoader):  # type: ignore[misc,name-defined]
    """libyaml's parser with goyaml v2's scalar rules; records repeated keys."""

    def __init__(self, stream: bytes) -> None:
        super().__init__(stream)
        self.duplicates: list[str] = []

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode and implicit[0] and value != "<<":  # "<<" merges, as in goyaml
            return _PLAIN_TAG
        return super().resolve(kind, value, implicit)  # type: ignore[no-any-return]

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, list | dict):
                raise GoYAMLError(f"yaml: invalid map key: {_go_value(key)}")
            if not isinstance(key, str | int | float | bool):
                continue
            if key in seen:  # goyaml names the line of the repeated key's value
                self.duplicates.append(f"line {value_node.start_mark.line + 1}: key {go_quote(str(key))} already set in map")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


#: goyaml's ``resolveTable``: what a scalar's first byte hints it may be ('S'ign, 'D'igit,
#: 'M'ap (a word of ``_WORDS``), '.'); any other first byte makes it a string.
_HINTS = {**dict.fromkeys("+-", "S"), **dict.fromkeys("0123456789", "D"), **dict.fromkeys("yYnNtTfFoO~", "M"),
          ".": "."}
#: goyaml's ``resolveMap``.
_WORDS: dict[str, Any] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
#: goyaml's ``yamlStyleFloat``.
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
#: Go's integer literals with base 0 (``strconv.ParseInt(s, 0, 64)``), underscores taken out.
_GO_INT = re.compile(r"([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]?([0-7]+)|0[bB]([01]+)|([1-9][0-9]*|0))")


def _go_float(text: str) -> float | None:
    """A ``yamlStyleFloat`` as ``strconv.ParseFloat(text, 64)`` reads it; None where that errs
    (another form, or out of range). goyaml tries ParseFloat on a scalar starting with a point
    without the pattern, but of those ParseFloat reads exactly the ones the pattern matches."""
    if not _YAML_STYLE_FLOAT.fullmatch(text):
        return None
    value = float(text)
    return None if math.isinf(value) else value


def _go_int(text: str) -> tuple[str, int] | None:
    """The sign and value of a Go integer literal with base 0 (what ``strconv.ParseInt(text, 0,
    64)`` reads, whatever its range); None for a syntax error."""
    match = _GO_INT.fullmatch(text)
    if match is None:
        return None
    sign, hexadecimal, octal, binary, decimal = match.groups()
    magnitude = (int(hexadecimal, 16) if hexadecimal else int(octal, 8) if octal
                 else int(binary, 2) if binary else int(decimal))
    return sign, -magnitude if sign == "-" else magnitude


def _go_scalar(loader: _Loader, node: yaml.ScalarNode) -> Any:
    """goyaml v2's ``resolve`` of a plain scalar, as decoded into interface{}."""
    text = node.value
    hint = _HINTS.get(text[0]) if text else "N"
    if hint is None:
        return text
    if text in _WORDS:
        return _WORDS[text]
    if hint == ".":
        value = _go_float(text)
        return text if value is None else value
    if hint in "DS":
        # A timestamp (goyaml's parseTimestamp) is none of the numbers below: decoded into
        # interface{}, it stays its text, as this falls through to.
        plain = text.replace("_", "")
        integer = _go_int(plain)
        unsigned = integer is not None and not integer[0]
        if integer is not None and (-(1 << 63) <= integer[1] < 1 << 63 or unsigned and integer[1] < 1 << 64):
            return integer[1]  # ParseInt, else ParseUint (which takes no sign)
        if (value := _go_float(plain)) is not None:
            return value
        if unsigned:  # past ParseUint's range: a big.Int
            return integer[1]
    return text


_Loader.add_constructor(_PLAIN_TAG, _go_scalar)


def _binary_as_string(loader: _Loader, node: yaml.ScalarNode) -> str:
    """goyaml v2 decodes ``!!binary`` into interface{} as the string of its bytes."""
    return loader.construct_yaml_binary(node).decode("utf-8", "replace")


# goyaml v2 decodes a timestamp into interface{} as the string it was written as.
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_str)
_Loader.add_constructor("tag:yaml.org,2002:binary", _binary_as_string)


def _untagged(loader: _Loader, node: yaml.Node) -> Any:
    """A node with a tag goyaml does not know (``!!python/object``, ``!foo``) decodes as if it
    had none: nothing is ever constructed from a tag."""
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)


_Loader.add_constructor(None, _untagged)

#: goyaml's guard against alias bombs (``allowedAliasRatio``): over 100 alias-driven decodes and
#: 1000 decodes in all, at most this share of decodes may come from aliases, falling from 99 %
#: at 400,000 decodes to 10 % at 4,000,000.
_ALIAS_RATIO_LOW, _ALIAS_RATIO_HIGH = 400_000, 4_000_000


def _allowed_alias_ratio(decodes: int) -> float:
    if decodes <= _ALIAS_RATIO_LOW:
        return 0.99
    if decodes >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decodes - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


def _check_aliasing(root: yaml.Node) -> None:
    """Walk the document as goyaml decodes it, an alias expanding into its anchor's node again,
    and refuse it as goyaml does when aliases drive too much of the work. libyaml hands an alias
    back as its anchor's node itself: a node met again is an alias."""
    decodes = aliases = 0
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, in_alias = stack.pop()
        decodes += 1
        if in_alias:
            aliases += 1
        if aliases > 100 and decodes > 1000 and aliases / decodes > _allowed_alias_ratio(decodes):
            raise GoYAMLError("yaml: document contains excessive aliasing")
        if id(node) in seen:
            in_alias = True
            decodes += 1  # the alias node, then its anchor's node
            aliases += 1
        elif isinstance(node, yaml.CollectionNode):
            seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend((item, in_alias) for pair in reversed(node.value) for item in reversed(pair))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, in_alias) for item in reversed(node.value))


#: Where a float may start in compact JSON: orjson writes every float with a ``.`` or an
#: exponent after its first digits (``1.0``, ``1e16``), each token after ``:``, ``,`` or ``[``.
#: A match may be inside a string (then ``_has_float`` walks the value); no match, no float.
_FLOAT_TOKEN = re.compile(rb"(?:^|[:,\[])-?[0-9]+[.eE]")


def _has_float(value: Any) -> bool:
    if isinstance(value, dict):
        return any(map(_has_float, value.values()))
    if isinstance(value, list):
        return any(map(_has_float, value))
    return isinstance(value, float)


def _plain_json(data: bytes) -> Any:
    """``data`` decoded as JSON when goyaml is sure to read it the same way, else ``_NOT_PLAIN``.

    Most YAML bodies are JSON (kubectl's and client-go's apply send JSON), and libyaml's node
    building costs a hundred times orjson's decode. The JSON must be ASCII without DEL (the
    characters YAML refuses or folds are all outside it), re-encode byte for byte (so no key is
    repeated and every string is escaped as YAML reads it) and hold no float (YAML's come out as
    Go prints them: ``30.0`` as ``30``)."""
    if not data.isascii() or b"\x7f" in data:
        return _NOT_PLAIN
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _NOT_PLAIN
    if orjson.dumps(value) != data.removesuffix(b"\n") or (_FLOAT_TOKEN.search(data) and _has_float(value)):
        return _NOT_PLAIN
    return value


_NOT_PLAIN = object()


def yaml_to_json(data: bytes) -> tuple[Any, list[str]]:
    """The JSON value of a YAML document, and the strict decoder's complaints (repeated keys);
    ``GoYAMLError`` with goyaml's message for a document it refuses."""
    plain = _plain_json(data)
    return (plain, []) if plain is not _NOT_PLAIN else parse_yaml(data)


def parse_yaml(data: bytes) -> tuple[Any, list[str]]:
    """``yaml_to_json`` by the YAML parser alone."""
    loader = _Loader(data)
    try:
        node = loader.get_node() if loader.check_node() else None  # the first document only, as goyaml
        if node is None:
            return None, []
        _check_aliasing(node)
        return _jsonable(loader.construct_document(node)), loader.duplicates
    except yaml.reader.ReaderError as err:
        raise GoYAMLError(f"yaml: {_PROBLEMS.get(err.reason, err.reason)}") from None
    except yaml.composer.ComposerError as err:
        if err.problem == "found undefined alias" and err.problem_mark is not None:
            name = _ANCHOR.match(data.decode("utf-8", "replace"), err.problem_mark.index + 1)
            raise GoYAMLError(f"yaml: unknown anchor '{name.group() if name else ''}' referenced") from None
        raise GoYAMLError(_marked_message(err)) from None
    except yaml.MarkedYAMLError as err:
        raise GoYAMLError(_marked_message(err)) from None
    except RecursionError:
        raise GoYAMLError("yaml: exceeded max depth of 10000") from None
    finally:
        loader.dispose()


_ANCHOR = re.compile(r"[^\s,\[\]{}]*")


def _jsonable(value: Any) -> Any:
    """``YAMLToJSON``'s ``convertToJSONableObject`` then ``json.Marshal``: map keys become strings
    (numbers and booleans as goyaml prints them), other keys are refused, as are NaN and the
    infinities; every alias becomes a copy of its anchor's value, as in Go."""
    if isinstance(value, dict):
        converted = {}
        for key, item in value.items():
            if isinstance(key, bool):
                text = "true" if key else "false"
            elif isinstance(key, int):
                text = str(key)
            elif isinstance(key, float):
                text = _go_float_key(key)
            elif isinstance(key, str):
                text = key
            elif isinstance(key, tuple | list | dict):
                raise GoYAMLError(f"yaml: invalid map key: {_go_value(key)}")
            else:
                raise GoYAMLError(f"unsupported map key of type: %!s(<nil>), key: <nil>, value: {_go_value(item)}")
            converted[text] = _jsonable(item)
        return converted
    if isinstance(value, list):
        return [_jsonable(item) for item in value]
    if isinstance(value, float):
        if not math.isfinite(value):
            raise GoYAMLError("json: unsupported value: " + ("NaN" if math.isnan(value) else "+Inf" if value > 0 else "-Inf"))
        if value.is_integer() and abs(value) < 1e21:  # json.Marshal prints it without a point: "30"
            return int(value)
    return value


def _go_float_key(key: float) -> str:
    """``strconv.FormatFloat(k, 'g', -1, 32)`` with goyaml's names for the special values."""
    if math.isnan(key):
        return ".nan"
    if math.isinf(key):
        return ".inf" if key > 0 else "-.inf"
    return format(key, ".8g") if abs(key) >= 1e21 or (key and abs(key) < 1e-4) else repr(float(f"{key:.7g}")).removesuffix(".0")


def _go_value(value: Any) -> str:
    """Go's ``%#v`` of a decoded YAML value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, tuple | list):
        return "[]interface {}{" + ", ".join(_go_value(item) for item in value) + "}"
    if isinstance(value, dict):
        return "map[interface {}]interface {}{" + ", ".join(f"{_go_value(k)}:{_go_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _marked_message(err: yaml.MarkedYAMLError) -> str:
    """goyaml's ``parser.fail``: the problem's line (scanner errors count from 1, parser errors
    from 0, as goyaml does), else the context's, else none."""
    line = 0
    problem_line = err.problem_mark.line if err.problem_mark is not None else 0
    context_line = err.context_mark.line if err.context_mark is not None else 0
    if problem_line:
        line = problem_line + (1 if isinstance(err, yaml.scanner.ScannerError) else 0)
    elif context_line:
        line = context_line
    problem = err.problem or "unknown problem parsing YAML content"
    problem = _PROBLEMS.get(problem, problem)
    return f"yaml: line {line}: {problem}" if line else f"yaml: {problem}"


class _GoYAMLDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Strings styled as go-yaml v2 (kube's ``sigs.k8s.io/yaml``) styles them: multi-line text as
    a literal block, text that would read back as another type (``"123"``, ``"true"``, ``"n"``,
    ``""``) double-quoted, the rest plain unless the emitter must quote it."""


_RESOLVER = yaml.resolver.Resolver()
#: go-yaml v2 also reads these plain scalars as booleans (YAML 1.1's short forms).
_GO_YAML_BOOLEANS = frozenset(("y", "Y", "n", "N"))


def _represent_string(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    tag = "tag:yaml.org,2002:str"
    if "\n" in text:
        return dumper.represent_scalar(tag, text, style="|")
    if text in _GO_YAML_BOOLEANS or _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) != tag:
        return dumper.represent_scalar(tag, text, style='"')
    return dumper.represent_scalar(tag, text)


_GoYAMLDumper.add_representer(str, _represent_string)


def yaml_from_json(body: bytes) -> bytes:
    """kube's YAML serializer (``sigs.k8s.io/yaml.JSONToYAML``): the JSON as YAML, map keys
    sorted, block style, long lines kept whole."""
    return yaml.dump(orjson.loads(body), Dumper=_GoYAMLDumper, default_flow_style=False, sort_keys=True,
                     allow_unicode=True, width=1 << 30).encode()
