"""Enrichment runs: concurrency limits, cancellation keeping partial results, the offline
path over uploaded documents, the proposal, apply and undo, and the API."""

import dataclasses
import threading

import pytest
from flask import current_app

from tests.support.app import wait_for
from tests.support.openai_server import responses_body
from tests.support.tables import make_table, run_here
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus
from webapp.jobs.queue import request_cancel
from webapp.review import service
from webapp.review.models import Change, Suggestion
from webapp.tables.models import TableRow
from webapp.tables.runs import proposal, research_log, start_enrichment

COMPANIES = [f"Company {n}" for n in range(9)]


# Where a found value comes from: a model's answer without a source is not used.
CITED = ("https://registry.example.org/companies", "Company registry")


@pytest.fixture
def companies(app):
    return make_table(
        "Firms", [("Company", "text"), ("Founded", "number")], [{"Company": c} for c in COMPANIES]
    )


@pytest.fixture
def openai_app(app, openai_server):
    """The app pointed at the loopback OpenAI server for this test."""
    saved = current_app.config["FURROW"]
    current_app.config["FURROW"] = dataclasses.replace(
        saved, provider="openai", openai_base_url=openai_server.base_url, openai_api_key="sk-t"
    )
    yield openai_server
    current_app.config["FURROW"] = saved


def lookup_params():
    return {"question": "What year was {Company} founded?"}


def suggestion_of_row(run) -> dict[int, int]:
    """The run's suggestion for each row it proposed something for."""
    query = db.session.query(Suggestion.target_id, Suggestion.id).filter_by(run_id=run.id)
    return dict(query.all())


def test_lookup_rows_run_three_at_a_time(make_user, companies, idle_queue, openai_app):
    openai_app.delay = 0.2
    for n in range(9):
        openai_app.reply(responses_body(str(2000 + n), citations=[CITED], searches=1))
    run = start_enrichment(
        companies, "Founded", "lookup", lookup_params(), None, make_user("editor")
    )
    run = run_here(run)
    assert run.status == RunStatus.succeeded
    assert openai_app.most_in_flight == 3  # the lookup limit, reached and never passed
    found = {e["label"]: e["value"] for e in research_log(run)}
    assert sorted(found.values()) == list(range(2000, 2009))
    assert run.web_searches == 9 and run.input_tokens == 9000


def test_rate_limits_a_run_met_are_counted_and_said(
    client_as, make_user, companies, idle_queue, openai_app
):
    too_many = {"error": {"message": "Rate limit reached", "type": "requests"}}
    openai_app.reply(too_many, status=429, headers={"retry-after-ms": "10"})
    for n in range(9):
        openai_app.reply(responses_body(str(2000 + n), citations=[CITED], searches=1))
    editor = make_user("editor")
    run = run_here(start_enrichment(companies, "Founded", "lookup", lookup_params(), None, editor))
    assert run.status == RunStatus.succeeded and run.rate_limited == 1
    assert run.to_dict()["usage"]["rate_limited"] == 1
    page = client_as("editor").get(f"/runs/{run.id}").get_data(as_text=True)
    assert "answered “too many requests” 1 time(s); each was waited out" in page


def test_cancel_stops_between_rows_and_keeps_what_finished(
    app, make_user, companies, idle_queue, openai_app
):
    # Slow enough that the cancel lands while the second three rows are out, however warm the
    # SDK already is (a warm one answers the first rows sooner).
    openai_app.delay = 0.6
    for n in range(9):
        openai_app.reply(responses_body(str(2000 + n), citations=[CITED], searches=1))
    user = make_user("editor")
    run = start_enrichment(companies, "Founded", "lookup", lookup_params(), None, user)
    run_id = run.id

    def work():
        with app.app_context():
            run_here(db.session.get(Run, run_id))

    worker = threading.Thread(target=work)
    worker.start()

    def some_done():
        db.session.expire_all()
        done = len(research_log(db.session.get(Run, run_id)))
        db.session.commit()
        return done >= 3

    wait_for(some_done, timeout=20)
    request_cancel(db.session.get(Run, run_id))
    worker.join(timeout=30)
    db.session.expire_all()
    run = db.session.get(Run, run_id)
    assert run.status == RunStatus.cancelled
    kept = research_log(run)
    assert 3 <= len(kept) < 9
    assert len(proposal(run)["operations"]) == len(kept)  # what finished can still be applied


