"""The computation strategy's safe evaluator: "{Price} * {Quantity}" over one row's values.

A formula is parsed once (and cached) into a checked expression tree in which every {Column}
placeholder is a variable (_v0, _v1 ...), so a cell's value is data, never code. The tree is then
evaluated with simpleeval, locked down to the operators and functions below, for each row.

Allowed: + - * / // % **, unary - and +, == != < <= > >=, and/or/not, number and string
literals, True/False, and abs, round, min, max, int, float, str, len. Everything else is refused
with FormulaError; a legitimate request the evaluator cannot do (an unknown function such as
IF(...), "x if c else y", text that is not an expression) raises NeedsModel so the caller can
ask an LLM instead.
"""

from __future__ import annotations

import ast
import functools
import math
import numbers
import operator
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from simpleeval import InvalidExpression, SimpleEval

MAX_FORMULA_CHARS = 2000
MAX_TEXT = 10_000
MAX_INT_BITS = 1024  # beyond what a float holds: no use in a table, and slow to compute
MAX_DEPTH = 200  # well within the interpreter's recursion limit
MAX_ROUND_DIGITS = 100


class FormulaError(Exception):
    """The formula cannot be evaluated for this row; the message is for people."""


class NeedsModel(FormulaError):
    """A valid request beyond the safe evaluator (unknown function, conditional, free text)."""


def placeholders(formula: str) -> list[str]:
    """The {Column Name} placeholders in order of first use, as written (case-insensitive
    duplicates once). Braces inside string literals are text, not placeholders.

    Raises FormulaError for an unclosed or empty placeholder.
    """
    return list(_scan(formula).names)


def evaluate(formula: str, row: Mapping[str, Any]) -> Any:
    """The formula's value (int, float, str or bool) for row, whose keys are column names
    (matched case-insensitively). Raises FormulaError (or NeedsModel) and nothing else."""
    if not isinstance(formula, str):
        raise FormulaError("the formula must be text")
    compiled = _compile(formula)
    values = _bind(compiled.names, row)
    if compiled.needs_model:
        raise NeedsModel(compiled.needs_model)
    evaluator = _evaluator()
    evaluator.names = values
    try:
        result = evaluator.eval(formula, previously_parsed=compiled.tree)
    except FormulaError:
        raise
    except ZeroDivisionError:
        raise FormulaError("division by zero") from None
    except OverflowError:
        raise FormulaError("a number in the calculation is too large") from None
    except TypeError as error:
        empty = [
            name
            for name, value in zip(compiled.names, values.values(), strict=True)
            if value is None
        ]
        if empty:
            raise FormulaError(f"empty cell: {', '.join(empty)}") from None
        raise FormulaError(f"cannot compute: {error}") from None
    except (ValueError, InvalidExpression) as error:
        raise FormulaError(f"cannot compute: {error}") from None
    except Exception as error:  # the contract: only FormulaError leaves this function
        raise FormulaError(f"cannot compute: {type(error).__name__}") from None
    if result is None:
        raise FormulaError("the formula gave no value")
    return _checked(result)


# Parsing -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scanned:
    code: str  # the formula with each placeholder replaced by its variable
    names: tuple[str, ...]  # placeholder names as first written, index = variable number
    uses: int  # how many placeholders the formula has, repeats included
    # For each character of code, where it came from in the formula (to point at errors).
    origin: tuple[int, ...] = ()


@dataclass(frozen=True)
class _Compiled:
    tree: ast.expr | None
    names: tuple[str, ...]
    needs_model: str | None


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _variable(index: int) -> str:
    return f"_v{index}"


@functools.lru_cache(maxsize=1024)
def _scan(formula: str) -> _Scanned:
    if len(formula) > MAX_FORMULA_CHARS:
        raise FormulaError(f"the formula is longer than {MAX_FORMULA_CHARS} characters")
    if _CONTROL.search(formula):
        raise FormulaError("the formula contains control characters")
    code: list[str] = []
    origin: list[int] = []
    names: list[str] = []
    keys: list[str] = []
    uses = 0
    i, length = 0, len(formula)

    def emit(text: str, start: int, same_place: bool = False) -> None:
        code.append(text)
        origin.extend(start if same_place else start + n for n in range(len(text)))

    while i < length:
        char = formula[i]
        if char in "'\"":
            end = _string_end(formula, i)
            emit(formula[i:end], i)
            i = end
        elif char == "{":
            close = formula.find("}", i + 1)
            if close < 0:
                raise FormulaError("a '{' has no closing '}'")
            name = formula[i + 1 : close].strip()
            if not name or "{" in name:
                raise FormulaError(f"not a column name: {formula[i : close + 1]}")
            key = name.casefold()
            if key not in keys:
                keys.append(key)
                names.append(name)
            # Spaces keep "{A}{B}" and "{A}2" from gluing into one name.
            emit(f" {_variable(keys.index(key))} ", i, same_place=True)
            uses += 1
            i = close + 1
        else:
            # Line breaks outside strings are layout, as in a spreadsheet's formula bar.
            emit(" " if char in "\r\n\t" else char, i)
            i += 1
    return _Scanned("".join(code), tuple(names), uses, tuple(origin))


