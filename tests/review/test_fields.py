"""Field specs read raw values into a field's value, or say why not (plain data, no Flask)."""

from decimal import Decimal

import pytest

from webapp.review.fields import Choice, FieldProblem, FieldSpec, Kind, read_bounds
from webapp.units import UnitMismatch, convert

DEMAND = FieldSpec(
    "demand",
    "Demand",
    Kind.choice,
    choices=(
        Choice("low", aliases=("niedrig", "faible")),
        Choice("medium", aliases=("mittel", "moyen")),
        Choice("high", aliases=("hoch", "élevé")),
    ),
)
TYPES = FieldSpec(
    "types", "Types", Kind.choices, choices=(Choice("a", aliases=("alpha",)), Choice("b"))
)
DAYS = FieldSpec("days", "Days", Kind.integer, unit="days", minimum=0, maximum=3650)
SPACING = FieldSpec("spacing_cm", "Spacing", Kind.number, unit="cm", minimum=0, maximum=100)
YIELD = FieldSpec("yield", "Yield", Kind.number, unit="kg", minimum=0, maximum=999.99, decimals=2)
NAME = FieldSpec("name", "Name", Kind.text, max_length=5, required="Give a name.")
PACKAGES = FieldSpec(
    "packages",
    "Packages",
    Kind.records,
    item_label="package",
    items=(
        FieldSpec("size", "Size", Kind.number, minimum=0, minimum_excluded=True, required="Size?"),
        FieldSpec("unit", "Unit", Kind.choice, choices=(Choice("g"),), required="Unit?"),
    ),
)


def problem(spec, raw):
    with pytest.raises(FieldProblem) as caught:
        spec.read(raw)
    return caught.value


@pytest.mark.parametrize(
    ("raw", "value"),
    [("high", "high"), ("Hoch", "high"), ("élevé", "high"), ("MOYEN", "medium"),
     (" mittel ", "medium"), ("niedrig", "low"), ("faible", "low"), ("", None), (None, None)],
)  # fmt: skip
def test_choices_are_read_through_their_aliases_in_any_case(raw, value):
    assert DEMAND.read(raw) == value


@pytest.mark.parametrize("raw", ["very", 3, ["high"], {"high": 1}])
def test_anything_else_is_no_choice(raw):
    refused = problem(DEMAND, raw)
    assert (refused.code, refused.message) == (
        "value_malformed",
        "Choose one of low, medium, high.",
    )


def test_several_choices_are_a_list_without_repeats():
    assert TYPES.read(["alpha", "a", "B"]) == ["a", "b"]
    assert TYPES.read("b") == ["b"]
    assert TYPES.read(None) == []
    assert problem(TYPES, ["a", "c"]).message == "Unknown: c; use a, b."


@pytest.mark.parametrize(
    ("spec", "raw", "value"),
    [(DAYS, "120", 120), (DAYS, 90.0, 90), (SPACING, "3,5", 3.5), (SPACING, 60, 60.0),
     (YIELD, "4,5", Decimal("4.50")), (YIELD, "0.125", Decimal("0.12")), (SPACING, "-0", 0.0)],
)  # fmt: skip
def test_numbers_are_read_by_the_one_rule_into_their_type(spec, raw, value):
    read = spec.read(raw)
    assert read == value and type(read) is type(value)


@pytest.mark.parametrize(
    ("spec", "raw", "code", "message"),
    [
        (SPACING, "x", "value_malformed", "“x” is not a number."),
        (SPACING, "1,000", "value_malformed", "“1,000” is ambiguous: write 1000 or 1.000."),
        (SPACING, "nan", "value_malformed", "Give a finite number."),
        (SPACING, float("inf"), "value_malformed", "Give a finite number."),
        (SPACING, True, "value_malformed", "“True” is not a number."),
        (SPACING, -1, "value_out_of_range", "Must not be negative."),
        (SPACING, "101", "value_out_of_range", "At most 100 cm."),
        (DAYS, "1.5", "value_malformed", "Give whole days."),
        (DAYS, "1e1000000", "value_malformed", "“1e1000000” is out of range: the exponent "
         "may be at most 308."),
        (YIELD, "999.995", "value_out_of_range", "At most 999.99 kg."),  # after rounding
        # Beyond what two decimal places can be quantized to: refused, never a crash.
        (YIELD, "1e27", "value_out_of_range", "At most 999.99 kg."),
        (YIELD, "1e308", "value_out_of_range", "At most 999.99 kg."),
        (YIELD, 1e300, "value_out_of_range", "At most 999.99 kg."),
    ],
)  # fmt: skip
def test_a_number_that_cannot_be_the_fields_value_says_why(spec, raw, code, message):
    refused = problem(spec, raw)
    assert (refused.code, refused.message) == (code, message)