def test_computation_proposal_apply_and_undo(app, make_user, idle_queue):
    table = make_table(
        "Orders",
        [("Item", "text"), ("Price", "number"), ("Qty", "number"), ("Total", "number")],
        [
            {"Item": "seed", "Price": 2.5, "Qty": 4},
            {"Item": "twine", "Price": 1, "Qty": None},
            {"Item": "tray", "Price": 3, "Qty": 2, "Total": 1},
        ],
    )
    user = make_user("editor")
    run = start_enrichment(
        table, "total", "computation", {"formula": "{Price} * {qty}"}, None, user
    )
    run = run_here(run)
    document = proposal(run)
    assert document["reasoning"] == "Computation: {Price} * {qty} — found 2 of 3 rows"
    statuses = {e["label"]: e["status"] for e in document["research_log"]}
    assert statuses == {"seed": "found", "twine": "skipped", "tray": "found"}
    rows = {r.cells[table.column_named("Item").key]: r for r in db.session.query(TableRow)}
    total = table.column_named("Total")
    assert [op["changes"] for op in document["operations"]] == [{"Total": 10}, {"Total": 6}]

    suggested = suggestion_of_row(run)
    assert rows["twine"].id not in suggested  # skipped: nothing proposed
    result = service.apply([suggested[rows[n].id] for n in ("seed", "tray")], user)
    assert [a.target_id for a in result.applied] == [rows["seed"].id, rows["tray"].id]
    assert result.refused == []
    assert rows["seed"].value(total) == 10 and rows["tray"].value(total) == 6
    changes = db.session.query(Change).filter_by(group_id=result.group).all()
    assert {(c.target_id, c.old_value, c.new_value) for c in changes} == {
        (rows["seed"].id, None, 10),
        (rows["tray"].id, 1, 6),
    }
    again = service.apply([suggested[rows["seed"].id]], user)
    assert again.refused[0].code == "not_open"

    assert service.undoable_group(result.group).ids == {rows["seed"].id, rows["tray"].id}
    assert service.undo(result.group, user).changed_since == []
    db.session.expire_all()
    assert rows["seed"].value(total) is None and rows["tray"].value(total) == 1
    assert len(proposal(run)["operations"]) == 2  # open again after the undo


def test_a_table_run_whose_rows_failed_is_not_green(app, make_user, idle_queue):
    table = make_table(
        "Ratios",
        [("Item", "text"), ("A", "number"), ("B", "number"), ("Ratio", "number")],
        [{"Item": "ok", "A": 1, "B": 4}, {"Item": "zero", "A": 1, "B": 0}],
    )
    user = make_user("editor")
    run = run_here(
        start_enrichment(table, "ratio", "computation", {"formula": "{A} / {B}"}, None, user)
    )
    assert run.status == RunStatus.completed_with_errors
    assert run.message == "1 of 2 item(s) done, 1 with errors."
    statuses = {e["label"]: (e["status"], e["error"]) for e in research_log(run)}
    assert statuses == {"ok": ("found", None), "zero": ("error", "division by zero")}
    everything_failed = run_here(
        start_enrichment(table, "ratio", "computation", {"formula": "{A} / 0"}, None, user)
    )
    assert everything_failed.status == RunStatus.failed
    assert everything_failed.error_code == "no_item_done"


def test_an_invalid_value_is_refused_until_edited(app, make_user, idle_queue):
    table = make_table(
        "Crops", [("Crop", "text"), ("Season", "select", ["spring", "autumn"])],
        [{"Crop": "oat"}],
    )  # fmt: skip
    user = make_user("editor")
    run = start_enrichment(table, "Season", "computation", {"formula": "'summer'"}, None, user)
    run = run_here(run)
    (entry,) = research_log(run)
    assert (entry["valid"], entry["confidence"]) == (False, "low")
    row_id = entry["row_id"]
    suggestion = suggestion_of_row(run)[row_id]
    refused = service.apply([suggestion], user)
    assert refused.refused[0].code == "invalid_suggestion"
    still = service.apply([suggestion], user, edits={suggestion: "winter"})
    assert still.refused[0].code == "invalid_value"
    edited = service.apply([suggestion], user, edits={suggestion: "Autumn"})
    assert [a.target_id for a in edited.applied] == [row_id]
    assert db.session.get(TableRow, row_id).cells[table.column_named("Season").key] == "autumn"


def test_starting_checks_the_request(app, make_user, companies, idle_queue, monkeypatch):
    user = make_user("editor")
    with pytest.raises(ValueError, match="no column called 'Revenue'"):
        start_enrichment(companies, "Revenue", "lookup", lookup_params(), None, user)
    with pytest.raises(ValueError, match="Quick Lookup needs a question"):
        start_enrichment(companies, "Founded", "lookup", {}, None, user)
    with pytest.raises(ValueError, match="names 'CEO', which is not a column"):
        start_enrichment(companies, "Founded", "lookup", {"question": "{CEO}?"}, None, user)
    capped = dataclasses.replace(app.config["FURROW"], max_rows_per_run=2)
    monkeypatch.setitem(app.config, "FURROW", capped)
    with pytest.raises(ValueError, match="At most 2 rows per run"):
        start_enrichment(companies, "Founded", "lookup", lookup_params(), None, user)
    assert db.session.query(Run).count() == 0
