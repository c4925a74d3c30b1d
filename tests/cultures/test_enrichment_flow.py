"""Enrich a culture through a real worker, review the suggestions, apply, refuse, undo."""

import re

import pytest

from tests.support.app import wait_for
from tests.support.cultures import add_crowded_tomato
from tests.support.html import by_id, rows, soup
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus
from webapp.review.models import Suggestion

pytestmark = pytest.mark.worker


@pytest.fixture
def crowded_tomato(app):
    return add_crowded_tomato()


def finished_run():
    def done():
        db.session.expire_all()
        run = db.session.query(Run).order_by(Run.id.desc()).first()
        db.session.commit()
        ended = (RunStatus.succeeded, RunStatus.nothing_found)
        return run if run and run.status in ended else None

    return wait_for(done, timeout=30)


def suggestion(culture, field):
    return db.session.query(Suggestion).filter_by(target_id=culture.id, field=field).one()


def test_enrich_review_apply_refuse_and_undo(client_as, crowded_tomato, worker):
    culture_id = crowded_tomato.id
    editor, reviewer = client_as("editor"), client_as("reviewer")
    assert (
        editor.submit(
            f"/cultures/{culture_id}/enrich", {"mode": "complete"}, page=f"/cultures/{culture_id}"
        ).status_code
        == 302
    )
    run = finished_run()
    assert run.provider == "offline" and run.target_id == culture_id

    page = soup(reviewer.get(f"/cultures/{culture_id}"))
    assert "Expected yield" in by_id(page, "suggestion-errors").get_text()
    row = by_id(page, "suggestion-expected_yield")
    assert row["data-valid"] == "false"
    assert row.find("input", attrs={"name": "suggestion"}).has_attr("disabled")
    [error] = row.select(".issue-error")
    assert error.select_one(".severity").get_text() == "error"
    # The sentence is shown; the code only in the tooltip.
    assert error["title"] == "yield_crosscheck_impossible"
    assert "yield_crosscheck_impossible" not in page.get_text()
    # The midpoint says it is one.
    assert "the mean" in page.select_one('[data-code="range_collapsed_to_mean"]').get_text()

    bad, good = (
        suggestion(crowded_tomato, "expected_yield"),
        suggestion(crowded_tomato, "growth_duration_days"),
    )
    # Offline suggestions carry a level too: the per-plant yield is one figure its source
    # states (high, however this culture's spacing makes it impossible); the days a range.
    assert (bad.confidence, good.confidence) == ("high", "medium")
    # The page's form posts to the review core, saying where to come back to.
    form = by_id(page, "suggestions").find_parent("form")
    assert form["action"] == f"/review/runs/{run.id}/apply"
    back = form.find("input", attrs={"name": "back"})["value"]
    forged = reviewer.submit(
        form["action"],
        {"suggestion": [str(bad.id), str(good.id)], "back": back},
        page=f"/cultures/{culture_id}",
    )
    # Refused fields come back as words on the culture's page (POST/redirect/GET), in an
    # address that keeps the run and the apply to undo; the valid field is applied.
    assert forged.status_code == 302
    back = forged.headers["Location"]
    assert back.startswith(f"/cultures/{culture_id}?run={run.id}&undo=")
    assert back.endswith("#enrichment")
    text = reviewer.get(back).get_data(as_text=True)
    assert (
        "Not applied — Expected yield of Tomate ‘Harzfeuer’: Invalid, so it cannot be applied"
        in text
    )
    culture = db.session.get(Culture, culture_id)
    # Days to first harvest from transplanting, 50–80 (not FAO-56's whole season, 135–180).
    assert culture.growth_duration_days == 65
    assert culture.expected_yield is None
    assert any(s["url"].startswith("https://") for s in culture.structured_sources)
    assert "Sources" not in (culture.notes or "")

    group = re.search(r"/undo/([0-9a-f]+)", text).group(1)
    undone = reviewer.submit(f"/review/undo/{group}", page=f"/cultures/{culture_id}")
    assert undone.status_code == 302
    # Undo restores everything the apply changed: the field and the sources (not the notes).
    db.session.expire_all()
    culture = db.session.get(Culture, culture_id)
    assert culture.growth_duration_days is None
    assert culture.notes == "" and culture.structured_sources == []
    fields = [row[2] for row in rows(by_id(reviewer.get(f"/cultures/{culture_id}"), "history"))]
    assert "Notes (Markdown)" not in fields
    assert fields.count("Sources") == 2


