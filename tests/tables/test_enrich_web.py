"""Enriching a column through the pages and the API with a real worker: computation, the
offline lookup over uploaded documents, review, apply, undo."""

import pytest

from tests.support.app import wait_for
from tests.support.html import by_id, rows, soup
from tests.support.tables import make_table, orders_table
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus
from webapp.library.documents import add_document
from webapp.review.models import Suggestion
from webapp.tables.models import TableRow

pytestmark = pytest.mark.worker


def finished(run_id: int) -> Run:
    def done():
        db.session.expire_all()
        run = db.session.get(Run, run_id)
        db.session.commit()
        return run if run and run.status == RunStatus.succeeded else None

    return wait_for(done, timeout=30)


@pytest.fixture
def orders(app):
    return orders_table()


def test_enrich_by_computation_review_apply_and_undo(client_as, orders, worker):
    editor = client_as("editor")
    page = editor.get(f"/tables/{orders.id}").get_data(as_text=True)
    assert 'id="enrich-form"' in page and "Quick Lookup" in page and "Computation" in page
    started = editor.submit(
        f"/tables/{orders.id}/enrich",
        {"column": "Total", "strategy": "computation", "formula": "{Price} * {Qty}"},
        page=f"/tables/{orders.id}",
    )
    assert started.status_code == 302
    run_url = started.headers["Location"]
    run_id = int(run_url.rstrip("/").split("/")[-1])
    assert run_url == f"/review/runs/{run_id}"
    finished(run_id)
    review = soup(editor.get(run_url))
    reasoning = by_id(review, "reasoning").get_text()
    assert reasoning == "Computation: {Price} * {Qty} — found 2 of 2 rows"
    # Editors see the proposal; picking and editing values is for reviewers.
    assert [row[1:4] for row in rows(by_id(review, "proposal"))] == [
        ["seed", "—", "10 high confidence"],
        ["tray", "—", "6 high confidence"],
    ]
    assert all(box.has_attr("disabled") for box in review.select("#proposal input.pick"))
    assert not review.select("#proposal input.proposed")
    assert not review.find(id="review-form").select("button:not([type=button])")
    row_ids = {r.cells[orders.column_named("Item").key]: r.id for r in db.session.query(TableRow)}
    of_row = {s.target_id: s.id for s in db.session.query(Suggestion).filter_by(run_id=run_id)}
    # Applying is a reviewer's act, in every workspace.
    seed_only = {"suggestion": [str(of_row[row_ids["seed"]])], "back": run_url}
    apply_url = f"/review/runs/{run_id}/apply"
    assert editor.submit(apply_url, seed_only, page=run_url).status_code == 403
    reviewer = client_as("reviewer")
    applied = reviewer.submit(apply_url, seed_only, page=run_url)
    assert applied.status_code == 302 and "undo=" in applied.headers["Location"]
    # The review form's htmx swap asks for the run's section alone: its messages come with
    # it, out of band, into the page's own.
    swapped = reviewer.get(applied.headers["Location"], headers={"HX-Request": "true"})
    section = soup(swapped)
    assert section.find(id="review-live") and not section.find("header")
    assert section.find(id="flashes")["hx-swap-oob"] == "true"
    assert "Applied Total of seed." in section.find(id="flashes").get_text()
    after = soup(reviewer.get(applied.headers["Location"]))
    assert "Applied Total of seed." not in after.get_text()  # shown once, with the swap
    assert by_id(after, "undo-form").button.get_text() == "Undo this apply"
    # The applied row is decided; the other can still be picked, and its value edited.
    seed, tray = (by_id(after, f"suggestion-{of_row[row_ids[name]]}") for name in ("seed", "tray"))
    assert seed.find("input", attrs={"name": "suggestion"}).has_attr("disabled")
    assert seed.find_all("td")[6].get_text(strip=True) == "applied"
    assert not tray.find("input", attrs={"name": "suggestion"}).has_attr("disabled")
    assert tray.find("input", attrs={"name": f"value-{of_row[row_ids['tray']]}"})["value"] == "6"
    total = orders.column_named("Total").key
    db.session.expire_all()
    assert db.session.get(TableRow, row_ids["seed"]).cells[total] == 10
    assert total not in db.session.get(TableRow, row_ids["tray"]).cells  # not chosen, not applied
    group = applied.headers["Location"].split("undo=")[1]
    undone = reviewer.submit(f"/review/undo/{group}", {"back": run_url}, page=run_url)
    assert undone.status_code == 302
    db.session.expire_all()
    assert total not in db.session.get(TableRow, row_ids["seed"]).cells
    viewer = client_as("viewer")
    assert viewer.submit(apply_url, seed_only, page=run_url).status_code == 403


