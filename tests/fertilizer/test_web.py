"""The fertilizer workspace through the test client and a real worker: ask, watch, read,
save to a culture, export; and the JSON API."""

import io
import json

import pytest

from tests.fertilizer.profiles import PLAN_KEYS, TOMATO_FILE
from tests.support.app import wait_for
from tests.support.html import soup
from webapp.cultures.catalog import create_culture
from webapp.extensions import db
from webapp.fertilizer.models import PlanRecord
from webapp.fertilizer.request import parse_request
from webapp.fertilizer.season import season_of
from webapp.fertilizer.target import plan_words
from webapp.jobs.models import Run, RunStatus
from webapp.review.models import Change
from webapp.review.targets import target_for


def finished(run_id: int) -> Run:
    def done():
        db.session.expire_all()
        run = db.session.get(Run, run_id)
        db.session.commit()
        return run if run and not run.is_live else None

    return wait_for(done, timeout=30)


def upload(client, content: bytes, name: str = "profile.json", **fields):
    data = {"profile_file": (io.BytesIO(content), name), "provider": "offline", **fields}
    return client.submit(
        "/fertilizer", data, page="/fertilizer", content_type="multipart/form-data"
    )


def kopfsalat():
    """A culture the offline gateway can plan for: a 45-day season."""
    culture = create_culture(
        {
            "name": "Kopfsalat",
            "growth_duration_days": 40,
            "harvest_duration_days": 5,
            "harvest_method": "per_plant",
            "distance_within_row_cm": 30,
            "row_spacing_cm": 30,
        }
    )
    db.session.commit()
    return culture


def run_id_of(response) -> int:
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    return int(response.headers["Location"].rstrip("/").split("/")[-1])


@pytest.mark.worker
def test_upload_a_profile_and_read_the_plan(client_as, worker):
    editor = client_as("editor")
    response = upload(editor, TOMATO_FILE.read_bytes(), region="Kantō", soil_k="1")
    run_id = run_id_of(response)
    finished(run_id)
    to_plan = editor.get(f"/fertilizer/runs/{run_id}")
    assert to_plan.status_code == 302
    htmx_poll = editor.get(f"/fertilizer/runs/{run_id}", headers={"HX-Request": "true"})
    assert htmx_poll.headers["HX-Redirect"] == to_plan.headers["Location"]

    page = editor.get(to_plan.headers["Location"]).get_data(as_text=True)
    assert "Fertilizer plan #" in page and "トマト" in page
    assert 'id="plan-totals"' in page and "P2O5" in page and "= P ÷ 0.4364" in page
    assert 'id="plan-applications"' in page and "生育期, day ~40" in page
    assert '<svg id="season-chart"' in page and 'class="bar bar-N"' in page
    assert "育苗期" in page  # the profile's stages band the chart
    assert "https://bmp.ifas.ufl.edu/crop-recommendations/tomatoes" in page
    assert 'id="plan-method">published extension range<' in page
    # What each total is stands beside it: the K index read as the source's class.
    assert "dose: soil K “low”" in page and "upper bound: soil test not given" in page
    assert "region Kantō" in page and "soil P —, K 1" in page
    assert "Save to a culture" not in page  # editors do not save plans

    record = db.session.query(PlanRecord).one()
    assert record.run_id == run_id and record.created_by.email
    exported = editor.get(f"/fertilizer/plans/{record.id}.json")
    assert exported.headers["Content-Disposition"].startswith("attachment")
    assert json.loads(exported.get_data(as_text=True)) == record.plan
    assert set(record.plan) == PLAN_KEYS


@pytest.mark.worker
def test_an_unknown_crop_ends_with_the_reason_and_no_plan(client_as, worker):
    editor = client_as("editor")
    okra = json.dumps({"crop": {"crop_id": "okra", "name": "Okra"}})
    response = editor.submit(
        "/fertilizer", {"profile_json": okra, "provider": "offline"}, page="/fertilizer"
    )
    run_id = run_id_of(response)
    # A run that did nothing is not green: its one item failed, so the run failed.
    run = finished(run_id)
    assert (run.status, run.error_code) == (RunStatus.failed, "no_item_done")
    assert run.message == "0 of 1 item(s) done, 1 with errors."
    page = editor.get(f"/fertilizer/runs/{run_id}").get_data(as_text=True)
    assert "No plan: no reference data for Okra" in page
    assert 'data-status="failed"' in page and 'class="badge status-failed">failed<' in page
    assert "succeeded" not in page
    assert db.session.query(PlanRecord).count() == 0
    api = editor.get(f"/api/v1/runs/{run_id}").get_json()
    assert api["status"] == "failed" and api["error"]["code"] == "no_item_done"


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        (b"{broken", "p.json", "This is not JSON"),
        (b'{"crop": {"name": "Tomato"}}', "p.json", "crop_profile.crop.crop_id: missing key"),
        (b"\xff\xfe\x00", "p.json", "The file is not UTF-8 text."),
        (b"{}", "p.csv", "Only .json crop profiles."),
    ],
)
def test_a_bad_profile_re_renders_the_form_with_the_reason_and_queues_nothing(
    client_as, idle_queue, content, name, message
):
    editor = client_as("editor")
    response = upload(editor, content, name, region="Bretagne", target_yield="4")
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert message in page
    assert 'value="Bretagne"' in page and 'value="4"' in page  # nothing typed is lost
    assert db.session.query(Run).count() == 0