def _string_end(text: str, start: int) -> int:
    """Index after the string literal opening at start (or len(text) when it never closes)."""
    quote = text[start] * 3 if text.startswith(text[start] * 3, start) else text[start]
    i = start + len(quote)
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text.startswith(quote, i):
            return i + len(quote)
        else:
            i += 1
    return len(text)


def check_formula(formula: str) -> None:
    """Refuse a formula before any row is computed: FormulaError says what is wrong and where
    (a formula that does not parse, a forbidden construct); NeedsModel is not raised here."""
    if not isinstance(formula, str):
        raise FormulaError("the formula must be text")
    _compile(formula)


def needs_model(formula: str) -> bool:
    """Whether a checked formula is beyond the safe evaluator (each row then asks the model)."""
    try:
        return _compile(formula).needs_model is not None
    except NeedsModel:
        return True


@functools.lru_cache(maxsize=1024)
def _compile(formula: str) -> _Compiled:
    scanned = _scan(formula)
    code = scanned.code.lstrip()
    skipped = len(scanned.code) - len(code)
    if code.startswith("=") and not code.startswith("=="):
        stripped = code[1:].lstrip()  # a spreadsheet habit: "={A} * 2"
        skipped += len(code) - len(stripped)
        code = stripped
    code = code.rstrip()
    if not code:
        raise FormulaError("the formula is empty")
    try:
        tree = ast.parse(code, mode="eval").body
    except SyntaxError as error:
        _not_an_expression(code)
        raise FormulaError(_syntax_message(formula, scanned, code, skipped, error)) from None
    except (RecursionError, MemoryError):
        raise FormulaError("the formula nests too deeply") from None
    except ValueError as error:
        raise FormulaError(f"the formula cannot be read: {error}") from None
    needs_model = _check(tree, scanned)
    return _Compiled(tree, scanned.names, needs_model)


def _not_an_expression(code: str) -> None:
    """Statements (an import, an assignment …) are refused as such."""
    try:
        statements = ast.parse(code, mode="exec").body
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return
    kinds = sorted({_STATEMENTS.get(type(statement), "a statement") for statement in statements})
    raise FormulaError(f"only a single expression is allowed, not {' or '.join(kinds)}")


def _syntax_message(
    formula: str, scanned: _Scanned, code: str, skipped: int, error: SyntaxError
) -> str:
    """Where in the formula (as written) it stops making sense, and Python's reason."""
    lines = code.split("\n")
    line = min(max(error.lineno or 1, 1), len(lines))
    # Python gives no column (0) when the input ends too early: point at its end.
    column = error.offset - 1 if error.offset else len(lines[line - 1])
    at = skipped + sum(len(text) + 1 for text in lines[: line - 1]) + column
    origin = scanned.origin
    position = origin[at] if at < len(origin) else len(formula.rstrip())
    reason = (error.msg or "invalid syntax").replace("_v", "column ")
    before = formula[:position].rstrip()
    shown = before if len(before) <= 40 else "…" + before[-39:]
    where = f"after “{shown}”" if shown else "at its start"
    if position >= len(formula.rstrip()):
        return f"the formula is incomplete at character {position + 1}, {where}: {reason}"
    return f"the formula does not parse at character {position + 1}, {where}: {reason}"


_STATEMENTS = {
    ast.Import: "an import",
    ast.ImportFrom: "an import",
    ast.Assign: "an assignment",
    ast.AugAssign: "an assignment",
    ast.AnnAssign: "an assignment",
    ast.Expr: "several expressions",
}


_BINARY = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
}
_UNARY = (ast.USub, ast.UAdd, ast.Not)
_COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
# Functions that are never a calculation: refused outright rather than passed to an LLM.
_FORBIDDEN_CALLS = frozenset(
    {
        "breakpoint",
        "callable",
        "classmethod",
        "compile",
        "delattr",
        "dir",
        "eval",
        "exec",
        "exit",
        "getattr",
        "globals",
        "hasattr",
        "help",
        "id",
        "input",
        "isinstance",
        "issubclass",
        "iter",
        "locals",
        "memoryview",
        "next",
        "object",
        "open",
        "print",
        "property",
        "quit",
        "setattr",
        "staticmethod",
        "super",
        "type",
        "vars",
    }
)
_REFUSED_NODES = {
    ast.Attribute: "attribute access (.name)",
    ast.Subscript: "indexing and slicing ([...])",
    ast.Lambda: "lambda",
    ast.ListComp: "comprehensions",
    ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions",
    ast.GeneratorExp: "comprehensions",
    ast.List: "lists",
    ast.Tuple: "tuples",
    ast.Set: "sets",
    ast.Dict: "dicts",
    ast.JoinedStr: "f-strings",
    ast.NamedExpr: "assignments (:=)",
    ast.Starred: "unpacking (*)",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
}