def test_a_bad_request_shows_its_reason_and_starts_nothing(client_as, orders, idle_queue):
    editor = client_as("editor")
    response = editor.post(
        f"/tables/{orders.id}/enrich",
        data={"column": "Total", "strategy": "lookup", "csrf_token": editor.csrf_token("/")},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 422
    assert "Quick Lookup needs a question." in response.get_data(as_text=True)
    assert db.session.query(Run).count() == 0


def test_a_formula_that_does_not_parse_is_refused_before_the_run_with_its_position(
    client_as, orders, idle_queue
):
    editor = client_as("editor")
    form = editor.post(
        f"/tables/{orders.id}/enrich",
        data={
            "column": "Total",
            "strategy": "computation",
            "formula": "{Price} /",
            "csrf_token": editor.csrf_token("/"),
        },
        headers={"HX-Request": "true"},
    )
    assert form.status_code == 422
    assert "The formula is incomplete at character 10, after “{Price} /”" in form.get_data(
        as_text=True
    )
    api = editor.post(
        f"/api/v1/tables/{orders.id}/enrich",
        json={
            "target_column": "Total",
            "strategy": "computation",
            "params": {"formula": "{Price} * * 2"},
        },
        headers={"X-CSRFToken": editor.csrf_token("/")},
    )
    assert api.status_code == 422
    message = api.get_json()["error"]["message"]
    assert (
        message == "The formula does not parse at character 11, after “{Price} *”: invalid syntax."
    )
    assert db.session.query(Run).count() == 0


def test_the_offline_lookup_answers_from_uploaded_documents(app, client_as, worker):
    add_document(
        "acme.txt",
        b"Acme Corp history.\n\nAcme Corp was founded in 2010 in Lyon by two agronomists.",
        "Acme history",
        None,
    )
    table = make_table(
        "Firms",
        [("Company", "text"), ("Founded", "number")],
        [{"Company": "Acme Corp"}, {"Company": "Zzyzx Quux"}],
    )
    editor = client_as("editor")
    headers = {"X-CSRFToken": editor.csrf_token("/")}
    started = editor.post(
        f"/api/v1/tables/{table.id}/enrich",
        json={
            "target_column": "Founded",
            "strategy": "lookup",
            "params": {"question": "When was {Company} founded?"},
        },
        headers=headers,
    )
    assert started.status_code == 202
    run_id = started.get_json()["run_id"]
    finished(run_id)
    document = editor.get(f"/api/v1/runs/{run_id}/proposal").get_json()
    assert document["reasoning"].endswith("— found 1 of 2 rows")
    acme, other = document["research_log"]
    assert (acme["status"], acme["value"], acme["confidence"]) == ("found", 2010, "medium")
    assert acme["steps"][0]["type"] == "search"
    assert acme["sources"][0]["title"] == "Acme history"
    assert other["status"] == "not_found" and other["value"] is None
    assert document["operations"] == [
        {"action": "update", "row_id": acme["row_id"], "changes": {"Founded": 2010}}
    ]
    # The review API lists every row of the run: the row found has its suggestion, the other
    # none; a suggestion id that is not the run's is refused by name beside the applied one.
    reviewer = client_as("reviewer")
    listed = reviewer.get(f"/api/v1/runs/{run_id}/suggestions").get_json()["targets"]
    by_row = {entry["id"]: entry["suggestions"] for entry in listed}
    [found] = by_row[acme["row_id"]]
    assert by_row[other["row_id"]] == []
    not_the_runs = found["id"] + 1000
    applied = reviewer.post(
        f"/api/v1/runs/{run_id}/apply",
        json={"suggestions": [found["id"], not_the_runs]},
        headers={"X-CSRFToken": reviewer.csrf_token("/")},
    )
    assert applied.status_code == 422
    body = applied.get_json()
    assert body["applied"] == [found["id"]] and body["undo_group"]
    assert body["refused"] == [
        {
            "suggestion": not_the_runs,
            "target": {"type": "", "id": 0},
            "field": "",
            "code": "no_suggestion",
            "message": "The run made no such suggestion.",
        }
    ]
    assert body["error"] == {
        "code": "some_refused",
        "message": "1 of the chosen was refused: The run made no such suggestion.",
        "details": {"refused": body["refused"]},
    }


def test_the_api_refuses_a_request_it_cannot_run(client_as, idle_queue):
    table = make_table(
        "Big", [("Name", "text"), ("Score", "number")], [{"Name": f"n{i}"} for i in range(21)]
    )
    editor = client_as("editor")
    headers = {"X-CSRFToken": editor.csrf_token("/")}
    body = {"target_column": "Score", "strategy": "computation", "params": {"formula": "1"}}
    ids = [r.id for r in db.session.query(TableRow).limit(20)]
    ok = editor.post(
        f"/api/v1/tables/{table.id}/enrich", json={**body, "row_ids": ids}, headers=headers
    )
    assert ok.status_code == 202
    for wrong in ({"row_ids": "all"}, {"strategy": ["lookup"]}, {"params": {"formula": 5}}):
        bad = editor.post(
            f"/api/v1/tables/{table.id}/enrich", json={**body, **wrong}, headers=headers
        )
        assert bad.status_code == 422, wrong
    research = {"question": "{Name}?", "thoroughness": ["deep"]}
    bad = editor.post(
        f"/api/v1/tables/{table.id}/enrich",
        json={**body, "strategy": "research", "params": research, "row_ids": ids},
        headers=headers,
    )
    assert bad.get_json()["error"]["message"] == "Thoroughness is exploratory or comprehensive."
    assert editor.get("/api/v1/runs/999999/proposal").status_code == 404
