import re
import time
from decimal import Decimal

import pytest

from webapp.numbers import MAX_CHARS, NumberInvalid, parse_number


@pytest.mark.parametrize(
    ("text", "strict", "lenient"),
    [
        ("3.5", 3.5, 3.5),
        ("3,5", 3.5, 3.5),  # a decimal comma where it cannot group thousands
        (" 42 ", 42, 42),
        ("0,125", 0.125, 0.125),  # a leading 0 groups nothing
        ("1234,567", 1234.567, 1234.567),  # a leading group has at most 3 digits
        ("1,2345", 1.2345, 1.2345),
        ("1,000", "number_ambiguous", 1000),
        ("12,500", "number_ambiguous", 12_500),
        ("-1,000", "number_ambiguous", -1000),
        ("1.234", 1.234, 1.234),  # a dot is a decimal point
        ("1.234,5", "not_a_number", 1234.5),
        ("1,234.5", "not_a_number", 1234.5),
        ("1.234.567", "not_a_number", 1_234_567),
        ("1'234", "not_a_number", 1234),
        ("1,00,000", "not_a_number", 100_000),
        ("12 500", 12_500, 12_500),  # spaces group thousands in both readings
        ("1\u202f000,5", 1000.5, 1000.5),
        ("1 000,500", 1000.5, 1000.5),  # spaces group, so the comma is a decimal one
        ("1 2", "not_a_number", "not_a_number"),
        ("5.", 5, 5),
        (".5", 0.5, 0.5),
        (",5", 0.5, 0.5),
        ("+7", 7, 7),
        ("−7", -7, -7),  # the minus sign
        ("-0", 0, 0),
        ("1.5e3", 1500, 1500),
        ("1e308", 1e308, 1e308),
        ("1e1000000", "number_out_of_range", "number_out_of_range"),
        ("1e-400", "number_out_of_range", "number_out_of_range"),
        ("9.9e308", "number_out_of_range", "number_out_of_range"),
        ("nan", "number_out_of_range", "number_out_of_range"),
        ("NaN", "number_out_of_range", "number_out_of_range"),
        ("inf", "number_out_of_range", "number_out_of_range"),
        ("-Infinity", "number_out_of_range", "number_out_of_range"),
        ("", "not_a_number", "not_a_number"),
        ("   ", "not_a_number", "not_a_number"),
        ("x", "not_a_number", "not_a_number"),
        ("4 kg", "not_a_number", "not_a_number"),  # a number alone: units are read elsewhere
        ("1" * (MAX_CHARS + 1), "number_out_of_range", "number_out_of_range"),
        ("e5", "not_a_number", "not_a_number"),
        (".", "not_a_number", "not_a_number"),
    ],
)
def test_the_number_rule(text, strict, lenient):
    for is_lenient, expected in ((False, strict), (True, lenient)):
        if isinstance(expected, str):
            with pytest.raises(NumberInvalid) as refused:
                parse_number(text, lenient=is_lenient)
            assert refused.value.code == expected, (text, is_lenient)
        else:
            assert parse_number(text, lenient=is_lenient) == expected, (text, is_lenient)


def test_minus_zero_is_zero():
    assert str(parse_number("-0")) == "0.0"
    assert str(parse_number(-0.0)) == "0.0"


@pytest.mark.parametrize(
    ("value", "expected"), [(4, 4.0), (2.5, 2.5), (Decimal("4.50"), 4.5), (10**20, 1e20)]
)
def test_json_numbers_are_taken_as_they_are(value, expected):
    assert parse_number(value) == expected


@pytest.mark.parametrize(
    "value", [True, None, [1], float("nan"), float("inf"), 10**400, Decimal("1e1000000")]
)
def test_what_is_no_finite_number_is_refused(value):
    with pytest.raises(NumberInvalid):
        parse_number(value)


def test_the_messages_say_what_to_write():
    with pytest.raises(NumberInvalid, match=re.escape("“x” is not a number.")):
        parse_number("x")
    with pytest.raises(NumberInvalid, match=re.escape("write 1000 or 1.000")):
        parse_number("1,000")
    with pytest.raises(NumberInvalid, match="exponent may be at most 308"):
        parse_number("1e1000000")


def test_a_huge_exponent_costs_nothing():
    started = time.perf_counter()
    for text in ("1e1000000", "9" * (MAX_CHARS + 1), "1e" + "9" * (MAX_CHARS - 2)):
        with pytest.raises(NumberInvalid):
            parse_number(text, lenient=True)
    assert time.perf_counter() - started < 0.5
