"""What cel-go's type checker tells of calls of kube's authorizer library (``library.Authz``),
which the engine (no type checker) would only fail at evaluation: a chain of calls from the
``authorizer`` variable typed call by call, ``found no matching overload for 'resource' applied
to 'kubernetes.authorization.Authorizer.(string)'`` at the first call its receiver's type has no
overload for (kube refuses the policy when it is written), and the type of an expression that
is one whole chain (``must evaluate to bool but got kubernetes.authorization.Decision``).

Only what is certain is reported: a call whose arguments are all literals (an argument of any
other expression may be ``dyn``, which every overload accepts), or a function the receiver's
type has none of. A chain is followed until its value is no library type (``allowed()``'s
bool)."""

from __future__ import annotations

from .checks import literal_type
from .engine import NUMBER_LITERAL, STRING_LITERAL, closing, issue, split_arguments, tokens

_AUTHORIZER = "kubernetes.authorization.Authorizer"
_GROUP_CHECK = "kubernetes.authorization.GroupCheck"
_RESOURCE_CHECK = "kubernetes.authorization.ResourceCheck"
_PATH_CHECK = "kubernetes.authorization.PathCheck"
_DECISION = "kubernetes.authorization.Decision"
_STRING = ("string",)
#: receiver type -> function -> (parameter types, result type): ``authzLibraryDecls``.
_OVERLOADS: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {
    _AUTHORIZER: {"path": (_STRING, _PATH_CHECK), "group": (_STRING, _GROUP_CHECK),
                  "serviceAccount": (("string", "string"), _AUTHORIZER)},
    _GROUP_CHECK: {"resource": (_STRING, _RESOURCE_CHECK)},
    _RESOURCE_CHECK: {**{name: (_STRING, _RESOURCE_CHECK) for name in (
        "subresource", "namespace", "name", "fieldSelector", "labelSelector")}, "check": (_STRING, _DECISION)},
    _PATH_CHECK: {"check": (_STRING, _DECISION)},
    _DECISION: {"allowed": ((), "bool"), "errored": ((), "bool"), "reason": ((), "string"), "error": ((), "string")},
}
#: The variable and its one field (kube's ``authorizer.requestResource`` variable).
VARIABLE, REQUEST_RESOURCE = "authorizer", "requestResource"
_KEYWORD_TYPES = {"true": "bool", "false": "bool", "null": "null_type"}


def _argument_type(source: str, offset: int, text: str) -> str | None:
    """The type of a one-token argument, None when it is not a literal."""
    if text == STRING_LITERAL:
        return "bytes" if source[offset] in "bB" else "string"
    if text == NUMBER_LITERAL:
        return literal_type(source, offset)
    return _KEYWORD_TYPES.get(text)


def _chain(source: str, toks: list[tuple[int, str]], start: int) -> tuple[int, str | None, tuple[int, str] | None]:
    """Follow the chain whose ``authorizer`` is ``toks[start]``: the index after it, the type of
    its value (None: not known here) and its first issue."""
    kind, index = (_RESOURCE_CHECK, start + 3) if _selects_request_resource(toks, start) else (_AUTHORIZER, start + 1)
    while kind in _OVERLOADS and index + 2 < len(toks) and toks[index][1] == "." and toks[index + 2][1] == "(":
        function, open_offset = toks[index + 1][1], toks[index + 2][0]
        close = closing(toks, index + 2)
        if close is None:
            return index, None, None
        end = next(i for i in range(index + 2, len(toks)) if toks[i][0] == close)
        arguments = [part for part in split_arguments(toks, index + 3, end) if part]
        types = [_argument_type(source, *toks[part[0]]) if len(part) == 1 else None for part in arguments]
        overload = _OVERLOADS[kind].get(function)
        if None in types:  # a dyn argument matches an overload of its arity: which, not known here
            if overload is None or len(overload[0]) != len(types):
                return end + 1, None, None
        elif overload is None or overload[0] != tuple(types):
            shown = ", ".join(t for t in types if t is not None)
            return end + 1, None, issue(source, open_offset,
                                        f"found no matching overload for '{function}' applied to '{kind}.({shown})'")
        kind, index = overload[1], end + 1
    return index, kind, None


def _selects_request_resource(toks: list[tuple[int, str]], start: int) -> bool:
    """Whether the ``authorizer`` at ``toks[start]`` is kube's ``authorizer.requestResource``."""
    return (start + 2 < len(toks) and toks[start + 1][1] == "." and toks[start + 2][1] == REQUEST_RESOURCE
            and (start + 3 >= len(toks) or toks[start + 3][1] != "("))


def _starts(toks: list[tuple[int, str]]) -> list[int]:
    """The indexes of the ``authorizer`` variable's uses (not a field named so)."""
    return [i for i, (_offset, text) in enumerate(toks) if text == VARIABLE and (i == 0 or toks[i - 1][1] != ".")]


def issues(source: str) -> list[tuple[int, str]]:
    """cel-go's issue (offset, text) of each chain from ``authorizer`` in ``source``."""
    toks = list(tokens(source))
    found = []
    for start in _starts(toks):
        _end, _kind, problem = _chain(source, toks, start)
        if problem is not None:
            found.append(problem)
    return found


def result_type(source: str) -> str | None:
    """The type of ``source`` when it is one chain from ``authorizer`` whose type is known."""
    toks = list(tokens(source))
    if not toks or toks[0][1] != VARIABLE:
        return None
    end, kind, problem = _chain(source, toks, 0)
    return kind if end == len(toks) and problem is None else None


def first_reference(source: str) -> str:
    """The name cel-go resolves at the first use of ``authorizer`` in ``source``: the qualified
    ``authorizer.requestResource`` (kube's variable of its own) when it selects that field."""
    toks = list(tokens(source))
    starts = _starts(toks)
    return f"{VARIABLE}.{REQUEST_RESOURCE}" if starts and _selects_request_resource(toks, starts[0]) else VARIABLE
