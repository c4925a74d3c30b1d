"""Calculating a system's missing values: a run over the empty cells, each a suggestion on the
system's values reviewed through the core (applied reviewed, undone to an empty cell)."""

import copy

import pytest
from sqlalchemy import select

from tests.support.html import by_id, counts_of, soup
from tests.support.tables import run_here
from tests.systems.test_system_api import api_client, create, itinera
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.review.models import Suggestion
from webapp.systems.calculators import CALCULATORS
from webapp.systems.document import Places, flat_values, value_path
from webapp.systems.models import System
from webapp.systems.runs import SystemCalculation, is_filled, missing_cells
from webapp.systems.summary import totals_answer
from webapp.systems.totals import system_totals

# Runs are worked here (run_here); their jobs wait on a queue no worker takes.
pytestmark = pytest.mark.usefixtures("idle_queue")

DOCUMENT = itinera()
STEP = DOCUMENT["steps"][0]
LABOUR = STEP["interventions"][0]


def path(key, step=STEP, work=LABOUR):
    return value_path(step["id"], work["id"], key)


def with_values(**values):
    """The test rotation with values set on its first intervention ({key: (value, reviewed)})
    and a stated fuel of 500 L/ha on it: out of bounds."""
    document = copy.deepcopy(DOCUMENT)
    work = document["steps"][0]["interventions"][0]
    work["values"] = [{"key": k, "value": v, "reviewed": r} for k, (v, r) in values.items()]
    work["assumptions"] = "- **Carburant**: 500 L/ha"
    return document


def started(client, system_id):
    answer = client.post(f"/api/v1/systems/{system_id}/calculate-missing", headers=client.headers)
    assert answer.status_code == 202, answer.get_json()
    return run_here(db.session.get(Run, answer.get_json()["run_id"]), SystemCalculation())


def suggestions(run):
    query = select(Suggestion).where(Suggestion.run_id == run.id)
    return {s.field: s for s in db.session.scalars(query)}


def test_only_missing_cells_are_calculated(client_as):
    editor = api_client(client_as, "editor")
    document = with_values(ift=(1.5, True), tempsTravail=(0.8, False))
    system_id = create(editor, document=document).get_json()["id"]
    cells = missing_cells(document)
    assert len(cells) == 31 * len(CALCULATORS) - 2
    assert path("ift") not in cells and path("tempsTravail") not in cells
    run = started(editor, system_id)
    assert run.status == "succeeded" and run.total == len(cells)
    found = suggestions(run)
    assert path("ift") not in found and path("tempsTravail") not in found
    assert set(found) <= set(cells)
    values = flat_values(db.session.get(System, system_id).document)
    assert values[path("ift")] == 1.5 and values[path("tempsTravail")] == 0.8