def test_bad_conditions_are_marked_on_their_fields(client_as, idle_queue):
    editor = client_as("editor")
    response = upload(editor, TOMATO_FILE.read_bytes(), target_yield="lots", organic_n="2")
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "Give a number, not &#39;lots&#39;." in page
    assert "育苗期" in page  # the uploaded profile is kept in the text box
    response = upload(editor, TOMATO_FILE.read_bytes(), growth_period_days="2000")
    assert "Growth period: must be a whole number of days" in response.get_data(as_text=True)
    nothing = editor.submit("/fertilizer", {"provider": "offline"}, page="/fertilizer")
    assert "Upload a crop profile, paste one, or pick a culture." in nothing.get_data(as_text=True)
    assert db.session.query(Run).count() == 0


def test_every_problem_of_the_form_shows_at_once_by_label(client_as, idle_queue):
    editor = client_as("editor")
    response = upload(
        editor,
        TOMATO_FILE.read_bytes(),
        target_yield="lots",
        growth_period_days="many",
        organic_n="-2",
    )
    assert response.status_code == 422
    numbers = {error["id"]: error.get_text() for error in soup(response).select("p.error")}
    assert numbers == {
        "target_yield-error": "Give a number, not 'lots'.",
        "growth_period_days-error": "Give a number, not 'many'.",
    }
    request = upload(
        editor, TOMATO_FILE.read_bytes(), growth_period_days="2000", organic_n="-2", soil_p="A"
    )
    errors = {error["id"]: error.get_text() for error in soup(request).select("p.error")}
    assert errors == {
        "growth_period_days-error": "Growth period: must be a whole number of days, 1–730, "
        "got 2000",
        "organic_n-error": "Organic N must not be negative, got -2",
    }
    assert "organic.N" not in request.get_data(as_text=True)
    assert db.session.query(Run).count() == 0


def test_viewers_read_but_do_not_ask(client_as, idle_queue):
    viewer = client_as("viewer")
    page = viewer.get("/fertilizer").get_data(as_text=True)
    assert "No plans yet." in page and 'id="plan-form"' not in page
    refused = viewer.submit(
        "/fertilizer", {"profile_json": TOMATO_FILE.read_text()}, page="/fertilizer"
    )
    assert refused.status_code == 403
    missing_csrf = client_as("editor").post("/fertilizer", data={"profile_json": "{}"})
    assert missing_csrf.status_code == 400


@pytest.mark.worker
def test_a_culture_gets_a_plan_and_keeps_its_plan_history(client_as, worker):
    culture = kopfsalat()
    reviewer = client_as("reviewer")
    form_page = reviewer.get(f"/fertilizer?culture={culture.id}").get_data(as_text=True)
    assert f'<option selected value="{culture.id}">Kopfsalat</option>' in form_page

    plan_ids = []
    for _ in range(2):
        started = reviewer.submit(
            "/fertilizer", {"culture": str(culture.id), "provider": "offline"}, page="/fertilizer"
        )
        run_id = run_id_of(started)
        finished(run_id)
        plan_url = reviewer.get(f"/fertilizer/runs/{run_id}").headers["Location"]
        plan_page = reviewer.get(plan_url).get_data(as_text=True)
        # 40 days to first harvest and 5 of harvest: a 45-day season, all N basal.
        assert "growth period 45 days" in plan_page and "topdress" not in plan_page
        assert f'<option value="{culture.id}" selected>' in plan_page
        plan_id = int(plan_url.split("/")[-1])
        saved = reviewer.submit(
            f"/fertilizer/plans/{plan_id}/save", {"culture": str(culture.id)}, page=plan_url
        )
        assert saved.status_code == 302
        plan_ids.append(plan_id)

    page = reviewer.get(f"/cultures/{culture.id}").get_data(as_text=True)
    assert 'id="plan-history"' in page
    assert page.index(f'#{plan_ids[1]}</a> <span class="badge">current</span>') < page.index(
        f"#{plan_ids[0]}</a>"
    )
    changes = (
        db.session.query(Change)
        .filter_by(target_id=culture.id, field="fertilizer_plan")
        .order_by(Change.id)
        .all()
    )
    assert [c.new_value for c in changes] == [{"plan_id": i} for i in plan_ids]
    assert changes[1].old_value == {"plan_id": plan_ids[0]}
    assert "Fertilizer plan" in page  # the history names the field
    # ... and shows each plan in words, never its stored value.
    history = soup(page).find(id="history").get_text()
    newest = db.session.get(PlanRecord, plan_ids[1])
    assert f"Plan #{newest.id} — {newest.crop_name}: {newest.label}" in history
    assert "plan_id" not in history
    listed = soup(reviewer.get("/fertilizer")).find("a", string=culture.label)
    assert listed["href"] == f"/cultures/{culture.id}"  # the plan list names the culture

    editor = client_as("editor")
    refused = editor.submit(
        f"/fertilizer/plans/{plan_ids[0]}/save", {"culture": str(culture.id)}, page="/fertilizer"
    )
    assert refused.status_code == 403


