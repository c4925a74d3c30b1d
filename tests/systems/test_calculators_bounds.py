import pytest

from webapp.review.vocabulary import Severity
from webapp.systems.bounds import bounds_for, check


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
