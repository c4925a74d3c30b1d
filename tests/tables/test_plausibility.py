"""A number column's unit bounds its values wherever they enter: a yield above any crop's and
a negative mass or length are refused with the reason, in computation, lookup, edits, imports
and applies."""

import pytest

from webapp.tables.cells import CellInvalid
from webapp.tables.coerce import coerce_value, typed_value
from webapp.tables.plausibility import implausible, largest_yield


def test_the_largest_yield_is_the_librarys_largest_cap():
    # Greenhouse tomato in a year: 100 kg/m² = 1,000 t/ha.
    assert largest_yield() == (1000, "Tomato, greenhouse, per year")


@pytest.mark.parametrize(
    ("value", "unit", "refused"),
    [
        (3750, "t/ha", True),  # coconuts counted in nuts, read as tonnes
        (3.75, "t/ha", False),
        (600_000, "hg/ha", False),  # FAOSTAT's tomatoes: 60 t/ha
        (200_000_000, "hg/ha", True),
        (-2, "kg", True),
        (-2, "°C", False),
        (-2, None, False),
        (12, "€/ha", False),
    ],
)
def test_a_unit_bounds_its_values(value, unit, refused):
    assert (implausible(value, unit) is not None) is refused


def test_an_answer_above_any_crops_yield_is_invalid_with_its_reason():
    coerced = coerce_value("3,750 t/ha", "number", unit="t/ha")
    assert not coerced.valid and coerced.code == "value_implausible"
    assert coerced.error.startswith("3750 t/ha is above any crop's yield")
    typed = coerce_value(3750, "number", unit="t/ha")
    assert not typed.valid and typed.code == "value_implausible"
    assert coerce_value("4.7", "number", unit="t/ha").valid


def test_a_typed_or_imported_value_is_refused_the_same_way():
    with pytest.raises(CellInvalid, match="above any crop's yield"):
        typed_value("number", "3750", unit="t/ha")
    with pytest.raises(CellInvalid, match="below zero"):
        typed_value("number", "-1", unit="cm")
    assert typed_value("number", "3 kg/m2", unit="t/ha")[0] == 30
