"""A ValidatingAdmissionPolicy's (or a webhook's match conditions') CEL expressions compiled as
kube's validation compiles them (``fakeapi.apis.admissionregistration.validation`` describes
how). Apart from the validation because it loads CEL, which only such an object needs."""

from __future__ import annotations

from ...cel import admission as cel_admission
from ...cel import authorizer_types
from ...cel.checks import check, result_type
from ...cel.engine import Environment
from ...cel.typecheck import Checked, admission_types, checked, output_type_name
from ...cel.types import DYN, CelType
from ...machinery.status import FieldError, invalid_error

#: The variables whose type is ``dyn`` (nothing is known of their fields before evaluation).
_DYNAMIC = frozenset((cel_admission.OBJECT, cel_admission.OLD_OBJECT, cel_admission.PARAMS))


class ExpressionCompiler:
    """A policy's expressions compiled as kube's validation compiles them: with ``params`` when
    the policy has a ``paramKind``, with ``variables`` (each variable seeing those before it)
    when it has variables (kube's composited compiler)."""

    def __init__(self, has_params: bool, has_variables: bool) -> None:
        self.has_params = has_params
        self.variables: list[str] | None = [] if has_variables else None
        #: The variables ``typecheck`` types, by name: kube declares each of the type of its
        #: expression (dyn where it does not compile).
        self.variable_types: dict[str, CelType] = {}
        dynamic = _DYNAMIC if has_params else _DYNAMIC - {cel_admission.PARAMS}
        self.declared = {**dict.fromkeys(dynamic, DYN), **admission_types()}

    def typed(self, expression: str, composited: bool) -> Checked | None:
        """What cel-go's checker makes of the expression; None where ``typecheck`` cannot tell
        (a reference to ``authorizer``, among others)."""
        return checked(expression, self.declared, self.variable_types if composited else {})

    def errors(self, expression: str, path: str, expected: tuple[str, ...], *, variables: bool = True,
               authorizer: bool = True, shown: str | None = None) -> list[FieldError]:
        """``CompileCELExpression``'s error as ``field.Invalid`` of ``shown`` (default: the
        expression): the issues, else the result's type when it is none of ``expected``."""
        composited = variables and self.variables is not None
        environment: Environment = cel_admission.environment(self.has_params, authorizer, composited)
        schemas = cel_admission.schemas(self.variables if composited else None)
        issues, _kind = check(environment, expression, schemas)
        typed = self.typed(expression, composited)
        if typed is not None:
            issues = typed.issues or None  # cel-go's type errors: checks' partial ones are moot
        elif issues is None and authorizer:
            issues = "\n".join(text for _offset, text in authorizer_types.issues(expression)) or None
        shown = expression if shown is None else shown
        if issues is not None:
            return [invalid_error(path, shown, f"compilation failed: {issues}")]
        if typed is not None:
            got = output_type_name(typed.result)
        else:
            got = result_type(expression, schemas, _DYNAMIC) or (authorizer_types.result_type(expression) if authorizer
                                                                  else None)
        if not expected or got is None or got in expected:
            return []
        if len(expected) == 1:
            return [invalid_error(path, shown, f"must evaluate to {expected[0]} but got {got}")]
        return [invalid_error(path, shown, f"must evaluate to one of [{' '.join(expected)}] but got {got}")]
