"""The value coercion layer: raw strategy answers to typed, rated cell values."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.tables.coerce import (
    NOT_FOUND,
    TEXT_LIMIT,
    Coerced,
    coerce_value,
    is_not_found,
    strip_preamble,
)

NOTHING = Coerced(None, "none", True, None, None)

# strip_preamble ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Based on my research, 2010", "2010"),
        ("Based on the available data: 12 t/ha", "12 t/ha"),
        ("According to the website, founded in 1901", "founded in 1901"),
        ("According to FAO, 12 t/ha", "12 t/ha"),
        ("The answer is 2010", "2010"),
        ("The answer is: 2010", "2010"),
        ("the final answer: 42", "42"),
        ("Answer: Yes", "Yes"),
        ("Answer - 7", "7"),
        ("Sure! 2010", "2010"),
        ("Certainly, the answer is 5.", "5."),
        ("Of course: blue", "blue"),
        ("OK. 12", "12"),
        ("Here is the answer: Loam", "Loam"),
        ("Here's what I found: Loam", "Loam"),
        ("In summary, drip", "drip"),
        ("After searching the web, 2010", "2010"),
        ("I found that 2010", "2010"),
        ("It appears that 12 t/ha", "12 t/ha"),
        ("The value is 12", "12"),
        ('Sure! Based on my research, the answer is "2010"', "2010"),
        ('"2010"', "2010"),
        ("'2010'", "2010"),
        ("“2010”", "2010"),
        ("‘2010’", "2010"),
        ("`2010`", "2010"),
        ("**2010**", "2010"),
        ("  \n 2010 \t", "2010"),
        ("'\"nested\"'", "nested"),
    ],
)
def test_strip_preamble_removes_lead_ins_and_wrapping_quotes(text, expected):
    assert strip_preamble(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "2010",
        '"a" and "b"',  # two quotations, not one wrapped answer
        "From 2010 to 2015, yields rose",  # content, not a preamble
        "After 2010, yields rose",
        "OK Corral",
        "Answers vary by region",
        "Sure",
        "Answer:",
        "It's 'quoted' inside",
    ],
)
def test_strip_preamble_leaves_content_alone(text):
    assert strip_preamble(text) == text


# is_not_found --------------------------------------------------------------------------------

SENTINELS = [
    "",
    "n/a",
    "na",
    "unknown",
    "not available",
    "none",
    "not found",
    "no data",
    "null",
    "-",
    "could not determine an answer",
    "could not determine",
    "cannot determine",
    "no answer",
    "n.a",
    "nan",
    "nil",
    "undefined",
    "unavailable",
    "not applicable",
    "not known",
    "not specified",
    "no information",
    "no value",
    "--",
    "–",
    "—",
    "?",
    "can't determine",
    "unable to determine",
    "i don't know",
    "i do not know",
    "not sure",
]


@pytest.mark.parametrize("sentinel", SENTINELS)
def test_every_sentinel_is_not_found_in_any_case_with_trailing_dots(sentinel):
    assert is_not_found(sentinel)
    assert is_not_found(sentinel.upper() + ".")
    assert is_not_found(f"  {sentinel.title()}...  ")


def test_not_found_constant_and_none_are_not_found():
    assert is_not_found(NOT_FOUND)
    assert is_not_found(None)
    assert is_not_found("  N / A ".replace(" ", "")) and is_not_found("Not   available")


@pytest.mark.parametrize("text", ["0", "no", "None of the above apply here", "nano", "2010"])
def test_answers_are_not_sentinels(text):
    assert not is_not_found(text)


@pytest.mark.parametrize("column_type", ["text", "number", "boolean", "select", "url"])
@pytest.mark.parametrize(
    "raw",
    [None, "", "N/A", "Unknown.", NOT_FOUND, "Based on my research, not available", '"none"'],
)
def test_not_found_leaves_the_cell_empty_for_every_type(column_type, raw):
    assert coerce_value(raw, column_type, options=("Low", "High"), unit="kg/ha") == NOTHING


# number --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("2010", 2010),
        ("2010.", 2010),
        (" 2010\n", 2010),
        ("12.5", 12.5),
        ("12.0", 12),
        ("-3", -3),
        ("1,234.5", 1234.5),
        ("1e3", 1000),
        (12, 12),
        (12.0, 12),
        (0.25, 0.25),
    ],
)
def test_a_bare_number_is_high_confidence(raw, value):
    coerced = coerce_value(raw, "number")
    assert (coerced.value, coerced.confidence, coerced.valid, coerced.error) == (
        value,
        "high",
        True,
        None,
    )
    assert type(coerced.value) is type(value)


@pytest.mark.parametrize(
    ("raw", "value", "note"),
    [
        ("Based on my research, 2010.", 2010, "read 'Based on my research, 2010.' as '2010.'"),
        ('"12"', 12, "read '\"12\"' as '12'"),
        ("$1,234", 1234, "stripped '$'"),
        ("€ 12,50", 12.5, "stripped '€'"),
        ("£3 and ¥4", 3, "stripped '£' and '¥'"),
        ("₹ 1,00,000", 100000, "stripped '₹'"),
        ("approximately 12,000", 12000, "took the number from"),
        ("between 10 and 12", 11, "The answer gives 10–12"),
        ("12 (2020)", 12, "took the number from"),
    ],
)
def test_extras_are_stripped_with_medium_confidence_and_a_note(raw, value, note):
    coerced = coerce_value(raw, "number")
    assert (coerced.value, coerced.confidence, coerced.valid) == (value, "medium", True)
    assert note in coerced.note


def test_separators_read_are_noted():
    assert coerce_value("$1,234", "number").note == "stripped '$'; read '1,234' as 1234"
    assert coerce_value("1,234", "number").note == "read '1,234' as 1234"
    assert coerce_value("12,5", "number").value == 12.5


@pytest.mark.parametrize("raw", ["about twelve", "none given, sorry", "N°", "1e999", float("inf")])
def test_no_usable_number_is_invalid_and_low(raw):
    coerced = coerce_value(raw, "number")
    assert (coerced.value, coerced.confidence, coerced.valid) == (None, "low", False)
    assert coerced.error


def test_true_is_not_a_number():
    assert not coerce_value(True, "number").valid


@pytest.mark.parametrize(
    ("raw", "unit", "value", "note"),
    [
        ("107 lb/acre", "kg/ha", 119.930593989, "converted 107 lb/acre to 119.93 kg/ha"),
        ("107 lb per acre", "kg/ha", 119.930593989, "converted 107 lb per acre to 119.93 kg/ha"),
        ("12 t/ha", "kg/ha", 12000, "converted 12 t/ha to 12000 kg/ha"),
        ("1.2 g/m²", "kg/ha", 12, "converted 1.2 g/m² to 12 kg/ha"),
        ("25 °C", "°F", 77, "converted 25 °C to 77 °F"),
        ("5 kg/10a", "g/m2", 5, "converted 5 kg/10a to 5 g/m2"),
    ],
)
def test_a_named_unit_is_converted_to_the_columns(raw, unit, value, note):
    coerced = coerce_value(raw, "number", unit=unit)
    assert coerced.value == pytest.approx(value)
    assert (coerced.confidence, coerced.valid, coerced.note) == ("high", True, note)
    assert type(coerced.value) is type(value)


def test_the_columns_own_unit_and_no_unit_need_no_conversion():
    assert coerce_value("120 kg/ha", "number", unit="kg/ha") == Coerced(
        120, "high", True, None, None
    )
    assert coerce_value("120", "number", unit="kg/ha") == Coerced(120, "high", True, None, None)


@pytest.mark.parametrize(
    ("raw", "unit", "names"),
    [
        ("5 days", "kg/ha", ["days", "kg/ha"]),
        ("40 bu/acre", "kg/ha", ["bu/acre", "kg/ha", "bushel weight"]),
        ("30 °C", "cm", ["°C", "cm"]),
    ],
)
def test_an_incompatible_unit_is_invalid_naming_both(raw, unit, names):
    coerced = coerce_value(raw, "number", unit=unit)
    assert (coerced.valid, coerced.confidence) == (False, "low")
    assert all(name in coerced.error for name in names)


def test_a_word_after_the_number_that_is_no_unit_makes_it_invalid():
    bananas = coerce_value("5 bananas", "number", unit="kg/ha")
    assert (bananas.valid, bananas.code, bananas.value) == (False, "unit_unreadable", "5 bananas")
    assert "'bananas' after the number is not a unit that converts to kg/ha" in bananas.error


def test_only_a_column_without_a_unit_takes_any_unit_and_says_so():
    unitless = coerce_value("12 t/ha", "number")
    assert (unitless.value, unitless.confidence, unitless.valid) == (12, "medium", True)
    assert "kept the unit 't/ha' as written (the column has none)" in unitless.note
    # A column unit Pint does not know takes its own spelling, and nothing else.
    assert coerce_value("35 USD/kg", "number", unit="USD/kg").confidence == "high"
    euros = coerce_value("35 EUR/kg", "number", unit="USD/kg")
    assert (euros.valid, euros.code) == (False, "unit_unreadable")
    # Counted units convert among themselves.
    plants = coerce_value("35 plants per m2", "number", unit="plants/m²")
    assert (plants.value, plants.valid) == (35, True)


def test_a_per_plant_range_is_never_a_yield_per_area():
    """The FAO yield table case: 0.12 t/ha, valid, medium, from "0.12–0.25 kg/plant"."""
    coerced = coerce_value("0.12–0.25 kg/plant", "number", unit="t/ha")
    assert (coerced.valid, coerced.code) == (False, "unit_mismatch")
    assert coerced.value == "0.12–0.25 kg/plant"  # the text, shown as the answer was
    assert "kg/plant (mass per plant) cannot be converted to t/ha (mass per area)" in coerced.error
    per_tree = coerce_value("40 kg per tree", "number", unit="kg/ha")
    assert (per_tree.valid, per_tree.code) == (False, "unit_mismatch")


def test_a_range_becomes_its_mean_and_says_so():
    coerced = coerce_value("2–4 t/ha", "number", unit="kg/m²")
    assert (coerced.value, coerced.valid, coerced.confidence) == (0.3, True, "medium")
    assert "The answer gives 2–4; the mean 3 is taken." in coerced.note
    assert "converted 3 t/ha to 0.3 kg/m²" in coerced.note


# boolean -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        *((word, True) for word in ["yes", "Yes", "TRUE", "true", "1", "y", "Y", "ja", "oui"]),
        *((word, False) for word in ["no", "No", "FALSE", "false", "0", "n", "N", "nein", "non"]),
        ("Yes.", True),
        ("The answer is: no", False),
        (True, True),
        (False, False),
        (1, True),
        (0, False),
    ],
)
def test_clear_booleans_are_high(raw, value):
    assert coerce_value(raw, "boolean") == Coerced(value, "high", True, None, None)


@pytest.mark.parametrize(
    ("raw", "value"), [("Yes, it tolerates drought.", True), ("No - it needs irrigation", False)]
)
def test_a_leading_yes_or_no_is_medium(raw, value):
    coerced = coerce_value(raw, "boolean")
    assert (coerced.value, coerced.confidence, coerced.valid) == (value, "medium", True)


@pytest.mark.parametrize("raw", ["maybe", "No idea", "yes and no", "sometimes", "2"])
def test_ambiguous_booleans_are_invalid(raw):
    coerced = coerce_value(raw, "boolean")
    assert (coerced.value, coerced.confidence, coerced.valid) == (None, "low", False)
    assert coerced.error


# select --------------------------------------------------------------------------------------

OPTIONS = ("Low", "Very low", "Medium", "High")


@pytest.mark.parametrize(
    ("raw", "option"), [("medium", "Medium"), ("HIGH.", "High"), (" Low ", "Low")]
)
def test_an_exact_option_is_high(raw, option):
    assert coerce_value(raw, "select", OPTIONS) == Coerced(option, "high", True, None, None)


@pytest.mark.parametrize(
    ("raw", "option"),
    [
        ("The risk is very low in most years", "Very low"),  # the longest contained option
        ("very lo", "Very low"),  # the answer is contained in an option
        ("Medium-high", "Medium"),
        ("It is high", "High"),
    ],
)
def test_a_contained_option_is_medium(raw, option):
    coerced = coerce_value(raw, "select", OPTIONS)
    assert (coerced.value, coerced.confidence, coerced.valid) == (option, "medium", True)
    assert option in coerced.note


def test_no_matching_option_keeps_the_answer_as_invalid():
    coerced = coerce_value("Sprinkler", "select", ("Drip", "Flood"))
    assert (coerced.value, coerced.confidence, coerced.valid) == ("Sprinkler", "low", False)
    assert coerced.error == "not one of the options: Drip, Flood"
    assert not coerce_value("x", "select", ()).valid


def test_an_option_that_reads_like_no_answer_wins():
    assert coerce_value("None", "select", ("None", "Drip")).value == "None"
    assert coerce_value("none", "select", ("Drip",)) == NOTHING


# text and url --------------------------------------------------------------------------------


def test_text_is_kept_and_truncated_at_the_limit():
    assert coerce_value("Loamy sand", "text") == Coerced("Loamy sand", "high", True, None, None)
    assert coerce_value("Based on my research, 'Loam'", "text").value == "Loam"
    exact = "x" * TEXT_LIMIT
    assert coerce_value(exact, "text").confidence == "high"
    long = coerce_value("y" * (TEXT_LIMIT + 500), "text")
    assert (len(long.value), long.confidence, long.valid) == (2000, "medium", True)
    assert long.note == "truncated to 2000 characters"


@pytest.mark.parametrize(
    ("raw", "url", "confidence"),
    [
        ("https://www.fao.org/faostat/", "https://www.fao.org/faostat/", "high"),
        ("http://example.org", "http://example.org", "high"),
        ("www.fao.org", "https://www.fao.org", "medium"),
        ("fao.org/x?y=1", "https://fao.org/x?y=1", "medium"),
        ("example.com:8080/page", "https://example.com:8080/page", "medium"),
        ("<https://example.org/a>", "https://example.org/a", "high"),
        ("The site is https://www.fao.org/x.", "https://www.fao.org/x", "medium"),
        ("See www.fao.org for details", "https://www.fao.org", "medium"),
        ("(https://example.org/a).", "https://example.org/a", "high"),
        (
            "See https://en.wikipedia.org/wiki/Bean_(plant).",
            "https://en.wikipedia.org/wiki/Bean_(plant)",
            "medium",
        ),
    ],
)
def test_urls_get_a_scheme_and_must_parse(raw, url, confidence):
    coerced = coerce_value(raw, "url")
    assert (coerced.value, coerced.confidence, coerced.valid) == (url, confidence, True)


@pytest.mark.parametrize(
    "raw",
    [
        "javascript:alert(1)",
        "ftp://example.org/file",
        "mailto:someone@example.org",
        "some words without an address",
        "nohost",
        "https://",
        "http://example.org:99999/",
        "https://example.org/" + "a" * 2000,
    ],
)
def test_bad_urls_are_invalid(raw):
    coerced = coerce_value(raw, "url")
    assert (coerced.valid, coerced.confidence) == (False, "low")
    assert coerced.error


def test_an_unknown_column_type_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown column type"):
        coerce_value("x", "date")


@settings(max_examples=300, deadline=500, database=None)
@given(
    raw=st.one_of(st.text(max_size=80), st.integers(), st.floats(), st.booleans()),
    column_type=st.sampled_from(["text", "number", "boolean", "select", "url"]),
    unit=st.sampled_from([None, "kg/ha", "°C", "plants/m²"]),
)
def test_any_answer_coerces_without_raising(raw, column_type, unit):
    coerced = coerce_value(raw, column_type, OPTIONS, unit)
    assert coerced.confidence in ("high", "medium", "low", "none")
    assert coerced.valid == (coerced.error is None)
    if coerced.confidence == "none":
        assert coerced.value is None and coerced.valid
    if coerced.valid and coerced.value is not None:
        expected = {"number": (int, float), "boolean": bool}.get(column_type, str)
        assert isinstance(coerced.value, expected)
