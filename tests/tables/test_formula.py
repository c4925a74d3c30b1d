"""The safe formula evaluator: what it computes, what it refuses, and that it never breaks."""

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp.tables.formula import (
    FormulaError,
    NeedsModel,
    check_formula,
    evaluate,
    placeholders,
)

FUZZ = settings(
    max_examples=400,
    deadline=500,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_the_example_from_the_design():
    assert evaluate("round({Score} / {Max} * 100)", {"score": 7, "Max": 8}) == 88


@pytest.mark.parametrize(
    ("formula", "row", "expected"),
    [
        ("{Price} * {Quantity}", {"Price": 2.5, "Quantity": 4}, 10.0),
        ("{A} + {B} - {C}", {"A": 1, "B": 2, "C": 4}, -1),
        ("{A} / {B}", {"A": 1, "B": 4}, 0.25),
        ("{A} // {B}", {"A": 7, "B": 2}, 3),
        ("{A} % {B}", {"A": 7, "B": 4}, 3),
        ("{A} ** 2", {"A": 3}, 9),
        ("-{A}", {"A": 3}, -3),
        ("{A} == 3", {"A": 3}, True),
        ("{A} != 3", {"A": 3}, False),
        ("1 < {A} <= 3", {"A": 3}, True),
        ("{A} >= 4 or {A} < 0", {"A": 3}, False),
        ("{A} > 1 and not {B}", {"A": 3, "B": False}, True),
        ("abs({A})", {"A": -2}, 2),
        ("round({A}, 2)", {"A": 2.34567}, 2.35),
        ("round({A}, ndigits=1)", {"A": 2.34567}, 2.3),
        ("round(2.5)", {}, 2),  # Python's round: to the even neighbour
        ("min({A}, {B}, 5)", {"A": 7, "B": 6}, 5),
        ("max({A}, {B})", {"A": 7, "B": 6}, 7),
        ("int({A})", {"A": "42"}, 42),
        ("int({A}, 16)", {"A": "ff"}, 255),
        ("float({A}) / 2", {"A": "3"}, 1.5),
        ("str({A}) + ' kg'", {"A": 12}, "12 kg"),
        ("len({Name})", {"Name": "Tomato"}, 6),
        ("{First name} + ' ' + {Last name}", {"first name": "Ada", "LAST NAME": "L"}, "Ada L"),
        ('"{A}" + {A}', {"A": "x"}, "{A}x"),  # braces in a string are text
        ("'x' * 3", {}, "xxx"),
        ("{A} +\n {B}", {"A": 1, "B": 2}, 3),  # line breaks are layout
        ("={A} * 2", {"A": 4}, 8),  # a spreadsheet's leading "="
        ("{A} * 2", {"A": Decimal("1.5")}, 3.0),
        ("2 ** -1", {}, 0.5),
        ("1_000 + {A}", {"A": 1}, 1001),
    ],
)
def test_evaluates(formula, row, expected):
    result = evaluate(formula, row)
    assert result == expected
    assert type(result) is type(expected)


def test_placeholders_in_order_as_written():
    assert placeholders("{Price} * {Quantity}") == ["Price", "Quantity"]
    assert placeholders("{ Unit price } * {qty} + {unit PRICE}") == ["Unit price", "qty"]
    assert placeholders("'{not one}' + {Name}") == ["Name"]
    assert placeholders("1 + 2") == []
    with pytest.raises(FormulaError, match="no closing"):
        placeholders("{Price * 2")
    with pytest.raises(FormulaError, match="not a column name"):
        placeholders("{} + 1")


def test_values_are_data_not_code():
    row = {"A": "__import__('os').system('true')", "B": "1) or (1"}
    assert evaluate("{A}", row) == row["A"]
    assert evaluate("{B} + {B}", row) == row["B"] * 2
    with pytest.raises(FormulaError):
        evaluate("{A} * 1.5", row)


def test_an_unknown_column_is_named():
    with pytest.raises(FormulaError, match="unknown column: Missing") as refused:
        evaluate("{A} + {Missing}", {"A": 1})
    assert not isinstance(refused.value, NeedsModel)


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("{Name}.upper()", "attribute access"),
        ("().__class__", "attribute access"),
        ("{Name}.__class__.__bases__", "attribute access"),
        ("{Name}[0]", "indexing"),
        ("{Name}[1:]", "indexing"),
        ("import os", "import"),
        ("from os import path", "import"),
        ("x = 1", "assignment"),
        ("{A}; {A}", "several expressions"),
        ("lambda: 1", "lambda"),
        ("(lambda: 1)()", "lambda"),
        ("[x for x in 'ab']", "comprehensions"),
        ("sum(x for x in 'ab')", "comprehensions"),
        ("[1, 2]", "lists"),
        ("(1, 2)", "tuples"),
        ("{'a': 1}", "unknown column"),  # braces are placeholders, never dicts
        ("f'{1}'", "f-strings"),
        ("(y := 2)", "assignments"),
        ("Price * 2", "unknown name 'Price'"),
        ("True + x", "unknown name 'x'"),
        ("_v0 + {A}", "unknown name"),
        ("_secret", "_secret"),
        ("__import__('os')", "__import__"),
        ("eval('1')", "eval"),
        ("getattr({Name}, 'upper')", "getattr"),
        ("open('/etc/passwd')", "open"),
        ("{A}(1)", "not a function"),
        ("min({A}, key=abs)", "unknown name 'abs'"),
        ("max(*{Name})", "unpacking"),
        ("{A} << 2", "<<"),
        ("{A} & 1", "&"),
        ("~{A}", "~"),
        ("{A} in 'abc'", "in"),
        ("{A} is 1", "is"),
        ("None", "None"),
        ("1j", "1j"),
        ("b'x'", "b'x'"),
        ("9**9**9", "too large"),
        ("2 ** 10000", "too large"),
        ('"x" * 10**9', "10000 characters"),
        ('10**9 * "x"', "10000 characters"),
        ("'%0999999999d' % 1", "numbers only"),
        ("round(5, -1000000000)", "digits"),
        ("1e308 * 10", "finite"),
        ("float('nan')", "finite"),
        ("(-8) ** 0.5", "real number"),
        ("10.0 ** 400", "too large"),
        ("{A} / 0", "division by zero"),
        ("{A} // 0", "division by zero"),
        ("{A} % 0", "division by zero"),
        ("0.0 ** -1", "division by zero"),
        ("{Name} * 1.5", "cannot compute"),
        ("{A} + {Name}", "cannot compute"),
        ("len({A})", "cannot compute"),
        ("int('x')", "cannot compute"),
        ("min()", "cannot compute"),
        ("'x' * 5000 + 'y' * 5001", "10000 characters"),
        ("{Empty} * 2", "empty cell: Empty"),
        ("{Empty}", "no value"),
        ("", "empty"),
        ("1 +" * 300 + "1", "nests too deeply"),
        ("-" * 1500 + "1", "nests too deeply"),
        ("1" * 2001, "longer than 2000"),
        ("1 + \x00", "control characters"),
        ("{A", "no closing"),
    ],
)
def test_refusals(formula, message):
    row = {"A": 3, "Name": "Tomato", "Empty": None}
    with pytest.raises(FormulaError, match=None) as refused:
        evaluate(formula, row)
    assert message in str(refused.value)
    assert not isinstance(refused.value, NeedsModel)


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("IF({A} > 1, 1, 0)", "IF()"),
        ("convert({A}, kg, lb)", "convert()"),  # bare unit names are the model's business
        ("convert({A}, 'kg', 'lb')", "convert()"),
        ("sqrt({A})", "sqrt()"),
        ("sum({A}, {A})", "sum()"),
        ("1 if {A} > 2 else 0", "conditional"),
    ],
)
def test_legitimate_but_complex_requests_need_a_model(formula, message):
    with pytest.raises(NeedsModel, match=None) as refused:
        evaluate(formula, {"A": 3})
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        (
            "{yield_t_per_ha} /",
            "the formula is incomplete at character 19, after “{yield_t_per_ha} /”: invalid syntax",
        ),
        ("{A} * * 2", "the formula does not parse at character 7, after “{A} *”: invalid syntax"),
        ("({A} + 2", "at character 1, at its start: '(' was never closed"),
        ("the average of {A} and {A}", "at character 5, after “the”"),
        ("{A}{A}", "at character 4, after “{A}”"),
    ],
)
def test_a_formula_that_does_not_parse_is_refused_with_its_position(formula, message):
    for check in (lambda: check_formula(formula), lambda: evaluate(formula, {"A": 3})):
        with pytest.raises(FormulaError) as refused:
            check()
        assert not isinstance(refused.value, NeedsModel)
        assert message in str(refused.value)