def _check(tree: ast.expr, scanned: _Scanned) -> str | None:
    """Refuse what the evaluator must never see; return a NeedsModel reason, if any.

    Iterative, so a deep formula is refused rather than overflowing the stack.
    """
    variables = {_variable(index) for index in range(len(scanned.names))}
    needs_model: str | None = None
    uses = 0
    # (node, depth, inside the arguments of a function only an LLM can apply)
    stack: list[tuple[ast.AST, int, bool]] = [(tree, 1, False)]
    while stack:
        node, depth, for_model = stack.pop()
        if depth > MAX_DEPTH:
            raise FormulaError("the formula nests too deeply")
        children: list[ast.AST] = []
        if isinstance(node, ast.Constant):
            _check_constant(node.value)
        elif isinstance(node, ast.Name):
            if node.id in variables:
                uses += 1
            elif node.id.startswith("_"):
                raise FormulaError(f"the name {node.id!r} is not allowed")
            elif not for_model:
                raise FormulaError(
                    f"unknown name {node.id!r} (write column names in braces, e.g. {{{node.id}}})"
                )
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                raise FormulaError(f"not allowed in a formula: the operator {_operator(node.op)}")
            children = [node.left, node.right]
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, _UNARY):
                raise FormulaError(f"not allowed in a formula: the operator {_operator(node.op)}")
            children = [node.operand]
        elif isinstance(node, ast.BoolOp):
            children = list(node.values)
        elif isinstance(node, ast.Compare):
            for op in node.ops:
                if not isinstance(op, _COMPARISONS):
                    raise FormulaError(f"not allowed in a formula: the comparison {_operator(op)}")
            children = [node.left, *node.comparators]
        elif isinstance(node, ast.IfExp):
            needs_model = needs_model or "conditional expressions (x if c else y)"
            children = [node.test, node.body, node.orelse]
        elif isinstance(node, ast.Call):
            reason = _check_call(node, variables)
            if reason:
                needs_model = needs_model or reason
                for_model = True
            for keyword in node.keywords:
                if keyword.arg is None:
                    raise FormulaError("not allowed in a formula: unpacking (**)")
            children = [*node.args, *(keyword.value for keyword in node.keywords)]
        else:
            what = _REFUSED_NODES.get(type(node), type(node).__name__)
            raise FormulaError(f"not allowed in a formula: {what}")
        stack.extend((child, depth + 1, for_model) for child in children)
    if uses != scanned.uses:
        # The formula names a variable itself, e.g. "_v0": only placeholders may.
        raise FormulaError("unknown name in the formula (write column names in braces)")
    return needs_model


def _check_constant(value: Any) -> None:
    if isinstance(value, bool | str | float):
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise FormulaError(f"a text in the formula is longer than {MAX_TEXT} characters")
    elif isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise FormulaError("a number in the formula is too large")
    else:
        raise FormulaError(f"{value!r} is not allowed in a formula (only numbers and text)")


def _check_call(node: ast.Call, variables: set[str]) -> str | None:
    """None for an allowed function, the NeedsModel reason for an unknown one."""
    if not isinstance(node.func, ast.Name):
        what = _REFUSED_NODES.get(type(node.func), "calling the result of an expression")
        raise FormulaError(f"not allowed in a formula: {what}")
    name = node.func.id
    if name in _FUNCTIONS:
        return None
    if name in variables:
        raise FormulaError("a column value is not a function")
    if name.startswith("_") or name in _FORBIDDEN_CALLS:
        raise FormulaError(f"the function {name}() is not allowed")
    return f"unknown function {name}()"


def _operator(op: ast.AST) -> str:
    symbols = {
        ast.BitAnd: "&",
        ast.BitOr: "|",
        ast.BitXor: "^",
        ast.LShift: "<<",
        ast.RShift: ">>",
        ast.MatMult: "@",
        ast.Invert: "~",
        ast.In: "in",
        ast.NotIn: "not in",
        ast.Is: "is",
        ast.IsNot: "is not",
    }
    return symbols.get(type(op), type(op).__name__)


# Binding and evaluating ----------------------------------------------------------------------


