import pytest

from webapp.review.vocabulary import Severity
from webapp.systems.rules import bounds_for, check, check_yield, yield_bound


@pytest.mark.parametrize(
    ("key", "inside", "outside"),
    [("gnr", 150, 151), ("tempsTravail", 20, 20.5), ("ift", 10, 10.01), ("gnr", 0, -1)],
)
def test_intervention_bounds(key, inside, outside):
    assert check(key, inside) == []
    [error] = check(key, outside)
    assert error.severity == Severity.error and error.code == "out_of_bounds"
    assert error.field == key and "not applied" in error.message


def test_step_bounds_are_their_own():
    assert check("ift", 12, level="step") == []
    assert check("ift", 12) != []
    assert bounds_for("margeBrute", "step") == (None, 50000)
    assert check("margeBrute", -300, level="step") == []


def test_a_step_key_without_its_own_bound_uses_the_intervention_one():
    assert bounds_for("semences", "system") == bounds_for("semences")


def test_a_yield_is_bounded_by_its_crop_typical_yield_from_the_library():
    # DüV 2017 Anlage 4 (the reference library): winter wheat 80 dt/ha = 8 t/ha → 0–24 t/ha.
    bound = yield_bound("Blé tendre d'hiver")
    assert (bound.low, bound.high, bound.unit) == (0, 24, "t/ha")
    assert "Winter wheat, 8 t/ha" in bound.basis
    assert bound.evidence.source_url.startswith("https://www.gesetze-im-internet.de/")
    assert check_yield(9, "Blé tendre d'hiver") == []
    [error] = check_yield(80, "Blé tendre d'hiver")  # 80 q/ha typed in t/ha
    assert error.severity == Severity.error and error.field == "rendement"
    assert "0–24 t/ha" in error.message and "not applied" in error.message


def test_a_yield_in_quintals_has_its_bound_in_quintals():
    assert yield_bound("Blé tendre d'hiver", "q/ha").high == 240
    assert check_yield(80, "Blé tendre d'hiver", "q/ha") == []


@pytest.mark.parametrize("crop", [None, "Quinoa", "Maïs ensilage", "Blé + féverole", "Pois"])
def test_a_crop_without_a_stated_yield_keeps_the_generic_bound(crop):
    # Quinoa: not in the library; silage maize: whole plant, not grain; a mixture: two crops;
    # pea: the library's yield is a derived range, never evidence.
    bound = yield_bound(crop)
    assert (bound.high, bound.evidence) == (200, None)
    assert bound.basis == "the generic bound for any crop"
    assert check_yield(150, crop) == []


def test_a_step_total_checks_its_yield_against_its_crop():
    from webapp.systems.totals import step_totals

    step = {
        "id": "s",
        "name": "Blé tendre d'hiver",
        "stepValues": [{"key": "rendement", "value": 80}],
    }
    [issue] = [i for i in step_totals(step).issues if i.code == "out_of_bounds"]
    assert issue.field == "rendement"
    quintals = dict(step, assumptions="- **Unité rendement**: q/ha")
    assert not [i for i in step_totals(quintals).issues if i.code == "out_of_bounds"]
    sugar_beet = dict(step, assumptions="- **Culture**: Betterave sucrière")
    assert not [i for i in step_totals(sugar_beet).issues if i.code == "out_of_bounds"]