def test_a_suggestion_carries_its_value_unit_evidence_and_trace(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = started(editor, system_id)
    second = DOCUMENT["steps"][0]["interventions"][1]
    fuel = suggestions(run)[path("gnr", work=second)]
    assert fuel.current_value is None and fuel.suggested_value > 0
    assert fuel.unit == "L/ha" and fuel.confidence in ("low", "medium", "high")
    assert fuel.evidence and fuel.evidence[0]["title"]
    kept = run.results[path("gnr", work=second)]
    assert kept["outcome"] == "suggested" and kept["calculation_steps"]


def test_out_of_bounds_is_an_error_and_never_applied(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_values()).get_json()["id"]
    run = started(editor, system_id)
    fuel = suggestions(run)[path("gnr")]
    assert fuel.suggested_value == 500 and fuel.status == "blocked"
    assert [i["code"] for i in fuel.issues if i["severity"] == "error"] == ["out_of_bounds"]
    assert run.results[path("gnr")]["outcome"] == "out of bounds"
    reviewer = api_client(client_as, "reviewer")
    answer = reviewer.post(
        f"/api/v1/runs/{run.id}/apply", json={"suggestions": [fuel.id]}, headers=reviewer.headers
    )
    assert answer.status_code == 422
    assert answer.get_json()["refused"][0]["code"] == "invalid_suggestion"
    assert flat_values(db.session.get(System, system_id).document).get(path("gnr")) is None


def test_a_cell_without_a_value_says_what_it_needs(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = started(editor, system_id)
    second = DOCUMENT["steps"][0]["interventions"][1]
    machinery = path("mecanisation", work=second)
    assert machinery not in suggestions(run)
    assert run.results[machinery]["outcome"] == "not calculated"
    assert run.results[machinery]["error"].startswith("needs: ")
    listed = editor.get(f"/api/v1/runs/{run.id}/suggestions").get_json()
    [target] = listed["targets"]
    cell = next(c for c in target["cells"] if c["path"] == machinery)
    assert cell["name"] == f"{STEP['name']} › {second['name']} › Machinery"
    assert cell["error"].startswith("needs: ")
    page = editor.get(f"/review/runs/{run.id}?level=nothing").get_data(as_text=True)
    assert f"{STEP['name']} › {second['name']} › Machinery" in page and "needs: " in page
    assert 'class="data review proposal"' in page and "steps[" not in page
    run_page = editor.get(f"/runs/{run.id}").get_data(as_text=True)
    assert f"{second['name']} › Machinery" in run_page and "needs: " in run_page
    assert f"/review/runs/{run.id}" in run_page and "steps[" not in run_page


def test_apply_writes_a_prediction_and_undo_restores_the_empty_cell(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = started(editor, system_id)
    ift = suggestions(run)[path("ift")]
    reviewer = api_client(client_as, "reviewer")
    assert (
        editor.post(
            f"/api/v1/runs/{run.id}/apply", json={"suggestions": [ift.id]}, headers=editor.headers
        ).status_code
        == 403
    )
    answer = reviewer.post(
        f"/api/v1/runs/{run.id}/apply", json={"suggestions": [ift.id]}, headers=reviewer.headers
    )
    assert answer.status_code == 200, answer.get_json()
    values = flat_values(db.session.get(System, system_id).document)
    assert values[path("ift")] == ift.suggested_value
    assert values[path("ift") + ".reviewed"] is False
    assert values[path("ift") + ".confidence"] == ift.confidence
    undone = reviewer.post(
        f"/api/v1/undo/{answer.get_json()['undo_group']}", headers=reviewer.headers
    )
    assert undone.status_code == 200
    db.session.expire_all()
    values = flat_values(db.session.get(System, system_id).document)
    assert not [f for f in values if f.startswith(path("ift"))]


def test_the_review_page_applies_and_rejects_through_the_core(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert "Calculate all missing" in page
    confirm = editor.get(f"/systems/{system_id}/calculate").get_data(as_text=True)
    assert "<strong>310</strong> empty values" in confirm
    answer = editor.submit(
        f"/systems/{system_id}/calculate", {}, page=f"/systems/{system_id}/calculate"
    )
    assert answer.status_code == 302
    run = run_here(db.session.scalars(select(Run)).one(), SystemCalculation())
    assert answer.headers["Location"].endswith(f"/review/runs/{run.id}")
    reviewer = client_as("reviewer")
    url = f"/review/runs/{run.id}"
    review_page = reviewer.get(url).get_data(as_text=True)
    assert "with errors" in review_page and "Apply all" in review_page
    polled = reviewer.get(url, headers={"HX-Request": "true"})
    assert polled.status_code == 200 and 'id="level-counts"' in polled.get_data(as_text=True)
    ift = suggestions(run)[path("ift")]
    applied = reviewer.submit(f"{url}/apply", {"suggestion": str(ift.id)}, page=url)
    assert applied.status_code == 302 and "undo=" in applied.headers["Location"]
    rejected = reviewer.submit(f"{url}/reject", {"suggestion": str(ift.id)}, page=url)
    assert rejected.status_code == 302
    db.session.expire_all()
    assert db.session.get(Suggestion, ift.id).status == "applied"
    apply_all = f"/review/runs/{run.id}/apply-all"
    confirm = reviewer.get(apply_all).get_data(as_text=True)
    ready = len([s for s in suggestions(run).values() if s.status == "pending" and s.is_valid])
    assert f"<strong>{ready:,}</strong> value(s), in one apply you can undo" in confirm
    assert db.session.get(Suggestion, ift.id).status == "applied"  # nothing applied yet
    everything = reviewer.submit(apply_all, {"confirmed": "1"}, page=apply_all)
    assert everything.status_code == 302 and "undo=" in everything.headers["Location"]
    db.session.expire_all()
    statuses = {s.status for s in suggestions(run).values()}
    assert statuses <= {"applied", "blocked"}
    values = flat_values(db.session.get(System, system_id).document)
    # Applied all at once, each value is a prediction that keeps how it was made.
    applied = [(f, s) for f, s in suggestions(run).items() if s.status == "applied"]
    assert all(values[f + ".reviewed"] is False for f, _s in applied)
    assert all(values.get(f + ".confidence") == s.confidence for f, s in applied)
    assert all(values[f + ".conversation"][-1]["role"] == "assistant" for f, _s in applied)
    assert editor.post(f"{url}/apply", data={}).status_code in (400, 403)


def test_calculate_one_cell_and_the_api_shapes(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_values(ift=(2, True))).get_json()["id"]
    body = {"step_id": STEP["id"], "intervention_id": LABOUR["id"], "key": "tempsTravail"}
    url = f"/api/v1/systems/{system_id}/calculate"
    answer = editor.post(url, json=body, headers=editor.headers)
    assert answer.status_code == 202
    run = run_here(db.session.get(Run, answer.get_json()["run_id"]), SystemCalculation())
    assert run.items == [path("tempsTravail")] and path("tempsTravail") in suggestions(run)
    filled = editor.post(url, json=body | {"key": "ift"}, headers=editor.headers)
    assert filled.status_code == 422
    assert filled.get_json()["error"]["code"] == "nothing_to_calculate"
    assert "has a value already" in filled.get_json()["error"]["message"]
    for wrong in ({"key": "frequence"}, {"step_id": "nowhere"}, {"key": ""}):
        error = editor.post(url, json=body | wrong, headers=editor.headers)
        assert error.status_code == 422 and set(error.get_json()["error"]) >= {"code", "message"}
    missing = editor.post("/api/v1/systems/999999/calculate-missing", headers=editor.headers)
    assert missing.status_code == 404 and missing.get_json()["error"]["code"] == "not_found"
    viewer = api_client(client_as, "viewer")
    refused = viewer.post(f"/api/v1/systems/{system_id}/calculate-missing", headers=viewer.headers)
    assert refused.status_code == 403
    assert viewer.post(url, json=body, headers=viewer.headers).status_code == 403


def test_one_calculation_at_a_time_per_system(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    url = f"/api/v1/systems/{system_id}/calculate-missing"
    first = editor.post(url, headers=editor.headers).get_json()["run_id"]
    again = editor.post(url, headers=editor.headers)
    assert again.status_code == 409
    assert again.get_json()["error"]["code"] == "run_in_progress"
    page = f"/systems/{system_id}/calculate"
    answer = editor.submit(page, {}, page=page)
    assert answer.headers["Location"].endswith(f"/review/runs/{first}")
    run_here(db.session.get(Run, first), SystemCalculation())
    assert editor.post(url, headers=editor.headers).status_code == 202


def test_a_full_system_has_nothing_to_calculate(client_as):
    editor = api_client(client_as, "editor")
    document = copy.deepcopy(DOCUMENT)
    for step in document["steps"]:
        for work in step["interventions"]:
            work["values"] = [{"key": k, "value": 1} for k in CALCULATORS]
    system_id = create(editor, document=document).get_json()["id"]
    answer = editor.post(f"/api/v1/systems/{system_id}/calculate-missing", headers=editor.headers)
    assert answer.status_code == 422
    assert answer.get_json()["error"]["code"] == "nothing_to_calculate"


def test_totals_api(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_values(ift=(2, True))).get_json()["id"]
    totals = editor.get(f"/api/v1/systems/{system_id}/totals")
    assert totals.status_code == 200
    body = totals.get_json()
    document = db.session.get(System, system_id).document
    assert body == totals_answer(document)
    # system_totals' answer, with at system level what each total misses
    plain = system_totals(document).to_dict()
    assert {k: v for k, v in body.items() if k not in ("values", "missing")} == {
        k: v for k, v in plain.items() if k not in ("values", "missing")
    }
    assert plain["missing"] == {} and body["missing"]
    assert body["values"]["ift"]["value"] == plain["values"]["ift"]["value"]
    assert body["rotation_years"] > 0 and len(body["steps"]) == 10
    first = body["steps"][0]
    assert first["step_id"] == STEP["id"]
    assert first["interventions"][LABOUR["id"]]["values"]["ift"] == {
        "value": 2,
        "unit": "IFT",
        "unreviewed": 0.0,  # with_values' ift is reviewed
    }
    assert body["values"]["ift"]["unit"] == "IFT/year"
    assert editor.get("/api/v1/systems/999999/totals").status_code == 404


def test_the_review_pages_and_filters_a_long_run(client_as):
    """310 cells: 50 suggestions a page, a level filter over the whole run, the cells the run
    could not calculate on a filter of their own, and apply-all of one level only."""
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_values()).get_json()["id"]
    run = started(editor, system_id)
    reviewer = client_as("reviewer")
    url = f"/review/runs/{run.id}"
    found = suggestions(run)
    pages = -(-len(found) // 50)
    assert pages >= 2
    first = reviewer.get(url).get_data(as_text=True)
    assert first.count("review-item") == 50 and f"Page 1 of {pages}" in first
    last = reviewer.get(f"{url}?page={pages}").get_data(as_text=True)
    assert last.count("review-item") == len(found) - 50 * (pages - 1)
    errors = [s for s in found.values() if s.level == "error"]
    assert errors, "the stated fuel of 500 L/ha is out of bounds"
    only_errors = reviewer.get(f"{url}?level=error").get_data(as_text=True)
    assert only_errors.count("review-item") == len(errors)
    assert f"Showing the suggestions with errors: {len(errors)}." in only_errors
    not_calculated = len(run.items) - sum(1 for s in found.values() if s.field in run.items)
    assert f"{not_calculated} value(s) with nothing proposed" in first
    uncalculated = reviewer.get(f"{url}?level=nothing").get_data(as_text=True)
    assert uncalculated.count("review-item nothing-proposed") == min(50, not_calculated)
    assert f"Showing what was proposed nothing for: {not_calculated}." in uncalculated
    assert reviewer.get(f"{url}?level=nonsense").status_code == 200  # every cell, unfiltered
    clean = [s for s in found.values() if s.level is None]
    apply_clean = f"/review/runs/{run.id}/apply-all?level=none&back={url}?level%3Dnone"
    confirm = soup(reviewer.get(apply_clean))
    assert counts_of(confirm)["Will be applied"] == f"{len(clean):,}"
    assert by_id(confirm, "applied-note").get_text().startswith("Applied values are predictions")
    carried = {i["name"]: i["value"] for i in confirm.select("form input[type=hidden]")}
    done = reviewer.submit(apply_clean.partition("?")[0], carried, page=apply_clean)
    assert done.status_code == 302 and "level=none" in done.headers["Location"]
    db.session.expire_all()
    statuses = {s.status for s in suggestions(run).values() if s.level is None}
    assert statuses == {"applied"}
    assert all(s.status != "applied" for s in suggestions(run).values() if s.level == "error")
    viewer = client_as("viewer")
    assert viewer.get(apply_clean).status_code == 403


def test_the_api_answers_a_run_as_a_batch_calculation_summary(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_values(ift=(1.5, True))).get_json()["id"]
    run = started(editor, system_id)
    answer = editor.get(f"/api/v1/systems/{system_id}/runs/{run.id}", headers=editor.headers)
    assert answer.status_code == 200
    summary = answer.get_json()
    assert summary["totalMissing"] == len(run.items) == 31 * len(CALCULATORS) - 1
    results = summary["results"]
    assert summary["calculatedCount"] == sum(1 for r in results if r["success"]) > 0
    fuel = next(r for r in results if r["indicatorKey"] == "gnr" and r["stepIndex"] == 0)
    assert fuel["interventionIndex"] == 0 and fuel["value"] == 500
    assert fuel["success"] is False and "outside the plausible range" in fuel["error"]
    calculated = next(r for r in results if r["success"])
    assert calculated["status"] == "pending" and calculated["suggestion_id"]
    assert calculated["confidence"] in ("high", "medium", "low")
    failed = next(r for r in results if r["suggestion_id"] is None)
    assert failed["success"] is False and failed["error"]
    missing = editor.get(f"/api/v1/systems/{system_id}/runs/999999", headers=editor.headers)
    assert missing.status_code == 404 and missing.get_json()["error"]["code"]


def test_only_an_offline_batch_is_shared_by_workers(app):
    kind = SystemCalculation()
    assert kind.chunk_size({"action": "missing"}) is not None
    for action in ("calculate", "refine"):
        assert kind.chunk_size({"action": action}) is None


def test_blank_text_is_missing_and_other_text_is_never_calculated_over():
    document = with_values(gnr=("  ", False), ift=("beaucoup", False))
    cells = missing_cells(document)
    assert path("gnr") in cells
    assert path("ift") not in cells
    places = Places(document)
    assert is_filled(places, path("ift")) and not is_filled(places, path("gnr"))