def test_editors_enrich_but_only_reviewers_apply(client_as, crowded_tomato, worker):
    culture_id = crowded_tomato.id
    viewer, editor = client_as("viewer"), client_as("editor")
    assert viewer.submit(f"/cultures/{culture_id}/enrich", page="/cultures").status_code == 403
    editor.submit(f"/cultures/{culture_id}/enrich", {"mode": "complete"}, page="/cultures")
    finished_run()
    good = suggestion(crowded_tomato, "growth_duration_days")
    refused = editor.submit(
        f"/review/runs/{good.run_id}/apply", {"suggestion": str(good.id)}, page="/cultures"
    )
    assert refused.status_code == 403


def test_the_api_enriches_and_applies_with_reasons_for_refusals(client_as, crowded_tomato, worker):
    culture_id = crowded_tomato.id
    reviewer = client_as("reviewer")
    headers = {"X-CSRFToken": reviewer.csrf_token("/")}
    started = reviewer.post(
        f"/api/v1/cultures/{culture_id}/enrich", json={"mode": "complete"}, headers=headers
    )
    assert started.status_code == 202
    run_id = started.get_json()["run_id"]
    finished_run()
    good = suggestion(crowded_tomato, "growth_duration_days")
    bad = suggestion(crowded_tomato, "expected_yield")
    not_the_runs = 2_000_000_000
    applied = reviewer.post(
        f"/api/v1/runs/{run_id}/apply",
        headers=headers,
        json={"suggestions": [good.id, bad.id, not_the_runs]},
    )
    body = applied.get_json()
    assert applied.status_code == 422
    assert body["applied"] == [good.id]
    assert {(r["suggestion"], r["field"], r["code"]) for r in body["refused"]} == {
        (bad.id, "expected_yield", "invalid_suggestion"),
        (not_the_runs, "", "no_suggestion"),
    }
    assert body["error"]["code"] == "some_refused"
    assert body["error"]["message"].startswith("2 of the chosen were refused: ")
    payload = reviewer.get(f"/api/v1/runs/{run_id}/suggestions").get_json()
    [entry] = payload["targets"]
    assert (entry["type"], entry["id"]) == ("culture", culture_id)
    suggested = {s["field"]: s for s in entry["suggestions"]}
    assert suggested["growth_duration_days"]["status"] == "applied"
    assert suggested["growth_duration_days"]["value"] == 65
    assert [e["code"] for e in entry["validation"]["errors"]] == ["yield_crosscheck_impossible"]
    assert all(e["field"] for e in entry["validation"]["errors"])
    assert suggested["expected_yield"]["evidence"][0]["source_url"].startswith("https://")
    assert entry["structured_sources"] and entry["structured_sources"][0]["url"]
    bad_mode = reviewer.post(
        f"/api/v1/cultures/{culture_id}/enrich", json={"mode": "guess"}, headers=headers
    )
    assert bad_mode.status_code == 422


def test_batch_enrichment_confirms_runs_once_and_lists_a_review_queue(client_as, worker):
    known = [Culture(name=n) for n in ("Carrot", "Lettuce", "Dragonfruit")]
    db.session.add_all(known)
    db.session.commit()
    ids = [str(c.id) for c in known]
    editor = client_as("editor")
    confirm = editor.submit("/cultures/enrich-batch", {"culture": ids}, page="/cultures")
    assert confirm.status_code == 200
    assert "Enrich 3 culture(s)?" in confirm.get_data(as_text=True)
    assert db.session.query(Run).count() == 0  # nothing starts before the confirm

    started = editor.submit(
        "/cultures/enrich-batch",
        {"culture": ids, "confirmed": "1", "mode": "complete"},
        page="/cultures",
    )
    assert started.status_code == 302
    run = finished_run()
    assert run.total == 3 and run.item_errors == {}
    queue = editor.get(started.headers["Location"]).get_data(as_text=True)
    assert all(name in queue for name in ("Carrot", "Lettuce", "Dragonfruit"))
    # A culture the library does not know says why it got nothing.
    assert "The reference library has no data for “Dragonfruit”" in queue
    pending = editor.get(started.headers["Location"] + "?pending=1").get_data(as_text=True)
    assert "Carrot" in pending and "Dragonfruit" not in pending  # nothing known, nothing to do
    api = editor.post(
        "/api/v1/cultures/enrich-batch",
        json={"ids": [known[0].id]},
        headers={"X-CSRFToken": editor.csrf_token("/")},
    )
    assert api.status_code == 202 and api.get_json()["cultures"] == 1