def test_text_is_stripped_limited_and_required_when_the_spec_says_so():
    assert NAME.read("  Kale ") == "Kale"
    assert problem(NAME, "  ").message == "Give a name."
    assert problem(NAME, None).message == "Give a name."
    assert problem(NAME, "Cabbage").message == "At most 5 characters."
    optional = FieldSpec("crop", "Crop", Kind.text, optional_text=True)
    assert optional.read("") is None and FieldSpec("v", "V", Kind.text).read(None) == ""


@pytest.mark.parametrize("raw", [["a"], {"a": 1}, ("a",), {}])
def test_a_list_or_an_object_is_no_text(raw):
    refused = problem(NAME, raw)
    assert (refused.code, refused.message) == (
        "value_malformed",
        "Give one text, not a list or an object.",
    )


def test_records_read_each_key_by_its_spec_and_keep_only_those_keys():
    assert PACKAGES.read([{"size": "5", "unit": "g", "extra": "dropped"}]) == [
        {"size": 5.0, "unit": "g"}
    ]
    assert problem(PACKAGES, "5 g").message == "Give a list of packages."
    assert problem(PACKAGES, [1]).message == "Package 1 is not an object."
    assert problem(PACKAGES, [{"size": 1, "unit": "g"}, {"size": 0, "unit": "g"}]).message == (
        "Package 2: Must be above 0."
    )
    assert problem(PACKAGES, [{"size": 1}]).message == "Package 1: Unit?"


def test_json_values_dump_as_plain_json():
    assert YIELD.dump(Decimal("4.50")) == 4.5 and DAYS.dump(3) == 3


# A model's number for a number field.


@pytest.mark.parametrize(
    ("raw", "bounds"),
    [(4, ((4.0, None), None)), ("4,5 kg", ((4.5, None), "kg")), ("3–5", ((3.0, 5.0), None)),
     ("between 3 and 5 cm", ((3.0, 5.0), "cm")), ([5, 3], ((3.0, 5.0), None)),
     ({"min": 3, "max": 5}, ((3.0, 5.0), None)), ("~12 weeks", ((12.0, None), "weeks")),
     ("1,000", ((1000.0, None), None)), ("FAO-56: 120 days", None), ("NaN", None),
     ("1e1000000", None), ([1, "x"], None), (True, None), ("high", None)],
)  # fmt: skip
def test_read_bounds_takes_a_number_or_a_range_and_nothing_else(raw, bounds):
    assert read_bounds(raw) == bounds


def to_cm(value, written):
    return convert(value, written, "cm")


def test_a_range_is_its_mean_and_says_so():
    reading = SPACING.read_measure("30-50", "cm", convert=to_cm)
    assert (reading.value, reading.unit) == (40, "cm")
    assert [n.code for n in reading.notes] == ["range_collapsed_to_mean"]


def test_another_unit_is_converted_when_it_can_be():
    reading = SPACING.read_measure("12 inches", target="cm", convert=to_cm)
    assert reading.value == pytest.approx(30.48)
    assert [n.code for n in reading.notes] == ["unit_converted"]


def test_whole_days_are_rounded_and_say_so():
    reading = DAYS.read_measure("8.4", "days")
    assert reading.value == 8 and [n.code for n in reading.notes] == ["rounded_to_whole_days"]


@pytest.mark.parametrize(
    ("raw", "unit", "code"),
    [("4 kg", None, "unit_mismatch"), ("4", "zorks", "unit_unreadable"),
     ("4", 7, "unit_unreadable"), ("500", "cm", "value_out_of_range"),
     ("a lot", None, "value_malformed"), ("NaN", None, "value_malformed")],
)  # fmt: skip
def test_what_a_model_sends_that_does_not_fit_is_a_problem(raw, unit, code):
    with pytest.raises(FieldProblem) as caught:
        SPACING.read_measure(raw, unit, convert=to_cm)
    assert caught.value.code == code


def test_without_a_converter_only_the_fields_own_unit_is_taken():
    assert SPACING.read_measure("4 cm").value == 4
    with pytest.raises(FieldProblem) as caught:
        SPACING.read_measure("4 mm")
    assert caught.value.code == UnitMismatch("").code
