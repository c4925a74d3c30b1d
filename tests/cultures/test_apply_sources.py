"""What an apply writes besides the fields — the sources and the notes' Sources section — is
only what states the values, and one undo takes it all back."""

from webapp.cultures.catalog import crop_limits, edit_culture, values_of
from webapp.cultures.models import Culture
from webapp.cultures.providers.offline import OfflineProvider
from webapp.cultures.rules import postprocess
from webapp.cultures.runs import store_proposal_of
from webapp.extensions import db
from webapp.review import service
from webapp.review.models import Change, Suggestion


def suggested_for(culture: Culture, fields: list[str]) -> list[Suggestion]:
    current = values_of(culture)
    proposal = OfflineProvider().propose_culture(current, fields).proposal
    postprocess(proposal, current, limits=crop_limits(culture.reference_crop))
    store_proposal_of(None, culture, current, proposal)
    db.session.flush()
    return db.session.query(Suggestion).filter_by(target_id=culture.id).all()


def test_a_derived_figure_is_applied_only_as_a_value_never_as_a_citation(make_user):
    radish = Culture(name="Radish", reference_crop="radish", harvest_method="per_sqm")
    db.session.add(radish)
    db.session.commit()
    suggestions = suggested_for(radish, ["expected_yield", "growth_duration_days"])
    by_field = {s.field: s for s in suggestions}
    assert by_field["expected_yield"].evidence[0]["derived"] is True
    assert by_field["growth_duration_days"].evidence[0]["derived"] is False
    result = service.apply([s.id for s in suggestions], make_user("reviewer"))
    db.session.commit()
    assert sorted(result.applied_fields) == ["expected_yield", "growth_duration_days"]
    # Only the source that states its figure is cited: the Illinois guide, not the NE guide.
    assert [s["url"] for s in radish.structured_sources] == [
        "https://web.extension.illinois.edu/vegguide/grow_radish.cfm"
    ]
    # The notes are the person's: the sources are not copied into them.
    assert not radish.notes


def test_undo_takes_back_values_and_sources_or_nothing_when_they_changed(make_user):
    reviewer = make_user("reviewer")
    lettuce = Culture(name="Lettuce", reference_crop="lettuce", notes="Sow every two weeks.")
    db.session.add(lettuce)
    db.session.commit()
    suggestions = suggested_for(lettuce, ["growth_duration_days"])
    result = service.apply([s.id for s in suggestions], reviewer)
    db.session.commit()
    changed = {c.field for c in db.session.query(Change).filter_by(group_id=result.group)}
    assert changed == {"growth_duration_days", "structured_sources"}
    assert lettuce.notes == "Sow every two weeks."
    # Someone edits the value after the apply: the undo would lose that, so it undoes nothing.
    applied = lettuce.growth_duration_days
    edit_culture(lettuce, {"growth_duration_days": applied + 1}, reviewer)
    db.session.commit()
    refused = service.undo(result.group, reviewer)
    assert refused.changed_since == ["growth_duration_days"] and refused.restored == []
    assert lettuce.structured_sources
    # Put the value back as the apply left it: now everything goes back as it was.
    edit_culture(lettuce, {"growth_duration_days": applied}, reviewer)
    db.session.commit()
    undone = service.undo(result.group, reviewer)
    db.session.commit()
    assert sorted(undone.restored) == ["growth_duration_days", "structured_sources"]
    assert lettuce.structured_sources == [] and lettuce.growth_duration_days is None


def test_an_apply_drops_a_source_stored_before_that_is_no_web_page(make_user):
    old = {"title": "Old", "url": "javascript:alert(1)", "claim_summary": "", "retrieved_at": ""}
    lettuce = Culture(name="Lettuce", reference_crop="lettuce", structured_sources=[old])
    db.session.add(lettuce)
    db.session.commit()
    suggestions = suggested_for(lettuce, ["growth_duration_days"])
    result = service.apply([s.id for s in suggestions], make_user("reviewer"))
    db.session.commit()
    assert result.applied_fields == ["growth_duration_days"]
    assert lettuce.structured_sources and all(
        s["url"].startswith("https://") for s in lettuce.structured_sources
    )