def test_every_culture_of_a_run_is_listed_with_why_nothing_was_suggested(client_as, worker):
    """A re-research whose only suggestion was dropped answered "cultures": [] — the error that
    explains it was only in the run's results."""
    tomato = Culture(
        name="Tomate", reference_crop="tomato", harvest_method="per_sqm", expected_yield=5
    )
    dragonfruit = Culture(name="Dragonfruit")
    db.session.add_all([tomato, dragonfruit])
    db.session.commit()
    reviewer = client_as("reviewer")
    headers = {"X-CSRFToken": reviewer.csrf_token("/")}
    started = reviewer.post(
        f"/api/v1/cultures/{tomato.id}/enrich",
        json={"mode": "reresearch", "fields": ["expected_yield"]},
        headers=headers,
    )
    run_id = started.get_json()["run_id"]
    ended = finished_run()
    assert db.session.query(Suggestion).filter_by(run_id=run_id).count() == 0
    # A run that proposed nothing is not green, and says why.
    assert ended.status == RunStatus.nothing_found
    assert ended.message.startswith("Nothing found: what it found could not be used (The ")
    [entry] = reviewer.get(f"/api/v1/runs/{run_id}/suggestions").get_json()["targets"]
    assert (entry["id"], entry["name"], entry["state"]) == (tomato.id, "Tomate", "done")
    assert entry["suggestions"] == []
    [error] = entry["validation"]["errors"]
    assert (error["code"], error["field"]) == (
        "yield_evidence_missing_override_blocked",
        "expected_yield",
    )
    # The library's tomato yield per m² is derived: no proof, so it cannot replace 5 kg/m².
    assert "derived figure" in error["message"]
    findings = by_id(reviewer.get(f"/cultures/{tomato.id}"), "run-findings")
    blocked = findings.select_one('[data-code="yield_evidence_missing_override_blocked"]')
    assert "derived figure" in blocked.get_text()

    batch = reviewer.post(
        "/api/v1/cultures/enrich-batch",
        json={"ids": [dragonfruit.id, tomato.id]},
        headers=headers,
    )
    batch_id = batch.get_json()["run_id"]
    finished_run()
    cultures = reviewer.get(f"/api/v1/runs/{batch_id}/suggestions").get_json()["targets"]
    by_name = {c["name"]: c for c in cultures}
    assert set(by_name) == {"Dragonfruit", "Tomate"}
    assert by_name["Dragonfruit"]["validation"]["info"][0]["code"] == "reference_crop_unknown"
    queue = reviewer.get(f"/cultures/runs/{batch_id}/review").get_data(as_text=True)
    assert "The reference library has no data for “Dragonfruit”" in queue


def test_an_enrichment_that_found_nothing_ends_grey_saying_why(client_as, worker):
    """A run that proposed nothing is not green: the library has no dragonfruit."""
    dragonfruit, carrot = Culture(name="Dragonfruit"), Culture(name="Carrot")
    db.session.add_all([dragonfruit, carrot])
    db.session.commit()
    editor = client_as("editor")
    started = editor.submit(
        f"/cultures/{dragonfruit.id}/enrich", {"mode": "complete"}, page="/cultures"
    )
    assert started.status_code == 302
    run = finished_run()
    assert run.status == RunStatus.nothing_found and run.item_errors == {}
    assert run.message == "Nothing found: the reference library has no “Dragonfruit”."
    page = soup(editor.get(f"/runs/{run.id}"))
    assert by_id(page, "run-status")["data-status"] == "nothing_found"
    badge = page.select_one("#run-status .badge.status-nothing_found")
    assert badge.get_text() == "nothing found"
    assert "Nothing found: the reference library has no “Dragonfruit”." in page.get_text()
    assert "status-succeeded" not in str(page)
    listed = editor.get("/runs?status=nothing_found").get_data(as_text=True)
    assert f"/runs/{run.id}" in listed and "status-nothing_found" in listed
    # Per culture in the queue: counted out by its own filter.
    queue = editor.get(f"/cultures/runs/{run.id}/review?level=nothing").get_data(as_text=True)
    assert "Dragonfruit" in queue

    # A batch where one culture found something is green; the queue still filters the other.
    batch = editor.post(
        "/api/v1/cultures/enrich-batch",
        json={"ids": [dragonfruit.id, carrot.id]},
        headers={"X-CSRFToken": editor.csrf_token("/")},
    )
    ended = finished_run()
    assert ended.id == batch.get_json()["run_id"] and ended.status == RunStatus.succeeded
    nothing = soup(editor.get(f"/cultures/runs/{ended.id}/review?level=nothing"))
    names = {a.get_text() for a in nothing.select("td[data-label=Culture] a")}
    assert names == {"Dragonfruit"}
