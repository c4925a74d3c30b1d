"""Cultures as a review target: apply, reject and undo through the review core against a real
culture and the audit trail."""

from decimal import Decimal

import pytest

from webapp.cultures.catalog import update_culture, values_of
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.review import rejections, service
from webapp.review.models import Change, Suggestion, SuggestionStatus

ERROR = {
    "code": "yield_per_sqm_impossible",
    "severity": "error",
    "field": "expected_yield",
    "message": "150 kg/m² is outside what any crop gives.",
}


@pytest.fixture
def culture(app):
    culture = Culture(name="Carrot", row_spacing_cm=30.0)
    db.session.add(culture)
    db.session.commit()
    return culture


def suggest(culture, field, value, issues=(), current="same"):
    suggestion = Suggestion(
        target_type="culture",
        target_id=culture.id,
        field=field,
        suggested_value=value,
        current_value=values_of(culture)[field] if current == "same" else current,
        issues=list(issues),
    )
    db.session.add(suggestion)
    db.session.flush()
    return suggestion


def apply(culture, suggestions, user=None, reconfirmed=()):
    reconfirm = [s.id for s in suggestions if s.field in reconfirmed]
    return service.apply([s.id for s in suggestions], user, reconfirm)


def test_valid_suggestions_apply_and_invalid_ones_are_refused_in_the_same_request(
    culture, make_user
):
    user = make_user("reviewer")
    spacing = suggest(culture, "distance_within_row_cm", 5.0)
    bad_yield = suggest(culture, "expected_yield", 150.0, issues=[ERROR])
    result = apply(culture, [spacing, bad_yield], user)
    assert result.applied_fields == ["distance_within_row_cm"]
    assert [r.code for r in result.refused] == ["invalid_suggestion"]
    assert culture.distance_within_row_cm == 5.0 and culture.expected_yield is None
    assert spacing.status == SuggestionStatus.applied and spacing.decided_by_id == user.id
    assert bad_yield.status == SuggestionStatus.blocked
    change = db.session.query(Change).one()
    assert (change.field, change.old_value, change.new_value, change.source) == (
        "distance_within_row_cm",
        None,
        5.0,
        "apply",
    )


def test_a_stale_suggestion_needs_a_reconfirm(culture):
    stale = suggest(culture, "row_spacing_cm", 25.0, current=20.0)  # the culture holds 30 now
    result = apply(culture, [stale])
    assert [r.code for r in result.refused] == ["stale_suggestion"]
    assert stale.status == SuggestionStatus.stale and culture.row_spacing_cm == 30.0
    again = apply(culture, [stale], reconfirmed=["row_spacing_cm"])
    assert again.applied_fields == ["row_spacing_cm"] and culture.row_spacing_cm == 25.0


def test_the_record_refusing_a_combination_refuses_only_the_fields_it_names(culture):
    rate = suggest(culture, "seed_rate_value", 2.0)  # no unit suggested or stored
    depth = suggest(culture, "sowing_depth_cm", 1.5)
    result = apply(culture, [rate, depth])
    assert result.applied_fields == ["sowing_depth_cm"]
    assert result.refused[0].to_dict() == {
        "suggestion": rate.id,
        "target": {"type": "culture", "id": culture.id},
        "field": "seed_rate_value",
        "code": "invalid_value",
        "message": "A seed rate needs its unit.",
    }


def test_an_applied_or_rejected_suggestion_is_not_applied_again(culture):
    once = suggest(culture, "sowing_depth_cm", 1.0)
    apply(culture, [once])
    assert [r.code for r in apply(culture, [once]).refused] == ["not_open"]
    other = suggest(culture, "row_spacing_cm", 40.0)
    assert rejections.reject([other.id], None).ids == [other.id]
    assert other.status == SuggestionStatus.rejected


def test_undo_restores_an_apply_while_nothing_changed_since(culture):
    yield_ = suggest(culture, "expected_yield", 4.25)
    method = suggest(culture, "harvest_method", "per_sqm")
    result = apply(culture, [yield_, method])
    assert culture.expected_yield == Decimal("4.25")
    undone = service.undo(result.group, None)
    assert sorted(undone.restored) == ["expected_yield", "harvest_method"]
    assert culture.expected_yield is None and culture.harvest_method is None
    assert yield_.status == SuggestionStatus.pending
    assert {c.source for c in db.session.query(Change)} == {"apply", "undo"}


def test_undo_does_nothing_and_says_which_fields_changed_since(culture):
    result = apply(culture, [suggest(culture, "sowing_depth_cm", 2.0)])
    update_culture(culture, {"sowing_depth_cm": 3.0})
    undone = service.undo(result.group, None)
    assert undone.changed_since == ["sowing_depth_cm"] and undone.restored == []
    assert culture.sowing_depth_cm == 3.0


def test_values_that_need_each_other_apply_together_even_beside_a_refused_one(culture):
    rate = suggest(culture, "seed_rate_value", 2.0)
    unit = suggest(culture, "seed_rate_unit", "g_per_m2")
    bad = suggest(culture, "row_spacing_cm", -4.0)
    result = apply(culture, [rate, unit, bad])
    assert sorted(result.applied_fields) == ["seed_rate_unit", "seed_rate_value"]
    assert [(r.field, r.message) for r in result.refused] == [
        ("row_spacing_cm", "Must not be negative.")
    ]


def test_a_yield_never_lands_without_its_harvest_method(culture, make_user):
    user = make_user("reviewer")
    # The yield's own check passed when it was proposed with its harvest method beside it.
    alone = suggest(culture, "expected_yield", 7.0)
    result = apply(culture, [alone], user)
    assert [r.field for r in result.refused] == ["expected_yield"]
    assert "A yield needs its context" in result.refused[0].message
    assert culture.expected_yield is None
    # Applied with its harvest method, it lands.
    again = suggest(culture, "expected_yield", 7.0)
    method = suggest(culture, "harvest_method", "per_sqm")
    both = apply(culture, [again, method], user)
    assert sorted(both.applied_fields) == ["expected_yield", "harvest_method"]
    assert culture.expected_yield == 7.0 and culture.harvest_method == "per_sqm"


def test_a_yield_judged_per_m2_never_lands_on_a_per_plant_culture(culture, make_user):
    update_culture(culture, {"harvest_method": "per_plant"})
    db.session.commit()
    result = apply(culture, [suggest(culture, "expected_yield", 30.0)], make_user("reviewer"))
    # 30 kg a plant is above what any crop gives: the record as it would be is refused.
    assert [r.field for r in result.refused] == ["expected_yield"]
    assert "kg/plant" in result.refused[0].message
    assert culture.expected_yield is None