@pytest.mark.worker
def test_a_plan_run_proposes_its_plan_to_the_culture_and_a_save_is_undone(client_as, worker):
    culture = kopfsalat()
    reviewer = client_as("reviewer")
    headers = {"X-CSRFToken": reviewer.csrf_token("/")}
    runs = []
    for _ in range(2):
        started = reviewer.submit(
            "/fertilizer", {"culture": str(culture.id), "provider": "offline"}, page="/fertilizer"
        )
        runs.append(finished(run_id_of(started)).id)
    first, second = (db.session.query(PlanRecord).filter_by(run_id=r).one() for r in runs)
    # The run's plan is a proposal for the culture, listed and applied like any other.
    listed = reviewer.get(f"/api/v1/runs/{runs[0]}/suggestions").get_json()
    [target] = listed["targets"]
    assert (target["type"], target["id"], target["name"]) == (
        "culture_plan",
        culture.id,
        "Kopfsalat",
    )
    [proposal] = target["suggestions"]
    assert proposal["value"] == {"plan_id": first.id}
    assert proposal["label"] == "Fertilizer plan" and proposal["current_value"] is None
    applied = reviewer.post(
        f"/api/v1/runs/{runs[0]}/apply", json={"suggestions": [proposal["id"]]}, headers=headers
    )
    assert applied.status_code == 200 and applied.get_json()["applied"] == [proposal["id"]]
    db.session.expire_all()
    assert db.session.get(PlanRecord, first.id).culture_id == culture.id
    # Saving the second plan from its page is the apply of its proposal; its undo restores
    # the first as the culture's current plan.
    plan_url = f"/fertilizer/plans/{second.id}"
    saved = reviewer.submit(f"{plan_url}/save", {"culture": str(culture.id)}, page=plan_url)
    assert saved.status_code == 302 and "undo=" in saved.headers["Location"]
    page = reviewer.get(saved.headers["Location"]).get_data(as_text=True)
    assert "Undo this save" in page
    group = saved.headers["Location"].split("undo=")[1]
    undone = reviewer.submit(f"/review/undo/{group}", {"back": plan_url}, page=plan_url)
    assert undone.status_code == 302
    culture_page = reviewer.get(f"/cultures/{culture.id}").get_data(as_text=True)
    assert f'#{first.id}</a> <span class="badge">current</span>' in culture_page
    sources = [c.source for c in db.session.query(Change).filter_by(target_type="culture_plan")]
    assert sources == ["apply", "apply", "undo"]