def _bind(names: tuple[str, ...], row: Mapping[str, Any]) -> dict[str, Any]:
    folded: dict[str, Any] | None = None
    values: dict[str, Any] = {}
    missing: list[str] = []
    for index, name in enumerate(names):
        if name in row:
            value = row[name]
        else:
            if folded is None:
                folded = {}
                for key, item in row.items():
                    if isinstance(key, str):
                        folded.setdefault(key.strip().casefold(), item)
            if name.casefold() not in folded:
                missing.append(name)
                continue
            value = folded[name.casefold()]
        values[_variable(index)] = _cell(name, value)
    if missing:
        raise FormulaError(f"unknown column: {', '.join(missing)}")
    return values


def _cell(name: str, value: Any) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise FormulaError(f"the number in {name} is too large")
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, numbers.Real | Decimal):  # Fraction, Decimal: computed as floats
        try:
            return float(value)
        except (ValueError, OverflowError):
            raise FormulaError(f"the number in {name} cannot be computed with") from None
    raise FormulaError(f"{name} holds a {type(value).__name__}, not a number or text")


def _checked(value: Any) -> Any:
    """Every intermediate and final result: a bounded int, a finite float, a short text."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise FormulaError("the result is too large")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise FormulaError("the result is not a finite number")
        return value
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise FormulaError(f"the result is longer than {MAX_TEXT} characters")
        return value
    if isinstance(value, complex):
        raise FormulaError("the result is not a real number")
    raise FormulaError(f"the result is a {type(value).__name__}, not a number or text")


def _is_count(value: Any) -> bool:
    return isinstance(value, int)  # bools are ints here, as in Python


def _multiply(left: Any, right: Any) -> Any:
    # Refuse "x" * 10**9 before building it.
    for text, count in ((left, right), (right, left)):
        if isinstance(text, str) and _is_count(count) and len(text) * count > MAX_TEXT:
            raise FormulaError(f"the result is longer than {MAX_TEXT} characters")
    return _checked(left * right)


def _power(base: Any, exponent: Any) -> Any:
    # Refuse 9 ** 9 ** 9 from the size of the result, before computing it.
    if (
        _is_count(base)
        and _is_count(exponent)
        and abs(base) > 1
        and (abs(base).bit_length() - 1) * exponent > MAX_INT_BITS
    ):
        raise FormulaError("the result is too large")
    return _checked(base**exponent)


def _modulo(left: Any, right: Any) -> Any:
    # On text, % is printf formatting ("%0999999999d" % 1), not arithmetic.
    if isinstance(left, str):
        raise FormulaError("% works on numbers only")
    return _checked(left % right)


def _arithmetic(function: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda left, right: _checked(function(left, right))


def _round(number: Any, ndigits: Any = None) -> Any:
    if ndigits is not None and (not _is_count(ndigits) or abs(ndigits) > MAX_ROUND_DIGITS):
        raise FormulaError(f"round() takes a whole number of digits up to {MAX_ROUND_DIGITS}")
    return _checked(round(number, ndigits))


def _int(*args: Any, **kwargs: Any) -> Any:
    # int() of a long digit string is quadratic; no table cell needs more than this.
    if any(isinstance(arg, str) and len(arg) > 400 for arg in args):
        raise FormulaError("the text is too long to read as a number")
    return _checked(int(*args, **kwargs))


def _result(function: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *args, **kwargs: _checked(function(*args, **kwargs))


_OPERATORS = {
    ast.Add: _arithmetic(operator.add),
    ast.Sub: _arithmetic(operator.sub),
    ast.Mult: _multiply,
    ast.Div: _arithmetic(operator.truediv),
    ast.FloorDiv: _arithmetic(operator.floordiv),
    ast.Mod: _modulo,
    ast.Pow: _power,
    ast.USub: lambda operand: _checked(-operand),
    ast.UAdd: lambda operand: _checked(+operand),
    ast.Not: operator.not_,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": _result(abs),
    "round": _round,
    "min": _result(min),
    "max": _result(max),
    "int": _int,
    "float": _result(float),
    "str": _result(str),
    "len": len,
}
# The only node kinds _check lets through; simpleeval's others (attributes, subscripts,
# comprehensions, f-strings, conditionals) are removed as a second line of defence.
_EVALUATED_NODES = (
    ast.Name,
    ast.Constant,
    ast.UnaryOp,
    ast.BinOp,
    ast.BoolOp,
    ast.Compare,
    ast.Call,
    ast.keyword,
)


class _Evaluator(SimpleEval):
    def __init__(self) -> None:
        super().__init__(operators=dict(_OPERATORS), functions=dict(_FUNCTIONS), names={})
        self.nodes = {kind: self.nodes[kind] for kind in _EVALUATED_NODES}


_local = threading.local()


def _evaluator() -> _Evaluator:
    """This thread's evaluator: building one costs more than an evaluation. Evaluations never
    call back into evaluate(), so one per thread is never used twice at once."""
    evaluator = getattr(_local, "evaluator", None)
    if evaluator is None:
        evaluator = _local.evaluator = _Evaluator()
    return evaluator
