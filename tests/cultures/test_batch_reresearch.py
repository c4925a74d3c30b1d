"""Re-researching chosen fields of many cultures, from the list's form and the API."""

import pytest

from tests.cultures.test_enrichment_flow import finished_run
from tests.support.cultures import add_crowded_tomato
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.review.models import Suggestion

pytestmark = pytest.mark.worker


def cultures():
    known = [Culture(name=n, growth_duration_days=1) for n in ("Carrot", "Lettuce")]
    db.session.add_all(known)
    db.session.commit()
    return known


def suggested_fields(run_id):
    return {s.field for s in db.session.query(Suggestion).filter_by(run_id=run_id)}


def test_the_batch_form_offers_and_starts_a_re_research_of_chosen_fields(client_as, worker):
    ids = [str(c.id) for c in cultures()]
    editor = client_as("editor")
    confirm = editor.submit("/cultures/enrich-batch", {"culture": ids}, page="/cultures")
    page = confirm.get_data(as_text=True)
    assert '<option value="reresearch">' in page
    assert '<option value="growth_duration_days">Growth duration</option>' in page
    started = editor.submit(
        "/cultures/enrich-batch",
        {
            "culture": ids,
            "confirmed": "1",
            "mode": "reresearch",
            "fields": ["growth_duration_days"],
        },
        page="/cultures",
    )
    assert started.status_code == 302 and "/review" in started.headers["Location"]
    run = finished_run()
    assert run.params["mode"] == "reresearch"
    assert run.params["fields"] == ["growth_duration_days"]
    assert suggested_fields(run.id) == {"growth_duration_days"}


def test_the_api_takes_the_fields_to_re_research(client_as, worker):
    ids = [c.id for c in cultures()]
    editor = client_as("editor")
    headers = {"X-CSRFToken": editor.csrf_token("/")}
    started = editor.post(
        "/api/v1/cultures/enrich-batch",
        json={"ids": ids, "mode": "reresearch", "fields": ["growth_duration_days"]},
        headers=headers,
    )
    assert started.status_code == 202, started.get_json()
    run = finished_run()
    assert run.id == started.get_json()["run_id"]
    assert run.params["fields"] == ["growth_duration_days"]
    assert suggested_fields(run.id) == {"growth_duration_days"}
    # Re-research names its fields, and only fields research can fill.
    for body, loc in (
        ({"ids": ids, "mode": "reresearch"}, "fields"),
        ({"ids": ids, "mode": "reresearch", "fields": ["name"]}, "fields"),
    ):
        refused = editor.post("/api/v1/cultures/enrich-batch", json=body, headers=headers)
        assert refused.status_code == 422
        assert refused.get_json()["error"]["details"]["errors"][0]["loc"] == loc
    assert db.session.query(Run).count() == 1


def test_the_enrichment_panel_alone_offers_the_research_choice(client_as):
    # htmx renders the panel's block alone: it imports what it uses itself.
    editor = client_as("editor")
    culture = add_crowded_tomato()
    db.session.commit()
    panel = editor.get(f"/cultures/{culture.id}/enrichment", headers={"HX-Request": "true"})
    assert panel.status_code == 200
    body = panel.get_data(as_text=True)
    assert "<html" not in body and ">Enrich</button>" in body and 'name="fields"' in body