def test_the_api_recommends_or_says_why_not(client_as):
    editor = client_as("editor")
    headers = {"X-CSRFToken": editor.csrf_token("/")}
    profile = json.loads(TOMATO_FILE.read_text(encoding="utf-8"))
    made = editor.post(
        "/api/v1/fertilizer/recommend",
        json={"crop_profile": profile, "organic": {"N": 1, "P": 0, "K": 0}},
        headers=headers,
    )
    assert made.status_code == 200
    body = made.get_json()
    assert body["plan"]["crop"] == {"crop_id": "トマト", "name": "トマト"}
    assert body["provider"] == "reference"
    assert [i["code"] for i in body["issues"]] == ["basis_uncertain"]
    assert editor.get(f"/api/v1/fertilizer/plans/{body['plan_id']}").get_json() == body["plan"]

    invalid = editor.post(
        "/api/v1/fertilizer/recommend", json={"crop_profile": {"crop": {}}}, headers=headers
    )
    assert invalid.status_code == 422
    assert invalid.get_json()["error"] == {
        "code": "invalid_request",
        "message": "crop_profile.crop.crop_id: missing key",
        "details": {
            "crop_profile.crop.crop_id": "missing key",
            "errors": [
                {
                    "loc": "crop_profile.crop.crop_id",
                    "code": "invalid_request",
                    "message": "crop_profile.crop.crop_id: missing key",
                }
            ],
        },
    }
    unknown = editor.post(
        "/api/v1/fertilizer/recommend",
        json={"crop_profile": {"crop": {"crop_id": "okra", "name": "Okra"}}},
        headers=headers,
    )
    assert unknown.status_code == 422
    assert unknown.get_json()["error"]["code"] == "no_reference_data"
    assert unknown.get_json()["error"]["details"] == {"crop": "Okra"}
    no_provider = editor.post(
        "/api/v1/fertilizer/recommend",
        json={"crop_profile": profile, "provider": "oracle"},
        headers=headers,
    )
    assert no_provider.status_code == 422
    assert no_provider.get_json()["error"]["code"] == "invalid_request"
    not_json = editor.post("/api/v1/fertilizer/recommend", data="[", headers=headers)
    assert not_json.status_code == 400 and not_json.get_json()["error"]["code"]

    viewer = client_as("viewer")
    forbidden = viewer.post(
        "/api/v1/fertilizer/recommend",
        json={"crop_profile": profile},
        headers={"X-CSRFToken": viewer.csrf_token("/")},
    )
    assert forbidden.status_code == 403


def test_a_cultures_growth_duration_alone_is_the_season_with_its_harvest_window_unknown(
    client_as, idle_queue
):
    culture = create_culture({"name": "Radieschen", "growth_duration_days": 70})
    db.session.commit()
    editor = client_as("editor")
    started = editor.submit(
        "/fertilizer", {"culture": str(culture.id), "provider": "offline"}, page="/fertilizer"
    )
    run = db.session.get(Run, run_id_of(started))
    document = run.params["request"]
    # Not FAO's 158-day total for the crop: the culture's own 70 days, said for what it is.
    assert document["growth_period_days"] == 70
    assert document["growth_period_basis"] == "to_first_harvest"
    season = season_of(parse_request(document), None)
    assert season.days == 70
    assert season.note.startswith("Season: 70 days, the culture's growth to first harvest;")


def test_a_stored_plan_value_is_its_id_and_anything_else_names_no_plan(app):
    culture = kopfsalat()
    target = target_for("culture_plan")
    assert target.current([culture.id]) == {culture.id: {"fertilizer_plan": None}}
    with pytest.raises(ValueError, match="names no plan"):
        target.write(culture.id, {"fertilizer_plan": "plan #3: N 1 · P 1 · K 1 g/m²"}, None)
    assert plan_words(None) == "—" and plan_words({"plan_id": 999999}) == "Plan #999999 (deleted)"


def test_a_plan_asked_of_a_model_is_made_in_a_run_not_inside_the_request(
    client_as, idle_queue, openai_server, monkeypatch
):
    """With a model provider the API answers at once, 202 with the run's id; the offline
    answer stays immediate."""
    from dataclasses import replace

    from flask import current_app

    from tests.fertilizer.test_llm_gateway import ANSWER
    from tests.support.openai_server import responses_body
    from tests.support.tables import run_here
    from webapp.fertilizer.runs import PlanRun

    settings = replace(
        current_app.config["FURROW"],
        provider="openai",
        openai_base_url=openai_server.base_url,
        openai_api_key="sk-t",
    )
    monkeypatch.setitem(current_app.config, "FURROW", settings)
    editor = client_as("editor")
    headers = {"X-CSRFToken": editor.csrf_token("/")}
    profile = json.loads(TOMATO_FILE.read_text(encoding="utf-8"))
    queued = editor.post(
        "/api/v1/fertilizer/recommend",
        json={"crop_profile": profile, "region": "Kantō"},
        headers=headers,
    )
    assert queued.status_code == 202 and openai_server.requests == []  # the model not asked
    run = db.session.get(Run, queued.get_json()["run_id"])
    assert (run.kind, run.status) == (PlanRun.name, RunStatus.queued)
    openai_server.reply(responses_body(ANSWER, citations=[("https://edis.ifas.ufl.edu", "UF")]))
    run = run_here(run, PlanRun())
    assert run.status == RunStatus.succeeded
    followed = editor.get(f"/api/v1/runs/{run.id}").get_json()
    assert followed["status"] == "succeeded"
    offline = editor.post(
        "/api/v1/fertilizer/recommend",
        json={"crop_profile": profile, "provider": "offline"},
        headers=headers,
    )
    assert offline.status_code == 200 and offline.get_json()["provider"] == "reference"