def test_a_formula_that_parses_passes_the_check_even_if_it_needs_a_model():
    for formula in ("{A} * 2", "IF({A} > 1, 1, 0)", "={A} + 1"):
        check_formula(formula)


def test_a_refusal_inside_a_complex_request_is_still_a_refusal():
    for formula in ("IF({A}.real, 1, 0)", "1 if {A}.__class__ else 0", "IF(_x, 1, 0)"):
        with pytest.raises(FormulaError) as refused:
            evaluate(formula, {"A": 3})
        assert not isinstance(refused.value, NeedsModel)


def test_a_complex_request_still_needs_its_columns():
    with pytest.raises(FormulaError, match="unknown column: B") as refused:
        evaluate("IF({B} > 1, 1, 0)", {"A": 3})
    assert not isinstance(refused.value, NeedsModel)


def test_odd_row_values_are_refused():
    with pytest.raises(FormulaError, match="list"):
        evaluate("{A} * 2", {"A": [1, 2]})
    with pytest.raises(FormulaError, match="too large"):
        evaluate("{A}", {"A": 2**2000})
    with pytest.raises(FormulaError, match="cannot be computed"):
        evaluate("{A}", {"A": Decimal("sNaN")})
    with pytest.raises(FormulaError, match="text"):
        evaluate(None, {})


