"""Units: the first quantity in an answer, and conversions between agronomy units."""

import pytest

from webapp.units import UnitMismatch, convert, find_quantity, known_unit, split_quantity


def test_the_required_conversions_hold():
    assert convert(107, "lb/acre", "kg/ha") == pytest.approx(119.93, abs=0.01)
    assert convert(1, "g/m²", "kg/ha") == 10
    assert convert(5, "t/ha", "kg/ha") == 5000
    assert convert(1, "kg/10a", "g/m2") == 1


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [
        (1, "dt/ha", "kg/ha", 100),  # a decitonne is 100 kg
        (1, "lb/ac", "kg/ha", 1.12085),
        (1, "mt/ha", "kg/ha", 1000),  # metric tons, not Pint's millitonnes
        (3, "q/ha", "t/ha", 0.3),
        (2, "kg ha-1", "g/m2", 0.2),
        (2, "kg ha⁻¹", "g/m²", 0.2),
        (107, "lb per acre", "kg/ha", 119.931),
        (1, "kg/10a", "kg/ha", 10),
        (1, "kg/10 a", "kg/ha", 10),
        (25, "°C", "°F", 77),
        (25, "degC", "degF", 77),
        (77, "℉", "℃", 25),
        (50, "%", "‰", 500),
        (2, "days", "hours", 48),
        (1, "m", "cm", 100),
        (10, "mm", "cm", 1),
        (1, "ha", "acre", 2.47105),
        (1, "acre", "m²", 4046.86),
        (1, "bu/acre", "bu/ha", 2.47105),  # volume per area to volume per area is fine
        (1, "kilos/ha", "kg/ha", 1),
    ],
)
def test_agronomy_spellings_convert(value, source, target, expected):
    assert convert(value, source, target) == pytest.approx(expected, rel=1e-5)


def test_results_carry_no_float_noise():
    # Pint gives 76.99999999999993 °F and 10.000000000000002 kg/ha; 12 digits are kept.
    assert convert(25, "degC", "degF") == 77.0
    assert convert(1, "g/m²", "kg/ha") == 10.0


@pytest.mark.parametrize(
    ("source", "target", "words"),
    [
        ("days", "kg/ha", ["days", "kg/ha", "(time)", "(mass per area)"]),
        ("kg", "kg/ha", ["kg", "kg/ha"]),
        ("%", "kg/ha", ["%", "a pure number"]),
        ("°C", "kg/ha", ["°C", "kg/ha"]),
    ],
)
def test_incompatible_units_are_refused_naming_both(source, target, words):
    with pytest.raises(UnitMismatch) as refused:
        convert(5, source, target)
    assert all(word in str(refused.value) for word in words)


@pytest.mark.parametrize(
    "source", ["kg/plant", "kg per plant", "lb/tree", "kg/head", "g/animal", "seeds/m²"]
)
def test_counted_quantities_read_but_never_become_per_area_masses(source):
    assert known_unit(source)
    with pytest.raises(UnitMismatch, match="cannot be converted"):
        convert(0.2, source, "t/ha")


def test_counted_quantities_convert_among_themselves():
    assert convert(0.5, "lb/plant", "kg/plant") == 0.226796185
    assert convert(40000, "plants/ha", "plants/m²") == 4.0
    assert convert(3, "g/lfm", "g/m") == 3.0


@pytest.mark.parametrize("source", ["bu/acre", "bu/ac", "bushel/acre"])
def test_bushels_do_not_become_mass_without_a_bushel_weight(source):
    with pytest.raises(UnitMismatch, match="bushel weight"):
        convert(40, source, "kg/ha")


@pytest.mark.parametrize("unit", ["bananas", "", "5", "bananas/m²", "xyz/ha"])
def test_unknown_units_are_refused(unit):
    assert not known_unit(unit)
    with pytest.raises(UnitMismatch):
        convert(1, unit, "kg/ha")
    with pytest.raises(UnitMismatch):
        convert(1, "kg/ha", unit)


@pytest.mark.parametrize(
    "unit",
    [
        *("kg/ha", "t/ha", "dt/ha", "lb/acre", "lb/ac", "bu/acre", "g/m²", "g/m2", "kg/10a"),
        *("°C", "degC", "°F", "%", "days", "cm", "mm", "m", "ha", "acre", "kg ha-1"),
    ],
)
def test_known_units(unit):
    assert known_unit(unit)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("107 lb/acre", (107.0, "lb/acre")),
        ("2010", (2010.0, None)),
        ("about 2,010", (2010.0, None)),
        ("12 t/ha in 2020", (12.0, "t/ha")),
        ("1.2 g/m²", (1.2, "g/m²")),
        ("5 days.", (5.0, "days")),
        ("25°C", (25.0, "°C")),
        ("−5 °C", (-5.0, "°C")),
        ("50%", (50.0, "%")),
        ("5.5t/ha", (5.5, "t/ha")),
        ("5 t ha-1", (5.0, "t ha-1")),
        ("107 lb per acre", (107.0, "lb per acre")),
        ("between 10 and 12 t/ha", (10.0, "t/ha")),
        ("10-12 t/ha", (10.0, "t/ha")),
        ("5 bananas", (5.0, "bananas")),
        ("12 in 2020", (12.0, None)),  # "in" is a word here, not inches
        ("P2O5: 40 kg", (40.0, "kg")),  # digits inside a word are not a number
        ("3.5e3 kg", (3500.0, "kg")),
        (".5 kg", (0.5, "kg")),
        ("no number here", None),
        ("", None),
    ],
)
def test_split_quantity(text, expected):
    assert split_quantity(text) == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1,234.5", 1234.5),  # comma + exactly 3 digits: thousands
        ("12,000,000", 12_000_000),
        ("12,5", 12.5),  # otherwise a decimal comma
        ("1,2345", 1.2345),
        ("1.234,5", 1234.5),  # dots group thousands before a decimal comma
        ("1.234.567", 1_234_567),
        ("1.234", 1.234),  # a single dot group stays a decimal point
        ("12 345", 12_345),
        ("12\u202f345,5", 12_345.5),
        ("1'234'567.5", 1_234_567.5),
        ("1’000", 1000),
        ("2019 123", 2019),  # a leading group has at most 3 digits
        ("1,00,000", 100_000),  # Indian grouping
        ("12,34,567.5", 1_234_567.5),
    ],
)
def test_thousands_separators_and_decimal_commas(text, value):
    assert split_quantity(text) == (value, None)


def test_find_quantity_says_where_the_number_is():
    found = find_quantity("Yield: $1,234 kg/ha (2020)")
    assert found is not None
    assert (found.value, found.unit, found.number_text) == (1234.0, "kg/ha", "1,234")
    assert "Yield: $1,234 kg/ha (2020)"[found.start : found.end] == "1,234 kg/ha"
    assert not found.is_range
    assert find_quantity("10–12 t/ha").is_range