def test_huge_powers_strings_and_roundings_are_refused():
    for formula in ("9**9**9", '"x" * 10**9', "2 ** 2 ** 2 ** 2 ** 2 ** 2", "round(1, -10**8)"):
        with pytest.raises(FormulaError):
            evaluate(formula, {})


# Fuzzing: whatever the formula and the row, only FormulaError (NeedsModel included) escapes.

CELL_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.decimals(allow_nan=False, allow_infinity=False),
)
ROWS = st.dictionaries(st.sampled_from(["A", "B", "c", "Long name"]), CELL_VALUES, max_size=4)
TOKENS = [
    "{A}",
    "{B}",
    "{c}",
    "{Long name}",
    "{Missing}",
    "**",
    "*",
    "/",
    "//",
    "%",
    "+",
    "-",
    "9",
    "0",
    "2.5",
    "1e308",
    "(",
    ")",
    ".",
    ",",
    "__class__",
    "__import__",
    "import",
    "lambda",
    ":",
    "[",
    "]",
    "if",
    "else",
    "and",
    "or",
    "not",
    '"x"',
    "'%d'",
    "==",
    "<",
    "min(",
    "max(",
    "len(",
    "round(",
    "int(",
    "str(",
    "float(",
    "abs(",
    "IF(",
    "_v0",
    "{",
    "}",
    "=",
    ";",
    "\n",
    "\\",
    "'",
    "True",
    "None",
    "for",
    "in",
]


def _evaluate_or_refuse(formula, row):
    try:
        result = evaluate(formula, row)
    except FormulaError:
        return
    assert isinstance(result, int | float | str | bool)
    if isinstance(result, str):
        assert len(result) <= 10_000


@FUZZ
@given(formula=st.text(max_size=60), row=ROWS)
def test_fuzz_random_text(formula, row):
    _evaluate_or_refuse(formula, row)


@FUZZ
@given(tokens=st.lists(st.sampled_from(TOKENS), max_size=14), row=ROWS)
def test_fuzz_near_miss_expressions(tokens, row):
    _evaluate_or_refuse(" ".join(tokens), row)
    _evaluate_or_refuse("".join(tokens), row)
